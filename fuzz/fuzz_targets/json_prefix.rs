//! The prefix reader (`json::parse_prefix_with`) and the one-pass streaming of a top-level
//! array built on it, against the whole-text reader. First byte: window size for the
//! scanner (1 to 64) and options; the rest: the text. Asserts: a value and its `end` are
//! exactly what `parse_with` gives for `input[..end]` (source, node count, equal value,
//! same canonical bytes); a text `parse_with` accepts, or refuses only for what follows
//! the value, is a value up to the same point; an error is `parse_with`'s error on the
//! whole text, except invalid UTF-8 after the bytes read; stepping an `ArrayScanner` with
//! `next_begin` + `skip_to` (parsing each element where it begins, scanning it when the
//! window ends inside it) gives the same spans and errors as `next` alone; and the host's
//! streaming reader gives the whole document's canonical output or error.
#![no_main]
use concordia_core::error::Syntax;
use concordia_core::json::stream::{ArrayScanner, Step};
use concordia_core::json::{self, Node, Options};
use concordia_core::{Error, Result};
use concordia_fuzz::canonical;
use concordia_host::{ArrayReader, Nodes, ReadError, Start};
use libfuzzer_sys::fuzz_target;

fn check_prefix(input: &[u8], options: &Options) {
    let mut nodes = vec![Node::EMPTY; input.len() + 2];
    let prefix = json::parse_prefix_with(input, &mut nodes, options);
    let mut whole_nodes = vec![Node::EMPTY; input.len() + 2];
    let whole = json::parse_with(input, &mut whole_nodes, options);
    match (&prefix, &whole) {
        (Ok((doc, end)), _) => {
            let mut n = vec![Node::EMPTY; input.len() + 2];
            let again = json::parse_with(&input[..*end], &mut n, options)
                .unwrap_or_else(|e| panic!("prefix ok to {end}, parse_with on it: {e:?}"));
            assert_eq!(doc.source(), again.source());
            assert_eq!(doc.node_count(), again.node_count());
            assert!(doc.root().equals(&again.root()));
            assert_eq!(canonical(doc.root()), canonical(again.root()));
            match whole {
                Ok(_) => assert_eq!(*end, input.len()),
                Err(Error::Json { kind: Syntax::TrailingBytes, offset }) => assert_eq!(*end, offset),
                Err(Error::Json { kind: Syntax::InvalidUtf8, offset }) => assert!(offset >= *end),
                e => panic!("prefix ok to {end}, whole {e:?}"),
            }
        }
        (Err(e), Ok(_)) => panic!("whole ok, prefix {e:?}"),
        (Err(Error::Json { kind: Syntax::InvalidUtf8, offset }), Err(w)) => {
            assert_eq!(*w, Error::Json { kind: Syntax::InvalidUtf8, offset: *offset })
        }
        (Err(p), Err(Error::Json { kind: Syntax::InvalidUtf8, .. })) => {
            assert!(core::str::from_utf8(input).is_err(), "{p:?}")
        }
        (Err(p), Err(w)) => assert_eq!(p, w),
    }
}

/// The elements' spans of `text` fed in windows of `chunk` bytes, or the scanner's error.
fn spans(text: &[u8], chunk: usize, parse: bool) -> Result<Vec<(u64, u64)>> {
    let mut s = ArrayScanner::new();
    let (mut out, mut fed, mut scanning) = (Vec::new(), 0usize, false);
    loop {
        let from = s.keep_from() as usize;
        let eof = fed >= text.len();
        let window = &text[from..fed];
        let step = if parse && !scanning {
            s.next_begin(window, from as u64, eof)?
        } else {
            s.next(window, from as u64, eof)?
        };
        match step {
            Step::NeedMore => fed = (fed + chunk).min(text.len()),
            Step::Begin { at } => {
                let rest = &text[at as usize..fed];
                let mut nodes = vec![Node::EMPTY; rest.len() + 1];
                match json::parse_prefix_with(rest, &mut nodes, &Options::default()) {
                    Ok((_, len)) if len < rest.len() || eof => s.skip_to(at + len as u64).expect("skip_to after Begin"),
                    _ => scanning = true,
                }
            }
            Step::Element(span) => {
                out.push((span.start, span.end));
                scanning = false;
            }
            Step::Open { .. } => {}
            Step::End => return Ok(out),
            Step::NotArray { at } => {
                out.push((u64::MAX, at));
                return Ok(out);
            }
        }
    }
}

/// The canonical form through the host's streaming reader, or its error.
fn streamed(text: &[u8]) -> Result<Vec<u8>> {
    let unwrap = |e: ReadError| match e {
        ReadError::Input(e) => e,
        ReadError::Io(e) => panic!("io: {e}"),
    };
    let mut r = ArrayReader::new(text);
    if r.start().map_err(unwrap)? == Start::Value {
        let bytes = r.into_whole().map_err(unwrap)?;
        let mut nodes = Nodes::new();
        return Ok(canonical(nodes.parse(&bytes)?.root()));
    }
    let mut out = vec![b'['];
    while let Some(el) = r.next_element().map_err(unwrap)? {
        if out.len() > 1 {
            out.push(b',');
        }
        out.extend_from_slice(&canonical(el.doc.root()));
    }
    out.push(b']');
    Ok(out)
}

fuzz_target!(|data: &[u8]| {
    let Some((&first, text)) = data.split_first() else { return };
    let options = match first >> 6 {
        0 | 1 => Options::default(),
        2 => Options::rfc8785(),
        _ => Options { max_depth: 3, ..Options::default() },
    };
    check_prefix(text, &options);
    let chunk = usize::from(first & 63) + 1;
    assert_eq!(spans(text, chunk, true), spans(text, chunk, false), "window {chunk}");
    let mut nodes = Nodes::new();
    let whole = nodes.parse(text).map(|doc| canonical(doc.root()));
    assert_eq!(streamed(text), whole);
});
