//! Read access to parsed values: type tests, member lookup, RFC 6901 pointers, equality.

use super::{Doc, Kind, Str, NO_NODE};

/// A value inside a parsed [`Doc`]. Cheap to copy.
#[derive(Clone, Copy, Debug)]
pub struct Value<'a> {
    doc: Doc<'a>,
    idx: u32,
}

impl<'a> Value<'a> {
    pub(crate) fn new(doc: Doc<'a>, idx: u32) -> Self {
        Value { doc, idx }
    }

    pub(crate) fn doc(&self) -> Doc<'a> {
        self.doc
    }

    pub(crate) fn index(&self) -> u32 {
        self.idx
    }

    /// The JSON type.
    #[must_use]
    pub fn kind(&self) -> Kind {
        self.doc.node(self.idx).kind()
    }

    /// Byte offset of the value's first byte in the input (for strings, the opening quote).
    #[must_use]
    pub fn offset(&self) -> usize {
        let n = self.doc.node(self.idx);
        let s = n.start() as usize;
        if n.kind() == Kind::String {
            s.saturating_sub(1)
        } else {
            s
        }
    }

    /// True for `null`.
    #[must_use]
    pub fn is_null(&self) -> bool {
        self.kind() == Kind::Null
    }

    /// The boolean, for `true` and `false`.
    #[must_use]
    pub fn as_bool(&self) -> Option<bool> {
        match self.kind() {
            Kind::True => Some(true),
            Kind::False => Some(false),
            _ => None,
        }
    }

    /// The number as a double.
    #[must_use]
    pub fn as_f64(&self) -> Option<f64> {
        let n = self.doc.node(self.idx);
        (n.kind() == Kind::Number).then(|| n.number())
    }

    /// The number as an integer, when it is one exactly (`3` and `3.0` both give 3) and lies
    /// within ±(2^53 - 1).
    #[must_use]
    pub fn as_i64(&self) -> Option<i64> {
        let f = self.as_f64()?;
        let limit = super::MAX_SAFE_INTEGER as f64;
        if f.abs() <= limit && (f as i64) as f64 == f {
            Some(f as i64)
        } else {
            None
        }
    }

    /// True when the number was written as an integer literal (no fraction, no exponent),
    /// which is how Python's `json` decides between `int` and `float`.
    #[must_use]
    pub fn is_integer_literal(&self) -> bool {
        let n = self.doc.node(self.idx);
        n.kind() == Kind::Number && n.is_integer_literal()
    }

    /// The literal text of a number, exactly as written in the input.
    #[must_use]
    pub fn number_text(&self) -> Option<&'a str> {
        let n = self.doc.node(self.idx);
        if n.kind() != Kind::Number {
            return None;
        }
        self.doc.source().get(n.start() as usize..n.end() as usize)
    }

    /// The string, still escaped; see [`Str`].
    #[must_use]
    pub fn as_str(&self) -> Option<Str<'a>> {
        (self.kind() == Kind::String).then(|| self.doc.str_of(self.idx))
    }

    /// The string's value when it has no escapes (the common case), without copying.
    #[must_use]
    pub fn as_plain_str(&self) -> Option<&'a str> {
        self.as_str()?.as_plain()
    }

    /// True when this is a string whose decoded value equals `s`.
    #[must_use]
    pub fn is_str(&self, s: &str) -> bool {
        self.as_str().is_some_and(|v| v.eq_str(s))
    }

    /// Number of elements of an array or members of an object; 0 for scalars.
    #[must_use]
    pub fn len(&self) -> usize {
        match self.kind() {
            Kind::Array | Kind::Object => self.doc.node(self.idx).count() as usize,
            _ => 0,
        }
    }

    /// True for empty arrays and objects, and for scalars.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The member named `key` of an object.
    #[must_use]
    pub fn get(&self, key: &str) -> Option<Value<'a>> {
        self.sorted_members().find(|(k, _)| k.eq_str(key)).map(|(_, v)| v)
    }

    /// The element at `i` of an array.
    #[must_use]
    pub fn at(&self, i: usize) -> Option<Value<'a>> {
        self.elements().nth(i)
    }

    /// Members of an object in input order (empty for other kinds).
    #[must_use]
    pub fn members(&self) -> Members<'a> {
        let n = self.doc.node(self.idx);
        let (next, left) = if n.kind() == Kind::Object { (self.idx + 1, n.count()) } else { (0, 0) };
        Members { doc: self.doc, next, left }
    }

    /// Members of an object in RFC 8785 order: by UTF-16 code units of the names.
    #[must_use]
    pub fn sorted_members(&self) -> SortedMembers<'a> {
        let n = self.doc.node(self.idx);
        let key = if n.kind() == Kind::Object && n.count() > 0 { n.first_sorted() } else { NO_NODE };
        SortedMembers { doc: self.doc, key }
    }

    /// Elements of an array in order (empty for other kinds).
    #[must_use]
    pub fn elements(&self) -> Elements<'a> {
        let n = self.doc.node(self.idx);
        let (next, left) = if n.kind() == Kind::Array { (self.idx + 1, n.count()) } else { (0, 0) };
        Elements { doc: self.doc, next, left }
    }

    /// Resolves an RFC 6901 JSON pointer (`""` is this value, `"/a/0/b~1c"` descends).
    /// A malformed pointer or a missing member resolves to `None`.
    #[must_use]
    pub fn pointer(&self, pointer: &str) -> Option<Value<'a>> {
        if pointer.is_empty() {
            return Some(*self);
        }
        let rest = pointer.strip_prefix('/')?;
        let mut cur = *self;
        for token in rest.split('/') {
            cur = match cur.kind() {
                Kind::Object => cur.sorted_members().find(|(k, _)| pointer_token_eq(token, k)).map(|(_, v)| v)?,
                Kind::Array => cur.at(array_index(token)?)?,
                _ => return None,
            };
        }
        Some(cur)
    }

    /// Structural equality of parsed values: numbers compare as doubles, strings after
    /// unescaping, objects regardless of member order.
    #[must_use]
    pub fn equals(&self, other: &Value<'_>) -> bool {
        super::walk::values_equal(*self, *other)
    }
}

fn pointer_token_eq(token: &str, key: &Str<'_>) -> bool {
    if !token.contains('~') {
        return key.eq_str(token);
    }
    let mut decoded = token.chars();
    let mut unescaped = core::iter::from_fn(move || {
        let c = decoded.next()?;
        if c == '~' {
            match decoded.next() {
                Some('0') => Some(Some('~')),
                Some('1') => Some(Some('/')),
                _ => Some(None),
            }
        } else {
            Some(Some(c))
        }
    });
    let mut key_chars = key.chars();
    loop {
        match (unescaped.next(), key_chars.next()) {
            (None, None) => return true,
            (Some(Some(a)), Some(b)) if a == b => {}
            _ => return false,
        }
    }
}

fn array_index(token: &str) -> Option<usize> {
    let bytes = token.as_bytes();
    if bytes.is_empty() || (bytes.len() > 1 && bytes.first() == Some(&b'0')) || bytes.len() > 10 {
        return None;
    }
    let mut v = 0usize;
    for &b in bytes {
        if !b.is_ascii_digit() {
            return None;
        }
        v = v.checked_mul(10)?.checked_add(usize::from(b - b'0'))?;
    }
    Some(v)
}

/// Members of an object in input order: `(name, value)`.
#[derive(Clone, Debug)]
pub struct Members<'a> {
    doc: Doc<'a>,
    next: u32,
    left: u32,
}

impl<'a> Members<'a> {
    /// The next member with the byte offset of its name's opening quote.
    pub(crate) fn next_named(&mut self) -> Option<(Str<'a>, usize, Value<'a>)> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let key = self.next;
        let value = key + 1;
        self.next = self.doc.node(value).skip(value);
        let name_offset = (self.doc.node(key).start() as usize).saturating_sub(1);
        Some((self.doc.str_of(key), name_offset, Value::new(self.doc, value)))
    }
}

impl<'a> Iterator for Members<'a> {
    type Item = (Str<'a>, Value<'a>);

    fn next(&mut self) -> Option<Self::Item> {
        self.next_named().map(|(name, _, value)| (name, value))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left as usize, Some(self.left as usize))
    }
}

/// Members of an object in RFC 8785 order: `(name, value)`.
#[derive(Clone, Debug)]
pub struct SortedMembers<'a> {
    doc: Doc<'a>,
    key: u32,
}

impl<'a> Iterator for SortedMembers<'a> {
    type Item = (Str<'a>, Value<'a>);

    fn next(&mut self) -> Option<Self::Item> {
        if self.key == NO_NODE {
            return None;
        }
        let key = self.key;
        self.key = self.doc.node(key).next_sorted();
        Some((self.doc.str_of(key), Value::new(self.doc, key + 1)))
    }
}

/// Elements of an array in order.
#[derive(Clone, Debug)]
pub struct Elements<'a> {
    doc: Doc<'a>,
    next: u32,
    left: u32,
}

impl<'a> Iterator for Elements<'a> {
    type Item = Value<'a>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let i = self.next;
        self.next = self.doc.node(i).skip(i);
        Some(Value::new(self.doc, i))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left as usize, Some(self.left as usize))
    }
}

impl ExactSizeIterator for Elements<'_> {}
impl ExactSizeIterator for Members<'_> {}
