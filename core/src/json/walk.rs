//! Canonical-order traversal of a parsed tape, in O(1) memory whatever the depth.
//!
//! [`Walk`] visits a value as RFC 8785 orders it (members by UTF-16 code units, as the
//! reader linked them), dropping the members a [`Preimage`] rule does not keep. The JCS
//! writer ([`crate::jcs`]) and structural equality ([`Value::equals`]) are built on it; the
//! Concordia preimage rules live in [`crate::preimage`].

use super::{Doc, Kind, Str, Value, NO_NODE};

/// A rule for which object members a canonical form keeps: the preimage of a signature
/// drops the signature itself, and so on ([`crate::preimage`] has the Concordia rules).
pub trait Preimage {
    /// Whether to keep the member named `key` of an object at nesting `depth` (1 for the
    /// members of the top-level object).
    fn keep(&self, depth: usize, key: Str<'_>) -> bool;
}

impl<P: Preimage + ?Sized> Preimage for &P {
    fn keep(&self, depth: usize, key: Str<'_>) -> bool {
        (**self).keep(depth, key)
    }
}

/// Keeps everything: the canonical form of the whole value.
#[derive(Clone, Copy, Debug, Default)]
pub struct Whole;

impl Preimage for Whole {
    #[inline]
    fn keep(&self, _: usize, _: Str<'_>) -> bool {
        true
    }
}

/// One step of a canonical traversal.
#[derive(Clone, Copy, Debug)]
pub enum Event<'a> {
    /// `{`
    BeginObject,
    /// `[`
    BeginArray,
    /// A member name; the member's value follows.
    Key(Str<'a>),
    /// A scalar value (null, boolean, number, string).
    Scalar(Value<'a>),
    /// `}` or `]`; `true` for an object.
    End(bool),
}

#[derive(Clone, Copy, Debug)]
enum Next {
    Enter(u32),
    Key(u32),
    Exit(u32),
    Done,
}

/// A canonical-order traversal of one value, with members filtered by a [`Preimage`] rule.
/// Uses O(1) memory whatever the depth.
#[derive(Debug)]
pub struct Walk<'a, 'r, P: ?Sized> {
    doc: Doc<'a>,
    root: u32,
    next: Next,
    parent: u32,
    depth: usize,
    rule: &'r P,
    last_key: u32,
}

impl<'a, 'r, P: Preimage + ?Sized> Walk<'a, 'r, P> {
    /// Starts a traversal of `value`.
    pub fn new(value: Value<'a>, rule: &'r P) -> Self {
        Walk {
            doc: value.doc(),
            root: value.index(),
            next: Next::Enter(value.index()),
            parent: NO_NODE,
            depth: 0,
            rule,
            last_key: NO_NODE,
        }
    }

    /// Nesting depth of the container being walked (1 inside the root container).
    #[must_use]
    pub fn depth(&self) -> usize {
        self.depth
    }

    fn kept(&self, key: u32) -> Next {
        match kept(self.doc, self.rule, self.depth, key) {
            NO_NODE => Next::Exit(self.parent),
            k => Next::Key(k),
        }
    }

    fn after(&self, i: u32) -> Next {
        if i == self.root {
            return Next::Done;
        }
        let p = self.doc.node(self.parent);
        if p.kind() == Kind::Object {
            // The value's member name is the node just before it.
            self.kept(self.doc.node(i - 1).next_sorted())
        } else {
            let next = self.doc.node(i).skip(i);
            if next < p.end() {
                Next::Enter(next)
            } else {
                Next::Exit(self.parent)
            }
        }
    }
}

impl<'a, P: Preimage + ?Sized> Iterator for Walk<'a, '_, P> {
    type Item = Event<'a>;

    fn next(&mut self) -> Option<Event<'a>> {
        match self.next {
            Next::Done => None,
            Next::Enter(i) => {
                let n = self.doc.node(i);
                match n.kind() {
                    Kind::Object => {
                        self.depth += 1;
                        self.parent = i;
                        self.next = if n.count() == 0 { Next::Exit(i) } else { self.kept(n.first_sorted()) };
                        Some(Event::BeginObject)
                    }
                    Kind::Array => {
                        self.depth += 1;
                        self.parent = i;
                        self.next = if n.count() == 0 { Next::Exit(i) } else { Next::Enter(i + 1) };
                        Some(Event::BeginArray)
                    }
                    _ => {
                        self.next = self.after(i);
                        Some(Event::Scalar(Value::new(self.doc, i)))
                    }
                }
            }
            Next::Key(k) => {
                self.next = Next::Enter(k + 1);
                self.last_key = k;
                Some(Event::Key(self.doc.str_of(k)))
            }
            Next::Exit(i) => {
                let n = self.doc.node(i);
                self.depth = self.depth.saturating_sub(1);
                self.parent = if i == self.root { NO_NODE } else { n.parent() };
                self.next = self.after(i);
                Some(Event::End(n.kind() == Kind::Object))
            }
        }
    }
}

/// The first member name from `key` on (in sorted order) that `rule` keeps at `depth`.
#[inline]
pub(crate) fn kept<P: Preimage + ?Sized>(doc: Doc<'_>, rule: &P, depth: usize, mut key: u32) -> u32 {
    while key != NO_NODE {
        if rule.keep(depth, doc.str_of(key)) {
            return key;
        }
        key = doc.node(key).next_sorted();
    }
    NO_NODE
}

/// Structural equality through two canonical walks in lockstep.
pub(crate) fn values_equal(a: Value<'_>, b: Value<'_>) -> bool {
    let mut wa = Walk::new(a, &Whole);
    let mut wb = Walk::new(b, &Whole);
    loop {
        match (wa.next(), wb.next()) {
            (None, None) => return true,
            (Some(x), Some(y)) => {
                let same = match (x, y) {
                    (Event::BeginObject, Event::BeginObject) | (Event::BeginArray, Event::BeginArray) => true,
                    (Event::End(p), Event::End(q)) => p == q,
                    (Event::Key(p), Event::Key(q)) => p == q,
                    (Event::Scalar(p), Event::Scalar(q)) => match (p.kind(), q.kind()) {
                        (Kind::Number, Kind::Number) => p.as_f64() == q.as_f64(),
                        (Kind::String, Kind::String) => p.as_str() == q.as_str(),
                        (k, l) => k == l,
                    },
                    _ => false,
                };
                if !same {
                    return false;
                }
            }
            _ => return false,
        }
    }
}
