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
    table: &mut [u64],
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
    table: &mut [u64],
) -> Result<usize> {
    let mut ser =
        Ser { out: Out { buf: out, len: 0, over: false }, table, top: 0, depth: 0, rule, extra: None, object: false };
    value.serialize(&mut ser)?;
    if !ser.object {
        return Err(Error::Schema("signed value must be an object"));
    }
    ser.out.finish()
}

const DUPLICATE: Error = Error::Json { kind: Syntax::DuplicateKey, offset: 0 };

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

impl Out<'_> {
    /// Writes `s` as a JSON string (see [`super::write_str`]) in one copy when nothing in it
    /// needs an escape; returns the length written between the quotes and whether the text
    /// is all ASCII and unescaped (so that names compare as plain bytes).
    #[inline]
    fn string(&mut self, s: &str) -> Result<(usize, bool)> {
        let bytes = s.as_bytes();
        let (mut special, mut all) = (false, 0u8);
        for &b in bytes {
            special |= (b < 0x20) | (b == b'"') | (b == b'\\');
            all |= b;
        }
        let high = all >= 0x80;
        if special {
            let start = self.len;
            crate::jcs::write_plain_str(s, self)?;
            return Ok((self.len - start - 2, false));
        }
        let end = self.len.saturating_add(bytes.len() + 2);
        if !self.over {
            match self.buf.get_mut(self.len..end) {
                Some([open, mid @ .., close]) => {
                    *open = b'"';
                    mid.copy_from_slice(bytes);
                    *close = b'"';
                }
                _ => self.over = true,
            }
        }
        self.len = end;
        Ok((bytes.len(), !high))
    }
}

impl Out<'_> {
    /// One byte of punctuation.
    #[inline]
    fn byte(&mut self, b: u8) {
        if !self.over {
            match self.buf.get_mut(self.len) {
                Some(slot) => *slot = b,
                None => self.over = true,
            }
        }
        self.len += 1;
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
    /// The members of the open objects ([`entry`]).
    table: &'t mut [u64],
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
        {
            self.out.byte(bracket);
            Ok(())
        }
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
        let start = self.out.len;
        if start > u32::MAX as usize {
            return Err(Error::Limit { kind: Limit::Size, offset: 0 });
        }
        let (raw, plain_ascii) = self.out.string(key)?;
        let slot = self.table.get_mut(self.top).ok_or(Error::Limit { kind: Limit::Capacity, offset: 0 })?;
        *slot = entry(start, raw, raw != key.len(), plain_ascii);
        self.top += 1;
        self.out.byte(b':');
        Ok(())
    }

    /// Ends the member just written (`,` after it) and moves it to its sorted place among
    /// the members of its object from table entry `base` on.
    fn settle(&mut self, base: usize) -> Result<()> {
        self.out.byte(b',');
        let k = self.top - 1;
        if k == base || self.out.over {
            return Ok(());
        }
        let buf: &[u8] = self.out.buf;
        let new = self.table[k];
        let name = Name::of(buf, new);
        // The members before it are sorted: compare with the last (names that arrive sorted
        // cost one comparison), then search the rest by halves.
        match Name::of(buf, self.table[k - 1]).cmp(&name) {
            Ordering::Less => return Ok(()),
            Ordering::Equal => return Err(DUPLICATE),
            Ordering::Greater => {}
        }
        let (mut lo, mut hi) = (base, k - 1);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match Name::of(buf, self.table[mid]).cmp(&name) {
                Ordering::Less => lo = mid + 1,
                Ordering::Equal => return Err(DUPLICATE),
                Ordering::Greater => hi = mid,
            }
        }
        let pos = lo;
        let end = self.out.len;
        let len = end - start_of(new);
        let at = start_of(self.table[pos]);
        let mid = start_of(new);
        match self.out.buf.split_at_mut_checked(end) {
            // With room after the output, move by copies: the member to the spare room, the
            // members before it up, the member down.
            Some((head, spare)) if spare.len() >= len => {
                spare[..len].copy_from_slice(&head[mid..end]);
                head.copy_within(at..mid, at + len);
                head[at..at + len].copy_from_slice(&spare[..len]);
            }
            _ => {
                if let Some(region) = self.out.buf.get_mut(at..end) {
                    region.rotate_right(len);
                }
            }
        }
        for i in (pos..k).rev() {
            self.table[i + 1] = self.table[i] + ((len as u64) << 32);
        }
        self.table[pos] = (new & 0xFFFF_FFFF) | ((at as u64) << 32);
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
            self.out.byte(b'}');
            Ok(())
        }
    }

    fn close_array(&mut self) -> Result<()> {
        self.depth -= 1;
        self.out.byte(b']');
        Ok(())
    }
}

/// A member table entry: the member's start (its name's opening quote) in the high 32 bits,
/// the length of the name as written (between the quotes) above bit 1, bit 1 set when the
/// name is plain ASCII, bit 0 set when the written name holds escapes.
fn entry(start: usize, raw_len: usize, escaped: bool, ascii: bool) -> u64 {
    ((start as u64) << 32) | ((raw_len as u64 & 0x3FFF_FFFF) << 2) | (u64::from(ascii) << 1) | u64::from(escaped)
}

fn start_of(e: u64) -> usize {
    (e >> 32) as usize
}

/// The first 8 bytes of `k`, zero-padded, big-endian.
#[inline]
fn prefix(k: &[u8]) -> u64 {
    if let Some(head) = k.first_chunk::<8>() {
        return u64::from_be_bytes(*head);
    }
    let mut v = 0u64;
    for (i, &b) in k.iter().enumerate() {
        v |= u64::from(b) << (56 - 8 * i);
    }
    v
}

/// A member name read back from the buffer, ready for comparisons.
struct Name<'b> {
    text: &'b [u8],
    escaped: bool,
    ascii: bool,
    /// The first 8 bytes, zero-padded, big-endian (for plain ASCII names).
    prefix: u64,
}

impl<'b> Name<'b> {
    #[inline]
    fn of(buf: &'b [u8], e: u64) -> Self {
        let s = start_of(e) + 1;
        let len = ((e as u32) >> 2) as usize;
        let text = buf.get(s..s + len).unwrap_or(&[]);
        let ascii = e & 2 != 0;
        let prefix = if !ascii {
            0
        } else if let Some(word) = buf.get(s..s + 8).and_then(|w| w.first_chunk::<8>()) {
            // One load from the buffer, the bytes past the name masked off.
            let keep = (!0u64).checked_shl(8 * (8 - len.min(8)) as u32).unwrap_or(0);
            u64::from_be_bytes(*word) & keep
        } else {
            prefix(text)
        };
        Name { text, escaped: e & 1 != 0, ascii, prefix }
    }

    /// Compares by UTF-16 code units (RFC 8785 §3.2.3).
    #[inline(always)]
    fn cmp(&self, other: &Name<'_>) -> Ordering {
        let (ka, kb) = (self.text, other.text);
        if self.ascii && other.ascii {
            // Plain ASCII (no byte below 0x20): byte order is UTF-16 order, and the prefixes
            // decide most comparisons.
            if self.prefix != other.prefix || (ka.len() <= 8 && kb.len() <= 8) {
                return self.prefix.cmp(&other.prefix).then(ka.len().cmp(&kb.len()));
            }
            return ka.cmp(kb);
        }
        self.cmp_unicode(other)
    }

    /// [`Name::cmp`] when either name is not plain ASCII.
    #[inline(never)]
    fn cmp_unicode(&self, other: &Name<'_>) -> Ordering {
        let (ka, kb) = (self.text, other.text);
        if !self.escaped && !other.escaped {
            return cmp_utf8_as_utf16(ka, kb);
        }
        // Names with escapes (rare: control characters, quotes, backslashes) compare decoded.
        // Both were written here from `&str` names, escapes included, so they are UTF-8.
        let text = |k| core::str::from_utf8(k).unwrap_or_default();
        Str { raw: text(ka), escaped: self.escaped }.cmp_utf16(&Str { raw: text(kb), escaped: other.escaped })
    }
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
            self.ser.out.byte(b',');
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
        self.out.string(v.encode_utf8(&mut buf)).map(|_| ())
    }
    fn serialize_str(self, v: &str) -> Result<()> {
        self.out.string(v).map(|_| ())
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
        self.out.string(variant).map(|_| ())
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

array_like!([P: Preimage + ?Sized] Compound<'_, '_, '_, '_, P>, end = Compound::end_array);

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
