//! RFC 8785 from a host's own values: an event writer for host walkers.
//!
//! A host that holds values of its own (a Python `dict`, a Swift dictionary) walks them and
//! reports each step to a [`Writer`]: begin and end of an object or array, a member name, a
//! scalar. Everything that makes the output canonical is the writer's, so that a host
//! value and its JSON text get one canonical form and one verdict:
//!
//! * separators, and string escapes ([`super::write_plain_str`]);
//! * number text ([`NumberBuf`]) and the reader's number policy: an integer literal only
//!   where [`integer_literal_value`] accepts it, a double only when finite and not `-0.0`
//!   ([`check_double`]);
//! * nesting bounded by [`DEFAULT_MAX_DEPTH`] containers, counted as the reader counts
//!   them (128 nested containers are accepted, 129 refused);
//! * a [`Preimage`] rule, asked about every member name with its nesting depth (1 for the
//!   members of the top-level object): a member it drops is not written, and
//!   [`Writer::name`] returns `false` so that the host skips its value;
//! * RFC 8785 member order, below.
//!
//! **Order.** A host walks an object in its own order (a Python dict in insertion order),
//! but RFC 8785 sorts members by the UTF-16 code units of their names. The host hands each
//! object's names to [`sort_members`], which sorts the host's slice (of names, indices or
//! entries, whatever holds them) with [`cmp_utf8_as_utf16`], and then reports the members
//! in that order. The writer checks every name against the one before it in the same
//! object, kept in the [`Object`] the host holds while it writes that object: a name out of
//! order is [`Error::InvalidArgument`], a repeated one [`Syntax::DuplicateKey`]; a host
//! mistake is an error, never a non-canonical output.
//!
//! The writer never recurses and never allocates: per open container it keeps one bit
//! (object or array). Events out of place (a value where an
//! object expects a name, an end that does not match its begin, a second top-level value)
//! are [`Error::InvalidArgument`]. After any error the output is incomplete: discard it.
//!
//! ```
//! # fn main() -> Result<(), concordia_core::Error> {
//! use concordia_core::jcs::events::{sort_members, Writer};
//! use concordia_core::preimage::WithoutSignature;
//! use concordia_core::sink::SliceSink;
//!
//! // A host's object, in its own order: (name, value).
//! let mut members = [("signature", 1), ("b", 2), ("a", 3)];
//! sort_members(&mut members, |m| m.0);
//!
//! let mut out = [0u8; 32];
//! let mut w = Writer::new(SliceSink::new(&mut out), &WithoutSignature);
//! let mut object = w.begin_object()?;
//! for (name, value) in &members {
//!     if w.name(&mut object, name)? {
//!         w.int(*value)?;
//!     }
//! }
//! w.end_object(object)?;
//! let n = w.finish()?.finish()?;
//! assert_eq!(&out[..n], br#"{"a":3,"b":2}"#);
//! # Ok(())
//! # }
//! ```

use core::cmp::Ordering;

use super::write_plain_str;
use crate::error::{Error, Limit, Result, Syntax};
use crate::json::{cmp_utf8_as_utf16, integer_literal_value, Str, DEFAULT_MAX_DEPTH, MAX_SAFE_INTEGER};
use crate::number::NumberBuf;
use crate::preimage::Preimage;
use crate::sink::Sink;

/// The deepest nesting the writer accepts: the reader's default.
pub const MAX_DEPTH: usize = DEFAULT_MAX_DEPTH as usize;

// One bit per open container in a `u128`.
const _: () = assert!(MAX_DEPTH <= 128);

/// The error for an event out of place.
const MISPLACED: Error = Error::InvalidArgument("canonical writer event out of place");

/// Sorts a host's members into RFC 8785 order: by the UTF-16 code units of `name(item)`.
/// `items` are whatever the host holds per member (names, indices into its own table,
/// name-value pairs); the sort is in place and allocates nothing.
pub fn sort_members<T>(items: &mut [T], name: impl Fn(&T) -> &str) {
    items.sort_unstable_by(|a, b| cmp_utf8_as_utf16(name(a).as_bytes(), name(b).as_bytes()));
}

/// Whether a double may be written: finite and not negative zero (the reader refuses
/// `NaN`, numbers beyond the range of a double and `-0`, and so does the writer).
///
/// # Errors
/// [`Syntax::InvalidNumber`] for NaN, [`Syntax::NumberOutOfRange`] for an infinity,
/// [`Syntax::NegativeZero`] for `-0.0` (offset 0).
pub fn check_double(f: f64) -> Result<()> {
    let kind = if f.is_nan() {
        Syntax::InvalidNumber
    } else if f.is_infinite() {
        Syntax::NumberOutOfRange
    } else if f == 0.0 && f.is_sign_negative() {
        Syntax::NegativeZero
    } else {
        return Ok(());
    };
    Err(Error::Json { kind, offset: 0 })
}

/// An object being written: the host holds it from [`Writer::begin_object`] to
/// [`Writer::end_object`] and passes it to every [`Writer::name`], which checks each name
/// against the previous one.
#[derive(Debug)]
#[must_use = "an object is closed with Writer::end_object"]
pub struct Object<'n> {
    last: Option<&'n str>,
    depth: usize,
}

/// Writes RFC 8785 canonical JSON from events into a [`Sink`]; see the [module
/// docs](self).
#[derive(Debug)]
pub struct Writer<'r, S, P: ?Sized> {
    sink: S,
    rule: &'r P,
    /// Open containers.
    depth: usize,
    /// Bit `d - 1`: the container at depth `d` is an object.
    objects: u128,
    /// The innermost open container is an object.
    in_object: bool,
    /// The innermost open container has no item yet (no comma before the next one); at
    /// the top level, no value has begun.
    empty: bool,
    /// A member name was written and its value comes next.
    pending: bool,
    nb: NumberBuf,
}

/// The bit of the container at depth `d` (1-based); 0 outside 1..=128.
#[inline]
fn bit(d: usize) -> u128 {
    u32::try_from(d.wrapping_sub(1)).ok().and_then(|s| 1u128.checked_shl(s)).unwrap_or(0)
}

impl<'r, S: Sink, P: Preimage + ?Sized> Writer<'r, S, P> {
    /// A writer of one value into `sink`, with members kept or dropped by `rule`.
    pub fn new(sink: S, rule: &'r P) -> Self {
        Writer { sink, rule, depth: 0, objects: 0, in_object: false, empty: true, pending: false, nb: NumberBuf::new() }
    }

    /// Open containers now (0 at the top level).
    #[must_use]
    pub fn depth(&self) -> usize {
        self.depth
    }

    /// Ends the output: the one top-level value is complete. Returns the sink.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when no value, or an unclosed one, was written.
    pub fn finish(self) -> Result<S> {
        if self.depth == 0 && !self.empty {
            Ok(self.sink)
        } else {
            Err(MISPLACED)
        }
    }

    /// Before a value: in an object, the check that its name came first; in an array, the
    /// comma before every item but the first; at the top level, the check that it is the
    /// only value.
    #[inline(always)]
    fn value(&mut self) -> Result<()> {
        if self.pending {
            // Only ever set inside an object, after a name.
            self.pending = false;
        } else if self.in_object {
            return Err(MISPLACED);
        } else if self.empty {
            self.empty = false;
        } else if self.depth == 0 {
            return Err(MISPLACED);
        } else {
            self.sink.write(b",")?;
        }
        Ok(())
    }

    /// A value written in one piece.
    #[inline(always)]
    fn scalar(&mut self, text: &[u8]) -> Result<()> {
        self.value()?;
        self.sink.write(text)?;
        Ok(())
    }

    #[inline(always)]
    fn begin(&mut self, object: bool) -> Result<()> {
        self.value()?;
        if self.depth >= MAX_DEPTH {
            return Err(Error::Limit { kind: Limit::Depth, offset: 0 });
        }
        self.sink.write(if object { b"{" } else { b"[" })?;
        self.depth += 1;
        if object {
            self.objects |= bit(self.depth);
        } else {
            self.objects &= !bit(self.depth);
        }
        self.in_object = object;
        self.empty = true;
        Ok(())
    }

    #[inline(always)]
    fn end(&mut self, object: bool) -> Result<()> {
        if self.depth == 0 || self.pending || self.in_object != object {
            return Err(MISPLACED);
        }
        self.sink.write(if object { b"}" } else { b"]" })?;
        self.depth -= 1;
        self.in_object = self.objects & bit(self.depth) != 0;
        // The container just closed is an item of its parent (or the top-level value).
        self.empty = false;
        Ok(())
    }

    /// `{`: an object begins; its members follow, each a [`Writer::name`] and (when kept)
    /// its value.
    ///
    /// # Errors
    /// [`Limit::Depth`] beyond [`MAX_DEPTH`] containers; the sink's errors; an event out
    /// of place.
    #[inline]
    pub fn begin_object<'n>(&mut self) -> Result<Object<'n>> {
        self.begin(true)?;
        Ok(Object { last: None, depth: self.depth })
    }

    /// The next member's name, which must sort after the previous one of `object`.
    /// Returns whether the rule keeps the member: when `false` nothing was written and the
    /// host skips the member's value.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a name out of RFC 8785 order,
    /// [`Syntax::DuplicateKey`] for a repeated one; the sink's errors; an event out of
    /// place.
    #[inline]
    pub fn name<'n>(&mut self, object: &mut Object<'n>, name: &'n str) -> Result<bool> {
        if !self.in_object || self.pending || object.depth != self.depth {
            return Err(MISPLACED);
        }
        if let Some(last) = object.last {
            match cmp_utf8_as_utf16(last.as_bytes(), name.as_bytes()) {
                Ordering::Less => {}
                Ordering::Equal => return Err(Error::Json { kind: Syntax::DuplicateKey, offset: 0 }),
                Ordering::Greater => return Err(Error::InvalidArgument("member names out of RFC 8785 order")),
            }
        }
        object.last = Some(name);
        if !self.rule.keep(self.depth, Str::decoded(name)) {
            return Ok(false);
        }
        if self.empty {
            self.empty = false;
        } else {
            self.sink.write(b",")?;
        }
        write_plain_str(name, &mut self.sink)?;
        self.sink.write(b":")?;
        self.pending = true;
        Ok(true)
    }

    /// `}`: ends `object`.
    ///
    /// # Errors
    /// The sink's errors; an event out of place (a name without its value, or `object`
    /// not the innermost container).
    #[inline]
    pub fn end_object(&mut self, object: Object<'_>) -> Result<()> {
        if object.depth != self.depth {
            return Err(MISPLACED);
        }
        self.end(true)
    }

    /// `[`: an array begins; its items follow.
    ///
    /// # Errors
    /// As [`Writer::begin_object`].
    #[inline]
    pub fn begin_array(&mut self) -> Result<()> {
        self.begin(false)
    }

    /// `]`: ends the innermost container, which must be an array.
    ///
    /// # Errors
    /// The sink's errors; an event out of place.
    #[inline]
    pub fn end_array(&mut self) -> Result<()> {
        self.end(false)
    }

    /// `null`.
    ///
    /// # Errors
    /// The sink's errors; an event out of place.
    #[inline]
    pub fn null(&mut self) -> Result<()> {
        self.scalar(b"null")
    }

    /// `true` or `false`.
    ///
    /// # Errors
    /// The sink's errors; an event out of place.
    #[inline]
    pub fn bool(&mut self, b: bool) -> Result<()> {
        self.scalar(if b { b"true" } else { b"false" })
    }

    /// A string, with RFC 8785 escapes.
    ///
    /// # Errors
    /// The sink's errors; an event out of place.
    #[inline]
    pub fn string(&mut self, s: &str) -> Result<()> {
        self.value()?;
        write_plain_str(s, &mut self.sink)?;
        Ok(())
    }

    /// An integer (beyond ±(2^53 - 1) only where [`integer_literal_value`] accepts its
    /// decimal form).
    ///
    /// # Errors
    /// [`Syntax::UnsafeInteger`] where the number policy refuses it; the sink's errors; an
    /// event out of place.
    #[inline]
    pub fn int(&mut self, v: i64) -> Result<()> {
        if v.unsigned_abs() > MAX_SAFE_INTEGER && integer_literal_value(self.nb.integer(v)).is_none() {
            return Err(Error::Json { kind: Syntax::UnsafeInteger, offset: 0 });
        }
        self.value()?;
        self.sink.write(self.nb.integer_bytes(v))?;
        Ok(())
    }

    /// An integer given as its decimal literal (a host's big integer), written as it is
    /// where [`integer_literal_value`] accepts it.
    ///
    /// # Errors
    /// [`Syntax::UnsafeInteger`] for a literal the number policy refuses (or text that is
    /// not an integer literal); the sink's errors; an event out of place.
    pub fn integer(&mut self, literal: &str) -> Result<()> {
        if integer_literal_value(literal).is_none() {
            return Err(Error::Json { kind: Syntax::UnsafeInteger, offset: 0 });
        }
        self.scalar(literal.as_bytes())
    }

    /// A double, in ECMAScript form.
    ///
    /// # Errors
    /// As [`check_double`]; the sink's errors; an event out of place.
    #[inline]
    pub fn double(&mut self, f: f64) -> Result<()> {
        check_double(f)?;
        self.value()?;
        let text = self.nb.format_bytes(f);
        self.sink.write(text)?;
        Ok(())
    }
}
