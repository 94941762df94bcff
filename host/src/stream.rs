//! Streaming a top-level JSON array (or JSON Lines) from a [`Read`], one element at a time,
//! with memory bounded by the largest element.
//!
//! [`ArrayReader`] drives the core's [`ArrayScanner`] over a buffer that holds only the
//! element being read (the buffer is compacted as elements are consumed) and parses each
//! element with [`Nodes`] under the one policy, with a nesting bound one less than the
//! whole document's (the outer array is one level). Errors have absolute byte offsets.
//!
//! **The same verdict as the whole document.** For every input, the first error this
//! reader reports is the error [`Nodes::parse`] gives for the whole text (a test checks it
//! on generated and damaged arrays), so a caller may stream without changing what it
//! accepts. Three rules of the whole-document reader depend on bytes after the first
//! error, so after an error the reader reads on to the end of the input (without keeping
//! it) before it answers: invalid UTF-8 anywhere outranks every other error; an input of
//! 4 GiB or more is [`Limit::Size`]; an input over the reader's cap is [`Limit::Size`] at
//! the cap. One difference is deliberate: a *well-formed* array of 4 GiB or more, which the
//! whole-document reader cannot index, streams (each element must stay below 4 GiB).
//!
//! An input that is not an array ([`Start::Value`]) can be read whole with
//! [`ArrayReader::into_whole`]. An input whose first byte cannot start a JSON value (300 MB
//! of NUL bytes) is refused at once, after reading the rest without keeping it.

use std::io::Read;

use concordia_core::error::{Limit, Syntax};
use concordia_core::json::stream::{element_depth, ArrayScanner, Span, Step};
use concordia_core::json::{self, Doc, Node, Options};
use concordia_core::Error;

use crate::read::{over_cap, read_more, ReadError, CHUNK};
use crate::{options, out_of_memory, Nodes};

/// Elements up to this many bytes are parsed into a tape of one node per byte (at most
/// 1.5 MiB of nodes), which every text of that length fits: no counting pass first.
const SMALL_ELEMENT: usize = 64 * 1024;

/// What the input turned out to be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Start {
    /// A top-level array: read its elements with [`ArrayReader::next_element`].
    Array,
    /// Another JSON value: read it whole with [`ArrayReader::into_whole`].
    Value,
}

/// One element of the array, parsed.
#[derive(Clone, Copy, Debug)]
pub struct Element<'a> {
    /// The parsed element.
    pub doc: Doc<'a>,
    /// The absolute offset of its first byte.
    pub offset: u64,
    /// Its index in the array.
    pub index: u64,
}

/// The reader and what is known about the input's length.
#[derive(Debug)]
struct Input<R> {
    reader: R,
    /// Bytes read so far.
    total: u64,
    eof: bool,
    cap: Option<u64>,
}

impl<R: Read> Input<R> {
    /// Appends up to `want` bytes to `buf` (0 at the end of the input), under the cap.
    fn read(&mut self, buf: &mut Vec<u8>, want: usize) -> Result<usize, ReadError> {
        if self.eof {
            return Ok(0);
        }
        let want = match self.cap {
            Some(cap) => {
                want.min(usize::try_from(cap.saturating_sub(self.total).saturating_add(1)).unwrap_or(usize::MAX))
            }
            None => want,
        };
        let n = read_more(&mut self.reader, buf, want.max(1), self.total)?;
        self.total += n as u64;
        self.eof = n == 0;
        match self.cap {
            Some(cap) if self.total > cap => Err(over_cap(cap).into()),
            _ => Ok(n),
        }
    }

    /// The whole document's verdict, given the first error `e` in reading order, found at
    /// or before `from`, with `held` the bytes from `held_offset` still in memory
    /// (everything before `from` is known to be valid UTF-8): reads the rest of the input
    /// without keeping it, for the rules that outrank `e` (see the module docs).
    fn verdict(&mut self, e: Error, from: u64, held: &[u8], held_offset: u64) -> ReadError {
        let mut check = Utf8Check::new(from);
        let mut first_invalid = match e {
            Error::Json { kind: Syntax::InvalidUtf8, offset } => Some(offset as u64),
            _ => None,
        };
        if first_invalid.is_none() {
            let lo = usize::try_from(from.saturating_sub(held_offset)).unwrap_or(usize::MAX).min(held.len());
            first_invalid = check.feed(held.get(lo..).unwrap_or_default());
        }
        let mut scratch = Vec::new();
        while !self.eof {
            scratch.clear();
            match self.read(&mut scratch, 64 * 1024) {
                Ok(_) if first_invalid.is_none() => first_invalid = check.feed(&scratch),
                Ok(_) => {}
                Err(err) => return err,
            }
        }
        if self.total >= u64::from(u32::MAX) {
            return Error::Limit { kind: Limit::Size, offset: 0 }.into();
        }
        match first_invalid.or_else(|| check.finish()) {
            Some(at) => {
                Error::Json { kind: Syntax::InvalidUtf8, offset: usize::try_from(at).unwrap_or(usize::MAX) }.into()
            }
            None => e.into(),
        }
    }
}

/// A streaming reader of a top-level JSON array or of JSON Lines (see the module docs).
#[derive(Debug)]
pub struct ArrayReader<R> {
    input: Input<R>,
    /// Input bytes from absolute offset `base`.
    buf: Vec<u8>,
    base: u64,
    scanner: ArrayScanner,
    nodes: Nodes,
    /// Nodes for small elements (see [`SMALL_ELEMENT`]).
    tape: Vec<Node>,
    options: Options,
    start: Option<Start>,
    index: u64,
    done: bool,
}

impl<R: Read> ArrayReader<R> {
    /// A reader of a top-level array under the one parsing policy ([`options`]).
    pub fn new(reader: R) -> Self {
        Self::with_scanner(reader, ArrayScanner::new())
    }

    /// A reader of JSON Lines: [`ArrayReader::next_line`] gives each line's bytes.
    pub fn lines(reader: R) -> Self {
        let mut r = Self::with_scanner(reader, ArrayScanner::lines());
        r.start = Some(Start::Array);
        r
    }

    fn with_scanner(reader: R, scanner: ArrayScanner) -> Self {
        ArrayReader {
            input: Input { reader, total: 0, eof: false, cap: None },
            buf: Vec::new(),
            base: 0,
            scanner,
            nodes: Nodes::new(),
            tape: Vec::new(),
            options: options(),
            start: None,
            index: 0,
            done: false,
        }
    }

    /// Refuses inputs longer than `cap` bytes ([`Limit::Size`] at the cap).
    #[must_use]
    pub fn with_cap(mut self, cap: Option<u64>) -> Self {
        self.input.cap = cap;
        self
    }

    /// Parses with `options` (as the whole document would be parsed) instead of the one
    /// policy.
    #[must_use]
    pub fn with_options(mut self, options: Options) -> Self {
        self.options = options;
        self
    }

    /// Bytes read from the input so far.
    #[must_use]
    pub fn bytes_read(&self) -> u64 {
        self.input.total
    }

    /// The bytes held now (for memory reports and tests): buffer capacity plus nodes.
    #[must_use]
    pub fn held(&self) -> usize {
        self.buf.capacity() + (self.nodes.held() + self.tape.len()) * core::mem::size_of::<Node>()
    }

    /// Reads up to the first value and says whether it is an array. Input whose first
    /// non-whitespace byte cannot start a value is an error (the whole document's).
    ///
    /// # Errors
    /// As [`ArrayReader::next_element`].
    pub fn start(&mut self) -> Result<Start, ReadError> {
        if let Some(s) = self.start {
            return Ok(s);
        }
        loop {
            let s = match self.scanner.next(&self.buf, self.base, self.input.eof) {
                Ok(Step::NeedMore) => {
                    self.fill()?;
                    continue;
                }
                Ok(Step::Open { .. }) => Start::Array,
                Ok(Step::NotArray { .. }) => Start::Value,
                Ok(_) | Err(Error::InvalidArgument(_)) => {
                    self.done = true;
                    return Err(Error::InvalidArgument("array reader: unexpected scanner step").into());
                }
                Err(e) => {
                    self.done = true;
                    let from = self.scanner.position();
                    return Err(self.input.verdict(e, from, &self.buf, self.base));
                }
            };
            self.start = Some(s);
            return Ok(s);
        }
    }

    /// The next element, parsed; `None` after the last.
    ///
    /// # Errors
    /// [`ReadError::Input`] with the whole document's error (absolute offsets; see the
    /// module docs), [`Limit::Size`] over the cap, [`Limit::Memory`];
    /// [`Error::InvalidArgument`] when the input is not an array ([`Start::Value`]);
    /// [`ReadError::Io`]. After an error, `next_element` gives `None`.
    pub fn next_element(&mut self) -> Result<Option<Element<'_>>, ReadError> {
        if self.start()? == Start::Value {
            return Err(Error::InvalidArgument("array reader: the input is not an array").into());
        }
        let Some(span) = self.next_span()? else {
            return Ok(None);
        };
        let Some(depth) = element_depth(self.options.max_depth) else {
            // Only a policy of depth 0 gets here: the whole document fails at its `[`.
            self.done = true;
            return Err(Error::Limit { kind: Limit::Depth, offset: 0 }.into());
        };
        let options = Options { max_depth: depth, ..self.options };
        let index = self.index;
        self.index += 1;
        let lo = usize::try_from(span.start - self.base).unwrap_or(usize::MAX);
        let hi = usize::try_from(span.end - self.base).unwrap_or(usize::MAX);
        let bytes = self.buf.get(lo..hi).unwrap_or_default();
        // A small element parses into a tape that fits any text of its length (no counting
        // pass, no retry); a larger one is sized to its need by `Nodes`.
        let parsed = if bytes.len() <= SMALL_ELEMENT {
            let need = json::nodes_for_any(bytes.len());
            if self.tape.len() < need {
                self.tape.try_reserve_exact(need - self.tape.len()).map_err(|_| {
                    self.done = true;
                    ReadError::Input(out_of_memory(usize::try_from(span.start).unwrap_or(usize::MAX)))
                })?;
                self.tape.resize(need, Node::EMPTY);
            }
            json::parse_with(bytes, &mut self.tape, &options)
        } else {
            self.nodes.parse_with(bytes, &options)
        };
        let e = match parsed {
            Ok(doc) => match span.check_complete(false) {
                Ok(()) => return Ok(Some(Element { doc, offset: span.start, index })),
                Err(e) => e,
            },
            Err(e) => span.map_error(e),
        };
        self.done = true;
        Err(self.input.verdict(e, span.end, &self.buf, self.base))
    }

    /// The next line of JSON Lines input (or the next element's bytes of an array, not
    /// parsed) with its absolute offset; `None` after the last.
    ///
    /// # Errors
    /// As [`ArrayReader::next_element`], without the element's own parse errors.
    pub fn next_line(&mut self) -> Result<Option<(u64, &[u8])>, ReadError> {
        if self.start()? == Start::Value {
            return Err(Error::InvalidArgument("array reader: the input is not an array").into());
        }
        let Some(span) = self.next_span()? else {
            return Ok(None);
        };
        let lo = usize::try_from(span.start - self.base).unwrap_or(usize::MAX);
        let hi = usize::try_from(span.end - self.base).unwrap_or(usize::MAX);
        Ok(Some((span.start, self.buf.get(lo..hi).unwrap_or_default())))
    }

    /// Reads the rest of the array, parsing every element without handing it out: after a
    /// caller's own verdict on an element (a signature that fails), the input as a whole
    /// must still be well-formed for that verdict to stand, as when it is read whole.
    ///
    /// # Errors
    /// As [`ArrayReader::next_element`].
    pub fn check_rest(&mut self) -> Result<(), ReadError> {
        while self.next_element()?.is_some() {}
        Ok(())
    }

    /// The span of the next element, with the buffer filled to its end.
    fn next_span(&mut self) -> Result<Option<Span>, ReadError> {
        while !self.done {
            match self.scanner.next(&self.buf, self.base, self.input.eof) {
                Ok(Step::NeedMore) => self.fill()?,
                Ok(Step::Element(span)) => return Ok(Some(span)),
                Ok(Step::End) => self.done = true,
                Ok(Step::Open { .. } | Step::NotArray { .. }) | Err(Error::InvalidArgument(_)) => {
                    self.done = true;
                    return Err(Error::InvalidArgument("array reader: unexpected scanner step").into());
                }
                Err(e) => {
                    self.done = true;
                    let from = self.scanner.position();
                    return Err(self.input.verdict(e, from, &self.buf, self.base));
                }
            }
        }
        Ok(None)
    }

    /// The whole input, for a [`Start::Value`]: the bytes read so far and the rest, read
    /// fallibly under the cap.
    ///
    /// # Errors
    /// [`Limit::Size`] over the cap, [`Limit::Memory`], [`ReadError::Io`];
    /// [`Error::InvalidArgument`] once elements were read.
    pub fn into_whole(mut self) -> Result<Vec<u8>, ReadError> {
        if self.base != 0 {
            return Err(Error::InvalidArgument("array reader: input already consumed").into());
        }
        while !self.input.eof {
            let want = CHUNK.max(self.buf.len());
            self.input.read(&mut self.buf, want)?;
        }
        Ok(self.buf)
    }

    /// Reads more input after dropping what the scanner no longer needs.
    fn fill(&mut self) -> Result<(), ReadError> {
        let keep = self.scanner.keep_from().max(self.base);
        let drop = usize::try_from(keep - self.base).unwrap_or(usize::MAX).min(self.buf.len());
        // Keep the start of the input until it is known to be an array (`into_whole`).
        if drop > 0 && self.start == Some(Start::Array) {
            self.buf.drain(..drop);
            self.base += drop as u64;
        }
        let want = CHUNK.max(self.buf.len() / 2);
        if let Err(e) = self.input.read(&mut self.buf, want) {
            self.done = true;
            return Err(e);
        }
        Ok(())
    }
}

/// UTF-8 validation over a stream of chunks: the absolute offset of the first invalid
/// sequence (where `str::from_utf8` would say the valid prefix ends).
struct Utf8Check {
    /// An incomplete sequence carried from the previous chunk, and its offset.
    carry: Vec<u8>,
    /// Offset of the next byte fed (of `carry[0]` when `carry` is not empty).
    offset: u64,
}

impl Utf8Check {
    fn new(offset: u64) -> Self {
        Utf8Check { carry: Vec::new(), offset }
    }

    fn feed(&mut self, chunk: &[u8]) -> Option<u64> {
        let mut chunk = chunk;
        // Complete a carried sequence first, byte by byte (at most 3 bytes).
        while !self.carry.is_empty() {
            let (&b, rest) = chunk.split_first()?;
            self.carry.push(b);
            chunk = rest;
            match std::str::from_utf8(&self.carry) {
                Ok(_) => {
                    self.offset += self.carry.len() as u64;
                    self.carry.clear();
                }
                Err(e) if e.error_len().is_some() => return Some(self.offset),
                Err(_) => {}
            }
        }
        match std::str::from_utf8(chunk) {
            Ok(_) => {
                self.offset += chunk.len() as u64;
                None
            }
            Err(e) => {
                let valid = e.valid_up_to();
                if e.error_len().is_some() {
                    return Some(self.offset + valid as u64);
                }
                self.offset += valid as u64;
                self.carry.extend_from_slice(chunk.get(valid..).unwrap_or_default());
                None
            }
        }
    }

    /// At the end of the input: a sequence still incomplete is invalid.
    fn finish(&self) -> Option<u64> {
        (!self.carry.is_empty()).then_some(self.offset)
    }
}
