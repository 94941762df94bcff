//! The buffer form: members written in serde's order into the caller's buffer, each moved to
//! its sorted place when it is complete (see the module docs).

use core::cmp::Ordering;

use ::serde::ser::{self, Serialize};

use super::{write_bytes, write_double, write_integer, KeySerializer, DEPTH, MAX_DEPTH};
use crate::error::{Error, Limit, Result, Syntax};
use crate::jcs::{escape_bits8, escape_byte, needs_escape};
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
    table: &mut [OpenMember],
) -> Result<usize> {
    let mut ser =
        Ser { out: Out { buf: out, len: 0 }, table, top: 0, depth: 0, rule, extra, object: false, error: None };
    ser.run(value)?;
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
    table: &mut [OpenMember],
) -> Result<usize> {
    let mut ser =
        Ser { out: Out { buf: out, len: 0 }, table, top: 0, depth: 0, rule, extra: None, object: false, error: None };
    ser.run(value)?;
    if !ser.object {
        return Err(Error::Schema("signed value must be an object"));
    }
    ser.out.finish()
}

const DUPLICATE: Error = Error::Json { kind: Syntax::DuplicateKey, offset: 0 };

/// The error of this serializer as serde's calls pass it back: one byte, so that every call
/// returns in a register (a `Result` holding the 32-byte [`Error`] goes through memory, and
/// a struct of n fields makes some 3n such calls). The error itself is kept in
/// [`Ser::error`]; only `custom` errors, which `Serialize` impls make without the
/// serializer, are their own value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Fault {
    /// The error is in [`Ser::error`].
    Kept,
    /// A `Serialize` impl's own error ([`super::SERIALIZE_REFUSED`]).
    Custom,
}

impl core::fmt::Display for Fault {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            Fault::Kept => "serialization failed",
            Fault::Custom => "a Serialize impl refused its value",
        })
    }
}

impl ser::StdError for Fault {}

impl ser::Error for Fault {
    fn custom<M: core::fmt::Display>(_msg: M) -> Self {
        Fault::Custom
    }
}

/// The result of this serializer's steps.
type Res<T = ()> = core::result::Result<T, Fault>;

/// One entry of the member table of [`super::to_canonical_slice_in`]: a member of an
/// object being written (where it starts, its name's length, and the name's first bytes
/// for comparisons). 16 bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OpenMember {
    /// The member's start (its name's opening quote) in the high 32 bits, the length of the
    /// name as written (between the quotes) above bit 1, bit 1 set when the name is plain
    /// ASCII (no escapes), bit 0 set when the written name holds escapes.
    meta: u64,
    /// The first 8 bytes of a plain ASCII name, zero-padded, big-endian (0 otherwise).
    prefix: u64,
}

impl OpenMember {
    /// An unused entry, to fill a table with: `[OpenMember::EMPTY; 1024]`.
    pub const EMPTY: Self = OpenMember { meta: 0, prefix: 0 };

    #[inline(always)]
    fn start(self) -> usize {
        (self.meta >> 32) as usize
    }

    #[inline(always)]
    fn name_len(self) -> usize {
        ((self.meta as u32) >> 2) as usize
    }

    #[inline(always)]
    fn plain(self) -> bool {
        self.meta & 2 != 0
    }

    /// The name as written, between the quotes.
    #[inline(always)]
    fn name(self, buf: &[u8]) -> &[u8] {
        let s = self.start() + 1;
        buf.get(s..s + self.name_len()).unwrap_or_default()
    }

    /// The same member moved by `by` bytes towards the end.
    #[inline(always)]
    fn shifted(self, by: usize) -> Self {
        OpenMember { meta: self.meta + ((by as u64) << 32), prefix: self.prefix }
    }

    /// The same member moved to `at`.
    #[inline(always)]
    fn at(self, at: usize) -> Self {
        OpenMember { meta: (self.meta & 0xFFFF_FFFF) | ((at as u64) << 32), prefix: self.prefix }
    }

    /// Compares the names of two members of the output `buf` by UTF-16 code units (RFC 8785
    /// §3.2.3).
    #[inline(always)]
    fn cmp_name(self, other: Self, buf: &[u8]) -> Ordering {
        if self.plain() && other.plain() {
            // Plain ASCII (no byte below 0x20): byte order is UTF-16 order, zero padding
            // sorts a name before its extensions, and the prefixes decide most comparisons.
            let (la, lb) = (self.name_len(), other.name_len());
            if self.prefix != other.prefix || (la <= 8 && lb <= 8) {
                return self.prefix.cmp(&other.prefix).then(la.cmp(&lb));
            }
            return self.name(buf).cmp(other.name(buf));
        }
        self.cmp_unicode(other, buf)
    }

    /// [`OpenMember::cmp_name`] when either name is not plain ASCII.
    #[inline(never)]
    fn cmp_unicode(self, other: Self, buf: &[u8]) -> Ordering {
        let (ka, kb) = (self.name(buf), other.name(buf));
        let (ea, eb) = (self.meta & 1 != 0, other.meta & 1 != 0);
        if !ea && !eb {
            return cmp_utf8_as_utf16(ka, kb);
        }
        // Names with escapes (rare: control characters, quotes, backslashes) compare decoded.
        // Both were written here from `&str` names, escapes included, so they are UTF-8.
        let text = |k| core::str::from_utf8(k).unwrap_or_default();
        Str { raw: text(ka), escaped: ea }.cmp_utf16(&Str { raw: text(kb), escaped: eb })
    }
}

/// The caller's buffer; past its end, only the length is counted.
struct Out<'o> {
    buf: &'o mut [u8],
    /// The length of the output so far; beyond `buf.len()` once some output did not fit
    /// (from then on nothing is written or moved, since every later write starts past the
    /// end).
    len: usize,
}

impl Out<'_> {
    #[inline(always)]
    fn over(&self) -> bool {
        self.len > self.buf.len()
    }

    fn finish(self) -> Result<usize> {
        if self.over() {
            Err(Error::BufferTooSmall { needed: self.len })
        } else {
            Ok(self.len)
        }
    }

    /// One byte of punctuation.
    #[inline(always)]
    fn byte(&mut self, b: u8) {
        if let Some(slot) = self.buf.get_mut(self.len) {
            *slot = b;
        }
        self.len += 1;
    }

    /// Writes `s` as a JSON string (see [`super::write_str`]), followed by a colon when it is
    /// a member name (`NAME`), and says what it wrote. Text that needs no escape (most) is
    /// copied and checked in one pass, eight bytes at a time; text that does goes through
    /// the escaping writer.
    #[inline(always)]
    fn string<const NAME: bool>(&mut self, s: &str) -> Result<Written> {
        let bytes = s.as_bytes();
        let n = bytes.len();
        let start = self.len;
        let total = n + 2 + usize::from(NAME);
        if let Some([open, dst @ .., close]) = self.buf.get_mut(start..start.saturating_add(total - usize::from(NAME)))
        {
            let (escape, all, prefix) = copy_scan::<NAME>(bytes, dst);
            if escape == 0 {
                *open = b'"';
                *close = b'"';
                self.len = start + total;
                if NAME {
                    if let Some(colon) = self.buf.get_mut(start + total - 1) {
                        *colon = b':';
                    }
                }
                let plain = all & HIGH == 0;
                return Ok(Written { raw: n, plain, prefix: if plain { prefix } else { 0 } });
            }
        }
        // Text with escapes, or no room left.
        match self.buf.get_mut(start..).and_then(|d| d.get_mut(..n.saturating_mul(6).saturating_add(2))) {
            // Room for the longest escaped form (every byte `\u00XX`): escape in place.
            Some(dst) => self.len = start + escape_into(bytes, dst),
            None => crate::jcs::write_plain_str(s, self)?,
        }
        let raw = self.len - start - 2;
        if NAME {
            self.byte(b':');
        }
        let plain = raw == n && bytes.is_ascii();
        Ok(Written { raw, plain, prefix: if plain { prefix_of(bytes) } else { 0 } })
    }
}

/// Moves the member `buf[mid..end]` to `at` and the members `buf[at..mid]` up behind it.
#[inline(always)]
fn rotate(buf: &mut [u8], at: usize, mid: usize, end: usize) {
    let len = end - mid;
    // Short members (most) are held in registers while the members before them move up.
    let short = match len {
        4..=7 => rotate_short::<4>(buf, at, mid, end),
        8..=15 => rotate_short::<8>(buf, at, mid, end),
        16..=31 => rotate_short::<16>(buf, at, mid, end),
        32..=64 => rotate_short::<32>(buf, at, mid, end),
        _ => None,
    };
    if short.is_some() {
        return;
    }
    match buf.split_at_mut_checked(end) {
        // With room after the output, move by copies: the member to the spare room, the
        // members before it up, the member down.
        Some((head, spare)) if spare.len() >= len => {
            spare[..len].copy_from_slice(&head[mid..end]);
            head.copy_within(at..mid, at + len);
            head[at..at + len].copy_from_slice(&spare[..len]);
        }
        _ => {
            if let Some(region) = buf.get_mut(at..end) {
                region.rotate_right(len);
            }
        }
    }
}

/// Moves `buf[mid..end]` (`C` to `2 * C` bytes) to `at`, and `buf[at..mid]` up behind it:
/// the short member is held as two overlapping `C`-byte words (no library call, no spare
/// room needed) while the members before it move. `None` (nothing moved) when the spans are
/// not in `buf`.
#[inline(always)]
fn rotate_short<const C: usize>(buf: &mut [u8], at: usize, mid: usize, end: usize) -> Option<()> {
    if at > mid {
        return None;
    }
    let member = buf.get(mid..end)?;
    let (head, tail) = (*member.first_chunk::<C>()?, *member.last_chunk::<C>()?);
    let len = member.len();
    move_within(buf, at, at + len, mid - at)?;
    let dst = buf.get_mut(at..at + len)?;
    *dst.first_chunk_mut::<C>()? = head;
    *dst.last_chunk_mut::<C>()? = tail;
    Some(())
}

/// `buf.copy_within(from..from + len, to)`, overlapping or not; up to 64 bytes as two
/// overlapping words, both read before either is written (no library call).
#[inline(always)]
fn move_within(buf: &mut [u8], from: usize, to: usize, len: usize) -> Option<()> {
    #[inline(always)]
    fn two<const C: usize>(buf: &mut [u8], from: usize, to: usize, len: usize) -> Option<()> {
        let src = buf.get(from..from + len)?;
        let (head, tail) = (*src.first_chunk::<C>()?, *src.last_chunk::<C>()?);
        let dst = buf.get_mut(to..to + len)?;
        *dst.first_chunk_mut::<C>()? = head;
        *dst.last_chunk_mut::<C>()? = tail;
        Some(())
    }
    match len {
        0 => Some(()),
        1 => two::<1>(buf, from, to, len),
        2..=3 => two::<2>(buf, from, to, len),
        4..=7 => two::<4>(buf, from, to, len),
        8..=15 => two::<8>(buf, from, to, len),
        16..=31 => two::<16>(buf, from, to, len),
        32..=64 => two::<32>(buf, from, to, len),
        _ => {
            buf.get(from..from + len)?;
            buf.get(to..to + len)?;
            buf.copy_within(from..from + len, to);
            Some(())
        }
    }
}

/// What [`Out::string`] wrote.
struct Written {
    /// The length between the quotes.
    raw: usize,
    /// The text is ASCII and needed no escape.
    plain: bool,
    /// The first 8 bytes of plain text, zero-padded, big-endian (names only).
    prefix: u64,
}

const HIGH: u64 = 0x8080_8080_8080_8080;

/// Copies `src` into `dst` (of the same length) eight bytes at a time and returns the high
/// bits of the bytes that need an escape (0 when none), every byte or-ed together, and,
/// for names (`NAME`), the first 8 bytes zero-padded and big-endian.
#[inline(always)]
fn copy_scan<const NAME: bool>(src: &[u8], dst: &mut [u8]) -> (u64, u64, u64) {
    let n = src.len();
    let (mut escape, mut all) = (0u64, 0u64);
    let mut prefix = 0;
    if n >= 8 {
        let (words, _) = src.as_chunks::<8>();
        let (slots, _) = dst.as_chunks_mut::<8>();
        for (w, slot) in words.iter().zip(slots.iter_mut()) {
            *slot = *w;
            let w = u64::from_le_bytes(*w);
            escape |= escape_bits8(w);
            all |= w;
        }
        // The last (partial) word, as the last eight bytes.
        if let (Some(w), Some(slot)) = (src.last_chunk::<8>(), dst.last_chunk_mut::<8>()) {
            *slot = *w;
            let w = u64::from_le_bytes(*w);
            escape |= escape_bits8(w);
            all |= w;
        }
        if NAME {
            if let Some(w) = src.first_chunk::<8>() {
                prefix = u64::from_be_bytes(*w);
            }
        }
    } else if n >= 4 {
        // Two overlapping four-byte words.
        if let (Some(a), Some(b)) = (src.first_chunk::<4>(), src.last_chunk::<4>()) {
            if let Some(slot) = dst.first_chunk_mut::<4>() {
                *slot = *a;
            }
            if let Some(slot) = dst.last_chunk_mut::<4>() {
                *slot = *b;
            }
            let w = u64::from(u32::from_le_bytes(*a)) | u64::from(u32::from_le_bytes(*b)) << 32;
            escape = escape_bits8(w);
            all = w;
            if NAME {
                prefix = u64::from(u32::from_be_bytes(*a)) << 32 | u64::from(u32::from_be_bytes(*b)) << (8 * (8 - n));
            }
        }
    } else if n > 0 {
        // The first, middle and last byte (some the same).
        let (a, b, c) = (src[0], src[n / 2], src[n - 1]);
        dst[0] = a;
        dst[n / 2] = b;
        dst[n - 1] = c;
        let w = 0x2020_2020_2000_0000 | u64::from(a) | u64::from(b) << 8 | u64::from(c) << 16;
        escape = escape_bits8(w);
        all = w;
        if NAME {
            prefix = u64::from(a) << 56 | u64::from(b) << (56 - 8 * (n / 2)) | u64::from(c) << (56 - 8 * (n - 1));
        }
    }
    (escape, all, prefix)
}

/// Writes `src` as a quoted JSON string with RFC 8785 escapes (as
/// [`crate::jcs::write_plain_str`] does) into `dst`, which holds at least `6 * src.len() + 2`
/// bytes (the longest escaped form); returns the length written.
fn escape_into(src: &[u8], dst: &mut [u8]) -> usize {
    dst[0] = b'"';
    let (mut i, mut j) = (0, 1);
    loop {
        // Copy up to the next byte that needs an escape, eight bytes at a time.
        let run = match (src.get(i..i + 8).and_then(|w| <[u8; 8]>::try_from(w).ok()), dst.get_mut(j..j + 8)) {
            (Some(w), Some(slot)) => {
                slot.copy_from_slice(&w);
                let bits = escape_bits8(u64::from_le_bytes(w));
                if bits == 0 {
                    i += 8;
                    j += 8;
                    continue;
                }
                // The lowest flagged byte is exact (a false flag needs a true one below it).
                bits.trailing_zeros() as usize / 8
            }
            _ => {
                let rest = &src[i..];
                let k = rest.iter().position(|&b| needs_escape(b)).unwrap_or(rest.len());
                dst[j..j + k].copy_from_slice(&rest[..k]);
                k
            }
        };
        i += run;
        j += run;
        let Some(&b) = src.get(i) else { break };
        i += 1;
        let (esc, n) = escape_byte(b);
        dst[j..j + n].copy_from_slice(&esc[..n]);
        j += n;
    }
    dst[j] = b'"';
    j + 1
}

/// The first 8 bytes of `k`, zero-padded, big-endian.
fn prefix_of(k: &[u8]) -> u64 {
    let mut v = 0u64;
    for (i, &b) in k.iter().take(8).enumerate() {
        v |= u64::from(b) << (56 - 8 * i);
    }
    v
}

impl Out<'_> {
    /// Writes `bytes` (or counts them, past the end).
    #[inline(always)]
    fn bytes(&mut self, bytes: &[u8]) {
        let end = self.len.saturating_add(bytes.len());
        if let Some(dst) = self.buf.get_mut(self.len..end) {
            copy(dst, bytes);
        }
        self.len = end;
    }
}

impl Sink for Out<'_> {
    #[inline]
    fn write(&mut self, bytes: &[u8]) -> Result<()> {
        self.bytes(bytes);
        Ok(())
    }
}

/// `dst.copy_from_slice(src)` (equal lengths); up to 32 bytes (numbers, punctuation) as two
/// overlapping words, with no library call.
#[inline(always)]
fn copy(dst: &mut [u8], src: &[u8]) {
    #[inline(always)]
    fn two<const C: usize>(dst: &mut [u8], src: &[u8]) {
        if let (Some(d), Some(s)) = (dst.first_chunk_mut::<C>(), src.first_chunk::<C>()) {
            *d = *s;
        }
        if let (Some(d), Some(s)) = (dst.last_chunk_mut::<C>(), src.last_chunk::<C>()) {
            *d = *s;
        }
    }
    match src.len() {
        0 => {}
        1 => two::<1>(dst, src),
        2..=3 => two::<2>(dst, src),
        4..=7 => two::<4>(dst, src),
        8..=15 => two::<8>(dst, src),
        16..=32 => two::<16>(dst, src),
        _ => dst.copy_from_slice(src),
    }
}

pub(super) struct Ser<'o, 't, 'r, P: ?Sized> {
    out: Out<'o>,
    /// The members of the open objects.
    table: &'t mut [OpenMember],
    top: usize,
    /// Open containers.
    depth: usize,
    rule: &'r P,
    extra: Option<(&'r str, &'r [u8])>,
    /// The top-level value was an object.
    object: bool,
    /// The error a step failed with ([`Fault::Kept`]).
    error: Option<Error>,
}

impl<P: Preimage + ?Sized> Ser<'_, '_, '_, P> {
    /// Serializes `value`, with the error it failed with, if any. An error kept by a step
    /// fails the whole even when a `Serialize` impl swallowed it and went on.
    fn run<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        let done = value.serialize(&mut *self);
        match (self.error.take(), done) {
            (Some(e), _) => Err(e),
            (None, Ok(())) => Ok(()),
            (None, Err(_)) => Err(super::SERIALIZE_REFUSED),
        }
    }

    /// Keeps `e` as the error of the serialization.
    #[cold]
    fn fail(&mut self, e: Error) -> Fault {
        if self.error.is_none() {
            self.error = Some(e);
        }
        Fault::Kept
    }

    /// A string value.
    #[inline]
    fn str_value(&mut self, s: &str) -> Res {
        match self.out.string::<false>(s) {
            Ok(_) => Ok(()),
            Err(e) => Err(self.fail(e)),
        }
    }

    fn open(&mut self, bracket: u8) -> Res {
        if self.depth >= MAX_DEPTH {
            return Err(self.fail(DEPTH));
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
    fn member(&mut self, key: &str) -> Res<bool> {
        if !self.rule.keep(self.depth, Str::decoded(key)) {
            return Ok(false);
        }
        self.begin_member(key)?;
        Ok(true)
    }

    /// Begins a member, whatever the rule says.
    #[inline]
    fn begin_member(&mut self, key: &str) -> Res {
        let start = self.out.len;
        if start > u32::MAX as usize {
            return Err(self.fail(Error::Limit { kind: Limit::Size, offset: 0 }));
        }
        let name = match self.out.string::<true>(key) {
            Ok(name) => name,
            Err(e) => return Err(self.fail(e)),
        };
        let Some(slot) = self.table.get_mut(self.top) else {
            return Err(self.fail(Error::Limit { kind: Limit::Capacity, offset: 0 }));
        };
        *slot = OpenMember {
            meta: ((start as u64) << 32)
                | ((name.raw as u64 & 0x3FFF_FFFF) << 2)
                | (u64::from(name.plain) << 1)
                | u64::from(name.raw != key.len()),
            prefix: name.prefix,
        };
        self.top += 1;
        Ok(())
    }

    /// Ends the member just written (`,` after it) and moves it to its sorted place among
    /// the members of its object from table entry `base` on.
    #[inline]
    fn settle(&mut self, base: usize) -> Res {
        self.out.byte(b',');
        let k = self.top - 1;
        if k == base || self.out.over() {
            return Ok(());
        }
        let buf: &[u8] = self.out.buf;
        let new = self.table[k];
        // The members before it are sorted: compare with the last (names that arrive sorted
        // cost one comparison), then search the rest by halves.
        match self.table[k - 1].cmp_name(new, buf) {
            Ordering::Less => Ok(()),
            Ordering::Equal => Err(self.fail(DUPLICATE)),
            Ordering::Greater => self.insert(base, k, new),
        }
    }

    /// Moves member `k` (`new`), which sorts before member `k - 1`, to its place.
    #[inline(never)]
    fn insert(&mut self, base: usize, k: usize, new: OpenMember) -> Res {
        let buf: &[u8] = self.out.buf;
        let (mut lo, mut hi) = (base, k - 1);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match self.table[mid].cmp_name(new, buf) {
                Ordering::Less => lo = mid + 1,
                Ordering::Equal => return Err(self.fail(DUPLICATE)),
                Ordering::Greater => hi = mid,
            }
        }
        let pos = lo;
        let end = self.out.len;
        let mid = new.start();
        let len = end - mid;
        let at = self.table[pos].start();
        rotate(self.out.buf, at, mid, end);
        for i in (pos..k).rev() {
            self.table[i + 1] = self.table[i].shifted(len);
        }
        self.table[pos] = new.at(at);
        Ok(())
    }

    /// `}` for the innermost object, whose members start at table entry `base`.
    fn close_object(&mut self, base: usize) -> Res {
        if self.depth == 1 {
            if let Some((name, json)) = self.extra.take() {
                // The extra member replaces one of its name that the rule dropped.
                self.begin_member(name)?;
                self.out.bytes(json);
                self.settle(base)?;
            }
        }
        self.depth -= 1;
        let had_members = self.top > base;
        self.top = base;
        if had_members {
            // The last member's comma becomes the brace.
            if let Some(last) = self.out.buf.get_mut(self.out.len - 1) {
                *last = b'}';
            }
            Ok(())
        } else {
            self.out.byte(b'}');
            Ok(())
        }
    }

    fn close_array(&mut self) -> Res {
        self.depth -= 1;
        self.out.byte(b']');
        Ok(())
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
    fn element<T: Serialize + ?Sized>(&mut self, value: &T) -> Res {
        if self.muted {
            return Ok(());
        }
        if !self.first {
            self.ser.out.byte(b',');
        }
        self.first = false;
        value.serialize(&mut *self.ser)
    }

    fn field<T: Serialize + ?Sized>(&mut self, key: &str, value: &T) -> Res {
        if self.muted {
            return Ok(());
        }
        if self.ser.member(key)? {
            value.serialize(&mut *self.ser)?;
            self.ser.settle(self.base)?;
        }
        Ok(())
    }

    fn end_array(self) -> Res {
        if !self.muted {
            self.ser.close_array()?;
        }
        self.end_variant()
    }

    fn end_object(self) -> Res {
        if !self.muted {
            self.ser.close_object(self.base)?;
        }
        self.end_variant()
    }

    fn end_variant(self) -> Res {
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
        fn $name(self, v: $t) -> Res {
            #[allow(unused_comparisons)]
            let negative = v < 0;
            write_integer(negative, (v as i128).unsigned_abs(), &mut self.out).map_err(|e| self.fail(e))
        }
    )*};
}

impl<'a, 'o, 't, 'r, P: Preimage + ?Sized> ser::Serializer for &'a mut Ser<'o, 't, 'r, P> {
    type Ok = ();
    type Error = Fault;
    type SerializeSeq = Compound<'a, 'o, 't, 'r, P>;
    type SerializeTuple = Compound<'a, 'o, 't, 'r, P>;
    type SerializeTupleStruct = Compound<'a, 'o, 't, 'r, P>;
    type SerializeTupleVariant = Compound<'a, 'o, 't, 'r, P>;
    type SerializeMap = Compound<'a, 'o, 't, 'r, P>;
    type SerializeStruct = Compound<'a, 'o, 't, 'r, P>;
    type SerializeStructVariant = Compound<'a, 'o, 't, 'r, P>;

    int!(serialize_i8: i8, serialize_i16: i16, serialize_i32: i32, serialize_i64: i64,
         serialize_u8: u8, serialize_u16: u16, serialize_u32: u32, serialize_u64: u64);

    fn serialize_i128(self, v: i128) -> Res {
        write_integer(v < 0, v.unsigned_abs(), &mut self.out).map_err(|e| self.fail(e))
    }
    fn serialize_u128(self, v: u128) -> Res {
        write_integer(false, v, &mut self.out).map_err(|e| self.fail(e))
    }
    fn serialize_bool(self, v: bool) -> Res {
        self.out.bytes(if v { b"true" } else { b"false" });
        Ok(())
    }
    fn serialize_f32(self, v: f32) -> Res {
        write_double(f64::from(v), &mut self.out).map_err(|e| self.fail(e))
    }
    fn serialize_f64(self, v: f64) -> Res {
        write_double(v, &mut self.out).map_err(|e| self.fail(e))
    }
    fn serialize_char(self, v: char) -> Res {
        let mut buf = [0u8; 4];
        self.str_value(v.encode_utf8(&mut buf))
    }
    fn serialize_str(self, v: &str) -> Res {
        self.str_value(v)
    }
    fn serialize_bytes(self, v: &[u8]) -> Res {
        write_bytes(v, &mut self.out).map_err(|e| self.fail(e))
    }
    fn serialize_none(self) -> Res {
        self.out.bytes(b"null");
        Ok(())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Res {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Res {
        self.out.bytes(b"null");
        Ok(())
    }
    fn serialize_unit_struct(self, _: &'static str) -> Res {
        self.out.bytes(b"null");
        Ok(())
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, variant: &'static str) -> Res {
        self.str_value(variant)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, value: &T) -> Res {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        value: &T,
    ) -> Res {
        self.open(b'{')?;
        let base = self.top;
        if self.member(variant)? {
            value.serialize(&mut *self)?;
            self.settle(base)?;
        }
        self.close_object(base)
    }
    fn serialize_seq(self, _: Option<usize>) -> Res<Self::SerializeSeq> {
        self.open(b'[')?;
        Ok(Compound { base: 0, ser: self, first: true, skip: false, variant: None, muted: false })
    }
    fn serialize_tuple(self, len: usize) -> Res<Self::SerializeTuple> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_struct(self, _: &'static str, len: usize) -> Res<Self::SerializeTupleStruct> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Res<Self::SerializeTupleVariant> {
        self.open(b'{')?;
        let outer = self.top;
        let kept = self.member(variant)?;
        if kept {
            self.open(b'[')?;
        }
        Ok(Compound { base: 0, ser: self, first: true, skip: false, variant: Some(outer), muted: !kept })
    }
    fn serialize_map(self, _: Option<usize>) -> Res<Self::SerializeMap> {
        self.open(b'{')?;
        let base = self.top;
        Ok(Compound { base, ser: self, first: true, skip: false, variant: None, muted: false })
    }
    fn serialize_struct(self, _: &'static str, len: usize) -> Res<Self::SerializeStruct> {
        self.serialize_map(Some(len))
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Res<Self::SerializeStructVariant> {
        self.open(b'{')?;
        let outer = self.top;
        let kept = self.member(variant)?;
        if kept {
            self.open(b'{')?;
        }
        let base = self.top;
        Ok(Compound { base, ser: self, first: true, skip: false, variant: Some(outer), muted: !kept })
    }
    fn collect_str<T: core::fmt::Display + ?Sized>(self, value: &T) -> Res {
        super::write_display(value, &mut self.out).map_err(|e| self.fail(e))
    }
}

array_like!([P: Preimage + ?Sized] Compound<'_, '_, '_, '_, P>, error = Fault, end = Compound::end_array);

impl<P: Preimage + ?Sized> ser::SerializeMap for Compound<'_, '_, '_, '_, P> {
    type Ok = ();
    type Error = Fault;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Res {
        let ser = &mut *self.ser;
        let mut kept = false;
        let done = key.serialize(KeySerializer(|k: &str| {
            // A step's error is kept in `ser`; the key serializer only needs to stop.
            kept = ser.member(k).map_err(|_| Error::InvalidArgument("member name"))?;
            Ok(())
        }));
        if let Err(e) = done {
            return Err(self.ser.fail(e));
        }
        self.skip = !kept;
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Res {
        if core::mem::take(&mut self.skip) {
            return Ok(());
        }
        value.serialize(&mut *self.ser)?;
        self.ser.settle(self.base)
    }
    fn end(self) -> Res {
        self.end_object()
    }
}

impl<P: Preimage + ?Sized> ser::SerializeStruct for Compound<'_, '_, '_, '_, P> {
    type Ok = ();
    type Error = Fault;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Res {
        self.field(key, value)
    }
    fn end(self) -> Res {
        self.end_object()
    }
}

impl<P: Preimage + ?Sized> ser::SerializeStructVariant for Compound<'_, '_, '_, '_, P> {
    type Ok = ();
    type Error = Fault;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Res {
        self.field(key, value)
    }
    fn end(self) -> Res {
        self.end_object()
    }
}

#[cfg(test)]
mod tests {
    use std::string::{String, ToString};
    use std::vec;
    use std::vec::Vec;

    use super::{move_within, prefix_of, rotate, Out};

    /// `s` through [`Out::string`] into a buffer of `room` bytes: the bytes written (when
    /// they fit), the length counted, and what the writer reported.
    fn written<const NAME: bool>(s: &str, room: usize) -> (Vec<u8>, usize, usize, bool, u64) {
        let mut buf = vec![0xAAu8; room];
        let mut out = Out { buf: &mut buf, len: 0 };
        let w = out.string::<NAME>(s).unwrap();
        let (len, over) = (out.len, out.over());
        let text = if over { Vec::new() } else { buf[..len].to_vec() };
        (text, len, w.raw, w.plain, w.prefix)
    }

    #[test]
    fn strings_are_written_as_serde_json_escapes_them() {
        // serde_json escapes strings as RFC 8785 does (short escapes, else lowercase \u00XX,
        // nothing else); every byte value at every position of strings of every length
        // around the word size, among fillers of each UTF-8 width.
        for filler in ["a", "~", "é", "\u{7f}", "€", "🤝"] {
            for len in 0..=19 {
                for pos in 0..len.max(1) {
                    for c in (0u32..0x80).chain([0xe9, 0x2028, 0x1f600]) {
                        let c = char::from_u32(c).unwrap();
                        let s: String =
                            (0..len).map(|i| if i == pos { c.to_string() } else { filler.to_string() }).collect();
                        let json = serde_json::to_vec(&s).unwrap();
                        let plain = s.is_ascii() && json.len() == s.len() + 2;
                        let mut name = json.clone();
                        name.push(b':');
                        for room in [6 * s.len() + 2, json.len(), json.len() + 8] {
                            assert_eq!(
                                written::<false>(&s, room),
                                (json.clone(), json.len(), json.len() - 2, plain, 0)
                            );
                        }
                        let prefix = if plain { prefix_of(s.as_bytes()) } else { 0 };
                        for room in [6 * s.len() + 3, name.len(), name.len() + 8] {
                            assert_eq!(
                                written::<true>(&s, room),
                                (name.clone(), name.len(), json.len() - 2, plain, prefix)
                            );
                        }
                        // Too little room: nothing usable written, the full length counted.
                        let (_, counted, ..) = written::<false>(&s, json.len() - 1);
                        assert_eq!(counted, json.len(), "{s:?}");
                        let (_, counted, ..) = written::<true>(&s, name.len() - 1);
                        assert_eq!(counted, name.len(), "{s:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn name_prefixes_are_the_first_eight_bytes() {
        for len in 0..=12 {
            let s: String = (0..len).map(|i| char::from(b'!' + i as u8 * 7)).collect();
            let mut want = [0u8; 8];
            for (d, b) in want.iter_mut().zip(s.bytes()) {
                *d = b;
            }
            assert_eq!(written::<true>(&s, 64).4, u64::from_be_bytes(want), "{s:?}");
        }
    }

    #[test]
    fn members_rotate_into_place() {
        // Every member length around the short-move classes, every length of the members it
        // lands in front of up to past 64, with spare room after the output and without.
        for len in 1..=70 {
            for before in 0..=70 {
                for spare in [0, len] {
                    let at = 3;
                    let (mid, end) = (at + before, at + before + len);
                    let mut buf: Vec<u8> = (0..end + spare).map(|i| i as u8).collect();
                    let mut want = buf.clone();
                    want[at..end].rotate_right(len);
                    rotate(&mut buf, at, mid, end);
                    assert_eq!(buf[..end], want[..end], "len {len} before {before} spare {spare}");
                }
            }
        }
    }

    #[test]
    fn short_moves_are_memmove() {
        for len in 0..=80 {
            for from in 0..=20 {
                for to in 0..=20 {
                    let mut buf: Vec<u8> = (0..120u8).collect();
                    let mut want = buf.clone();
                    want.copy_within(from..from + len, to);
                    assert_eq!(move_within(&mut buf, from, to, len), Some(()));
                    assert_eq!(buf, want, "len {len} from {from} to {to}");
                }
            }
        }
        assert_eq!(move_within(&mut [0u8; 8], 4, 0, 5), None);
    }
}
