//! Polling the room: bounded exponential backoff that honours `Retry-After` and stops at a
//! terminal outcome or the shared deadline.
//!
//! There is no callback in Venue V1, so an agent polls `GET .../room`. After each response
//! the agent calls [`Backoff::next`] with the outcome it saw, `now`, the deadline and the
//! response's `Retry-After` (parsed by [`parse_retry_after`]). The delay doubles from
//! `initial` up to `max`; `Retry-After` raises it (never lowers it); the next poll is
//! never scheduled past the deadline, and a `Retry-After` that points past the deadline
//! stops polling. The number of polls is bounded by `max_polls`. No randomness is used
//! (callers wanting jitter add it to the returned delay, downwards only).
//!
//! ```
//! # fn main() -> Result<(), concordia_core::Error> {
//! use concordia_core::consensus::{polling::{Backoff, Next}, Outcome};
//! use concordia_core::time::Timestamp;
//!
//! let mut b = Backoff::new(2, 60, 100)?;
//! let (now, deadline) = (Timestamp::from_unix(0), Timestamp::from_unix(1000));
//! assert_eq!(b.next(Outcome::Pending, now, deadline, None), Next::Wait(2));
//! assert_eq!(b.next(Outcome::Pending, now, deadline, Some(30)), Next::Wait(30));
//! assert_eq!(b.next(Outcome::Reached, now, deadline, None), Next::Stop(Outcome::Reached));
//! # Ok(())
//! # }
//! ```

use crate::error::{Error, Result};
use crate::time::{parse_datetime, Timestamp};

use super::Outcome;

/// What to do after a poll.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Next {
    /// Poll again after this many seconds.
    Wait(u64),
    /// Stop polling: the outcome is terminal, or `Expired` when the deadline passed, or
    /// `Pending` when the poll budget is spent.
    Stop(Outcome),
}

/// Bounded exponential backoff state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Backoff {
    initial: u64,
    max: u64,
    max_polls: u32,
    polls: u32,
}

impl Backoff {
    /// Delays start at `initial` seconds and double up to `max`; at most `max_polls`
    /// further polls are scheduled.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] unless `1 <= initial <= max`.
    pub fn new(initial: u64, max: u64, max_polls: u32) -> Result<Self> {
        if initial == 0 || initial > max {
            return Err(Error::InvalidArgument("backoff bounds"));
        }
        Ok(Backoff { initial, max, max_polls, polls: 0 })
    }

    /// The number of polls scheduled so far.
    #[must_use]
    pub fn polls(&self) -> u32 {
        self.polls
    }

    /// Decides the next step after a poll that observed `outcome` at `now`, with an
    /// optional `Retry-After` delay in seconds.
    pub fn next(&mut self, outcome: Outcome, now: Timestamp, deadline: Timestamp, retry_after: Option<u64>) -> Next {
        if outcome.is_terminal() {
            return Next::Stop(outcome);
        }
        if now >= deadline {
            return Next::Stop(Outcome::Expired);
        }
        if self.polls >= self.max_polls {
            return Next::Stop(Outcome::Pending);
        }
        let exp = self.initial.saturating_mul(1u64.checked_shl(self.polls.min(63)).unwrap_or(u64::MAX));
        let mut delay = exp.min(self.max);
        if let Some(r) = retry_after {
            delay = delay.max(r);
        }
        let left = u64::try_from(deadline.seconds_since(&now)).unwrap_or(0);
        if delay > left {
            if retry_after.is_some_and(|r| r > left) {
                return Next::Stop(Outcome::Expired);
            }
            delay = left.max(1);
        }
        self.polls += 1;
        Next::Wait(delay)
    }
}

const MONTHS: [&str; 12] = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const DAYS: [&str; 7] = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];

/// Parses a `Retry-After` value into seconds from `now`: delta-seconds (`120`) or an
/// IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`; a date in the past is 0).
///
/// # Errors
/// [`Error::Schema`]`("retry-after")` for anything else.
pub fn parse_retry_after(value: &str, now: Timestamp) -> Result<u64> {
    let bad = Error::Schema("retry-after");
    let v = value.trim_matches(|c| c == ' ' || c == '\t');
    if !v.is_empty() && v.len() <= 19 && v.bytes().all(|b| b.is_ascii_digit()) {
        return v.parse::<u64>().map_err(|_| bad);
    }
    // IMF-fixdate: day-name "," SP DD SP Mon SP YYYY SP HH:MM:SS SP "GMT" (29 bytes).
    let b = v.as_bytes();
    if b.len() != 29 || b.get(3) != Some(&b',') || !v.ends_with(" GMT") {
        return Err(bad);
    }
    let day = v.get(..3).ok_or(bad)?;
    let mon = v.get(8..11).ok_or(bad)?;
    let m = MONTHS.iter().position(|x| *x == mon).ok_or(bad)? + 1;
    if !DAYS.contains(&day) || [4usize, 7, 11, 16].iter().any(|&i| b.get(i) != Some(&b' ')) {
        return Err(bad);
    }
    let digits = |r: core::ops::Range<usize>| v.get(r).filter(|s| s.bytes().all(|c| c.is_ascii_digit())).ok_or(bad);
    let (year, dd, time) = (digits(12..16)?, digits(5..7)?, v.get(17..25).ok_or(bad)?);
    if !time.bytes().enumerate().all(|(i, c)| if i == 2 || i == 5 { c == b':' } else { c.is_ascii_digit() }) {
        return Err(bad);
    }
    // Rebuild as RFC 3339 `YYYY-MM-DDTHH:MM:SSZ` and let the time module check ranges.
    let month = [b'0' + (m / 10) as u8, b'0' + (m % 10) as u8];
    let mut buf = [0u8; 20];
    let pieces: [&[u8]; 7] = [year.as_bytes(), b"-", &month, b"-", dd.as_bytes(), b"T", time.as_bytes()];
    let mut n = 0;
    for p in pieces.into_iter().chain([&b"Z"[..]]) {
        buf.get_mut(n..n + p.len()).ok_or(bad)?.copy_from_slice(p);
        n += p.len();
    }
    let text = core::str::from_utf8(buf.get(..n).ok_or(bad)?).map_err(|_| bad)?;
    let at = parse_datetime(text).map_err(|_| bad)?;
    Ok(u64::try_from(at.seconds_since(&now)).unwrap_or(0))
}
