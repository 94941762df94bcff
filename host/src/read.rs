//! Reading input of any size fallibly: growth by `try_reserve`, an optional cap, and
//! exhaustion or an input over the cap as an error rather than an abort.

use std::fmt;
use std::io::{self, Read};

use concordia_core::error::Limit;
use concordia_core::Error;

use crate::out_of_memory;

/// Why reading an input failed: the reader's own I/O error, or an error about the input
/// (over the cap: [`Limit::Size`] at the cap; no memory for it: [`Limit::Memory`] at the
/// size that could not be held; or, from the streaming reader, the input's parse error).
#[derive(Debug)]
pub enum ReadError {
    /// The reader failed.
    Io(io::Error),
    /// The input (its size, or its content) is refused.
    Input(Error),
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::Io(e) => e.fmt(f),
            ReadError::Input(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for ReadError {}

impl From<Error> for ReadError {
    fn from(e: Error) -> Self {
        ReadError::Input(e)
    }
}

impl From<io::Error> for ReadError {
    fn from(e: io::Error) -> Self {
        ReadError::Io(e)
    }
}

/// The error for an input longer than `cap` bytes: [`Limit::Size`] whose offset is the cap.
#[must_use]
pub fn over_cap(cap: u64) -> Error {
    Error::Limit { kind: Limit::Size, offset: usize::try_from(cap).unwrap_or(usize::MAX) }
}

/// Bytes read at a time when the size is not known.
pub(crate) const CHUNK: usize = 256 * 1024;

/// Appends up to `want` bytes from `reader` to `buf` (fewer only at the end of the
/// input), growing it fallibly first; returns how many were read (0 at the end).
pub(crate) fn read_more(
    reader: &mut impl Read,
    buf: &mut Vec<u8>,
    want: usize,
    total: u64,
) -> Result<usize, ReadError> {
    buf.try_reserve(want)
        .map_err(|_| out_of_memory(usize::try_from(total.saturating_add(want as u64)).unwrap_or(usize::MAX)))?;
    // `Take` bounds the read to the room just reserved, so `read_to_end` never grows the
    // buffer itself (its growth would abort on exhaustion); it also retries `Interrupted`
    // and does not zero the spare capacity first.
    Ok(reader.by_ref().take(want as u64).read_to_end(buf)?)
}

/// Reads all of `reader`, fallibly.
///
/// `size_hint` (a file's length, or 0) is reserved up front, so a file is read into a
/// buffer of exactly its size; a hint larger than `cap` fails before reading a byte.
/// Without a hint the buffer grows geometrically by fallible reservations.
///
/// # Errors
/// [`ReadError::Input`] with [`Limit::Size`] at `cap` once the input is longer than `cap`
/// bytes, or with [`Limit::Memory`] at the size that could not be allocated;
/// [`ReadError::Io`] when the reader fails.
pub fn read_all(mut reader: impl Read, size_hint: u64, cap: Option<u64>) -> Result<Vec<u8>, ReadError> {
    if let Some(cap) = cap {
        if size_hint > cap {
            return Err(over_cap(cap).into());
        }
    }
    let mut buf = Vec::new();
    if size_hint > 0 {
        // One more byte than the hint, so that the read that finds the end needs no growth.
        let want = usize::try_from(size_hint.saturating_add(1)).map_err(|_| out_of_memory(usize::MAX))?;
        buf.try_reserve_exact(want).map_err(|_| out_of_memory(want))?;
    }
    let mut total = 0u64;
    loop {
        let room = buf.capacity() - buf.len();
        let want = if room > 0 { room } else { CHUNK.max(buf.len()) };
        // Never read more than one byte past the cap.
        let want = match cap {
            Some(cap) => want.min(usize::try_from(cap.saturating_sub(total).saturating_add(1)).unwrap_or(usize::MAX)),
            None => want,
        };
        let n = read_more(&mut reader, &mut buf, want.max(1), total)?;
        if n == 0 {
            return Ok(buf);
        }
        total += n as u64;
        if let Some(cap) = cap {
            if total > cap {
                return Err(over_cap(cap).into());
            }
        }
    }
}
