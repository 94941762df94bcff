//! The buffer form: members written in serde's order into the caller's buffer, each moved to
//! its sorted place by an in-place rotation when it is complete (see the module docs).

use core::cmp::Ordering;

use ::serde::ser::{self, Serialize};

use super::{write_bytes, write_double, write_integer, KeySerializer, DEPTH, MAX_DEPTH};
use crate::error::{Error, Limit, Result, Syntax};
use crate::json::{cmp_utf8_as_utf16, Str};
use crate::preimage::Preimage;
use crate::sink::Sink;

/// Writes `value` into `out`; `extra` is a member `(name, canonical JSON)` added to the
/// top-level object (which must then be one).
pub(super) fn write<T: Serialize + ?Sized, P: Preimage + ?Sized>(
    value: &T,
    rule: &P,
    extra: Option<(&str, &[u8])>,
    out: &mut [u8],
    table: &mut [u32],
) -> Result<usize> {
    let mut ser =
        Ser { out: Out { buf: out, len: 0, over: false }, table, top: 0, depth: 0, rule, extra, object: false };
    value.serialize(&mut ser)?;
    if ser.extra.is_some() {
        return Err(Error::Schema("signed value must be an object"));
    }
    ser.out.finish()
}

/// [`write`] of a value that must be an object (a signature preimage).
pub(super) fn write_object<T: Serialize + ?Sized, P: Preimage + ?Sized>(
    value: &T,
    rule: &P,
    out: &mut [u8],
    table: &mut [u32],
) -> Result<usize> {
    let mut ser =
        Ser { out: Out { buf: out, len: 0, over: false }, table, top: 0, depth: 0, rule, extra: None, object: false };
    value.serialize(&mut ser)?;
    if !ser.object {
        return Err(Error::Schema("signed value must be an object"));
    }
    ser.out.finish()
}

/// The caller's buffer; past its end, only the length is counted.
struct Out<'o> {
    buf: &'o mut [u8],
    len: usize,
    /// Some output did not fit: nothing more is written or moved.
    over: bool,
}

impl Out<'_> {
    fn finish(self) -> Result<usize> {
        if self.over {
            Err(Error::BufferTooSmall { needed: self.len })
        } else {
            Ok(self.len)
        }
    }
}

impl Sink for Out<'_> {
    #[inline]
    fn write(&mut self, bytes: &[u8]) -> Result<()> {
        let end = self.len.saturating_add(bytes.len());
        if !self.over {
            match self.buf.get_mut(self.len..end) {
                Some(dst) => dst.copy_from_slice(bytes),
                None => self.over = true,
            }
        }
        self.len = end;
        Ok(())
    }
}

pub(super) struct Ser<'o, 't, 'r, P: ?Sized> {
    out: Out<'o>,
    /// Start offsets (the key's opening quote) of the members of the open objects.
    table: &'t mut [u32],
    top: usize,
    /// Open containers.
    depth: usize,
    rule: &'r P,
    extra: Option<(&'r str, &'r [u8])>,
    /// The top-level value was an object.
    object: bool,
}

impl<P: Preimage + ?Sized> Ser<'_, '_, '_, P> {
    fn open(&mut self, bracket: u8) -> Result<()> {
        if self.depth >= MAX_DEPTH {
            return Err(DEPTH);
        }
        if self.depth == 0 && bracket == b'{' {
            self.object = true;
        }
        self.depth += 1;
        self.out.write(&[bracket])
    }

    /// Begins a member named `key` of the innermost object (whose table entries start at
    /// `base`); `false` when the rule drops it (nothing written).
    fn member(&mut self, key: &str) -> Result<bool> {
        if !self.rule.keep(self.depth, Str::decoded(key)) {
            return Ok(false);
        }
        self.begin_member(key)?;
        Ok(true)
    }

    /// Begins a member, whatever the rule says.
    fn begin_member(&mut self, key: &str) -> Result<()> {
        let slot = self.table.get_mut(self.top).ok_or(Error::Limit { kind: Limit::Capacity, offset: 0 })?;
        *slot = u32::try_from(self.out.len).map_err(|_| Error::Limit { kind: Limit::Size, offset: 0 })?;
        self.top += 1;
        crate::jcs::write_plain_str(key, &mut self.out)?;
        self.out.write(b":")
    }

    /// Ends the member just written (`,` after it) and moves it to its sorted place among
    /// the members of its object from table entry `base` on.
    fn settle(&mut self, base: usize) -> Result<()> {
        self.out.write(b",")?;
        let k = self.top - 1;
        if k == base || self.out.over {
            return Ok(());
        }
        let buf: &[u8] = self.out.buf;
        let new = self.table[k] as usize;
        let mut pos = k;
        while pos > base {
            match cmp_keys(buf, self.table[pos - 1] as usize, new)? {
                Ordering::Less => break,
                Ordering::Equal => return Err(Error::Json { kind: Syntax::DuplicateKey, offset: 0 }),
                Ordering::Greater => pos -= 1,
            }
        }
        if pos == k {
            return Ok(());
        }
        let end = self.out.len;
        let len = end - new;
        let at = self.table[pos] as usize;
        if let Some(region) = self.out.buf.get_mut(at..end) {
            region.rotate_right(len);
        }
        for i in (pos..k).rev() {
            self.table[i + 1] = self.table[i] + len as u32;
        }
        self.table[pos] = at as u32;
        Ok(())
    }

    /// `}` for the innermost object, whose members start at table entry `base`.
    fn close_object(&mut self, base: usize) -> Result<()> {
        if self.depth == 1 {
            if let Some((name, json)) = self.extra.take() {
                // The extra member replaces one of its name that the rule dropped.
                self.begin_member(name)?;
                self.out.write(json)?;
                self.settle(base)?;
            }
        }
        self.depth -= 1;
        let had_members = self.top > base;
        self.top = base;
        if had_members {
            // The last member's comma becomes the brace.
            if !self.out.over {
                if let Some(last) = self.out.buf.get_mut(self.out.len - 1) {
                    *last = b'}';
                }
            }
            Ok(())
        } else {
            self.out.write(b"}")
        }
    }

    fn close_array(&mut self) -> Result<()> {
        self.depth -= 1;
        self.out.write(b"]")
    }
}

/// The member name starting at `start` (its opening quote): the raw text between the
/// quotes and whether it holds escapes.
fn key_at(buf: &[u8], start: usize) -> (&[u8], bool) {
    let body = buf.get(start + 1..).unwrap_or(&[]);
    let mut i = 0;
    let mut escaped = false;
    while let Some(&b) = body.get(i) {
        match b {
            b'"' => break,
            b'\\' => {
                escaped = true;
                i += 2;
            }
            _ => i += 1,
        }
    }
    (body.get(..i).unwrap_or(body), escaped)
}

/// Compares the member names at `a` and `b` by UTF-16 code units (RFC 8785 §3.2.3).
fn cmp_keys(buf: &[u8], a: usize, b: usize) -> Result<Ordering> {
    let (ka, ea) = key_at(buf, a);
    let (kb, eb) = key_at(buf, b);
    if !ea && !eb {
        return Ok(cmp_utf8_as_utf16(ka, kb));
    }
    // Names with escapes (rare: control characters, quotes, backslashes) compare decoded.
    let text = |k| core::str::from_utf8(k).map_err(|_| Error::InvalidArgument("member name"));
    Ok(Str { raw: text(ka)?, escaped: ea }.cmp_utf16(&Str { raw: text(kb)?, escaped: eb }))
}

/// A container being written.
pub(super) struct Compound<'a, 'o, 't, 'r, P: ?Sized> {
    ser: &'a mut Ser<'o, 't, 'r, P>,
    /// Table entry of the object's first member (objects).
    base: usize,
    /// No element written yet (arrays).
    first: bool,
    /// The map value to come belongs to a member the rule dropped.
    skip: bool,
    /// A variant wrapper `{"Name": ...}` encloses this container: its table base, or `None`.
    variant: Option<usize>,
    /// The rule dropped the variant's member: ignore everything until the end.
    muted: bool,
}

impl<'a, 'o, 't, 'r, P: Preimage + ?Sized> Compound<'a, 'o, 't, 'r, P> {
    fn element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        if self.muted {
            return Ok(());
        }
        if !self.first {
            self.ser.out.write(b",")?;
        }
        self.first = false;
        value.serialize(&mut *self.ser)
    }

    fn field<T: Serialize + ?Sized>(&mut self, key: &str, value: &T) -> Result<()> {
        if self.muted {
            return Ok(());
        }
        if self.ser.member(key)? {
            value.serialize(&mut *self.ser)?;
            self.ser.settle(self.base)?;
        }
        Ok(())
    }

    fn end_array(self) -> Result<()> {
        if !self.muted {
            self.ser.close_array()?;
        }
        self.end_variant()
    }

    fn end_object(self) -> Result<()> {
        if !self.muted {
            self.ser.close_object(self.base)?;
        }
        self.end_variant()
    }

    fn end_variant(self) -> Result<()> {
        if let Some(base) = self.variant {
            if !self.muted {
                self.ser.settle(base)?;
            }
            self.ser.close_object(base)?;
        }
        Ok(())
    }
}

macro_rules! int {
    ($($name:ident: $t:ty),*) => {$(
        fn $name(self, v: $t) -> Result<()> {
            #[allow(unused_comparisons)]
            let negative = v < 0;
            write_integer(negative, (v as i128).unsigned_abs(), &mut self.out)
        }
    )*};
}

impl<'a, 'o, 't, 'r, P: Preimage + ?Sized> ser::Serializer for &'a mut Ser<'o, 't, 'r, P> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Compound<'a, 'o, 't, 'r, P>;
    type SerializeTuple = Compound<'a, 'o, 't, 'r, P>;
    type SerializeTupleStruct = Compound<'a, 'o, 't, 'r, P>;
    type SerializeTupleVariant = Compound<'a, 'o, 't, 'r, P>;
    type SerializeMap = Compound<'a, 'o, 't, 'r, P>;
    type SerializeStruct = Compound<'a, 'o, 't, 'r, P>;
    type SerializeStructVariant = Compound<'a, 'o, 't, 'r, P>;

    int!(serialize_i8: i8, serialize_i16: i16, serialize_i32: i32, serialize_i64: i64,
         serialize_u8: u8, serialize_u16: u16, serialize_u32: u32, serialize_u64: u64);

    fn serialize_i128(self, v: i128) -> Result<()> {
        write_integer(v < 0, v.unsigned_abs(), &mut self.out)
    }
    fn serialize_u128(self, v: u128) -> Result<()> {
        write_integer(false, v, &mut self.out)
    }
    fn serialize_bool(self, v: bool) -> Result<()> {
        self.out.write(if v { b"true" } else { b"false" })
    }
    fn serialize_f32(self, v: f32) -> Result<()> {
        write_double(f64::from(v), &mut self.out)
    }
    fn serialize_f64(self, v: f64) -> Result<()> {
        write_double(v, &mut self.out)
    }
    fn serialize_char(self, v: char) -> Result<()> {
        let mut buf = [0u8; 4];
        crate::jcs::write_plain_str(v.encode_utf8(&mut buf), &mut self.out)
    }
    fn serialize_str(self, v: &str) -> Result<()> {
        crate::jcs::write_plain_str(v, &mut self.out)
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<()> {
        write_bytes(v, &mut self.out)
    }
    fn serialize_none(self) -> Result<()> {
        self.out.write(b"null")
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<()> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<()> {
        self.out.write(b"null")
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<()> {
        self.out.write(b"null")
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, variant: &'static str) -> Result<()> {
        crate::jcs::write_plain_str(variant, &mut self.out)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, value: &T) -> Result<()> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<()> {
        self.open(b'{')?;
        let base = self.top;
        if self.member(variant)? {
            value.serialize(&mut *self)?;
            self.settle(base)?;
        }
        self.close_object(base)
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq> {
        self.open(b'[')?;
        Ok(Compound { base: 0, ser: self, first: true, skip: false, variant: None, muted: false })
    }
    fn serialize_tuple(self, len: usize) -> Result<Self::SerializeTuple> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_struct(self, _: &'static str, len: usize) -> Result<Self::SerializeTupleStruct> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant> {
        self.open(b'{')?;
        let outer = self.top;
        let kept = self.member(variant)?;
        if kept {
            self.open(b'[')?;
        }
        Ok(Compound { base: 0, ser: self, first: true, skip: false, variant: Some(outer), muted: !kept })
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap> {
        self.open(b'{')?;
        let base = self.top;
        Ok(Compound { base, ser: self, first: true, skip: false, variant: None, muted: false })
    }
    fn serialize_struct(self, _: &'static str, len: usize) -> Result<Self::SerializeStruct> {
        self.serialize_map(Some(len))
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant> {
        self.open(b'{')?;
        let outer = self.top;
        let kept = self.member(variant)?;
        if kept {
            self.open(b'{')?;
        }
        let base = self.top;
        Ok(Compound { base, ser: self, first: true, skip: false, variant: Some(outer), muted: !kept })
    }
    fn collect_str<T: core::fmt::Display + ?Sized>(self, value: &T) -> Result<()> {
        super::write_display(value, &mut self.out)
    }
}

impl<P: Preimage + ?Sized> ser::SerializeSeq for Compound<'_, '_, '_, '_, P> {
    type Ok = ();
    type Error = Error;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        self.element(value)
    }
    fn end(self) -> Result<()> {
        self.end_array()
    }
}

impl<P: Preimage + ?Sized> ser::SerializeTuple for Compound<'_, '_, '_, '_, P> {
    type Ok = ();
    type Error = Error;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        self.element(value)
    }
    fn end(self) -> Result<()> {
        self.end_array()
    }
}

impl<P: Preimage + ?Sized> ser::SerializeTupleStruct for Compound<'_, '_, '_, '_, P> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        self.element(value)
    }
    fn end(self) -> Result<()> {
        self.end_array()
    }
}

impl<P: Preimage + ?Sized> ser::SerializeTupleVariant for Compound<'_, '_, '_, '_, P> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        self.element(value)
    }
    fn end(self) -> Result<()> {
        self.end_array()
    }
}

impl<P: Preimage + ?Sized> ser::SerializeMap for Compound<'_, '_, '_, '_, P> {
    type Ok = ();
    type Error = Error;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<()> {
        let ser = &mut *self.ser;
        let mut kept = false;
        key.serialize(KeySerializer(|k: &str| {
            kept = ser.member(k)?;
            Ok(())
        }))?;
        self.skip = !kept;
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        if core::mem::take(&mut self.skip) {
            return Ok(());
        }
        value.serialize(&mut *self.ser)?;
        self.ser.settle(self.base)
    }
    fn end(self) -> Result<()> {
        self.end_object()
    }
}

impl<P: Preimage + ?Sized> ser::SerializeStruct for Compound<'_, '_, '_, '_, P> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result<()> {
        self.field(key, value)
    }
    fn end(self) -> Result<()> {
        self.end_object()
    }
}

impl<P: Preimage + ?Sized> ser::SerializeStructVariant for Compound<'_, '_, '_, '_, P> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result<()> {
        self.field(key, value)
    }
    fn end(self) -> Result<()> {
        self.end_object()
    }
}
