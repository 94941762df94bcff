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

    /// `deserialize_any`, before its errors get the value's position.
    fn visit_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
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
                    return Err(Error::Shape { what: "invalid length", offset: v.offset() });
                }
                Ok(out)
            }
            Kind::Object => {
                let mut map = Map { members: v.members(), value: None };
                let out = visitor.visit_map(&mut map);
                // An error raised between a key and its value (a duplicate field) is the
                // key's; any other (a missing field) is the object's, given by the caller.
                match map.value {
                    Some((_, name)) => out.map_err(at(name)),
                    None => out,
                }
            }
        }
    }
}

const fn invalid_type(offset: usize) -> Error {
    Error::Shape { what: "invalid type", offset }
}

/// Gives an error from serde's error trait, raised while the value at `offset` was being
/// visited, that position: the trait has no position to give, so its errors are
/// [`Error::Schema`] until the innermost visit that sees them makes them [`Error::Shape`]
/// (the same "fix position" step `serde_json` takes). Errors that already have a position
/// (`Shape`, `Json`, `Limit`) stay as they are.
fn at(offset: usize) -> impl FnOnce(Error) -> Error {
    move |e| match e {
        Error::Schema(what) => Error::Shape { what, offset },
        other => other,
    }
}

/// Runs `seed` on `value`. An error the seed raises after the deserializer has returned
/// (a `try_from` conversion, an untagged enum that matched no variant) is the value's too.
pub(super) fn seed_value<'de, T: DeserializeSeed<'de>>(seed: T, value: Value<'de>) -> Result<T::Value> {
    seed.deserialize(Deserializer::new(value)).map_err(at(value.offset()))
}

/// Hands a string to `visitor`: borrowed when it has no escapes, else decoded on the stack.
fn visit_string<'de, V: Visitor<'de>>(s: Str<'de>, offset: usize, visitor: V) -> Result<V::Value> {
    if let Some(plain) = s.as_plain() {
        return visitor.visit_borrowed_str(plain).map_err(at(offset));
    }
    let mut buf = [0u8; MAX_DECODED_STR];
    let text = s.decode_into(&mut buf).map_err(|_| Error::Limit { kind: Limit::Capacity, offset })?;
    visitor.visit_str(text).map_err(at(offset))
}

impl<'de> de::Deserializer<'de> for Deserializer<'de> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let offset = self.value.offset();
        self.visit_any(visitor).map_err(at(offset))
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let offset = self.value.offset();
        let out = if self.value.is_null() { visitor.visit_none() } else { visitor.visit_some(self) };
        out.map_err(at(offset))
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        if self.value.is_null() {
            visitor.visit_unit().map_err(at(self.value.offset()))
        } else {
            Err(invalid_type(self.value.offset()))
        }
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(self, _: &'static str, visitor: V) -> Result<V::Value> {
        self.deserialize_unit(visitor)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(self, _: &'static str, visitor: V) -> Result<V::Value> {
        visitor.visit_newtype_struct(self).map_err(at(self.value.offset()))
    }

    fn deserialize_bytes<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        // The one spelling of binary values: padded URL-safe base64 (see the module docs).
        let offset = self.value.offset();
        let s = self.value.as_str().ok_or(invalid_type(offset))?;
        let text = s.as_plain().ok_or(Error::Shape { what: "base64url", offset })?;
        let mut buf = [0u8; MAX_BYTES];
        let n = crate::encoding::decode_base64url_padded(text.as_bytes(), &mut buf).map_err(|e| match e {
            Error::BufferTooSmall { .. } => Error::Limit { kind: Limit::Capacity, offset },
            // Another spelling of bytes: the value does not have the type's shape.
            Error::Encoding(what) => Error::Shape { what, offset },
            other => other,
        })?;
        visitor.visit_bytes(buf.get(..n).unwrap_or(&[])).map_err(at(offset))
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
        let offset = v.offset();
        match v.kind() {
            Kind::String => {
                visitor.visit_enum(Variant { name: v.as_str().unwrap_or(Str::decoded("")), offset, value: None })
            }
            Kind::Object if v.len() == 1 => {
                let (name, name_offset, value) = v.members().next_named().ok_or(invalid_type(offset))?;
                visitor.visit_enum(Variant { name, offset: name_offset, value: Some(value) })
            }
            _ => Err(invalid_type(offset)),
        }
        .map_err(at(offset))
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_unit().map_err(at(self.value.offset()))
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
            Some(v) => seed_value(seed, v).map(Some),
            None => Ok(None),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.elements.len())
    }
}

struct Map<'de> {
    members: Members<'de>,
    /// The value of the key just read, with the offset of that key's name.
    value: Option<(Value<'de>, usize)>,
}

impl<'de> de::MapAccess<'de> for &mut Map<'de> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        match self.members.next_named() {
            Some((name, offset, value)) => {
                self.value = Some((value, offset));
                seed.deserialize(Key { name, offset }).map(Some).map_err(at(offset))
            }
            None => {
                self.value = None;
                Ok(None)
            }
        }
    }

    fn next_value_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value> {
        let (value, _) = self.value.take().ok_or(Error::InvalidArgument("map value before its key"))?;
        seed_value(seed, value)
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
                Some(n) => visitor.$visit(n).map_err(at(self.offset)),
                None => Err(invalid_type(self.offset)),
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
        let offset = self.offset;
        visitor.visit_newtype_struct(self).map_err(at(offset))
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        visitor.visit_enum(Variant { name: self.name, offset: self.offset, value: None }).map_err(at(self.offset))
    }

    ::serde::forward_to_deserialize_any! {
        f32 f64 char str string bytes byte_buf option unit unit_struct
        seq tuple tuple_struct map struct identifier ignored_any
    }
}

/// An enum: `"Name"`, or `{"Name": value}`; `offset` is the name's opening quote.
struct Variant<'de> {
    name: Str<'de>,
    offset: usize,
    value: Option<Value<'de>>,
}

impl<'de> de::EnumAccess<'de> for Variant<'de> {
    type Error = Error;
    type Variant = Payload<'de>;

    fn variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<(T::Value, Self::Variant)> {
        let name = seed.deserialize(Key { name: self.name, offset: self.offset }).map_err(at(self.offset))?;
        Ok((name, Payload { value: self.value, name_offset: self.offset }))
    }
}

/// What follows a variant's name: nothing (`"Name"`) or a value.
struct Payload<'de> {
    value: Option<Value<'de>>,
    name_offset: usize,
}

impl<'de> Payload<'de> {
    /// The variant's value; a variant that needs one and has none (`"Name"`) has the wrong
    /// type, at its name.
    fn value(self) -> Result<Value<'de>> {
        self.value.ok_or(invalid_type(self.name_offset))
    }
}

impl<'de> de::VariantAccess<'de> for Payload<'de> {
    type Error = Error;

    fn unit_variant(self) -> Result<()> {
        match self.value {
            None => Ok(()),
            Some(v) if v.is_null() => Ok(()),
            Some(v) => Err(invalid_type(v.offset())),
        }
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value> {
        seed_value(seed, self.value()?)
    }

    fn tuple_variant<V: Visitor<'de>>(self, _: usize, visitor: V) -> Result<V::Value> {
        de::Deserializer::deserialize_seq(Deserializer::new(self.value()?), visitor)
    }

    fn struct_variant<V: Visitor<'de>>(self, _: &'static [&'static str], visitor: V) -> Result<V::Value> {
        de::Deserializer::deserialize_map(Deserializer::new(self.value()?), visitor)
    }
}

impl<'de> IntoDeserializer<'de, Error> for Deserializer<'de> {
    type Deserializer = Self;
    fn into_deserializer(self) -> Self {
        self
    }
}
