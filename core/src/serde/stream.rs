//! The sink form: the value is serialized again for each piece of output, each pass
//! descending along one path (see the module docs).
//!
//! A *visit* serializes the root and follows `path` (one index per container: the element
//! of an array, the member of an object in serde's order; a variant `{"Name": x}` is an
//! object whose one member has index 0) down to its target, calling `serialize` on nothing
//! beside the path. At the target it writes a scalar to the sink, counts an array's
//! elements, or finds an object's smallest kept member name above a bound (the name last
//! written), which is how members come out sorted.

use core::cmp::Ordering;

use ::serde::ser::{self, Serialize};

use super::{write_bytes, write_double, write_integer, KeySerializer, DEPTH, MAX_DEPTH, MAX_KEY_BYTES};
use crate::error::{Error, Limit, Result, Syntax};
use crate::json::{cmp_utf8_as_utf16, Str};
use crate::preimage::{Fields, Preimage};
use crate::sink::{Sink, SliceSink};

/// The value took another shape in a later pass than in an earlier one.
const CHANGED: Error = Error::InvalidArgument("value serialized differently between passes");
const DUPLICATE: Error = Error::Json { kind: Syntax::DuplicateKey, offset: 0 };
const KEYS_FULL: Error = Error::Limit { kind: Limit::Capacity, offset: 0 };

pub(super) fn write<T: Serialize + ?Sized, P: Preimage + ?Sized, S: Sink + ?Sized>(
    value: &T,
    rule: &P,
    sink: &mut S,
) -> Result<()> {
    let mut st = State { sink, rule, keys: [0; MAX_KEY_BYTES], klen: 0, path: [0; MAX_DEPTH], plen: 0 };
    emit(value, &mut st)
}

/// The canonical JSON of the top-level member `name` of `value` into `out`: its length, or
/// `None` when there is no such member.
pub(super) fn top_level_member<T: Serialize + ?Sized>(value: &T, name: &str, out: &mut [u8]) -> Result<Option<usize>> {
    let names = [name];
    let rule = Fields(&names);
    let mut sink = SliceSink::new(out);
    let mut st =
        State { sink: &mut sink, rule: &rule, keys: [0; MAX_KEY_BYTES], klen: 0, path: [0; MAX_DEPTH], plen: 0 };
    match visit(value, &mut st, None)? {
        Found::Object(None) => return Ok(None),
        Found::Object(Some((idx, _))) => {
            st.path[0] = idx;
            st.plen = 1;
            emit(value, &mut st)?;
        }
        _ => return Err(Error::Schema("signed value must be an object")),
    }
    sink.finish().map(Some)
}

struct State<'s, 'r, S: ?Sized, P: ?Sized> {
    sink: &'s mut S,
    rule: &'r P,
    /// The member name being written at each open object, then one candidate.
    keys: [u8; MAX_KEY_BYTES],
    klen: usize,
    path: [u32; MAX_DEPTH],
    plen: usize,
}

impl<S: Sink + ?Sized, P: Preimage + ?Sized> State<'_, '_, S, P> {
    fn push(&mut self, step: u32) -> Result<()> {
        let slot = self.path.get_mut(self.plen).ok_or(DEPTH)?;
        *slot = step;
        self.plen += 1;
        Ok(())
    }
}

/// What a visit found at its target.
enum Found {
    /// A scalar, now written.
    Scalar,
    /// An array of this many elements.
    Array(u32),
    /// An object: its smallest kept member above the bound (index, name length; the name is
    /// in `keys` at `klen`), or none.
    Object(Option<(u32, usize)>),
}

/// Writes the value at `st.path`.
fn emit<T: Serialize + ?Sized, S: Sink + ?Sized, P: Preimage + ?Sized>(
    root: &T,
    st: &mut State<'_, '_, S, P>,
) -> Result<()> {
    match visit(root, st, None)? {
        Found::Scalar => Ok(()),
        Found::Array(n) => {
            st.sink.write(b"[")?;
            for j in 0..n {
                if j > 0 {
                    st.sink.write(b",")?;
                }
                st.push(j)?;
                emit(root, st)?;
                st.plen -= 1;
            }
            st.sink.write(b"]")
        }
        Found::Object(mut next) => {
            st.sink.write(b"{")?;
            let frame = st.klen;
            let mut first = true;
            while let Some((idx, len)) = next {
                // The name found sits just above the stack: make it this object's.
                let from = st.klen;
                st.keys.copy_within(from..from + len, frame);
                st.klen = frame + len;
                if !first {
                    st.sink.write(b",")?;
                }
                first = false;
                let name = core::str::from_utf8(st.keys.get(frame..st.klen).unwrap_or(&[])).map_err(|_| CHANGED)?;
                super::write_str(name, &mut *st.sink)?;
                st.sink.write(b":")?;
                st.push(idx)?;
                emit(root, st)?;
                st.plen -= 1;
                next = match visit(root, st, Some((frame, idx)))? {
                    Found::Object(n) => n,
                    _ => return Err(CHANGED),
                };
            }
            st.klen = frame;
            st.sink.write(b"}")
        }
    }
}

/// One pass over `root` to the target at `st.path`; `bound` is the object's name last
/// written (`keys[start..klen]`) and its member index.
fn visit<T: Serialize + ?Sized, S: Sink + ?Sized, P: Preimage + ?Sized>(
    root: &T,
    st: &mut State<'_, '_, S, P>,
    bound: Option<(usize, u32)>,
) -> Result<Found> {
    let mut v = Visit { st, bound, best: None, found: None, error: None };
    let done = root.serialize(Probe { v: &mut v, level: 0 });
    // An error of this writer fails the pass even when a `Serialize` impl swallowed it.
    if let Some(e) = v.error {
        return Err(e);
    }
    done?;
    v.found.ok_or(CHANGED)
}

struct Visit<'v, 's, 'r, S: ?Sized, P: ?Sized> {
    st: &'v mut State<'s, 'r, S, P>,
    bound: Option<(usize, u32)>,
    /// The smallest kept name above the bound so far: (index, length), at `keys[klen..]`.
    best: Option<(u32, usize)>,
    found: Option<Found>,
    /// The first error this writer raised in the pass.
    error: Option<Error>,
}

impl<S: Sink + ?Sized, P: Preimage + ?Sized> Visit<'_, '_, '_, S, P> {
    /// Keeps `e` as the pass's error (the first one wins) and returns it.
    #[cold]
    fn fail(&mut self, e: Error) -> Error {
        *self.error.get_or_insert(e)
    }

    /// A member of the target object.
    fn consider(&mut self, name: &str, idx: u32) -> Result<()> {
        self.consider_name(name, idx).map_err(|e| self.fail(e))
    }

    fn consider_name(&mut self, name: &str, idx: u32) -> Result<()> {
        let st = &mut *self.st;
        if !st.rule.keep(st.plen + 1, Str::decoded(name)) {
            return Ok(());
        }
        if let Some((start, bidx)) = self.bound {
            match cmp_utf8_as_utf16(name.as_bytes(), st.keys.get(start..st.klen).unwrap_or(&[])) {
                Ordering::Less => return Ok(()),
                Ordering::Equal if idx == bidx => return Ok(()),
                Ordering::Equal => return Err(DUPLICATE),
                Ordering::Greater => {}
            }
        }
        if let Some((_, len)) = self.best {
            match cmp_utf8_as_utf16(name.as_bytes(), st.keys.get(st.klen..st.klen + len).unwrap_or(&[])) {
                Ordering::Less => {}
                Ordering::Equal => return Err(DUPLICATE),
                Ordering::Greater => return Ok(()),
            }
        }
        let dst = st.keys.get_mut(st.klen..st.klen + name.len()).ok_or(KEYS_FULL)?;
        dst.copy_from_slice(name.as_bytes());
        self.best = Some((idx, name.len()));
        Ok(())
    }

    fn at_target(&self, level: usize) -> bool {
        level == self.st.plen
    }

    fn step(&self, level: usize) -> u32 {
        self.st.path.get(level).copied().unwrap_or(u32::MAX)
    }

    /// A scalar at `level`: written when it is the target.
    fn scalar(&mut self, level: usize, write: impl FnOnce(&mut S) -> Result<()>) -> Result<()> {
        if !self.at_target(level) {
            return Err(self.fail(CHANGED));
        }
        if let Err(e) = write(self.st.sink) {
            return Err(self.fail(e));
        }
        self.found = Some(Found::Scalar);
        Ok(())
    }

    /// A container is the target: check the depth it would open.
    fn container_target(&mut self) -> Result<()> {
        if self.st.plen >= MAX_DEPTH {
            return Err(self.fail(DEPTH));
        }
        Ok(())
    }
}

/// The serializer of one visit at nesting `level` (path steps taken).
struct Probe<'a, 'v, 's, 'r, S: ?Sized, P: ?Sized> {
    v: &'a mut Visit<'v, 's, 'r, S, P>,
    level: usize,
}

/// What a container does with its items in a visit.
enum Mode {
    /// Follow the path into item `target`, whose own level is `level`.
    Nav { target: u32, level: usize },
    /// The target array: count.
    Count,
    /// The target object: consider every name.
    Names,
    /// Nothing (a variant wrapper that is itself the target).
    Ignore,
}

struct Items<'a, 'v, 's, 'r, S: ?Sized, P: ?Sized> {
    v: &'a mut Visit<'v, 's, 'r, S, P>,
    mode: Mode,
    i: u32,
    /// The next map value is the one to follow.
    follow: bool,
}

impl<'a, 'v, 's, 'r, S: Sink + ?Sized, P: Preimage + ?Sized> Probe<'a, 'v, 's, 'r, S, P> {
    /// A container at this level: an array (`object == false`) or an object.
    fn container(self, object: bool) -> Result<Items<'a, 'v, 's, 'r, S, P>> {
        let mode = if self.v.at_target(self.level) {
            self.v.container_target()?;
            if object {
                Mode::Names
            } else {
                Mode::Count
            }
        } else {
            Mode::Nav { target: self.v.step(self.level), level: self.level + 1 }
        };
        Ok(Items { v: self.v, mode, i: 0, follow: false })
    }

    /// `{"variant": <container>}`: the wrapper object is at this level, the container one
    /// below.
    fn variant(self, variant: &'static str, object: bool) -> Result<Items<'a, 'v, 's, 'r, S, P>> {
        let mode = if self.v.at_target(self.level) {
            self.v.container_target()?;
            self.v.consider(variant, 0)?;
            self.v.found = Some(Found::Object(self.v.best));
            Mode::Ignore
        } else if self.v.step(self.level) != 0 {
            return Err(self.v.fail(CHANGED));
        } else {
            return Probe { v: self.v, level: self.level + 1 }.container(object);
        };
        Ok(Items { v: self.v, mode, i: 0, follow: false })
    }
}

impl<S: Sink + ?Sized, P: Preimage + ?Sized> Items<'_, '_, '_, '_, S, P> {
    fn element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        let i = self.i;
        self.i += 1;
        match self.mode {
            Mode::Nav { target, level } if target == i => value.serialize(Probe { v: &mut *self.v, level }),
            _ => Ok(()),
        }
    }

    fn field<T: Serialize + ?Sized>(&mut self, name: &str, value: &T) -> Result<()> {
        let i = self.i;
        self.i += 1;
        match self.mode {
            Mode::Nav { target, level } if target == i => value.serialize(Probe { v: &mut *self.v, level }),
            Mode::Names => self.v.consider(name, i),
            _ => Ok(()),
        }
    }

    fn end(self) -> Result<()> {
        match self.mode {
            Mode::Count => self.v.found = Some(Found::Array(self.i)),
            Mode::Names => self.v.found = Some(Found::Object(self.v.best)),
            Mode::Nav { .. } | Mode::Ignore => {}
        }
        Ok(())
    }
}

macro_rules! int {
    ($($name:ident: $t:ty),*) => {$(
        fn $name(self, v: $t) -> Result<()> {
            #[allow(unused_comparisons)]
            let negative = v < 0;
            self.v.scalar(self.level, |s| write_integer(negative, (v as i128).unsigned_abs(), s))
        }
    )*};
}

impl<'a, 'v, 's, 'r, S: Sink + ?Sized, P: Preimage + ?Sized> ser::Serializer for Probe<'a, 'v, 's, 'r, S, P> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Items<'a, 'v, 's, 'r, S, P>;
    type SerializeTuple = Items<'a, 'v, 's, 'r, S, P>;
    type SerializeTupleStruct = Items<'a, 'v, 's, 'r, S, P>;
    type SerializeTupleVariant = Items<'a, 'v, 's, 'r, S, P>;
    type SerializeMap = Items<'a, 'v, 's, 'r, S, P>;
    type SerializeStruct = Items<'a, 'v, 's, 'r, S, P>;
    type SerializeStructVariant = Items<'a, 'v, 's, 'r, S, P>;

    int!(serialize_i8: i8, serialize_i16: i16, serialize_i32: i32, serialize_i64: i64,
         serialize_u8: u8, serialize_u16: u16, serialize_u32: u32, serialize_u64: u64);

    fn serialize_i128(self, v: i128) -> Result<()> {
        self.v.scalar(self.level, |s| write_integer(v < 0, v.unsigned_abs(), s))
    }
    fn serialize_u128(self, v: u128) -> Result<()> {
        self.v.scalar(self.level, |s| write_integer(false, v, s))
    }
    fn serialize_bool(self, v: bool) -> Result<()> {
        self.v.scalar(self.level, |s| s.write(if v { b"true" } else { b"false" }))
    }
    fn serialize_f32(self, v: f32) -> Result<()> {
        self.v.scalar(self.level, |s| write_double(f64::from(v), s))
    }
    fn serialize_f64(self, v: f64) -> Result<()> {
        self.v.scalar(self.level, |s| write_double(v, s))
    }
    fn serialize_char(self, v: char) -> Result<()> {
        let mut buf = [0u8; 4];
        let text = v.encode_utf8(&mut buf);
        self.v.scalar(self.level, |s| super::write_str(text, s))
    }
    fn serialize_str(self, v: &str) -> Result<()> {
        self.v.scalar(self.level, |s| super::write_str(v, s))
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<()> {
        self.v.scalar(self.level, |s| write_bytes(v, s))
    }
    fn serialize_none(self) -> Result<()> {
        self.v.scalar(self.level, |s| s.write(b"null"))
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<()> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<()> {
        self.serialize_none()
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<()> {
        self.serialize_none()
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, variant: &'static str) -> Result<()> {
        self.serialize_str(variant)
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
        if self.v.at_target(self.level) {
            self.v.container_target()?;
            self.v.consider(variant, 0)?;
            self.v.found = Some(Found::Object(self.v.best));
            Ok(())
        } else if self.v.step(self.level) != 0 {
            Err(self.v.fail(CHANGED))
        } else {
            value.serialize(Probe { v: self.v, level: self.level + 1 })
        }
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq> {
        self.container(false)
    }
    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple> {
        self.container(false)
    }
    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeTupleStruct> {
        self.container(false)
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant> {
        self.variant(variant, false)
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap> {
        self.container(true)
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeStruct> {
        self.container(true)
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant> {
        self.variant(variant, true)
    }
    fn collect_str<T: core::fmt::Display + ?Sized>(self, value: &T) -> Result<()> {
        self.v.scalar(self.level, |s| super::write_display(value, s))
    }
}

array_like!([S: Sink + ?Sized, P: Preimage + ?Sized] Items<'_, '_, '_, '_, S, P>, error = Error, end = Items::end);

impl<S: Sink + ?Sized, P: Preimage + ?Sized> ser::SerializeMap for Items<'_, '_, '_, '_, S, P> {
    type Ok = ();
    type Error = Error;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<()> {
        let i = self.i;
        self.i += 1;
        match self.mode {
            Mode::Nav { target, .. } => self.follow = target == i,
            Mode::Names => {
                let v = &mut *self.v;
                if let Err(e) = key.serialize(KeySerializer(|name: &str| v.consider(name, i))) {
                    return Err(self.v.fail(e));
                }
            }
            Mode::Count | Mode::Ignore => {}
        }
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        match self.mode {
            Mode::Nav { level, .. } if core::mem::take(&mut self.follow) => {
                value.serialize(Probe { v: &mut *self.v, level })
            }
            _ => Ok(()),
        }
    }
    fn end(self) -> Result<()> {
        Items::end(self)
    }
}

impl<S: Sink + ?Sized, P: Preimage + ?Sized> ser::SerializeStruct for Items<'_, '_, '_, '_, S, P> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result<()> {
        self.field(key, value)
    }
    fn end(self) -> Result<()> {
        Items::end(self)
    }
}

impl<S: Sink + ?Sized, P: Preimage + ?Sized> ser::SerializeStructVariant for Items<'_, '_, '_, '_, S, P> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result<()> {
        self.field(key, value)
    }
    fn end(self) -> Result<()> {
        Items::end(self)
    }
}
