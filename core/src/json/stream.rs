//! Incremental scanning of a top-level JSON array (or of JSON Lines), a window at a time.
//!
//! A transcript or a large document is often one top-level array of many moderate values.
//! [`ArrayScanner`] finds the byte range of each element without holding the whole text:
//! the caller feeds it a window of bytes together with the window's absolute offset, and
//! it reports one [`Step`] at a time. It keeps no bytes itself (a few integers of state),
//! so the caller may drop everything before [`ArrayScanner::keep_from`] between calls, and
//! memory is bounded by the largest element.
//!
//! The scanner checks only what lies *between* elements, with the same errors and byte
//! offsets as [`super::parse`] on the whole text: leading whitespace, the opening `[`
//! (a byte order mark at byte 0 is [`Syntax::ByteOrderMark`]), each `,`, the closing `]`,
//! and that nothing but whitespace follows ([`Syntax::TrailingBytes`]). An element is found
//! by bracket depth, string- and escape-aware, and reported as a [`Span`]; its content is
//! for the caller to parse (with a depth bound one less than the whole document's, since
//! the outer array is one level). Parsing the span alone gives the whole-document verdict
//! except at the span's end, where the text goes on: [`Span::map_error`] turns the
//! element's error into the whole document's. Two more rules complete the equivalence and
//! are the caller's, because they depend on bytes the scanner may never be shown: invalid
//! UTF-8 anywhere in the input outranks every other error (the whole-document reader checks
//! the encoding first), and an input of 4 GiB or more is [`Limit::Size`] for the whole
//! document reader (a streaming caller may choose to have no such bound).
//!
//! In [`ArrayScanner::lines`] mode every line (up to `\n`) is an element, as in JSON Lines;
//! the lines are not checked further.
//!
//! ```
//! use concordia_core::json::stream::{ArrayScanner, Step};
//!
//! # fn main() -> Result<(), concordia_core::Error> {
//! let text = b" [1, {\"a\": \"],\"}, [2]] ";
//! let mut scanner = ArrayScanner::new();
//! let mut elements = Vec::new();
//! loop {
//!     match scanner.next(text, 0, true)? {
//!         Step::Element(span) => elements.push(&text[span.start as usize..span.end as usize]),
//!         Step::End => break,
//!         step => assert_eq!(step, Step::Open { at: 1 }),
//!     }
//! }
//! assert_eq!(elements, [&b"1"[..], b"{\"a\": \"],\"}", b"[2]"]);
//! # Ok(())
//! # }
//! ```

use crate::error::{Error, Limit, Result, Syntax};

/// What ends an element.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Terminator {
    /// A `,` at the element's end offset: another element follows.
    Comma,
    /// The closing `]` of the array.
    Close,
    /// A `\n` (lines mode).
    Newline,
    /// The end of the input.
    End,
}

/// The byte range of one element, in absolute offsets of the input.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Span {
    /// The first byte of the element (leading whitespace is skipped in array mode).
    pub start: u64,
    /// One past the element's last byte: the offset of its terminator.
    pub end: u64,
    /// What follows the element.
    pub terminator: Terminator,
}

impl Span {
    /// The number of bytes in the element.
    #[must_use]
    pub const fn len(&self) -> u64 {
        self.end - self.start
    }

    /// Whether the element has no bytes.
    #[must_use]
    pub const fn is_empty(&self) -> bool {
        self.end == self.start
    }

    /// The whole document's error for an error `e` that parsing this element alone gave,
    /// with offsets relative to [`Span::start`]: offsets become absolute, and where the
    /// element's text ends but the input goes on (a `,` or `]` follows), the end of the
    /// element is not the end of the input: "unexpected end" there is "unexpected byte",
    /// and "trailing bytes" after the element's value are an unexpected byte inside the
    /// array. Other errors are the same for both readers.
    #[must_use]
    pub fn map_error(&self, e: Error) -> Error {
        let abs = |offset: usize| to_usize(self.start.saturating_add(offset as u64));
        match e {
            Error::Json { kind: Syntax::UnexpectedEnd, offset }
                if self.start.saturating_add(offset as u64) >= self.end
                    && matches!(self.terminator, Terminator::Comma | Terminator::Close) =>
            {
                Error::Json { kind: Syntax::UnexpectedByte, offset: abs(offset) }
            }
            Error::Json { kind: Syntax::TrailingBytes, offset } if self.terminator != Terminator::Newline => {
                Error::Json { kind: Syntax::UnexpectedByte, offset: abs(offset) }
            }
            Error::Json { kind, offset } => Error::Json { kind, offset: abs(offset) },
            Error::Limit { kind, offset } => Error::Limit { kind, offset: abs(offset) },
            other => other,
        }
    }

    /// The whole document's verdict after the element parsed without error: an element
    /// that the input's end cut off (an array never closed) is "unexpected end" at the end
    /// of the input.
    ///
    /// # Errors
    /// [`Syntax::UnexpectedEnd`] at [`Span::end`] when the terminator is [`Terminator::End`]
    /// in array mode.
    pub fn check_complete(&self, lines: bool) -> Result<()> {
        if !lines && self.terminator == Terminator::End {
            return Err(Error::Json { kind: Syntax::UnexpectedEnd, offset: to_usize(self.end) });
        }
        Ok(())
    }
}

/// One result of [`ArrayScanner::next`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Step {
    /// The window is used up: call again with a window that goes further, or with
    /// `end_of_input` set.
    NeedMore,
    /// The input is a top-level array, whose `[` is at `at`; its elements follow.
    Open {
        /// Offset of the `[`.
        at: u64,
    },
    /// The input is not an array: its first value starts at `at` with another byte that
    /// can start a JSON value (`{`, `"`, a digit, ...). Read it whole.
    NotArray {
        /// Offset of the value's first byte.
        at: u64,
    },
    /// An element begins at `at` (only from [`ArrayScanner::next_begin`]): parse it from
    /// there and report where it ended with [`ArrayScanner::skip_to`], or call
    /// [`ArrayScanner::next`] to have it scanned.
    Begin {
        /// Offset of the element's first byte.
        at: u64,
    },
    /// The next element.
    Element(Span),
    /// The array closed (or the lines ended) and nothing but whitespace follows.
    End,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// Before the first non-whitespace byte.
    Start,
    /// After the opening `[`.
    Open,
    /// After a `,`.
    Comma,
    /// Inside an element (array mode) or a line (lines mode).
    Element,
    /// After the closing `]`.
    Closed,
    /// After [`Step::End`], [`Step::NotArray`] or an error.
    Done,
}

/// The incremental scanner (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArrayScanner {
    state: State,
    lines: bool,
    /// Absolute offset of the next byte to look at.
    pos: u64,
    /// Start of the element being scanned.
    start: u64,
    /// Bracket depth inside the element.
    depth: u64,
    in_string: bool,
    /// The previous byte was a backslash inside a string.
    escape: bool,
}

impl Default for ArrayScanner {
    fn default() -> Self {
        Self::new()
    }
}

/// A whitespace byte as RFC 8259 defines it.
const fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

/// A byte that can start a JSON value.
const fn starts_value(b: u8) -> bool {
    matches!(b, b'{' | b'[' | b'"' | b'-' | b'0'..=b'9' | b't' | b'f' | b'n')
}

/// An absolute offset as an error offset (saturating on targets with a narrow `usize`).
fn to_usize(offset: u64) -> usize {
    usize::try_from(offset).unwrap_or(usize::MAX)
}

const BOM: &[u8] = b"\xEF\xBB\xBF";

impl ArrayScanner {
    /// A scanner for a top-level JSON array.
    #[must_use]
    pub const fn new() -> Self {
        ArrayScanner { state: State::Start, lines: false, pos: 0, start: 0, depth: 0, in_string: false, escape: false }
    }

    /// A scanner for JSON Lines: every line (up to `\n`, which is not part of it) is an
    /// element; a last line without `\n` is one too, an empty text after the last `\n` is
    /// not.
    #[must_use]
    pub const fn lines() -> Self {
        ArrayScanner { state: State::Element, lines: true, ..Self::new() }
    }

    /// The absolute offset of the next byte the scanner will look at.
    #[must_use]
    pub const fn position(&self) -> u64 {
        self.pos
    }

    /// The earliest absolute offset the next call still needs in its window: the start of
    /// the element being scanned, or [`ArrayScanner::position`]. Bytes before it may be
    /// dropped.
    #[must_use]
    pub const fn keep_from(&self) -> u64 {
        match self.state {
            State::Element => self.start,
            _ => self.pos,
        }
    }

    /// Scans on in `window`, whose first byte is at absolute offset `offset`;
    /// `end_of_input` says that no bytes follow the window. The window must start at or
    /// before [`ArrayScanner::keep_from`] and may end anywhere; each call looks at every
    /// byte at most once, so the work is bounded by the input's length.
    ///
    /// # Errors
    /// The whole-document reader's error for the bytes between elements
    /// ([`Syntax::UnexpectedByte`], [`Syntax::UnexpectedEnd`], [`Syntax::TrailingBytes`],
    /// [`Syntax::ByteOrderMark`]) with its absolute offset; [`Error::InvalidArgument`] when
    /// the window does not cover [`ArrayScanner::position`]. After an error the scanner
    /// reports [`Step::End`].
    pub fn next(&mut self, window: &[u8], offset: u64, end_of_input: bool) -> Result<Step> {
        let r = self.step(window, offset, end_of_input, false);
        if r.is_err() {
            self.state = State::Done;
        }
        r
    }

    /// As [`ArrayScanner::next`], but where an element begins it stops with [`Step::Begin`]
    /// instead of scanning the element: a caller that parses the element from there (with
    /// [`crate::json::parse_prefix_with`], which finds the value's end as it parses) reads
    /// each byte once, and tells the scanner where the element ended with
    /// [`ArrayScanner::skip_to`]. A caller that cannot (the window ends inside the element,
    /// or the parse failed) calls [`ArrayScanner::next`] instead, which scans the element
    /// from its start as usual; its span and errors are then the same as without this call.
    /// Called again before either, it reports the same [`Step::Begin`].
    ///
    /// ```
    /// use concordia_core::json::stream::{ArrayScanner, Step, Terminator};
    /// use concordia_core::json::{parse_prefix_with, Node, Options};
    ///
    /// # fn main() -> Result<(), concordia_core::Error> {
    /// let text = b"[{\"a\": [1]} , \"x\"]";
    /// let mut scanner = ArrayScanner::new();
    /// let mut nodes = [Node::EMPTY; 8];
    /// assert_eq!(scanner.next_begin(text, 0, true)?, Step::Open { at: 0 });
    /// assert_eq!(scanner.next_begin(text, 0, true)?, Step::Begin { at: 1 });
    /// let (doc, len) = parse_prefix_with(&text[1..], &mut nodes, &Options::default())?;
    /// assert_eq!(doc.root().len(), 1);
    /// scanner.skip_to(1 + len as u64)?;
    /// // The scanner checks what follows the value: a `,`, so another element.
    /// let step = scanner.next_begin(text, 0, true)?;
    /// assert!(matches!(step, Step::Element(s) if (s.start, s.end, s.terminator) == (1, 12, Terminator::Comma)));
    /// assert_eq!(scanner.next_begin(text, 0, true)?, Step::Begin { at: 14 });
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// # Errors
    /// As [`ArrayScanner::next`].
    pub fn next_begin(&mut self, window: &[u8], offset: u64, end_of_input: bool) -> Result<Step> {
        let r = self.step(window, offset, end_of_input, true);
        if r.is_err() {
            self.state = State::Done;
        }
        r
    }

    /// After [`Step::Begin`]: the element's value, and any whitespace after it, ends at the
    /// absolute offset `end` (the `end` of [`crate::json::parse_prefix_with`], plus the
    /// element's start). The scanner goes on from there: the next call reports the element
    /// as a [`Span`] ending at `end` when a `,` or `]` follows, and otherwise scans on (the
    /// element then has bytes after its value, which its parse refuses).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when no element has just begun (or was scanned in part
    /// already), or `end` is not past its start; the scanner is unchanged then.
    pub fn skip_to(&mut self, end: u64) -> Result<()> {
        if self.state != State::Element || self.lines || self.pos != self.start || end <= self.start {
            return Err(Error::InvalidArgument("skip_to: no element has just begun there"));
        }
        self.pos = end;
        Ok(())
    }

    fn step(&mut self, window: &[u8], offset: u64, eof: bool, begin: bool) -> Result<Step> {
        if self.state == State::Done {
            return Ok(Step::End);
        }
        let window_end = offset.saturating_add(window.len() as u64);
        if self.pos < offset || self.pos > window_end {
            return Err(Error::InvalidArgument("stream window does not cover the scanner's position"));
        }
        let at = |pos: u64| window.get(to_usize(pos - offset)).copied();
        loop {
            match self.state {
                State::Done => return Ok(Step::End),
                State::Start | State::Open | State::Comma | State::Closed => {
                    while let Some(b) = at(self.pos) {
                        if !is_ws(b) {
                            break;
                        }
                        self.pos += 1;
                    }
                    let Some(b) = at(self.pos) else {
                        if !eof {
                            return Ok(Step::NeedMore);
                        }
                        if self.state == State::Closed {
                            self.state = State::Done;
                            return Ok(Step::End);
                        }
                        return Err(Error::json(Syntax::UnexpectedEnd, to_usize(self.pos)));
                    };
                    match self.state {
                        State::Start => {
                            if b == b'[' {
                                self.pos += 1;
                                self.state = State::Open;
                                return Ok(Step::Open { at: self.pos - 1 });
                            } else if starts_value(b) {
                                self.state = State::Done;
                                return Ok(Step::NotArray { at: self.pos });
                            } else if self.pos == 0 && b == BOM[0] {
                                let head = window.get(..3).unwrap_or(window);
                                if head.len() < 3 && !eof && head == &BOM[..head.len()] {
                                    return Ok(Step::NeedMore);
                                }
                                let kind = if head == BOM { Syntax::ByteOrderMark } else { Syntax::UnexpectedByte };
                                return Err(Error::json(kind, 0));
                            } else {
                                return Err(Error::json(Syntax::UnexpectedByte, to_usize(self.pos)));
                            }
                        }
                        State::Open if b == b']' => {
                            self.pos += 1;
                            self.state = State::Closed;
                        }
                        State::Open | State::Comma => {
                            // The parser would stop at once on a byte that cannot start a
                            // value (a `,` or `]` included): say so before buffering more.
                            if !starts_value(b) {
                                return Err(Error::json(Syntax::UnexpectedByte, to_usize(self.pos)));
                            }
                            self.start = self.pos;
                            self.depth = 0;
                            self.in_string = false;
                            self.escape = false;
                            self.state = State::Element;
                            if begin {
                                return Ok(Step::Begin { at: self.start });
                            }
                        }
                        _ => return Err(Error::json(Syntax::TrailingBytes, to_usize(self.pos))),
                    }
                }
                State::Element if self.lines => {
                    let rest = window.get(to_usize(self.pos - offset)..).unwrap_or_default();
                    match rest.iter().position(|&b| b == b'\n') {
                        Some(n) => {
                            let end = self.pos + n as u64;
                            let span = Span { start: self.start, end, terminator: Terminator::Newline };
                            self.pos = end + 1;
                            self.start = self.pos;
                            return Ok(Step::Element(span));
                        }
                        None => {
                            self.pos = window_end;
                            if !eof {
                                return Ok(Step::NeedMore);
                            }
                            self.state = State::Done;
                            if self.pos == self.start {
                                return Ok(Step::End);
                            }
                            return Ok(Step::Element(Span {
                                start: self.start,
                                end: self.pos,
                                terminator: Terminator::End,
                            }));
                        }
                    }
                }
                State::Element if begin && self.pos == self.start => return Ok(Step::Begin { at: self.start }),
                State::Element => {
                    let rest = window.get(to_usize(self.pos - offset)..).unwrap_or_default();
                    if let Some((n, terminator)) = self.scan(rest) {
                        let end = self.pos + n as u64;
                        self.pos = end + 1;
                        self.state = if terminator == Terminator::Comma { State::Comma } else { State::Closed };
                        return Ok(Step::Element(Span { start: self.start, end, terminator }));
                    }
                    self.pos = window_end;
                    if !eof {
                        return Ok(Step::NeedMore);
                    }
                    self.state = State::Done;
                    return Ok(Step::Element(Span { start: self.start, end: self.pos, terminator: Terminator::End }));
                }
            }
        }
    }

    /// Scans element bytes: the index and kind of the terminator (`,` or `]` at depth 0
    /// outside strings), or `None` when `bytes` ends first (the state is kept).
    fn scan(&mut self, bytes: &[u8]) -> Option<(usize, Terminator)> {
        // The state in locals for the loop, written back on the way out.
        let (mut depth, mut in_string, mut escape) = (self.depth, self.in_string, self.escape);
        let mut i = 0;
        let found = loop {
            if in_string {
                if escape {
                    if i >= bytes.len() {
                        break None;
                    }
                    escape = false;
                    i += 1;
                }
                // To the next quote or backslash.
                match quote_or_backslash(bytes.get(i..).unwrap_or_default()) {
                    Some(n) => {
                        i += n;
                        if bytes.get(i) == Some(&b'\\') {
                            escape = true;
                        } else {
                            in_string = false;
                        }
                        i += 1;
                    }
                    None => break None,
                }
                continue;
            }
            // Outside strings: skip bytes of no structural meaning, then act on one.
            let Some(&b) = bytes.get(i) else {
                break None;
            };
            match STRUCTURE[b as usize] {
                0 => {}
                Q => in_string = true,
                OPEN => depth = depth.saturating_add(1),
                COMMA if depth == 0 => break Some((i, Terminator::Comma)),
                CLOSE_ARRAY if depth == 0 => break Some((i, Terminator::Close)),
                // A `}` at depth 0 closes nothing: it stays in the element, whose parser
                // refuses it at its offset.
                CLOSE_ARRAY | CLOSE_OBJECT => depth = depth.saturating_sub(1),
                _ => {}
            }
            i += 1;
        };
        self.depth = depth;
        self.in_string = in_string;
        self.escape = escape;
        found
    }
}

const Q: u8 = 1;
const OPEN: u8 = 2;
const COMMA: u8 = 3;
const CLOSE_ARRAY: u8 = 4;
const CLOSE_OBJECT: u8 = 5;

/// What a byte outside strings means to the scanner (0: nothing).
static STRUCTURE: [u8; 256] = {
    let mut t = [0u8; 256];
    t[b'"' as usize] = Q;
    t[b'[' as usize] = OPEN;
    t[b'{' as usize] = OPEN;
    t[b',' as usize] = COMMA;
    t[b']' as usize] = CLOSE_ARRAY;
    t[b'}' as usize] = CLOSE_OBJECT;
    t
};

/// The index of the first `"` or `\\` in `bytes`: eight bytes at a time (the lowest flag
/// of the zero-byte test is exact), then byte by byte.
fn quote_or_backslash(bytes: &[u8]) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let zero = |x: u64| x.wrapping_sub(ONES) & !x & HIGH;
    let mut chunks = bytes.chunks_exact(8);
    let mut i = 0;
    for chunk in &mut chunks {
        let w = u64::from_le_bytes(<[u8; 8]>::try_from(chunk).unwrap_or([0; 8]));
        let m = zero(w ^ (ONES * u64::from(b'"'))) | zero(w ^ (ONES * u64::from(b'\\')));
        if m != 0 {
            return Some(i + (m.trailing_zeros() / 8) as usize);
        }
        i += 8;
    }
    chunks.remainder().iter().position(|&b| b == b'"' || b == b'\\').map(|n| i + n)
}

/// The depth bound for parsing one element of a top-level array that the whole document
/// would parse with `max_depth`: the array itself is one level. `None` when the array
/// alone already exceeds it (the whole document fails with [`Limit::Depth`] at the `[`).
#[must_use]
pub const fn element_depth(max_depth: u32) -> Option<u32> {
    max_depth.checked_sub(1)
}

/// The whole-document error for a top-level array when `max_depth` is 0: the `[` at
/// `offset` is already too deep.
#[must_use]
pub const fn depth_error(offset: usize) -> Error {
    Error::limit(Limit::Depth, offset)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]
mod tests {
    use super::*;

    /// Scans `text` in windows of `chunk` bytes, dropping what the scanner no longer
    /// needs, and returns the elements' texts or the error.
    fn scan(text: &[u8], chunk: usize, lines: bool) -> Result<(usize, [(u64, u64); 16])> {
        let mut s = if lines { ArrayScanner::lines() } else { ArrayScanner::new() };
        let mut spans = [(0u64, 0u64); 16];
        let mut n = 0;
        let mut fed = 0usize;
        loop {
            let from = s.keep_from() as usize;
            let eof = fed >= text.len();
            match s.next(&text[from..fed], from as u64, eof)? {
                Step::NeedMore => fed = (fed + chunk).min(text.len()),
                Step::Element(span) => {
                    spans[n] = (span.start, span.end);
                    n += 1;
                }
                Step::Open { .. } => {}
                Step::End => return Ok((n, spans)),
                Step::NotArray { at } => {
                    return Err(Error::InvalidArgument(if at == 0 { "not array" } else { "late" }))
                }
                Step::Begin { .. } => panic!("Begin from next"),
            }
        }
    }

    fn elements(text: &[u8], lines: bool) -> [&[u8]; 16] {
        let (n, spans) = scan(text, 1, lines).unwrap();
        for chunk in [2, 3, 7, 64] {
            assert_eq!(scan(text, chunk, lines).unwrap(), (n, spans), "chunk {chunk}");
        }
        let mut out: [&[u8]; 16] = [b"-"; 16];
        for (o, (a, b)) in out.iter_mut().zip(&spans[..n]) {
            *o = &text[*a as usize..*b as usize];
        }
        out
    }

    #[test]
    fn finds_elements_string_and_escape_aware() {
        let e = elements(br#" [ 1 , "a,]\"]" ,{"k":[1,2],"}":"{"} , [[],[]]]  "#, false);
        assert_eq!(e[0], b"1 ");
        assert_eq!(e[1], br#""a,]\"]" "#);
        assert_eq!(e[2], br#"{"k":[1,2],"}":"{"} "#);
        assert_eq!(e[3], b"[[],[]]");
        assert_eq!(e[4], b"-");
        assert_eq!(elements(b"[]", false)[0], b"-");
        assert_eq!(elements(b"a\n\nb\r\n{}", true)[..4], [&b"a"[..], b"", b"b\r", b"{}"]);
        assert_eq!(elements(b"a\n", true)[..2], [&b"a"[..], b"-"]);
    }

    #[test]
    fn errors_between_elements_match_the_reader() {
        let err = |t: &[u8]| scan(t, 2, false).unwrap_err();
        assert_eq!(err(b""), Error::json(Syntax::UnexpectedEnd, 0));
        assert_eq!(err(b"  "), Error::json(Syntax::UnexpectedEnd, 2));
        assert_eq!(err(b"\0\0"), Error::json(Syntax::UnexpectedByte, 0));
        assert_eq!(err(b"\xEF\xBB\xBF[]"), Error::json(Syntax::ByteOrderMark, 0));
        assert_eq!(err(b"\xEF\xBB"), Error::json(Syntax::UnexpectedByte, 0));
        assert_eq!(err(b"[1,,2]"), Error::json(Syntax::UnexpectedByte, 3));
        assert_eq!(err(b"[,]"), Error::json(Syntax::UnexpectedByte, 1));
        assert_eq!(err(b"[1,]"), Error::json(Syntax::UnexpectedByte, 3));
        assert_eq!(err(b"[1] x"), Error::json(Syntax::TrailingBytes, 4));
        assert_eq!(err(b"[] ]"), Error::json(Syntax::TrailingBytes, 3));
        assert_eq!(err(b"[ "), Error::json(Syntax::UnexpectedEnd, 2));
        assert_eq!(err(b"[1, "), Error::json(Syntax::UnexpectedEnd, 4));
        assert_eq!(err(b"{}"), Error::InvalidArgument("not array"));
        // A window that lost the scanner's position.
        let mut s = ArrayScanner::new();
        assert_eq!(s.next(b"[1", 0, false), Ok(Step::Open { at: 0 }));
        assert_eq!(s.next(b"[1", 0, false), Ok(Step::NeedMore));
        assert!(s.next(b"", 5, false).is_err());
        assert_eq!(s.next(b"", 5, true), Ok(Step::End));
    }

    #[test]
    fn finds_quotes_and_backslashes_like_a_plain_search() {
        let text = b"abcdefgh\"ijklmnop\\qrstuvwxyz0123456789\"\\\xFF\xE2\x80\"";
        for start in 0..text.len() {
            for end in start..=text.len() {
                let s = &text[start..end];
                assert_eq!(quote_or_backslash(s), s.iter().position(|&b| b == b'"' || b == b'\\'), "{start}..{end}");
            }
        }
    }

    /// As `scan`, but parsing each element where it begins ([`ArrayScanner::next_begin`],
    /// [`crate::json::parse_prefix_with`], [`ArrayScanner::skip_to`]), and having it scanned
    /// when the window ends inside it or the parse fails.
    fn scan_parsing(text: &[u8], chunk: usize) -> Result<(usize, [(u64, u64); 16])> {
        let mut s = ArrayScanner::new();
        let mut spans = [(0u64, 0u64); 16];
        let (mut n, mut fed, mut scanning) = (0, 0usize, false);
        loop {
            let from = s.keep_from() as usize;
            let eof = fed >= text.len();
            let window = &text[from..fed];
            let step =
                if scanning { s.next(window, from as u64, eof)? } else { s.next_begin(window, from as u64, eof)? };
            match step {
                Step::NeedMore => fed = (fed + chunk).min(text.len()),
                Step::Begin { at } => {
                    let mut nodes = [crate::json::Node::EMPTY; 64];
                    let rest = &text[at as usize..fed];
                    match crate::json::parse_prefix_with(rest, &mut nodes, &crate::json::Options::default()) {
                        Ok((_, len)) if len < rest.len() || eof => s.skip_to(at + len as u64)?,
                        _ => scanning = true,
                    }
                    // Reported again until the caller decides.
                    if scanning {
                        assert_eq!(s.next_begin(window, from as u64, eof), Ok(Step::Begin { at }));
                    }
                }
                Step::Element(span) => {
                    spans[n] = (span.start, span.end);
                    n += 1;
                    scanning = false;
                }
                Step::Open { .. } => {}
                Step::End => return Ok((n, spans)),
                Step::NotArray { .. } => return Err(Error::InvalidArgument("not array")),
            }
        }
    }

    #[test]
    fn parsing_where_elements_begin_finds_the_same_spans_and_errors() {
        let texts: &[&[u8]] = &[
            br#" [ 1 , "a,]\"]" ,{"k":[1,2],"}":"{"} , [[],[]]]  "#,
            b"[]",
            b"[1 2]",
            b"[12,345]",
            b"[tru, 1]",
            b"[{\"a\": 1]",
            b"[1,,2]",
            b"[1] x",
            b"[1, ",
            b"[\"\xFF\"]",
            b"[1e, 2]",
        ];
        for text in texts {
            for chunk in [1, 2, 3, 7, 64] {
                assert_eq!(scan_parsing(text, chunk), scan(text, chunk, false), "{:?} chunk {chunk}", text);
            }
        }
        // skip_to only right after a Begin, and only forward.
        let mut s = ArrayScanner::new();
        assert!(s.skip_to(1).is_err());
        assert_eq!(s.next_begin(b"[ 1]", 0, true), Ok(Step::Open { at: 0 }));
        assert_eq!(s.next_begin(b"[ 1]", 0, true), Ok(Step::Begin { at: 2 }));
        assert!(s.skip_to(2).is_err());
        assert_eq!(s.skip_to(3), Ok(()));
        assert!(s.skip_to(4).is_err());
        let span = Span { start: 2, end: 3, terminator: Terminator::Close };
        assert_eq!(s.next_begin(b"[ 1]", 0, true), Ok(Step::Element(span)));
        assert_eq!(s.next_begin(b"[ 1]", 0, true), Ok(Step::End));
    }

    #[test]
    fn maps_element_errors() {
        let span = Span { start: 10, end: 13, terminator: Terminator::Comma };
        assert_eq!(span.map_error(Error::json(Syntax::UnexpectedEnd, 3)), Error::json(Syntax::UnexpectedByte, 13));
        assert_eq!(span.map_error(Error::json(Syntax::TrailingBytes, 2)), Error::json(Syntax::UnexpectedByte, 12));
        assert_eq!(span.map_error(Error::json(Syntax::InvalidEscape, 1)), Error::json(Syntax::InvalidEscape, 11));
        assert_eq!(span.map_error(Error::limit(Limit::Depth, 1)), Error::limit(Limit::Depth, 11));
        let last = Span { terminator: Terminator::End, ..span };
        assert_eq!(last.map_error(Error::json(Syntax::UnexpectedEnd, 3)), Error::json(Syntax::UnexpectedEnd, 13));
        assert_eq!(last.check_complete(false), Err(Error::json(Syntax::UnexpectedEnd, 13)));
        assert_eq!(last.check_complete(true), Ok(()));
        assert_eq!(element_depth(128), Some(127));
        assert_eq!(element_depth(0), None);
        assert_eq!(depth_error(0), Error::limit(Limit::Depth, 0));
    }
}
