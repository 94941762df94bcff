//! A small, bounded regular-expression engine for JSON Schema `pattern`.
//!
//! Semantics are Python 3.11 `re.search(pattern, text)` on `str` (what the reference
//! runner's `jsonschema` does), for this subset of the syntax:
//!
//! * literals, `.` (any character but `\n`), `^` (start of text), `$` (end of text or
//!   before a final `\n`), `\A`, `\Z` (end of text only), `\b`, `\B`;
//! * classes `[...]`, `[^...]` with ranges and the escapes below; `]` first is literal;
//! * `\d` `\D` `\s` `\S` `\w` `\W`, Unicode-aware as in Python 3: `\d` is exactly the
//!   Unicode decimal digits (category Nd, Unicode 14.0 as in Python 3.11), `\s` is
//!   Python's `\s`, and `\w` Python's `\w`: the exact Unicode 14.0 tables of
//!   [`crate::pyre`], shared with the privacy detectors;
//! * escapes `\t \n \r \f \v \a \0 \xhh \uhhhh \Uhhhhhhhh`, and `\` before any
//!   non-alphanumeric character;
//! * groups `(...)`, `(?:...)`, `(?P<name>...)` (captures are irrelevant to matching);
//!   alternation `|`;
//! * quantifiers `* + ? {n} {n,} {,m} {n,m}` and their lazy forms (laziness does not
//!   change whether a match exists). A `{` that does not form a quantifier is literal.
//!
//! Anything else Python accepts (lookaround, backreferences, inline flags, atomic groups,
//! possessive quantifiers, `\N{...}`, octal escapes) is refused as
//! `Error::Schema("unsupported pattern")`; text Python itself would refuse is
//! `Error::Schema("invalid pattern")`.
//!
//! Matching is a Thompson-NFA simulation over at most [`MAX_STATES`] states with
//! fixed-size bitsets: work is O(text length × states), with no backtracking, no
//! recursion during matching and no heap. Compilation recurses only into groups, at
//! most [`MAX_GROUP_DEPTH`] deep. The compiled program lives on the stack (about 4 KiB),
//! and matching uses another 0.6 KiB.

use crate::error::{Error, Result};

/// Most NFA states a pattern may compile to (counted repetition is expanded).
pub const MAX_STATES: usize = 256;
/// Deepest group nesting.
pub const MAX_GROUP_DEPTH: u32 = 16;
const MAX_CLASS_ITEMS: usize = 64;
const MAX_CLASSES: usize = 32;
const WORDS: usize = MAX_STATES / 64;
const NIL: u16 = u16::MAX;

const UNSUPPORTED: Error = Error::Schema("unsupported pattern");
const INVALID: Error = Error::Schema("invalid pattern");

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    Char(char),
    Any,
    Class(u8),
    Split,
    Empty,
    Bol,
    Eol,
    TextStart,
    TextEnd,
    WordBoundary,
    NotWordBoundary,
    Match,
}

#[derive(Clone, Copy, Debug)]
struct State {
    op: Op,
    out: u16,
    alt: u16,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Item {
    Range(char, char),
    Digit(bool),
    Space(bool),
    Word(bool),
}

#[derive(Clone, Copy, Debug)]
struct Class {
    start: u8,
    len: u8,
    negated: bool,
}

/// A fragment: entry state and the one state whose `out` is still open.
#[derive(Clone, Copy)]
struct Frag {
    start: u16,
    exit: u16,
}

/// A compiled pattern.
pub struct Regex {
    states: [State; MAX_STATES],
    n: usize,
    items: [Item; MAX_CLASS_ITEMS],
    n_items: usize,
    classes: [Class; MAX_CLASSES],
    n_classes: usize,
    start: u16,
}

impl Regex {
    /// Compiles `pattern`.
    ///
    /// # Errors
    /// `Error::Schema("unsupported pattern")` for syntax outside the subset or a pattern
    /// too large for the fixed tables, `Error::Schema("invalid pattern")` for text that
    /// Python's `re` would not compile either.
    pub fn new(pattern: &str) -> Result<Self> {
        let mut re = Regex {
            states: [State { op: Op::Match, out: NIL, alt: NIL }; MAX_STATES],
            n: 0,
            items: [Item::Digit(false); MAX_CLASS_ITEMS],
            n_items: 0,
            classes: [Class { start: 0, len: 0, negated: false }; MAX_CLASSES],
            n_classes: 0,
            start: 0,
        };
        let mut p = Parser { src: pattern, pos: 0 };
        let body = re.alternation(&mut p, 0)?;
        if p.peek().is_some() {
            // Only an unbalanced `)` stops the top-level alternation early.
            return Err(INVALID);
        }
        let m = re.push(Op::Match)?;
        re.patch(body.exit, m);
        re.start = body.start;
        Ok(re)
    }

    fn push(&mut self, op: Op) -> Result<u16> {
        let slot = self.states.get_mut(self.n).ok_or(UNSUPPORTED)?;
        *slot = State { op, out: NIL, alt: NIL };
        self.n += 1;
        Ok((self.n - 1) as u16)
    }

    fn patch(&mut self, s: u16, to: u16) {
        if let Some(st) = self.states.get_mut(usize::from(s)) {
            st.out = to;
        }
    }

    fn single(&mut self, op: Op) -> Result<Frag> {
        let s = self.push(op)?;
        Ok(Frag { start: s, exit: s })
    }

    fn concat(&mut self, a: Option<Frag>, b: Frag) -> Frag {
        match a {
            None => b,
            Some(a) => {
                self.patch(a.exit, b.start);
                Frag { start: a.start, exit: b.exit }
            }
        }
    }

    fn split(&mut self, out: u16, alt: u16) -> Result<u16> {
        let s = self.push(Op::Split)?;
        if let Some(st) = self.states.get_mut(usize::from(s)) {
            st.out = out;
            st.alt = alt;
        }
        Ok(s)
    }

    fn star(&mut self, f: Frag) -> Result<Frag> {
        let e = self.push(Op::Empty)?;
        let s = self.split(f.start, e)?;
        self.patch(f.exit, s);
        Ok(Frag { start: s, exit: e })
    }

    fn optional(&mut self, f: Frag) -> Result<Frag> {
        let e = self.push(Op::Empty)?;
        let s = self.split(f.start, e)?;
        self.patch(f.exit, e);
        Ok(Frag { start: s, exit: e })
    }

    fn alternation(&mut self, p: &mut Parser<'_>, depth: u32) -> Result<Frag> {
        let first = self.sequence(p, depth)?;
        if p.peek() != Some('|') {
            return Ok(first);
        }
        let join = self.push(Op::Empty)?;
        self.patch(first.exit, join);
        // Chain splits: each further alternative hangs off the previous split's `alt`.
        let top = self.split(first.start, NIL)?;
        let mut last_split = top;
        while p.peek() == Some('|') {
            p.bump();
            let next = self.sequence(p, depth)?;
            self.patch(next.exit, join);
            if p.peek() == Some('|') {
                let s = self.split(next.start, NIL)?;
                self.set_alt(last_split, s);
                last_split = s;
            } else {
                self.set_alt(last_split, next.start);
            }
        }
        Ok(Frag { start: top, exit: join })
    }

    fn set_alt(&mut self, s: u16, to: u16) {
        if let Some(st) = self.states.get_mut(usize::from(s)) {
            st.alt = to;
        }
    }

    fn sequence(&mut self, p: &mut Parser<'_>, depth: u32) -> Result<Frag> {
        let mut acc: Option<Frag> = None;
        while let Some(c) = p.peek() {
            if c == '|' || c == ')' {
                break;
            }
            let piece = self.piece(p, depth)?;
            acc = Some(self.concat(acc, piece));
        }
        match acc {
            Some(f) => Ok(f),
            None => self.single(Op::Empty),
        }
    }

    fn piece(&mut self, p: &mut Parser<'_>, depth: u32) -> Result<Frag> {
        let atom_start = p.pos;
        let (first, repeatable) = self.atom(p, depth)?;
        let atom_end = p.pos;
        let Some((min, max)) = quantifier(p)? else {
            return Ok(first);
        };
        if !repeatable {
            return Err(INVALID); // "nothing to repeat"
        }
        // Lazy suffix; possessive `+` (Python 3.11) changes matching: refuse it.
        match p.peek() {
            Some('?') => p.bump(),
            Some('+') => return Err(UNSUPPORTED),
            _ => {}
        }
        let after = p.pos;
        if quantifier_at(p)? {
            return Err(INVALID); // "multiple repeat"
        }
        p.pos = after;
        let mut pending = Some(first);
        let mut acc: Option<Frag> = None;
        let mut copies = 0u32;
        let total = if max == u32::MAX { min + 1 } else { max };
        while copies < total {
            let f = match pending.take() {
                Some(f) => f,
                None => {
                    p.pos = atom_start;
                    let (f, _) = self.atom(p, depth)?;
                    if p.pos != atom_end {
                        return Err(INVALID);
                    }
                    f
                }
            };
            let f = if copies < min {
                f
            } else if max == u32::MAX {
                self.star(f)?
            } else {
                self.optional(f)?
            };
            acc = Some(self.concat(acc, f));
            copies += 1;
        }
        p.pos = after;
        match acc {
            Some(f) => Ok(f),
            None => self.single(Op::Empty),
        }
    }

    /// One atom; the flag says whether a quantifier may follow it.
    fn atom(&mut self, p: &mut Parser<'_>, depth: u32) -> Result<(Frag, bool)> {
        let c = p.next().ok_or(INVALID)?;
        let f = match c {
            '(' => {
                if depth >= MAX_GROUP_DEPTH {
                    return Err(UNSUPPORTED);
                }
                if p.peek() == Some('?') {
                    p.bump();
                    match p.next() {
                        Some(':') => {}
                        Some('P') if p.peek() == Some('<') => {
                            p.bump();
                            let mut first = true;
                            loop {
                                match p.next() {
                                    Some('>') if !first => break,
                                    Some(ch) if ch == '_' || ch.is_alphabetic() || (!first && ch.is_alphanumeric()) => {
                                    }
                                    _ => return Err(INVALID),
                                }
                                first = false;
                            }
                        }
                        _ => return Err(UNSUPPORTED),
                    }
                }
                let inner = self.alternation(p, depth + 1)?;
                if p.next() != Some(')') {
                    return Err(INVALID);
                }
                inner
            }
            ')' | '*' | '+' | '?' => return Err(INVALID),
            '{' => {
                // A `{` that forms a quantifier has nothing to repeat; otherwise a literal.
                p.pos -= 1;
                if quantifier(p)?.is_some() {
                    return Err(INVALID);
                }
                p.bump();
                self.single(Op::Char('{'))?
            }
            '.' => self.single(Op::Any)?,
            '^' => return Ok((self.single(Op::Bol)?, false)),
            '$' => return Ok((self.single(Op::Eol)?, false)),
            '[' => {
                let k = self.class(p)?;
                self.single(Op::Class(k))?
            }
            '\\' => match p.next().ok_or(INVALID)? {
                'A' => return Ok((self.single(Op::TextStart)?, false)),
                'Z' => return Ok((self.single(Op::TextEnd)?, false)),
                'b' => return Ok((self.single(Op::WordBoundary)?, false)),
                'B' => return Ok((self.single(Op::NotWordBoundary)?, false)),
                e @ ('d' | 'D' | 's' | 'S' | 'w' | 'W') => {
                    let item = shorthand(e);
                    let k = self.class_of(&[item], false)?;
                    self.single(Op::Class(k))?
                }
                e => self.single(Op::Char(escape_char(p, e, false)?))?,
            },
            c => self.single(Op::Char(c))?,
        };
        Ok((f, true))
    }

    fn class_of(&mut self, items: &[Item], negated: bool) -> Result<u8> {
        let start = self.n_items;
        for &it in items {
            self.add_item(it)?;
        }
        self.finish_class(start, negated)
    }

    /// Registers the items from `start` as a class, reusing an identical earlier class
    /// (counted repetition re-reads the same class many times).
    fn finish_class(&mut self, start: usize, negated: bool) -> Result<u8> {
        let new = self.items.get(start..self.n_items).unwrap_or(&[]);
        for (k, cl) in self.classes.iter().enumerate().take(self.n_classes) {
            let old = self.items.get(usize::from(cl.start)..usize::from(cl.start) + usize::from(cl.len));
            if cl.negated == negated && old == Some(new) {
                self.n_items = start;
                return Ok(k as u8);
            }
        }
        let k = self.n_classes;
        *self.classes.get_mut(k).ok_or(UNSUPPORTED)? =
            Class { start: start as u8, len: (self.n_items - start) as u8, negated };
        self.n_classes += 1;
        Ok(k as u8)
    }

    /// A bracket class after its `[`.
    fn class(&mut self, p: &mut Parser<'_>) -> Result<u8> {
        let negated = p.peek() == Some('^');
        if negated {
            p.bump();
        }
        let start = self.n_items;
        let mut first = true;
        loop {
            let c = p.next().ok_or(INVALID)?;
            if c == ']' && !first {
                break;
            }
            if c == '[' && matches!(p.peek(), Some(':' | '=' | '.')) {
                // POSIX-like syntax: Python warns and reads it literally; refuse it.
                return Err(UNSUPPORTED);
            }
            first = false;
            let lo = match c {
                '\\' => {
                    let e = p.next().ok_or(INVALID)?;
                    if matches!(e, 'd' | 'D' | 's' | 'S' | 'w' | 'W') {
                        self.add_item(shorthand(e))?;
                        if p.peek() == Some('-') && p.peek2().is_some_and(|x| x != ']') {
                            return Err(INVALID); // "bad character range"
                        }
                        continue;
                    }
                    escape_char(p, e, true)?
                }
                c => c,
            };
            if p.peek() == Some('-') && p.peek2().is_some_and(|x| x != ']') {
                p.bump();
                let hi = match p.next().ok_or(INVALID)? {
                    '\\' => {
                        let e = p.next().ok_or(INVALID)?;
                        if matches!(e, 'd' | 'D' | 's' | 'S' | 'w' | 'W') {
                            return Err(INVALID);
                        }
                        escape_char(p, e, true)?
                    }
                    c => c,
                };
                if hi < lo {
                    return Err(INVALID);
                }
                self.add_item(Item::Range(lo, hi))?;
            } else {
                self.add_item(Item::Range(lo, lo))?;
            }
        }
        self.finish_class(start, negated)
    }

    fn add_item(&mut self, it: Item) -> Result<()> {
        *self.items.get_mut(self.n_items).ok_or(UNSUPPORTED)? = it;
        self.n_items += 1;
        Ok(())
    }

    fn class_matches(&self, k: u8, c: char) -> bool {
        let Some(cl) = self.classes.get(usize::from(k)) else { return false };
        let items = self.items.get(usize::from(cl.start)..usize::from(cl.start) + usize::from(cl.len)).unwrap_or(&[]);
        let hit = items.iter().any(|it| match *it {
            Item::Range(lo, hi) => lo <= c && c <= hi,
            Item::Digit(neg) => is_decimal(c) != neg,
            Item::Space(neg) => is_space(c) != neg,
            Item::Word(neg) => is_word(c) != neg,
        });
        hit != cl.negated
    }

    /// Python `re.search`: does the pattern match anywhere in `text`?
    pub fn search<I: Iterator<Item = char> + Clone>(&self, text: I) -> bool {
        let mut cur = [0u64; WORDS];
        let mut next = [0u64; WORDS];
        let mut stack = [0u16; MAX_STATES];
        let mut rest = text;
        let mut prev: Option<char> = None;
        let mut at_start = true;
        loop {
            let mut look = rest.clone();
            let c = look.next();
            let ctx = Ctx { prev, next: c, at_start, final_newline_next: c == Some('\n') && look.next().is_none() };
            // Unanchored search: a new thread starts at every position.
            if self.add(&mut cur, &mut stack, self.start, &ctx) {
                return true;
            }
            let Some(ch) = c else { return false };
            next.iter_mut().for_each(|w| *w = 0);
            let mut any = false;
            for s in 0..self.n {
                if cur.get(s / 64).is_some_and(|w| w & (1 << (s % 64)) != 0) {
                    let Some(st) = self.states.get(s) else { continue };
                    let ok = match st.op {
                        Op::Char(x) => x == ch,
                        Op::Any => ch != '\n',
                        Op::Class(k) => self.class_matches(k, ch),
                        _ => false,
                    };
                    if ok {
                        any = true;
                        set(&mut next, st.out);
                    }
                }
            }
            rest.next();
            prev = Some(ch);
            at_start = false;
            cur.iter_mut().for_each(|w| *w = 0);
            if any {
                // Follow epsilon moves from the states reached by consuming `ch`.
                let mut look = rest.clone();
                let c2 = look.next();
                let ctx2 =
                    Ctx { prev, next: c2, at_start, final_newline_next: c2 == Some('\n') && look.next().is_none() };
                for s in 0..self.n {
                    if next.get(s / 64).is_some_and(|w| w & (1 << (s % 64)) != 0)
                        && self.add(&mut cur, &mut stack, s as u16, &ctx2)
                    {
                        return true;
                    }
                }
            }
        }
    }

    /// Adds `s` and its epsilon closure under `ctx` to `set`; true when `Match` is reached.
    fn add(&self, set_: &mut [u64; WORDS], stack: &mut [u16; MAX_STATES], s: u16, ctx: &Ctx) -> bool {
        let mut sp = 0usize;
        let push = |set_: &mut [u64; WORDS], stack: &mut [u16; MAX_STATES], sp: &mut usize, s: u16| {
            if s == NIL || is_set(set_, s) {
                return;
            }
            set(set_, s);
            if let Some(slot) = stack.get_mut(*sp) {
                *slot = s;
                *sp += 1;
            }
        };
        push(set_, stack, &mut sp, s);
        while sp > 0 {
            sp -= 1;
            let s = stack.get(sp).copied().unwrap_or(NIL);
            let Some(st) = self.states.get(usize::from(s)) else { continue };
            let follow = match st.op {
                Op::Match => return true,
                Op::Split => {
                    push(set_, stack, &mut sp, st.alt);
                    true
                }
                Op::Empty => true,
                Op::Bol | Op::TextStart => ctx.at_start,
                Op::Eol => ctx.next.is_none() || ctx.final_newline_next,
                Op::TextEnd => ctx.next.is_none(),
                Op::WordBoundary | Op::NotWordBoundary => {
                    let b = ctx.prev.is_some_and(is_word) != ctx.next.is_some_and(is_word);
                    b == (st.op == Op::WordBoundary)
                }
                Op::Char(_) | Op::Any | Op::Class(_) => false,
            };
            if follow {
                push(set_, stack, &mut sp, st.out);
            }
        }
        false
    }
}

struct Ctx {
    prev: Option<char>,
    next: Option<char>,
    at_start: bool,
    final_newline_next: bool,
}

fn set(bits: &mut [u64; WORDS], s: u16) {
    if let Some(w) = bits.get_mut(usize::from(s) / 64) {
        *w |= 1 << (s % 64);
    }
}

fn is_set(bits: &[u64; WORDS], s: u16) -> bool {
    bits.get(usize::from(s) / 64).is_some_and(|w| w & (1 << (s % 64)) != 0)
}

struct Parser<'a> {
    src: &'a str,
    pos: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<char> {
        self.src.get(self.pos..)?.chars().next()
    }

    fn peek2(&self) -> Option<char> {
        let mut it = self.src.get(self.pos..)?.chars();
        it.next();
        it.next()
    }

    fn next(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += c.len_utf8();
        Some(c)
    }

    fn bump(&mut self) {
        self.next();
    }
}

fn shorthand(e: char) -> Item {
    match e {
        'd' => Item::Digit(false),
        'D' => Item::Digit(true),
        's' => Item::Space(false),
        'S' => Item::Space(true),
        'w' => Item::Word(false),
        _ => Item::Word(true),
    }
}

/// The character an escape `\e` stands for (after the backslash and `e` were read).
fn escape_char(p: &mut Parser<'_>, e: char, in_class: bool) -> Result<char> {
    let hex = |p: &mut Parser<'_>, n: usize| -> Result<char> {
        let mut v = 0u32;
        for _ in 0..n {
            let d = p.next().and_then(|c| c.to_digit(16)).ok_or(INVALID)?;
            v = v * 16 + d;
        }
        char::from_u32(v).ok_or(INVALID)
    };
    Ok(match e {
        't' => '\t',
        'n' => '\n',
        'r' => '\r',
        'f' => '\u{c}',
        'v' => '\u{b}',
        'a' => '\u{7}',
        'b' if in_class => '\u{8}',
        'x' => hex(p, 2)?,
        'u' => hex(p, 4)?,
        'U' => hex(p, 8)?,
        '0' => {
            if p.peek().is_some_and(|c| c.is_ascii_digit()) {
                return Err(UNSUPPORTED); // octal escape
            }
            '\0'
        }
        '1'..='9' | 'N' => return Err(UNSUPPORTED), // backreference, octal, named char
        c if c.is_ascii_alphanumeric() => return Err(INVALID), // "bad escape"
        c => c,
    })
}

/// Reads a quantifier at the cursor: `Some((min, max))` (max `u32::MAX` = unbounded) and
/// moves past it, or `None` (cursor unchanged) when there is none. A `{` that is not a
/// well-formed `{n}`, `{n,}`, `{,m}`, `{n,m}` or `{,}` is not a quantifier (Python reads
/// it as a literal).
fn quantifier(p: &mut Parser<'_>) -> Result<Option<(u32, u32)>> {
    match p.peek() {
        Some('*') => {
            p.bump();
            Ok(Some((0, u32::MAX)))
        }
        Some('+') => {
            p.bump();
            Ok(Some((1, u32::MAX)))
        }
        Some('?') => {
            p.bump();
            Ok(Some((0, 1)))
        }
        Some('{') => {
            let save = p.pos;
            p.bump();
            if p.peek() == Some('}') {
                p.pos = save;
                return Ok(None);
            }
            let lo = number(p);
            let (min, max) = if p.peek() == Some(',') {
                p.bump();
                let hi = number(p);
                (lo.unwrap_or(0), hi.unwrap_or(u32::MAX))
            } else {
                match lo {
                    Some(n) => (n, n),
                    None => {
                        p.pos = save;
                        return Ok(None);
                    }
                }
            };
            if p.peek() != Some('}') {
                p.pos = save;
                return Ok(None);
            }
            p.bump();
            if max < min {
                return Err(INVALID);
            }
            if min as usize > MAX_STATES || (max != u32::MAX && max as usize > MAX_STATES) {
                return Err(UNSUPPORTED);
            }
            Ok(Some((min, max)))
        }
        _ => Ok(None),
    }
}

/// Whether a quantifier starts at the cursor (the cursor may move).
fn quantifier_at(p: &mut Parser<'_>) -> Result<bool> {
    Ok(quantifier(p)?.is_some())
}

/// ASCII decimal digits, saturating below `u32::MAX` (which means "unbounded").
fn number(p: &mut Parser<'_>) -> Option<u32> {
    let mut v: Option<u32> = None;
    while let Some(d) = p.peek().filter(char::is_ascii_digit).and_then(|c| c.to_digit(10)) {
        p.bump();
        let n = v.unwrap_or(0).saturating_mul(10).saturating_add(d);
        v = Some(n.min(u32::MAX - 1));
    }
    v
}

/// Python's `\d`, `\s` and `\w`: the exact tables of [`crate::pyre`] (the same the
/// privacy detectors use).
pub(crate) use crate::pyre::{is_digit as is_decimal, is_space, is_word};

#[cfg(test)]
mod tests;
