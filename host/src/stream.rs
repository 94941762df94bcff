//! Streaming a top-level JSON array (or JSON Lines) from a [`Read`], one element at a time,
//! with memory bounded by the largest element.
//!
//! [`ArrayReader`] drives the core's [`ArrayScanner`] over a buffer that holds only the
//! element being read (the buffer is compacted as elements are consumed) and parses each
//! element under the one policy, with a nesting bound one less than the whole document's
//! (the outer array is one level). Errors have absolute byte offsets.
//!
//! **One pass over each element.** Where an element begins, the reader parses it from
//! there with [`json::parse_prefix_with`], which finds the element's end as it parses; the
//! scanner only checks the `,` or `]` after it ([`ArrayScanner::skip_to`]). Only when that
//! cannot decide (the buffer ends inside the element, an element needs more than
//! `SMALL_ELEMENT` nodes, or the element is malformed) is the element scanned for its end
//! and parsed from its span, as a separate pass, into a second buffer. After an element
//! longer than `SMALL_ELEMENT` bytes that needed more nodes, the next ones are scanned
//! first (two passes, one buffer), until one is that short again.
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
use concordia_core::json::stream::{element_depth, ArrayScanner, Span, Step, Terminator};
use concordia_core::json::{self, Doc, Node, Options};
use concordia_core::Error;

use crate::read::{over_cap, read_more, ReadError, CHUNK};
use crate::{options, out_of_memory, Nodes};

/// Elements are parsed where they begin into a tape of one node per byte plus one, which
/// every text of that length fits (no counting pass first): at first for elements of up to
/// `FIRST_TAPE` bytes (96 KiB of nodes), after an element that needed more for up to twice
/// its length, at most `SMALL_ELEMENT` bytes (1.5 MiB of nodes). An element that needs
/// more nodes than the tape has is scanned and parsed again, sized to its need by [`Nodes`].
const SMALL_ELEMENT: usize = 64 * 1024;

/// See [`SMALL_ELEMENT`].
const FIRST_TAPE: usize = 4 * 1024;

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
    /// Nodes for parsing where elements begin, for texts of up to `tape_for` bytes (see
    /// [`SMALL_ELEMENT`]).
    tape: Vec<Node>,
    tape_for: usize,
    /// The second buffer: when an element is scanned for its end, its bytes and what is
    /// read after them are in `spill` from absolute offset `spill_base` (the element
    /// handed out borrows `buf`, so `buf` cannot grow then); the next call takes `spill`
    /// as `buf` ([`ArrayReader::settle`]).
    spill: Vec<u8>,
    spill_base: u64,
    in_spill: bool,
    /// The last element needed more nodes than the tape has and was longer than
    /// [`SMALL_ELEMENT`]: the next is scanned first and parsed from its span in `buf`
    /// (two passes, but no copy into `spill` and no second buffer of its size).
    scan_first: bool,
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
            tape_for: FIRST_TAPE,
            spill: Vec::new(),
            spill_base: 0,
            in_spill: false,
            scan_first: false,
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
        self.buf.capacity()
            + self.spill.capacity()
            + (self.nodes.held() + self.tape.len()) * core::mem::size_of::<Node>()
    }

    /// Reads up to the first value and says whether it is an array. Input whose first
    /// non-whitespace byte cannot start a value is an error (the whole document's).
    ///
    /// # Errors
    /// As [`ArrayReader::next_element`].
    pub fn start(&mut self) -> Result<Start, ReadError> {
        self.settle();
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
        let Some(at) = self.next_begin()? else {
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
        if self.scan_first {
            let Some(span) = self.next_span()? else {
                self.done = true;
                return Err(Error::InvalidArgument("array reader: unexpected scanner step").into());
            };
            self.scan_first = span.len() > SMALL_ELEMENT as u64;
            let lo = usize::try_from(span.start - self.base).unwrap_or(usize::MAX);
            let hi = usize::try_from(span.end - self.base).unwrap_or(usize::MAX);
            let bytes = self.buf.get(lo..hi).unwrap_or_default();
            let e = match self.nodes.parse_with(bytes, &options) {
                Ok(doc) => match span.check_complete(false) {
                    Ok(()) => return Ok(Some(Element { doc, offset: span.start, index })),
                    Err(e) => e,
                },
                Err(e) => span.map_error(e),
            };
            self.done = true;
            return Err(self.input.verdict(e, span.end, &self.buf, self.base));
        }
        let lo = usize::try_from(at - self.base).unwrap_or(usize::MAX);
        let rest_len = self.buf.len().saturating_sub(lo);
        let need = json::nodes_for_any(rest_len.min(self.tape_for));
        if self.tape.len() < need {
            if self.tape.try_reserve_exact(need - self.tape.len()).is_err() {
                self.done = true;
                return Err(ReadError::Input(out_of_memory(usize::try_from(at).unwrap_or(usize::MAX))));
            }
            self.tape.resize(need, Node::EMPTY);
        }
        // One pass: the parse finds the element's end; the scanner checks what follows.
        let eof = self.input.eof;
        let rest = self.buf.get(lo..).unwrap_or_default();
        let mut step = None;
        let mut grow = false;
        match json::parse_prefix_with(rest, &mut self.tape[..need], &options) {
            Ok((doc, len)) => {
                // A value that ends with the buffer may go on (a number) in bytes not read yet.
                if len < rest.len() || eof {
                    let end = at + len as u64;
                    if self.scanner.skip_to(end).is_ok() {
                        match self.scanner.next(&self.buf, self.base, eof) {
                            Ok(Step::Element(span))
                                if span.end == end
                                    && matches!(span.terminator, Terminator::Comma | Terminator::Close) =>
                            {
                                return Ok(Some(Element { doc, offset: at, index }));
                            }
                            other => step = Some(other),
                        }
                    }
                }
            }
            Err(Error::Limit { kind: Limit::Nodes, .. }) => grow = true,
            Err(_) => {}
        }
        // Otherwise scan the element for its end (in `spill`, since `buf` is borrowed by the
        // attempt above), then parse its span: the verdict is the whole document's.
        self.in_spill = true;
        self.spill.clear();
        let from = lo.min(self.buf.len());
        if self.spill.try_reserve(self.buf.len() - from).is_err() {
            self.done = true;
            return Err(ReadError::Input(out_of_memory(usize::try_from(at).unwrap_or(usize::MAX))));
        }
        self.spill.extend_from_slice(self.buf.get(from..).unwrap_or_default());
        self.spill_base = at;
        let span = loop {
            let r = match step.take() {
                Some(r) => r,
                None => self.scanner.next(&self.spill, self.spill_base, self.input.eof),
            };
            match r {
                Ok(Step::NeedMore) => {
                    let want = CHUNK.max(self.spill.len() / 2);
                    if let Err(e) = self.input.read(&mut self.spill, want) {
                        self.done = true;
                        return Err(e);
                    }
                }
                Ok(Step::Element(span)) => break span,
                Ok(_) | Err(Error::InvalidArgument(_)) => {
                    self.done = true;
                    return Err(Error::InvalidArgument("array reader: unexpected scanner step").into());
                }
                Err(e) => {
                    self.done = true;
                    let from = self.scanner.position();
                    return Err(self.input.verdict(e, from, &self.spill, self.spill_base));
                }
            }
        };
        if grow {
            let len = usize::try_from(span.len()).unwrap_or(usize::MAX);
            self.tape_for = self.tape_for.max(len.saturating_mul(2)).min(SMALL_ELEMENT);
            self.scan_first = len > SMALL_ELEMENT;
        }
        let lo = usize::try_from(span.start - self.spill_base).unwrap_or(usize::MAX);
        let hi = usize::try_from(span.end - self.spill_base).unwrap_or(usize::MAX);
        let bytes = self.spill.get(lo..hi).unwrap_or_default();
        let e = match self.nodes.parse_with(bytes, &options) {
            Ok(doc) => match span.check_complete(false) {
                Ok(()) => return Ok(Some(Element { doc, offset: span.start, index })),
                Err(e) => e,
            },
            Err(e) => span.map_error(e),
        };
        self.done = true;
        Err(self.input.verdict(e, span.end, &self.spill, self.spill_base))
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

    /// Where the next element begins, with the buffer holding that byte; `None` after the
    /// last element.
    fn next_begin(&mut self) -> Result<Option<u64>, ReadError> {
        while !self.done {
            match self.scanner.next_begin(&self.buf, self.base, self.input.eof) {
                Ok(Step::NeedMore) => self.fill()?,
                Ok(Step::Begin { at }) => return Ok(Some(at)),
                Ok(Step::End) => self.done = true,
                Ok(Step::Open { .. } | Step::NotArray { .. } | Step::Element(_)) | Err(Error::InvalidArgument(_)) => {
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

    /// After an element was read from `spill`: `spill` becomes the buffer (the old buffer's
    /// memory is kept for the next time, unless it grew large).
    fn settle(&mut self) {
        if self.in_spill {
            self.in_spill = false;
            core::mem::swap(&mut self.buf, &mut self.spill);
            self.base = self.spill_base;
            self.spill.clear();
            if self.spill.capacity() > 4 * CHUNK {
                self.spill = Vec::new();
            }
        }
    }

    /// The span of the next element, with the buffer filled to its end.
    fn next_span(&mut self) -> Result<Option<Span>, ReadError> {
        while !self.done {
            match self.scanner.next(&self.buf, self.base, self.input.eof) {
                Ok(Step::NeedMore) => self.fill()?,
                Ok(Step::Element(span)) => return Ok(Some(span)),
                Ok(Step::End) => self.done = true,
                Ok(Step::Open { .. } | Step::NotArray { .. } | Step::Begin { .. }) | Err(Error::InvalidArgument(_)) => {
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
