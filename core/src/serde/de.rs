//! Reading serde types from the strict reader's tape, zero-copy.

use ::serde::de::{self, DeserializeSeed, IntoDeserializer, Visitor};

use super::{MAX_BYTES, MAX_DECODED_STR};
use crate::error::{Error, Limit, Result};
use crate::json::{Elements, Kind, Members, Str, Value};

/// A serde `Deserializer` over one parsed value (see [`super::from_slice`]); it borrows
/// from the document, so `&'de str` fields borrow the input text.
#[derive(Clone, Copy, Debug)]
pub struct Deserializer<'de> {
    value: Value<'de>,
}

impl<'de> Deserializer<'de> {
    /// A deserializer of `value`.
    #[must_use]
    pub fn new(value: Value<'de>) -> Self {
        Deserializer { value }
    }
}

const INVALID_TYPE: Error = Error::Schema("invalid type");
const INVALID_LENGTH: Error = Error::Schema("invalid length");

/// Hands a string to `visitor`: borrowed when it has no escapes, else decoded on the stack.
fn visit_string<'de, V: Visitor<'de>>(s: Str<'de>, offset: usize, visitor: V) -> Result<V::Value> {
    if let Some(plain) = s.as_plain() {
        return visitor.visit_borrowed_str(plain);
    }
    let mut buf = [0u8; MAX_DECODED_STR];
    let text = s.decode_into(&mut buf).map_err(|_| Error::Limit { kind: Limit::Capacity, offset })?;
    visitor.visit_str(text)
}

impl<'de> de::Deserializer<'de> for Deserializer<'de> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let v = self.value;
        match v.kind() {
            Kind::Null => visitor.visit_unit(),
            Kind::True => visitor.visit_bool(true),
            Kind::False => visitor.visit_bool(false),
            Kind::Number => {
                if v.is_integer_literal() {
                    let text = v.number_text().unwrap_or("");
                    if text.starts_with('-') {
                        if let Ok(i) = text.parse::<i64>() {
                            return visitor.visit_i64(i);
                        }
                    } else if let Ok(u) = text.parse::<u64>() {
                        return visitor.visit_u64(u);
                    }
                }
                visitor.visit_f64(v.as_f64().unwrap_or(0.0))
            }
            Kind::String => visit_string(v.as_str().unwrap_or(Str::decoded("")), v.offset(), visitor),
            Kind::Array => {
                let mut seq = Seq { elements: v.elements() };
                let out = visitor.visit_seq(&mut seq)?;
                if seq.elements.len() != 0 {
                    return Err(INVALID_LENGTH);
                }
                Ok(out)
            }
            Kind::Object => visitor.visit_map(Map { members: v.members(), value: None }),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        if self.value.is_null() {
            visitor.visit_none()
        } else {
            visitor.visit_some(self)
        }
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        if self.value.is_null() {
            visitor.visit_unit()
        } else {
            Err(INVALID_TYPE)
        }
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(self, _: &'static str, visitor: V) -> Result<V::Value> {
        self.deserialize_unit(visitor)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(self, _: &'static str, visitor: V) -> Result<V::Value> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_bytes<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        // The one spelling of binary values: padded URL-safe base64 (see the module docs).
        let s = self.value.as_str().ok_or(INVALID_TYPE)?;
        let text = s.as_plain().ok_or(Error::Encoding("base64url"))?;
        let mut buf = [0u8; MAX_BYTES];
        let n = crate::encoding::decode_base64url_padded(text.as_bytes(), &mut buf).map_err(|e| match e {
            Error::BufferTooSmall { .. } => Error::Limit { kind: Limit::Capacity, offset: self.value.offset() },
            other => other,
        })?;
        visitor.visit_bytes(buf.get(..n).unwrap_or(&[]))
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_bytes(visitor)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        let v = self.value;
        match v.kind() {
            Kind::String => visitor.visit_enum(Variant {
                name: v.as_str().unwrap_or(Str::decoded("")),
                offset: v.offset(),
                value: None,
            }),
            Kind::Object if v.len() == 1 => {
                let (name, value) = v.members().next().ok_or(INVALID_TYPE)?;
                visitor.visit_enum(Variant { name, offset: v.offset(), value: Some(value) })
            }
            _ => Err(INVALID_TYPE),
        }
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_unit()
    }

    ::serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        seq tuple tuple_struct map struct identifier
    }
}

struct Seq<'de> {
    elements: Elements<'de>,
}

impl<'de> de::SeqAccess<'de> for &mut Seq<'de> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        match self.elements.next() {
            Some(v) => seed.deserialize(Deserializer::new(v)).map(Some),
            None => Ok(None),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.elements.len())
    }
}

struct Map<'de> {
    members: Members<'de>,
    value: Option<Value<'de>>,
}

impl<'de> de::MapAccess<'de> for Map<'de> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        match self.members.next() {
            Some((name, value)) => {
                self.value = Some(value);
                // The name's offset: its opening quote, just before the value's.
                seed.deserialize(Key { name, offset: value.offset() }).map(Some)
            }
            None => Ok(None),
        }
    }

    fn next_value_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value> {
        let value = self.value.take().ok_or(Error::InvalidArgument("map value before its key"))?;
        seed.deserialize(Deserializer::new(value))
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.members.len())
    }
}

/// A member name as a map key: a string, or (as `serde_json` reads keys) the integer or
/// `bool` it spells.
struct Key<'de> {
    name: Str<'de>,
    offset: usize,
}

macro_rules! key_number {
    ($($name:ident => $visit:ident: $t:ty),*) => {$(
        fn $name<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
            let mut buf = [0u8; 48];
            match self.name.decode_into(&mut buf).ok().and_then(|t| t.parse::<$t>().ok()) {
                Some(n) => visitor.$visit(n),
                None => Err(INVALID_TYPE),
            }
        }
    )*};
}

impl<'de> de::Deserializer<'de> for Key<'de> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visit_string(self.name, self.offset, visitor)
    }

    key_number!(deserialize_i8 => visit_i8: i8, deserialize_i16 => visit_i16: i16,
                deserialize_i32 => visit_i32: i32, deserialize_i64 => visit_i64: i64,
                deserialize_i128 => visit_i128: i128,
                deserialize_u8 => visit_u8: u8, deserialize_u16 => visit_u16: u16,
                deserialize_u32 => visit_u32: u32, deserialize_u64 => visit_u64: u64,
                deserialize_u128 => visit_u128: u128, deserialize_bool => visit_bool: bool);

    fn deserialize_newtype_struct<V: Visitor<'de>>(self, _: &'static str, visitor: V) -> Result<V::Value> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        visitor.visit_enum(Variant { name: self.name, offset: self.offset, value: None })
    }

    ::serde::forward_to_deserialize_any! {
        f32 f64 char str string bytes byte_buf option unit unit_struct
        seq tuple tuple_struct map struct identifier ignored_any
    }
}

/// An enum: `"Name"`, or `{"Name": value}`.
struct Variant<'de> {
    name: Str<'de>,
    offset: usize,
    value: Option<Value<'de>>,
}

impl<'de> de::EnumAccess<'de> for Variant<'de> {
    type Error = Error;
    type Variant = Payload<'de>;

    fn variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<(T::Value, Self::Variant)> {
        let name = seed.deserialize(Key { name: self.name, offset: self.offset })?;
        Ok((name, Payload(self.value)))
    }
}

/// What follows a variant's name: nothing (`"Name"`) or a value.
struct Payload<'de>(Option<Value<'de>>);

impl<'de> de::VariantAccess<'de> for Payload<'de> {
    type Error = Error;

    fn unit_variant(self) -> Result<()> {
        match self.0 {
            None => Ok(()),
            Some(v) if v.is_null() => Ok(()),
            Some(_) => Err(INVALID_TYPE),
        }
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value> {
        seed.deserialize(Deserializer::new(self.0.ok_or(INVALID_TYPE)?))
    }

    fn tuple_variant<V: Visitor<'de>>(self, _: usize, visitor: V) -> Result<V::Value> {
        de::Deserializer::deserialize_seq(Deserializer::new(self.0.ok_or(INVALID_TYPE)?), visitor)
    }

    fn struct_variant<V: Visitor<'de>>(self, _: &'static [&'static str], visitor: V) -> Result<V::Value> {
        de::Deserializer::deserialize_map(Deserializer::new(self.0.ok_or(INVALID_TYPE)?), visitor)
    }
}

impl<'de> IntoDeserializer<'de, Error> for Deserializer<'de> {
    type Deserializer = Self;
    fn into_deserializer(self) -> Self {
        self
    }
}
