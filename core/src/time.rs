//! Timestamps as the Concordia conformance contract reads them.
//!
//! The contract's rule (RUNNER_CONTRACT.md, "Date-time assertion") is Python 3.11's
//! `datetime.fromisoformat(s.replace("Z", "+00:00"))`, and the result must carry an
//! explicit UTC offset. [`parse_datetime`] implements that rule exactly, including
//! everything CPython 3.11's C parser accepts beyond RFC 3339, so that a record is
//! accepted or rejected here exactly when the reference runner accepts or rejects it:
//!
//! * dates `YYYY-MM-DD`, `YYYYMMDD`, ISO week dates `YYYY-Www[-D]` / `YYYYWww[D]`;
//! * *any* one character as the date/time separator (`T`, `t`, space, `X`, `é`, ...);
//! * times `HH[:MM[:SS[.f+]]]` or `HH[MM[SS[f+]]]`, fraction separator `.` or `,`, any
//!   number of fraction digits (digits past the sixth are ignored, not rounded);
//! * offsets `±HH[:MM[:SS[.ffffff]]]` or `±HH[MM[SS[.ffffff]]]`, strictly within
//!   ±24 hours; minutes and seconds of an offset are not range-checked (`+00:99` is 99
//!   minutes), as in CPython; an offset of zero whole seconds is UTC even with a
//!   fraction (`+00:00:00.5`);
//! * one stray character between the time and the offset (`14:25:00 +01:00`), and any
//!   text after a NUL character, which CPython's C parser does not look at;
//! * every `Z` anywhere in the text stands for `+00:00` (the runner's `replace`), so
//!   `...Z` is UTC and `...ZZ` is invalid; lower-case `z` is invalid.
//!
//! Years are 0001..=9999, hours 0..=23, minutes and seconds 0..=59 (no leap second).
//! A text without an offset (`2026-05-10T14:25:00`, `2026-05-10`) is naive: the
//! `format: "date-time"` assertion ([`is_date_time`]) rejects it, and so does
//! [`parse_datetime`]. The runner's temporal checks (its `parse_datetime`) instead read a
//! naive text as UTC; [`parse_datetime_assume_utc`] does that.
//!
//! One deviation: a text containing `Z` is expanded into a 256-byte stack buffer, so a
//! `Z`-bearing text longer than that (only possible with hundreds of fraction digits) is
//! rejected here although Python would accept it.
//!
//! ```
//! # fn main() -> Result<(), concordia_core::Error> {
//! use concordia_core::time::{parse_datetime, Timestamp};
//!
//! let t = parse_datetime("2026-05-10T14:25:00Z")?;
//! assert_eq!(t, parse_datetime("2026-05-10T16:25:00+02:00")?);
//! assert_eq!(t.unix_seconds(), 1_778_423_100);
//! let mut buf = [0u8; 20];
//! assert_eq!(t.format_rfc3339(&mut buf)?, "2026-05-10T14:25:00Z");
//! assert!(parse_datetime("2026-05-10T14:25:00").is_err()); // naive
//! # Ok(())
//! # }
//! ```

use core::fmt;

use crate::error::{Error, Result};

/// A UTC instant: whole seconds since 1970-01-01T00:00:00Z plus nanoseconds.
///
/// Ordering is chronological. Parsed timestamps have microsecond precision (Python's).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp {
    secs: i64,
    nanos: u32,
}

/// Length of the RFC 3339 form `YYYY-MM-DDTHH:MM:SSZ` that [`Timestamp::format_rfc3339`]
/// writes.
pub const RFC3339_LEN: usize = 20;

/// Seconds from 0001-01-01T00:00:00Z to the epoch (negative).
const MIN_SECS: i64 = -62_135_596_800;
/// Seconds from the epoch to 9999-12-31T23:59:59Z.
const MAX_SECS: i64 = 253_402_300_799;

impl Timestamp {
    /// The instant `secs` seconds after 1970-01-01T00:00:00Z.
    #[must_use]
    pub const fn from_unix(secs: i64) -> Self {
        Timestamp { secs, nanos: 0 }
    }

    /// The instant `secs` seconds plus `nanos` nanoseconds after the epoch.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when `nanos` is 1 000 000 000 or more.
    pub const fn from_unix_nanos(secs: i64, nanos: u32) -> Result<Self> {
        if nanos >= 1_000_000_000 {
            return Err(Error::InvalidArgument("nanoseconds out of range"));
        }
        Ok(Timestamp { secs, nanos })
    }

    /// Whole seconds since the epoch (rounded towards negative infinity).
    #[must_use]
    pub const fn unix_seconds(&self) -> i64 {
        self.secs
    }

    /// The sub-second part, in nanoseconds (0..1 000 000 000).
    #[must_use]
    pub const fn subsec_nanos(&self) -> u32 {
        self.nanos
    }

    /// This instant moved by `secs` seconds (negative moves back).
    ///
    /// # Errors
    /// [`Error::Temporal`] when the result does not fit an `i64` of seconds.
    pub const fn add_seconds(&self, secs: i64) -> Result<Self> {
        match self.secs.checked_add(secs) {
            Some(s) => Ok(Timestamp { secs: s, nanos: self.nanos }),
            None => Err(Error::Temporal("timestamp overflow")),
        }
    }

    /// The signed number of whole seconds from `earlier` to `self` (sub-seconds truncated
    /// towards zero), saturating at the `i64` range.
    #[must_use]
    pub fn seconds_since(&self, earlier: &Timestamp) -> i64 {
        let mut s = i128::from(self.secs) - i128::from(earlier.secs);
        let n = i128::from(self.nanos) - i128::from(earlier.nanos);
        if s > 0 && n < 0 {
            s -= 1;
        } else if s < 0 && n > 0 {
            s += 1;
        }
        i64::try_from(s).unwrap_or(if s < 0 { i64::MIN } else { i64::MAX })
    }

    /// Writes `YYYY-MM-DDTHH:MM:SSZ` (sub-seconds dropped) into `out` and returns it.
    ///
    /// # Errors
    /// [`Error::BufferTooSmall`] when `out` is shorter than [`RFC3339_LEN`];
    /// [`Error::Temporal`] for instants outside years 0001..=9999.
    pub fn format_rfc3339<'b>(&self, out: &'b mut [u8]) -> Result<&'b str> {
        let Some(out) = out.get_mut(..RFC3339_LEN) else {
            return Err(Error::BufferTooSmall { needed: RFC3339_LEN });
        };
        if self.secs < MIN_SECS || self.secs > MAX_SECS {
            return Err(Error::Temporal("timestamp outside years 0001..=9999"));
        }
        let days = self.secs.div_euclid(86_400);
        let rem = self.secs.rem_euclid(86_400);
        let (y, m, d) = civil_from_days(days);
        let fields: [(usize, i64, usize); 6] =
            [(0, y, 4), (5, m, 2), (8, d, 2), (11, rem / 3600, 2), (14, rem / 60 % 60, 2), (17, rem % 60, 2)];
        for (at, mut v, width) in fields {
            for i in (0..width).rev() {
                if let Some(b) = out.get_mut(at + i) {
                    *b = b'0' + (v % 10) as u8;
                }
                v /= 10;
            }
        }
        for (at, c) in [(4, b'-'), (7, b'-'), (10, b'T'), (13, b':'), (16, b':'), (19, b'Z')] {
            if let Some(b) = out.get_mut(at) {
                *b = c;
            }
        }
        core::str::from_utf8(out).map_err(|_| Error::InvalidArgument("timestamp text"))
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut buf = [0u8; RFC3339_LEN];
        match self.format_rfc3339(&mut buf) {
            Ok(s) => f.write_str(s),
            Err(_) => write!(f, "@{}.{:09}", self.secs, self.nanos),
        }
    }
}

/// Parses a timestamp by the contract's rule; the text must carry a UTC offset.
///
/// # Errors
/// [`Error::Temporal`] when the text is not such a timestamp (malformed, out of range,
/// or naive).
pub fn parse_datetime(s: &str) -> Result<Timestamp> {
    match parse_any(s)? {
        (t, true) => Ok(t),
        (_, false) => Err(Error::Temporal("timestamp has no UTC offset")),
    }
}

/// Parses a timestamp as the reference runner's temporal checks do: like
/// [`parse_datetime`], but a naive text (no offset) is read as UTC.
///
/// # Errors
/// [`Error::Temporal`] when the text is malformed or out of range.
pub fn parse_datetime_assume_utc(s: &str) -> Result<Timestamp> {
    parse_any(s).map(|(t, _)| t)
}

/// The contract's `format: "date-time"` assertion: [`parse_datetime`] succeeds.
#[must_use]
pub fn is_date_time(s: &str) -> bool {
    parse_datetime(s).is_ok()
}

const BAD: Error = Error::Temporal("invalid timestamp");

/// Applies the runner's `replace("Z", "+00:00")`, then parses; returns the instant and
/// whether an offset was present.
fn parse_any(s: &str) -> Result<(Timestamp, bool)> {
    if !s.contains('Z') {
        return from_isoformat(s.as_bytes());
    }
    let mut buf = [0u8; 256];
    let mut n = 0usize;
    for &b in s.as_bytes() {
        let piece: &[u8] = if b == b'Z' { b"+00:00" } else { core::slice::from_ref(&b) };
        let Some(dst) = buf.get_mut(n..n + piece.len()) else {
            return Err(Error::Temporal("timestamp too long"));
        };
        dst.copy_from_slice(piece);
        n += piece.len();
    }
    from_isoformat(buf.get(..n).unwrap_or(&[]))
}

/// CPython 3.11 `datetime.fromisoformat` over the UTF-8 bytes of the text. Reads past
/// the end see NUL, as the C code does.
fn from_isoformat(s: &[u8]) -> Result<(Timestamp, bool)> {
    let len = s.len();
    if len < 7 {
        return Err(BAD);
    }
    let at = |i: usize| s.get(i).copied().unwrap_or(0);
    let sep = separator_location(s).ok_or(BAD)?;
    let (year, month, day) = parse_date(s, sep)?;
    let mut time = Time::default();
    let mut aware = false;
    if len > sep {
        // Skip the separator, one UTF-8 character judged by its first byte.
        let lead = at(sep);
        let width = if lead & 0x80 == 0 {
            1
        } else {
            match lead & 0xF0 {
                0xE0 => 3,
                0xF0 => 4,
                _ => 2,
            }
        };
        let t = s.get(sep + width..).unwrap_or(&[]);
        aware = parse_time(t, &mut time)?;
    }
    if !(1..=9999).contains(&year) || !(1..=12).contains(&month) || day < 1 || day > days_in_month(year, month) {
        return Err(BAD);
    }
    if time.hour > 23 || time.minute > 59 || time.second > 59 {
        return Err(BAD);
    }
    let offset_us = i64::from(time.tz_seconds) * 1_000_000 + i64::from(time.tz_micros);
    if aware && offset_us.abs() >= 86_400 * 1_000_000 {
        return Err(BAD);
    }
    let days = days_from_civil(i64::from(year), i64::from(month), i64::from(day));
    let local_us = (days * 86_400 + i64::from(time.hour) * 3600 + i64::from(time.minute) * 60 + i64::from(time.second))
        * 1_000_000
        + i64::from(time.micros);
    let utc_us = if aware { local_us - offset_us } else { local_us };
    let t = Timestamp { secs: utc_us.div_euclid(1_000_000), nanos: (utc_us.rem_euclid(1_000_000) * 1000) as u32 };
    Ok((t, aware))
}

/// Where the date part ends (CPython's `_find_isoformat_datetime_separator`).
fn separator_location(s: &[u8]) -> Option<usize> {
    let len = s.len();
    let at = |i: usize| s.get(i).copied().unwrap_or(0);
    if len == 7 {
        return Some(7);
    }
    if at(4) == b'-' {
        if at(5) == b'W' {
            if len < 8 {
                return None;
            }
            if len > 8 && at(8) == b'-' {
                if len == 9 {
                    return None;
                }
                if len > 10 && at(10).is_ascii_digit() {
                    return Some(8);
                }
                return Some(10);
            }
            return Some(8);
        }
        return Some(10);
    }
    if at(4) == b'W' {
        let mut idx = 7;
        while idx < len && at(idx).is_ascii_digit() {
            idx += 1;
        }
        if idx < 9 {
            return Some(idx);
        }
        return Some(if idx % 2 == 0 { 7 } else { 8 });
    }
    Some(8)
}

/// Reads `n` ASCII digits at `*p` (NUL past the end), advancing `*p`.
fn digits(s: &[u8], p: &mut usize, n: usize) -> Option<u32> {
    let mut v = 0u32;
    for _ in 0..n {
        let d = s.get(*p).copied().unwrap_or(0).wrapping_sub(b'0');
        if d > 9 {
            return None;
        }
        v = v * 10 + u32::from(d);
        *p += 1;
    }
    Some(v)
}

/// CPython's `parse_isoformat_date` over `s[..len]` (reads may run past `len`, as in C).
fn parse_date(s: &[u8], len: usize) -> Result<(u32, u32, u32)> {
    let mut p = 0usize;
    let year = digits(s, &mut p, 4).ok_or(BAD)?;
    let at = |i: usize| s.get(i).copied().unwrap_or(0);
    let uses_separator = at(p) == b'-';
    if uses_separator {
        p += 1;
    }
    if at(p) == b'W' {
        p += 1;
        let week = digits(s, &mut p, 2).ok_or(BAD)?;
        let weekday = if p < len {
            if uses_separator {
                if at(p) != b'-' {
                    return Err(BAD);
                }
                p += 1;
            }
            digits(s, &mut p, 1).ok_or(BAD)?
        } else {
            1
        };
        return iso_week_to_ymd(year, week, weekday).ok_or(BAD);
    }
    let month = digits(s, &mut p, 2).ok_or(BAD)?;
    if uses_separator {
        if at(p) != b'-' {
            return Err(BAD);
        }
        p += 1;
    }
    let day = digits(s, &mut p, 2).ok_or(BAD)?;
    Ok((year, month, day))
}

#[derive(Default)]
struct Time {
    hour: u32,
    minute: u32,
    second: u32,
    micros: u32,
    /// Signed offset: whole seconds and microseconds (same sign).
    tz_seconds: i32,
    tz_micros: i32,
}

/// CPython's `parse_hh_mm_ss_ff` over `s[start..end]`; returns the components and
/// whether the text continues (non-NUL) where parsing stopped.
fn hh_mm_ss_ff(s: &[u8], start: usize, end: usize) -> Result<([u32; 4], bool)> {
    let at = |i: usize| s.get(i).copied().unwrap_or(0);
    let mut vals = [0u32; 4];
    let mut p = start;
    let mut has_separator = true;
    for i in 0..3 {
        let v = digits(s, &mut p, 2).ok_or(BAD)?;
        if let Some(slot) = vals.get_mut(i) {
            *slot = v;
        }
        let c = at(p);
        p += 1;
        if i == 0 {
            has_separator = c == b':';
        }
        if p >= end {
            return Ok((vals, c != 0));
        } else if has_separator && c == b':' {
            continue;
        } else if c == b'.' || c == b',' {
            break;
        } else if !has_separator {
            p -= 1;
        } else {
            return Err(BAD);
        }
    }
    // Fraction: up to six digits count, further digits are skipped.
    let to_parse = end.saturating_sub(p).min(6);
    let mut micros = digits(s, &mut p, to_parse).ok_or(BAD)?;
    if to_parse < 6 {
        micros *= 10u32.pow(6 - to_parse as u32);
    }
    vals[3] = micros;
    while at(p).is_ascii_digit() {
        p += 1;
    }
    Ok((vals, at(p) != 0))
}

/// CPython's `parse_isoformat_time`; returns whether an offset was present.
fn parse_time(s: &[u8], t: &mut Time) -> Result<bool> {
    let at = |i: usize| s.get(i).copied().unwrap_or(0);
    let end = s.len();
    let mut tz = 0usize;
    loop {
        if matches!(at(tz), b'Z' | b'+' | b'-') {
            break;
        }
        tz += 1;
        if tz >= end {
            break;
        }
    }
    let (v, more) = hh_mm_ss_ff(s, 0, tz)?;
    [t.hour, t.minute, t.second, t.micros] = v;
    if tz == end {
        return if more { Err(BAD) } else { Ok(false) };
    }
    if at(tz) == b'Z' {
        return if at(tz + 1) != 0 { Err(BAD) } else { Ok(true) };
    }
    let sign: i32 = if at(tz) == b'-' { -1 } else { 1 };
    let (o, more) = hh_mm_ss_ff(s, tz + 1, end)?;
    if more {
        return Err(BAD);
    }
    // Each component is at most 99, so this cannot overflow.
    let secs = (o[0] * 3600 + o[1] * 60 + o[2]) as i32;
    t.tz_seconds = sign * secs;
    // CPython 3.11 returns UTC for a zero whole-second offset, dropping its fraction.
    t.tz_micros = if secs == 0 { 0 } else { sign * o[3] as i32 };
    Ok(true)
}

fn is_leap(y: u32) -> bool {
    y.is_multiple_of(4) && (!y.is_multiple_of(100) || y.is_multiple_of(400))
}

fn days_in_month(y: u32, m: u32) -> u32 {
    match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if is_leap(y) => 29,
        2 => 28,
        _ => 0,
    }
}

/// Days from 1970-01-01 to the given proleptic Gregorian date.
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The proleptic Gregorian date of a day count from 1970-01-01.
fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// CPython's `iso_to_ymd` with the year range check of the datetime constructor.
fn iso_week_to_ymd(year: u32, week: u32, weekday: u32) -> Option<(u32, u32, u32)> {
    if !(1..=9999).contains(&year) {
        return None;
    }
    let jan1 = days_from_civil(i64::from(year), 1, 1);
    // Monday = 0; 1970-01-01 was a Thursday.
    let jan1_weekday = (jan1 + 3).rem_euclid(7);
    if week == 0 || week >= 53 {
        let long_year = jan1_weekday == 3 || (jan1_weekday == 2 && is_leap(year));
        if !(week == 53 && long_year) {
            return None;
        }
    }
    if !(1..=7).contains(&weekday) {
        return None;
    }
    let mut week1_monday = jan1 - jan1_weekday;
    if jan1_weekday > 3 {
        week1_monday += 7;
    }
    let days = week1_monday + i64::from((week - 1) * 7 + weekday - 1);
    let (y, m, d) = civil_from_days(days);
    Some((u32::try_from(y).ok()?, m as u32, d as u32))
}

#[cfg(test)]
mod tests;
