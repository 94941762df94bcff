//! Byte sinks: where canonical output goes.
//!
//! The canonical writer never needs the whole output at once. It hands bytes to a [`Sink`],
//! which may copy them into a caller buffer ([`SliceSink`]), count them ([`CountSink`]),
//! feed them to SHA-256 ([`crate::digest::Sha256Sink`]) or to an Ed25519 verifier
//! ([`crate::sign::VerifySink`]). Nothing is allocated on the way.

use crate::error::{Error, Result};

/// A destination for a stream of bytes.
pub trait Sink {
    /// Accepts the next chunk of output.
    ///
    /// # Errors
    /// Implementations may refuse bytes (for example a fixed buffer that is full); the
    /// writer stops at the first error and returns it.
    fn write(&mut self, bytes: &[u8]) -> Result<()>;

    /// Accepts `"`, then `text`, then `"`: a JSON string that needs no escape. The same
    /// bytes as three calls of [`write`](Self::write); a sink may take them in one step.
    ///
    /// # Errors
    /// As [`write`](Self::write).
    #[inline]
    fn write_quoted(&mut self, text: &[u8]) -> Result<()> {
        self.write(b"\"")?;
        self.write(text)?;
        self.write(b"\"")
    }
}

impl<S: Sink + ?Sized> Sink for &mut S {
    #[inline]
    fn write(&mut self, bytes: &[u8]) -> Result<()> {
        (**self).write(bytes)
    }

    #[inline]
    fn write_quoted(&mut self, text: &[u8]) -> Result<()> {
        (**self).write_quoted(text)
    }
}

/// Writes into a caller buffer, and keeps counting past its end so that the caller learns
/// how large a buffer the whole output needs.
#[derive(Debug)]
pub struct SliceSink<'a> {
    buf: &'a mut [u8],
    len: usize,
}

impl<'a> SliceSink<'a> {
    /// A sink that writes into `buf` from its start.
    pub fn new(buf: &'a mut [u8]) -> Self {
        SliceSink { buf, len: 0 }
    }

    /// The number of bytes written so far, including any that did not fit.
    #[must_use]
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when nothing has been written.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Ends the output and returns its length.
    ///
    /// # Errors
    /// [`Error::BufferTooSmall`] with the full length when the output did not fit.
    pub fn finish(self) -> Result<usize> {
        if self.len > self.buf.len() {
            Err(Error::BufferTooSmall { needed: self.len })
        } else {
            Ok(self.len)
        }
    }
}

impl Sink for SliceSink<'_> {
    #[inline]
    fn write(&mut self, bytes: &[u8]) -> Result<()> {
        let end = self.len.saturating_add(bytes.len());
        if let Some(dst) = self.buf.get_mut(self.len..end) {
            dst.copy_from_slice(bytes);
        }
        self.len = end;
        Ok(())
    }

    #[inline]
    fn write_quoted(&mut self, text: &[u8]) -> Result<()> {
        let end = self.len.saturating_add(text.len()).saturating_add(2);
        // Past the end only the length counts (`finish`): a part that would fit is never
        // read back.
        if let Some([open, mid @ .., close]) = self.buf.get_mut(self.len..end) {
            *open = b'"';
            mid.copy_from_slice(text);
            *close = b'"';
        }
        self.len = end;
        Ok(())
    }
}

/// Counts the bytes written to it and keeps none.
#[derive(Debug, Default, Clone, Copy)]
pub struct CountSink(pub usize);

impl Sink for CountSink {
    #[inline]
    fn write(&mut self, bytes: &[u8]) -> Result<()> {
        self.0 = self.0.saturating_add(bytes.len());
        Ok(())
    }
}

/// Feeds the same bytes to two sinks.
#[derive(Debug)]
pub struct Tee<A, B>(pub A, pub B);

impl<A: Sink, B: Sink> Sink for Tee<A, B> {
    #[inline]
    fn write(&mut self, bytes: &[u8]) -> Result<()> {
        self.0.write(bytes)?;
        self.1.write(bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slice_sink_reports_needed_length() {
        let mut buf = [0u8; 4];
        let mut s = SliceSink::new(&mut buf);
        s.write(b"abc").unwrap();
        s.write(b"def").unwrap();
        assert_eq!(s.finish(), Err(Error::BufferTooSmall { needed: 6 }));
        assert_eq!(&buf, b"abc\0");
    }

    #[test]
    fn slice_sink_exact_fit() {
        let mut buf = [0u8; 6];
        let mut s = SliceSink::new(&mut buf);
        s.write(b"abc").unwrap();
        s.write(b"def").unwrap();
        assert_eq!(s.finish(), Ok(6));
        assert_eq!(&buf, b"abcdef");
    }
}
