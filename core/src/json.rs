//! Strict JSON reader into a caller-provided node buffer (a "tape").
//!
//! [`parse`] checks the RFC 8259 grammar plus the I-JSON rules (RFC 7493) that canonical
//! JSON depends on, and records every value as a fixed-size [`Node`] in the caller's slice.
//! It rejects, with the byte offset of the problem:
//!
//! * invalid UTF-8, a byte order mark, raw control characters in strings;
//! * escapes RFC 8259 does not define and `\u` escapes of lone UTF-16 surrogates;
//! * duplicate member names, compared after unescaping;
//! * `NaN`, `Infinity`, numbers outside the range of a double, and numbers that evaluate to
//!   negative zero (both reference SDKs refuse to sign `-0.0`, see SPEC §9.2.1);
//! * integer literals beyond ±(2^53 - 1) that are not already the ECMAScript form of
//!   their double (`9007199254740993`, `123456789012345678901234`), unless
//!   [`Options::allow_unsafe_integers`] is set. For these, RFC 8785 writes the nearest
//!   double, the Python SDK the exact integer and the JavaScript SDK refuses: no digest over
//!   them is recomputable (SPEC §9.2.1), and RFC 8785 Appendix D says to carry them as
//!   strings. A big literal that is its own ECMAScript form (`100000000000000000000`,
//!   which is how `1e20` is written canonically) means the same to all of them and is
//!   accepted;
//! * anything but whitespace after the value.
//!
//! The reader never recurses: nesting depth costs no stack, and is bounded only by
//! [`Options::max_depth`] (128 by default). A value needs one node. For well-formed text a
//! buffer of [`nodes_for_valid`]`(input.len())` = `input.len() / 2 + 2` nodes is always
//! enough; malformed text can use up to one node per byte before its error shows (`[[[[`
//! never closes), so a buffer of [`nodes_for_any`]`(input.len())` = `input.len() + 1`
//! nodes always reaches the syntax verdict. A buffer that runs out gives
//! [`Limit::Nodes`], never a partial result: a caller that
//! sizes for valid text can retry with the larger bound to name the syntax error.
//!
//! While an object is closed, its members are sorted into RFC 8785 order (UTF-16 code
//! units) as a linked list threaded through the tape, with no extra memory: by insertion
//! for up to 16 members (names that arrive sorted cost one comparison each), by a bottom-up
//! merge sort beyond (O(n log n) whatever the order; the `small` feature keeps only this
//! one). Most comparisons are one integer compare of the names' first 8 bytes, remapped so
//! that integer order is UTF-16 order. Duplicate names are found on the way; the error
//! names the first member whose name repeats an earlier one, in reading order. Canonical
//! output ([`crate::jcs`]) then walks the tape in sorted order without sorting again.
//!
//! ```
//! use concordia_core::json::{parse, Node, Kind};
//!
//! let mut nodes = [Node::EMPTY; 16];
//! let doc = parse(br#"{"price": {"value": 2050, "currency": "USD"}}"#, &mut nodes).unwrap();
//! let price = doc.root().pointer("/price/value").unwrap();
//! assert_eq!(price.as_f64(), Some(2050.0));
//! assert_eq!(doc.root().get("price").unwrap().kind(), Kind::Object);
//!
//! let err = parse(br#"{"a": 1, "a": 2}"#, &mut nodes).unwrap_err();
//! assert_eq!(err.offset(), Some(9));
//! ```

use core::cmp::Ordering;

use crate::error::{Error, Limit, Result, Syntax};

/// Sentinel for "no node".
const NONE: u32 = u32::MAX;

/// The largest integer a double holds exactly, and every integer below it: 2^53 - 1.
pub const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;

/// The value of the integer literal `text` (an optional `-`, then `0` or digits without a
/// leading zero) under the default number policy, or `None` when the policy refuses it:
/// within ±(2^53 - 1) every literal is exact and accepted; beyond, only a literal that is
/// already the ECMAScript form of its double (`100000000000000000000`), so that every
/// implementation writes the same bytes (SPEC §9.2.1; see the module docs). Text that is
/// not an integer literal is refused too.
///
/// This is the rule the reader applies (unless [`Options::allow_unsafe_integers`]); hosts
/// that write integers from their own values (the Python binding's `str(int)`) ask it too,
/// so that what they write is what the reader accepts.
#[must_use]
pub fn integer_literal_value(text: &str) -> Option<f64> {
    let digits = text.strip_prefix('-').unwrap_or(text);
    let negative = digits.len() != text.len();
    let bytes = digits.as_bytes();
    let well_formed = match bytes {
        [b'0'] => true,
        [b'1'..=b'9', rest @ ..] => rest.iter().all(u8::is_ascii_digit),
        _ => false,
    };
    if !well_formed {
        return None;
    }
    if bytes.len() <= 16 {
        let v = bytes.iter().fold(0u64, |v, &b| v * 10 + u64::from(b - b'0'));
        if v <= MAX_SAFE_INTEGER {
            let f = v as f64;
            return Some(if negative { -f } else { f });
        }
    }
    let f = parse_f64(text)?;
    let mut buf = crate::number::NumberBuf::new();
    (f.is_finite() && buf.format(f) == text).then_some(f)
}

/// Nodes that always suffice for well-formed text of `len` bytes.
#[must_use]
pub const fn nodes_for_valid(len: usize) -> usize {
    len / 2 + 2
}

/// Nodes that suffice for any text of `len` bytes, well-formed or not: every node
/// consumes at least one byte.
#[must_use]
pub const fn nodes_for_any(len: usize) -> usize {
    len.saturating_add(1)
}

/// Nodes that suffice for `input` if it is well-formed, counted by one cheap pass: one for
/// the top-level value plus one per `[`, `{`, `,` and `:` outside strings (every value and
/// every member name other than the top-level value follows one of those). Malformed text may need more
/// before its error shows; the reader then stops with [`Limit::Nodes`], and a host that
/// wants the syntax error retries with [`nodes_for_any`]. An input without any structure
/// needs one node, so a wrong guess about the input (300 MB of NUL bytes) costs one node,
/// not one per byte.
///
/// ```
/// use concordia_core::json::{nodes_for_text, parse, Node};
///
/// let text = br#"{"a": [1, 2, {"b": "x,[{"}], "c": null}"#;
/// let mut nodes = vec![Node::EMPTY; nodes_for_text(text)];
/// assert_eq!(nodes.len(), 10);
/// assert!(parse(text, &mut nodes).is_ok());
/// ```
#[must_use]
pub fn nodes_for_text(input: &[u8]) -> usize {
    let mut count: usize = 1;
    let mut rest = input;
    loop {
        // Outside a string: count structure up to the next quote.
        let Some(q) = rest.iter().position(|&b| b == b'"') else {
            count = count.saturating_add(structure(rest));
            return count;
        };
        count = count.saturating_add(structure(&rest[..q]));
        rest = &rest[q + 1..];
        // Inside a string: skip to the closing quote, stepping over escapes.
        loop {
            let Some(e) = rest.iter().position(|&b| b == b'"' || b == b'\\') else {
                return count;
            };
            if rest[e] == b'"' {
                rest = &rest[e + 1..];
                break;
            }
            rest = rest.get(e + 2..).unwrap_or_default();
        }
    }
}

/// The number of `[`, `{`, `,` and `:` in `bytes`.
fn structure(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&b| matches!(b, b'[' | b'{' | b',' | b':')).count()
}

/// The default bound on container nesting.
pub const DEFAULT_MAX_DEPTH: u32 = 128;

/// The JSON type of a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Kind {
    /// `null`
    Null,
    /// `false`
    False,
    /// `true`
    True,
    /// A number (held as an IEEE-754 double).
    Number,
    /// A string.
    String,
    /// An array.
    Array,
    /// An object.
    Object,
}

const F_ESCAPED: u8 = 1;
const F_INTEGER: u8 = 2;
/// The number literal is already in ECMAScript `Number::toString` form.
const F_CANONICAL: u8 = 4;

/// One parsed value. Opaque: only [`parse`] fills nodes, and only [`Doc`] reads them.
///
/// Layout by kind (all indices are tape positions, all offsets are input bytes):
/// * string: `start..a` is the raw content between the quotes; `b` links the next member
///   name in sorted order when the string is a member name;
/// * number: `start..a` is the literal; `b`, `c` hold the double's bits;
/// * array/object: `start` is the offset of the bracket; `a` is the index just past the
///   subtree; `b` is the element or member count; `c` is the parent container; for
///   objects `d` is the first member name in sorted order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Node {
    kind: Kind,
    flags: u8,
    start: u32,
    a: u32,
    b: u32,
    c: u32,
    d: u32,
}

impl Node {
    /// An unused node, for initializing buffers: `[Node::EMPTY; 256]`.
    pub const EMPTY: Node = Node { kind: Kind::Null, flags: 0, start: 0, a: 0, b: 0, c: 0, d: 0 };

    /// A node from its raw fields, for tapes generated at build time (the frozen schemas of
    /// `crate::schema`, feature `schema`); a test checks each generated tape against [`parse`].
    #[cfg(feature = "schema")]
    pub(crate) const fn from_raw(kind: Kind, flags: u8, start: u32, a: u32, b: u32, c: u32, d: u32) -> Node {
        Node { kind, flags, start, a, b, c, d }
    }
}

#[cfg(feature = "schema")]
impl Doc<'static> {
    /// A document over a tape generated at build time (see `Node::from_raw`).
    pub(crate) const fn from_static_parts(src: &'static str, nodes: &'static [Node]) -> Doc<'static> {
        Doc { src, nodes }
    }
}

/// Reader options.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    /// Maximum nesting of arrays and objects (the top-level container is depth 1).
    pub max_depth: u32,
    /// Accept integer literals beyond ±(2^53 - 1) and read them as the nearest double,
    /// as RFC 8785 does. Off by default: Concordia's SDKs disagree on such values.
    pub allow_unsafe_integers: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options { max_depth: DEFAULT_MAX_DEPTH, allow_unsafe_integers: false }
    }
}

impl Options {
    /// RFC 8785's own number domain: big integer literals are read as doubles.
    #[must_use]
    pub fn rfc8785() -> Self {
        Options { allow_unsafe_integers: true, ..Options::default() }
    }
}

/// A parsed document: the input text and its tape. Cheap to copy.
#[derive(Clone, Copy, Debug)]
pub struct Doc<'a> {
    src: &'a str,
    nodes: &'a [Node],
}

/// Parses `input` with the default [`Options`].
///
/// # Errors
/// [`Error::Json`] with the byte offset for malformed input, [`Error::Limit`] when the
/// node buffer or the depth bound is exceeded.
pub fn parse<'a>(input: &'a [u8], nodes: &'a mut [Node]) -> Result<Doc<'a>> {
    parse_with(input, nodes, &Options::default())
}

/// Parses `input` into `nodes` under `options`.
///
/// # Errors
/// As [`parse`].
pub fn parse_with<'a>(input: &'a [u8], nodes: &'a mut [Node], options: &Options) -> Result<Doc<'a>> {
    if input.len() >= NONE as usize {
        return Err(Error::limit(Limit::Size, 0));
    }
    let src = match core::str::from_utf8(input) {
        Ok(s) => s,
        Err(e) => return Err(Error::json(Syntax::InvalidUtf8, e.valid_up_to())),
    };
    if input.starts_with(b"\xEF\xBB\xBF") {
        return Err(Error::json(Syntax::ByteOrderMark, 0));
    }
    let mut p = Parser { src: input, text: Some(src), pos: 0, nodes, len: 0, options };
    p.run()?;
    let len = p.len as usize;
    let nodes: &'a [Node] = p.nodes;
    Ok(Doc { src, nodes: nodes.get(..len).unwrap_or(&[]) })
}

/// Parses the one value at the start of `input` (after any whitespace) and the whitespace
/// after it, with the default [`Options`]; the bytes after that are not looked at. Returns
/// the document and where it ended (see [`parse_prefix_with`]).
///
/// # Errors
/// As [`parse_prefix_with`].
pub fn parse_prefix<'a>(input: &'a [u8], nodes: &'a mut [Node]) -> Result<(Doc<'a>, usize)> {
    parse_prefix_with(input, nodes, &Options::default())
}

/// Parses the one value at the start of `input` (after any whitespace) and the whitespace
/// after it, under `options`, and returns the document with `end`: the offset of the first
/// byte after that whitespace (`input.len()` when the input ends there). The bytes from
/// `end` on are not looked at, so a value followed by anything (a `,`, the next value, a
/// truncated tail) parses; what may follow is the caller's grammar. This is how a stream
/// of values (a top-level array, read a window at a time) is parsed in one pass: the
/// document is `input[..end]` ([`Doc::source`]), exactly what [`parse_with`] gives for
/// `input[..end]`, offsets included.
///
/// The rules are [`parse_with`]'s: the same grammar, number policy, depth and node limits,
/// and errors of the same kinds at the same byte offsets. Two differences follow from not
/// reading the whole input: a value that `input` cuts off gives the error of a text that
/// ends there (mostly [`Syntax::UnexpectedEnd`]; a number cut after `1e` is
/// [`Syntax::InvalidNumber`]), and the encoding is checked over the bytes read, not the
/// whole input: `input[..end]` after a value; after an error, the bytes before the point
/// where the parser stopped and the sequence that starts there ([`Syntax::InvalidUtf8`] at
/// the first invalid sequence among them outranks the error found).
///
/// ```
/// use concordia_core::json::{parse_prefix, Node};
///
/// let text = br#"{"b": [1, 2], "a": "x"} , 7]"#;
/// let mut nodes = [Node::EMPTY; 8];
/// let (doc, end) = parse_prefix(text, &mut nodes).unwrap();
/// assert_eq!(end, 24);
/// assert_eq!(text[end], b',');
/// assert_eq!(doc.source(), r#"{"b": [1, 2], "a": "x"} "#);
/// assert_eq!(doc.root().pointer("/b/1").unwrap().as_f64(), Some(2.0));
///
/// // A value the input cuts off is an error, as for the whole input.
/// let err = parse_prefix(br#"{"b": [1, 2"#, &mut nodes).unwrap_err();
/// assert_eq!(err.offset(), Some(11));
/// ```
///
/// # Errors
/// [`Error::Json`] with the byte offset for malformed input, [`Error::Limit`] when the
/// node buffer or the depth bound is exceeded, or for an input of 4 GiB or more.
pub fn parse_prefix_with<'a>(input: &'a [u8], nodes: &'a mut [Node], options: &Options) -> Result<(Doc<'a>, usize)> {
    if input.len() >= NONE as usize {
        return Err(Error::limit(Limit::Size, 0));
    }
    if input.starts_with(b"\xEF\xBB\xBF") {
        return Err(Error::json(Syntax::ByteOrderMark, 0));
    }
    // The encoding is checked after the parse, over the bytes it read; until then the
    // parser reads text only through `Parser::text`, which checks the slice it is asked for.
    let mut p = Parser { src: input, text: None, pos: 0, nodes, len: 0, options };
    let parsed = p.run();
    let end = p.pos.min(input.len());
    if let Err(e) = parsed {
        // The bytes read, and the sequence the parser stopped at (at most 4 bytes).
        let read = input.get(..end.saturating_add(4).min(input.len())).unwrap_or_default();
        return match core::str::from_utf8(read) {
            Err(u) if u.valid_up_to() <= end => Err(Error::json(Syntax::InvalidUtf8, u.valid_up_to())),
            _ => Err(e),
        };
    }
    let len = p.len as usize;
    let nodes: &'a [Node] = p.nodes;
    let src = match core::str::from_utf8(input.get(..end).unwrap_or_default()) {
        Ok(s) => s,
        Err(u) => return Err(Error::json(Syntax::InvalidUtf8, u.valid_up_to())),
    };
    Ok((Doc { src, nodes: nodes.get(..len).unwrap_or(&[]) }, end))
}

/// Objects with at most this many members are sorted by insertion, larger ones by merge
/// sort (O(n log n) whatever the order).
const INSERTION_SORT_MAX: u32 = 16;

/// Byte classes for the string scanner: 1 for bytes that end a plain run.
static STRING_STOP: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 0x20 {
        t[i] = 1;
        i += 1;
    }
    t[b'"' as usize] = 1;
    t[b'\\' as usize] = 1;
    t
};

struct Parser<'a, 'o> {
    src: &'a [u8],
    /// The whole input as text, already checked to be UTF-8; `None` for a prefix parse
    /// (see [`parse_prefix_with`]), which checks only what it read, afterwards.
    text: Option<&'a str>,
    pos: usize,
    nodes: &'a mut [Node],
    len: u32,
    options: &'o Options,
}

impl Parser<'_, '_> {
    #[inline]
    fn peek(&self) -> Option<u8> {
        self.src.get(self.pos).copied()
    }

    #[inline]
    fn skip_ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.pos += 1;
        }
    }

    fn err(&self, kind: Syntax) -> Error {
        Error::json(kind, self.pos)
    }

    fn unexpected(&self) -> Error {
        if self.pos >= self.src.len() {
            self.err(Syntax::UnexpectedEnd)
        } else {
            self.err(Syntax::UnexpectedByte)
        }
    }

    #[inline]
    fn push(&mut self, node: Node) -> Result<u32> {
        let idx = self.len;
        match self.nodes.get_mut(idx as usize) {
            Some(slot) => *slot = node,
            None => return Err(Error::limit(Limit::Nodes, node.start as usize)),
        }
        self.len += 1;
        Ok(idx)
    }

    #[inline]
    fn node(&self, i: u32) -> Node {
        self.nodes.get(i as usize).copied().unwrap_or(Node::EMPTY)
    }

    #[inline]
    fn node_mut(&mut self, i: u32) -> Option<&mut Node> {
        self.nodes.get_mut(i as usize)
    }

    fn run(&mut self) -> Result<()> {
        // The open container and its state, kept in locals so that the hot loop touches no
        // node but the one it writes. On entering a child container the parent's count and
        // (for objects) last member name are saved in its node (`b`, `d`) and restored on
        // the way out.
        let mut parent = NONE;
        let mut in_object = false;
        let mut count = 0u32;
        let mut last_key = NONE;
        let mut depth = 0u32;
        self.skip_ws();
        'value: loop {
            // Read one value at self.pos.
            let start = self.pos as u32;
            match self.peek() {
                Some(open @ (b'{' | b'[')) => {
                    depth += 1;
                    if depth > self.options.max_depth {
                        return Err(Error::limit(Limit::Depth, self.pos));
                    }
                    let kind = if open == b'{' { Kind::Object } else { Kind::Array };
                    let idx = self.push(Node { kind, flags: 0, start, a: 0, b: 0, c: parent, d: NONE })?;
                    if let Some(p) = self.node_mut(parent) {
                        p.b = count + 1;
                        p.d = last_key;
                    }
                    parent = idx;
                    in_object = kind == Kind::Object;
                    count = 0;
                    last_key = NONE;
                    self.pos += 1;
                    self.skip_ws();
                    let close = if open == b'{' { b'}' } else { b']' };
                    if self.peek() == Some(close) {
                        // Empty container: close it right here and fall through.
                    } else {
                        if kind == Kind::Object {
                            last_key = self.member_name(last_key)?;
                        }
                        continue 'value;
                    }
                }
                Some(b'"') => {
                    self.string(false)?;
                    count += 1;
                }
                Some(b'-' | b'0'..=b'9') => {
                    self.number()?;
                    count += 1;
                }
                Some(b't') => {
                    self.literal(b"true", Kind::True)?;
                    count += 1;
                }
                Some(b'f') => {
                    self.literal(b"false", Kind::False)?;
                    count += 1;
                }
                Some(b'n') => {
                    self.literal(b"null", Kind::Null)?;
                    count += 1;
                }
                _ => return Err(self.unexpected()),
            }
            // After a value: separators and closing brackets until the next value starts.
            loop {
                if parent == NONE {
                    self.skip_ws();
                    if self.pos != self.src.len() && self.text.is_some() {
                        return Err(self.err(Syntax::TrailingBytes));
                    }
                    return Ok(());
                }
                self.skip_ws();
                let close = if in_object { b'}' } else { b']' };
                match self.peek() {
                    Some(b',') => {
                        self.pos += 1;
                        self.skip_ws();
                        if in_object {
                            last_key = self.member_name(last_key)?;
                        }
                        continue 'value;
                    }
                    Some(c) if c == close => {
                        self.pos += 1;
                        let end = self.len;
                        let up = match self.node_mut(parent) {
                            Some(n) => {
                                n.a = end;
                                n.b = count;
                                n.c
                            }
                            None => NONE,
                        };
                        if in_object {
                            self.close_object(parent, count)?;
                        }
                        parent = up;
                        let p = self.node(parent);
                        in_object = parent != NONE && p.kind == Kind::Object;
                        count = p.b;
                        last_key = p.d;
                        depth -= 1;
                    }
                    _ => return Err(self.unexpected()),
                }
            }
        }
    }

    /// A member name and its colon; leaves `pos` at the start of the member's value. Links
    /// the object's previous name (`prev`) to this one, so the names of an object form a
    /// list in source order for [`Self::close_object`]; returns the new name's index.
    fn member_name(&mut self, prev: u32) -> Result<u32> {
        if self.peek() != Some(b'"') {
            return Err(self.unexpected());
        }
        let key = self.string(true)?;
        if let Some(p) = self.node_mut(prev) {
            p.b = key;
        }
        self.skip_ws();
        if self.peek() != Some(b':') {
            return Err(self.unexpected());
        }
        self.pos += 1;
        self.skip_ws();
        Ok(key)
    }

    fn literal(&mut self, word: &[u8], kind: Kind) -> Result<()> {
        let start = self.pos;
        let end = start + word.len();
        match self.src.get(start..end) {
            Some(s) if s == word => {}
            _ => {
                // Point at the first byte that differs.
                let mut p = start;
                while self.src.get(p).is_some() && self.src.get(p) == word.get(p - start) {
                    p += 1;
                }
                self.pos = p;
                return Err(self.unexpected());
            }
        }
        self.pos = end;
        self.push(Node { kind, flags: 0, start: start as u32, a: end as u32, b: 0, c: 0, d: 0 })?;
        Ok(())
    }

    fn string(&mut self, is_key: bool) -> Result<u32> {
        let open = self.pos;
        let mut pos = open + 1;
        let mut flags = 0u8;
        loop {
            // To the next quote, backslash or control byte: eight bytes at a time (the mask
            // finds the first such byte exactly), then byte by byte near the end of input.
            loop {
                match self.src.get(pos..pos + 8).and_then(|c| <[u8; 8]>::try_from(c).ok()) {
                    Some(w) => {
                        let m = stop_mask(u64::from_le_bytes(w));
                        if m != 0 {
                            pos += (m.trailing_zeros() / 8) as usize;
                            break;
                        }
                        pos += 8;
                    }
                    None => {
                        while let Some(&b) = self.src.get(pos) {
                            if STRING_STOP[b as usize] != 0 {
                                break;
                            }
                            pos += 1;
                        }
                        break;
                    }
                }
            }
            self.pos = pos;
            match self.src.get(pos) {
                Some(b'"') => break,
                Some(b'\\') => {
                    flags |= F_ESCAPED;
                    self.escape()?;
                    pos = self.pos;
                }
                Some(_) => return Err(self.err(Syntax::ControlCharacter)),
                None => return Err(self.err(Syntax::UnexpectedEnd)),
            }
        }
        let end = self.pos;
        self.pos += 1;
        // Member names keep their first 8 raw bytes, big-endian and zero-padded, so that
        // most comparisons while sorting are one integer compare. (A raw NUL cannot occur
        // in a string, so padding never ties with content.)
        let (c, d) = if is_key && flags == 0 {
            let len = end - open - 1;
            let v = match self.src.get(open + 1..open + 9).and_then(|w| <[u8; 8]>::try_from(w).ok()) {
                // Eight bytes from the name's start (past its end when it is shorter), with
                // the bytes past its end cleared.
                Some(w) if len >= 8 => u64::from_be_bytes(w),
                Some(w) => u64::from_be_bytes(w) & !(u64::MAX >> (8 * len)),
                None => {
                    let raw = self.src.get(open + 1..end).unwrap_or(&[]);
                    let mut p = [0u8; 8];
                    for (i, b) in raw.iter().enumerate().take(8) {
                        p[i & 7] = *b;
                    }
                    u64::from_be_bytes(p)
                }
            };
            let v = utf16_order_prefix(v);
            ((v >> 32) as u32, v as u32)
        } else {
            (0, 0)
        };
        self.push(Node { kind: Kind::String, flags, start: open as u32 + 1, a: end as u32, b: NONE, c, d })
    }

    fn hex4(&self, at: usize) -> Option<u16> {
        let bytes = self.src.get(at..at + 4)?;
        let mut v = 0u16;
        for &b in bytes {
            v = (v << 4) | u16::from(crate::encoding::hex_digit(b)?);
        }
        Some(v)
    }

    /// Validates one escape at `pos` (which holds the backslash) and moves past it.
    fn escape(&mut self) -> Result<()> {
        let at = self.pos;
        match self.src.get(at + 1) {
            Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => {
                self.pos += 2;
                Ok(())
            }
            Some(b'u') => {
                let Some(u) = self.hex4(at + 2) else {
                    return Err(Error::json(Syntax::InvalidEscape, at));
                };
                match u {
                    0xD800..=0xDBFF => {
                        let low = if self.src.get(at + 6) == Some(&b'\\') && self.src.get(at + 7) == Some(&b'u') {
                            self.hex4(at + 8)
                        } else {
                            None
                        };
                        match low {
                            Some(0xDC00..=0xDFFF) => {
                                self.pos += 12;
                                Ok(())
                            }
                            _ => Err(Error::json(Syntax::LoneSurrogate, at)),
                        }
                    }
                    0xDC00..=0xDFFF => Err(Error::json(Syntax::LoneSurrogate, at)),
                    _ => {
                        self.pos += 6;
                        Ok(())
                    }
                }
            }
            Some(_) => Err(Error::json(Syntax::InvalidEscape, at)),
            None => Err(Error::json(Syntax::UnexpectedEnd, at + 1)),
        }
    }

    fn digits(&mut self) -> usize {
        let s = self.pos;
        while let Some(b'0'..=b'9') = self.peek() {
            self.pos += 1;
        }
        self.pos - s
    }

    fn number(&mut self) -> Result<()> {
        let start = self.pos;
        let negative = self.peek() == Some(b'-');
        if negative {
            self.pos += 1;
        }
        let int_start = self.pos;
        match self.peek() {
            Some(b'0') => {
                self.pos += 1;
                if let Some(b'0'..=b'9') = self.peek() {
                    return Err(self.err(Syntax::InvalidNumber));
                }
            }
            Some(b'1'..=b'9') => {
                self.digits();
            }
            _ => return Err(self.err(Syntax::InvalidNumber)),
        }
        let int_end = self.pos;
        let mut integer = true;
        // A plain decimal of at most 15 significant digits, no trailing fraction zero and
        // no exponent, at least 1e-6, is its own shortest round-trip form (distinct such
        // decimals are further apart than adjacent doubles), so it is canonical as written.
        let int_zero = int_end - int_start == 1 && self.src.get(int_start) == Some(&b'0');
        let mut canonical = int_end - int_start <= 15;
        if self.peek() == Some(b'.') {
            self.pos += 1;
            integer = false;
            let frac_start = self.pos;
            let frac_len = self.digits();
            if frac_len == 0 {
                return Err(self.err(Syntax::InvalidNumber));
            }
            if canonical {
                let frac = self.src.get(frac_start..self.pos).unwrap_or(&[]);
                let sig = if int_zero {
                    let lead = frac.iter().take_while(|&&b| b == b'0').count();
                    canonical = lead < 6;
                    frac_len - lead
                } else {
                    int_end - int_start + frac_len
                };
                canonical = canonical && sig <= 15 && frac.last() != Some(&b'0');
            }
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.pos += 1;
            integer = false;
            canonical = false;
            if let Some(b'+' | b'-') = self.peek() {
                self.pos += 1;
            }
            if self.digits() == 0 {
                return Err(self.err(Syntax::InvalidNumber));
            }
        }
        let end = self.pos;
        let text = self.text(start, end);
        let value = if integer && int_end - int_start <= 15 {
            // Up to 15 digits: exact in u64 and in a double.
            let mut v = 0u64;
            for &b in self.src.get(int_start..int_end).unwrap_or(&[]) {
                v = v * 10 + u64::from(b - b'0');
            }
            let f = v as f64;
            if negative {
                -f
            } else {
                f
            }
        } else {
            if integer && !self.options.allow_unsafe_integers {
                // 16+ digits: the one rule for big integer literals.
                integer_literal_value(text).ok_or(Error::json(Syntax::UnsafeInteger, start))?
            } else {
                let f = parse_f64(text).ok_or(Error::json(Syntax::InvalidNumber, start))?;
                if !f.is_finite() {
                    return Err(Error::json(Syntax::NumberOutOfRange, start));
                }
                f
            }
        };
        if value == 0.0 && value.is_sign_negative() {
            return Err(Error::json(Syntax::NegativeZero, start));
        }
        let bits = value.to_bits();
        self.push(Node {
            kind: Kind::Number,
            flags: if integer { F_INTEGER } else { 0 } | if canonical { F_CANONICAL } else { 0 },
            start: start as u32,
            a: end as u32,
            b: (bits >> 32) as u32,
            c: bits as u32,
            d: 0,
        })?;
        Ok(())
    }

    fn str_at(&self, key: u32) -> Str<'_> {
        let n = self.node(key);
        // The whole input was validated as UTF-8 and member names end at ASCII quotes.
        Str { raw: self.text(n.start as usize, n.a as usize), escaped: n.flags & F_ESCAPED != 0 }
    }

    /// The input text from `start` to `end`. Without the whole text checked (a prefix
    /// parse) the slice is checked here; one that is not UTF-8 reads as empty, and the
    /// prefix parse then fails on the encoding whatever this gave.
    #[inline]
    fn text(&self, start: usize, end: usize) -> &str {
        match self.text {
            Some(t) => t.get(start..end).unwrap_or(""),
            None => core::str::from_utf8(self.src.get(start..end).unwrap_or_default()).unwrap_or(""),
        }
    }

    fn next_key(&self, key: u32) -> u32 {
        self.node(key).b
    }

    fn set_next_key(&mut self, key: u32, next: u32) {
        if let Some(n) = self.node_mut(key) {
            n.b = next;
        }
    }

    #[inline]
    fn cmp_keys(&self, x: u32, y: u32) -> Ordering {
        let (nx, ny) = (self.node(x), self.node(y));
        if (nx.flags | ny.flags) & F_ESCAPED == 0 {
            // The prefixes compare as the names' first 8 bytes in UTF-16 order (see
            // `utf16_order_prefix`), so a difference there decides.
            let px = (u64::from(nx.c) << 32) | u64::from(nx.d);
            let py = (u64::from(ny.c) << 32) | u64::from(ny.d);
            if px != py {
                return px.cmp(&py);
            }
            let (lx, ly) = (nx.a - nx.start, ny.a - ny.start);
            if lx <= 8 && ly <= 8 {
                return lx.cmp(&ly);
            }
        }
        self.cmp_keys_full(x, y)
    }

    #[inline(never)]
    fn cmp_keys_full(&self, x: u32, y: u32) -> Ordering {
        self.str_at(x).cmp_utf16(&self.str_at(y))
    }

    /// Links the object's member names (a list in source order, from `obj + 1`) in sorted
    /// order and rejects duplicates, reporting the first name, in reading order, that repeats
    /// an earlier one.
    fn close_object(&mut self, obj: u32, count: u32) -> Result<()> {
        if count == 0 {
            return Ok(());
        }
        let head = obj + 1;
        // (`small` builds carry only the merge sort.)
        let head = if count <= INSERTION_SORT_MAX && !cfg!(feature = "small") {
            self.insertion_sort(head)?
        } else {
            let (head, saw_equal) = self.sort_keys(head);
            // In a comparison sort every pair that ends up adjacent was compared directly,
            // so duplicates exist only if some comparison returned Equal.
            if saw_equal {
                return Err(self.first_duplicate(head));
            }
            head
        };
        if let Some(n) = self.node_mut(obj) {
            n.d = head;
        }
        Ok(())
    }

    /// Insertion sort of a short list of member names, in source order: each name is
    /// compared with the largest so far first, so names that arrive sorted cost one
    /// comparison each. A name equal to an earlier one is the first repeat in reading order.
    fn insertion_sort(&mut self, head: u32) -> Result<u32> {
        let mut first = head;
        let mut tail = head;
        let mut x = self.next_key(head);
        while x != NONE {
            let after = self.next_key(x);
            match self.cmp_keys(tail, x) {
                Ordering::Less => {
                    self.set_next_key(tail, x);
                    tail = x;
                }
                Ordering::Equal => return Err(self.duplicate(x)),
                Ordering::Greater => {
                    // Somewhere before `tail`: walk from the smallest.
                    let mut prev = NONE;
                    let mut cur = first;
                    loop {
                        match self.cmp_keys(cur, x) {
                            Ordering::Less => {
                                prev = cur;
                                cur = self.next_key(cur);
                            }
                            Ordering::Equal => return Err(self.duplicate(x)),
                            Ordering::Greater => break,
                        }
                    }
                    self.set_next_key(x, cur);
                    if prev == NONE {
                        first = x;
                    } else {
                        self.set_next_key(prev, x);
                    }
                }
            }
            x = after;
        }
        self.set_next_key(tail, NONE);
        Ok(first)
    }

    fn duplicate(&self, key: u32) -> Error {
        Error::json(Syntax::DuplicateKey, (self.node(key).start as usize).saturating_sub(1))
    }

    /// After a merge sort that saw equal names: the name that first repeats an earlier one
    /// in reading order (the second-earliest occurrence within some run of equal names).
    fn first_duplicate(&self, head: u32) -> Error {
        let mut best = NONE;
        let mut k = head;
        while k != NONE {
            // One run of equal names: its two earliest occurrences.
            let (mut first, mut second) = (k, NONE);
            let mut next = self.next_key(k);
            while next != NONE && self.cmp_keys(k, next) == Ordering::Equal {
                let s = self.node(next).start;
                if s < self.node(first).start {
                    second = first;
                    first = next;
                } else if second == NONE || s < self.node(second).start {
                    second = next;
                }
                next = self.next_key(next);
            }
            if second != NONE && (best == NONE || self.node(second).start < self.node(best).start) {
                best = second;
            }
            k = next;
        }
        self.duplicate(best)
    }

    /// Bottom-up merge sort of the linked list of member names (stable, O(n log n),
    /// no extra memory).
    fn sort_keys(&mut self, head: u32) -> (u32, bool) {
        let mut saw_equal = false;
        let mut list = head;
        let mut insize = 1usize;
        loop {
            let mut p = list;
            list = NONE;
            let mut tail = NONE;
            let mut merges = 0;
            while p != NONE {
                merges += 1;
                let mut q = p;
                let mut psize = 0;
                for _ in 0..insize {
                    psize += 1;
                    q = self.next_key(q);
                    if q == NONE {
                        break;
                    }
                }
                let mut qsize = insize;
                while psize > 0 || (qsize > 0 && q != NONE) {
                    let take_p = if psize == 0 {
                        false
                    } else if qsize == 0 || q == NONE {
                        true
                    } else {
                        let o = self.cmp_keys(p, q);
                        saw_equal |= o == Ordering::Equal;
                        o != Ordering::Greater
                    };
                    let e = if take_p {
                        let e = p;
                        p = self.next_key(p);
                        psize -= 1;
                        e
                    } else {
                        let e = q;
                        q = self.next_key(q);
                        qsize -= 1;
                        e
                    };
                    if tail == NONE {
                        list = e;
                    } else {
                        self.set_next_key(tail, e);
                    }
                    tail = e;
                }
                p = q;
            }
            self.set_next_key(tail, NONE);
            if merges <= 1 {
                return (list, saw_equal);
            }
            insize *= 2;
        }
    }
}

/// A member name's first 8 UTF-8 bytes (big-endian, zero-padded), with the lead bytes of
/// 3- and 4-byte sequences that UTF-8 and UTF-16 order differently remapped, so that
/// comparing two prefixes as integers orders the names by UTF-16 code units as far as the
/// prefixes differ. UTF-16 puts U+E000..U+FFFF (lead bytes 0xEE, 0xEF) above the
/// supplementary planes (surrogate pairs, lead bytes 0xF0..0xF4); UTF-8 puts them below.
/// The remap moves 0xEE, 0xEF to 0xF5, 0xF6 and 0xF0..0xF4 to 0xEE..0xF2 (bytes 0xF5 and
/// up never occur in UTF-8; continuation bytes are below 0xC0 and stay as they are).
#[inline]
fn utf16_order_prefix(v: u64) -> u64 {
    if v & 0x8080_8080_8080_8080 == 0 {
        return v;
    }
    let mut b = v.to_be_bytes();
    for x in &mut b {
        *x = match *x {
            0xEE | 0xEF => *x + 7,
            0xF0..=0xF4 => *x - 2,
            other => other,
        };
    }
    u64::from_be_bytes(b)
}

/// High bit set in each byte of `w` that is `"`, `\\` or below 0x20 (exact up to the first
/// such byte; borrows can only mark bytes above it).
#[inline]
fn stop_mask(w: u64) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let q = w ^ (ONES * u64::from(b'"'));
    let b = w ^ (ONES * u64::from(b'\\'));
    let ctl = w.wrapping_sub(ONES * 0x20);
    (q.wrapping_sub(ONES) | b.wrapping_sub(ONES) | ctl) & !w & HIGH
}

fn parse_f64(text: &str) -> Option<f64> {
    text.parse().ok()
}

mod str;
pub mod stream;
mod value;
pub mod walk;

pub use self::str::cmp_utf8_as_utf16;
pub(crate) use self::str::decode_escape;
pub use self::str::{Chars, Str, Units};
pub use self::value::{Elements, Members, SortedMembers, Value};

impl<'a> Doc<'a> {
    /// The top-level value.
    #[must_use]
    pub fn root(&self) -> Value<'a> {
        Value::new(*self, 0)
    }

    /// The input text.
    #[must_use]
    pub fn source(&self) -> &'a str {
        self.src
    }

    /// The number of nodes used.
    #[must_use]
    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }

    #[inline]
    pub(crate) fn node(&self, i: u32) -> Node {
        self.nodes.get(i as usize).copied().unwrap_or(Node::EMPTY)
    }

    pub(crate) fn str_of(&self, i: u32) -> Str<'a> {
        let n = self.node(i);
        Str { raw: self.src.get(n.start as usize..n.a as usize).unwrap_or(""), escaped: n.flags & F_ESCAPED != 0 }
    }
}

impl Node {
    #[inline]
    pub(crate) fn kind(&self) -> Kind {
        self.kind
    }
    #[inline]
    pub(crate) fn start(&self) -> u32 {
        self.start
    }
    /// Index just past this node's subtree.
    #[inline]
    pub(crate) fn skip(&self, idx: u32) -> u32 {
        if matches!(self.kind, Kind::Array | Kind::Object) {
            self.a
        } else {
            idx + 1
        }
    }
    #[inline]
    pub(crate) fn count(&self) -> u32 {
        self.b
    }
    #[inline]
    pub(crate) fn parent(&self) -> u32 {
        self.c
    }
    #[inline]
    pub(crate) fn first_sorted(&self) -> u32 {
        self.d
    }
    #[inline]
    pub(crate) fn next_sorted(&self) -> u32 {
        self.b
    }
    #[inline]
    pub(crate) fn number(&self) -> f64 {
        f64::from_bits((u64::from(self.b) << 32) | u64::from(self.c))
    }
    #[inline]
    pub(crate) fn is_canonical_number(&self) -> bool {
        self.flags & F_CANONICAL != 0
    }
    #[inline]
    pub(crate) fn is_escaped(&self) -> bool {
        self.flags & F_ESCAPED != 0
    }
    #[inline]
    pub(crate) fn is_integer_literal(&self) -> bool {
        self.flags & F_INTEGER != 0
    }
    #[inline]
    pub(crate) fn end(&self) -> u32 {
        self.a
    }
}

pub(crate) const NO_NODE: u32 = NONE;

#[cfg(test)]
mod tests;
