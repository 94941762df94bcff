//! Streaming a top-level array gives the whole document's verdict, byte for byte: the same
//! canonical output for well-formed arrays, the same error and byte offset for every
//! damaged one. Generated with a fixed-seed generator (no dependency), thousands of cases:
//! arrays of nested values (escapes, non-ASCII, numbers at the edges of the policy,
//! duplicate names, nesting at and beyond the depth bound), then damaged by truncation,
//! a replaced, inserted or deleted byte, junk after `]`, NUL bytes, invalid UTF-8, a byte
//! order mark, and read through a reader that hands out a few bytes at a time.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use std::io::{self, Read};

use concordia_core::json::DEFAULT_MAX_DEPTH;
use concordia_core::Error;
use concordia_host::{canonical, read_all, ArrayReader, Nodes, ReadError, Start};

/// xorshift64*: a small deterministic generator.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn pick(&mut self, items: &[&'static [u8]]) -> &'static [u8] {
        items[self.below(items.len())]
    }
}

fn ws(r: &mut Rng, out: &mut Vec<u8>) {
    if r.below(3) == 0 {
        for _ in 0..r.below(3) {
            out.push(b" \t\n\r"[r.below(4)]);
        }
    }
}

fn string(r: &mut Rng, out: &mut Vec<u8>) {
    out.push(b'"');
    for _ in 0..r.below(8) {
        let piece = r.pick(&[
            b"a",
            b"Z",
            b"0",
            b",",
            b"]",
            b"[",
            b"{",
            b"}",
            b":",
            b" ",
            b"\\\"",
            b"\\\\",
            b"\\n",
            b"\\u00e9",
            b"\\ud83e\\udd1d",
            "é".as_bytes(),
            "東".as_bytes(),
            "🤝".as_bytes(),
            b"\\/",
        ]);
        out.extend_from_slice(piece);
    }
    out.push(b'"');
}

fn number(r: &mut Rng, out: &mut Vec<u8>) {
    let n = r.pick(&[
        b"0",
        b"-1",
        b"2050",
        b"0.15",
        b"1e-3",
        b"2150.5",
        b"1E+2",
        b"9007199254740991",
        b"9007199254740993",
        b"100000000000000000000",
        b"-0",
        b"-0.0",
        b"1e400",
        b"123456789012345678",
        b"5e-324",
        b"0.000001",
    ]);
    out.extend_from_slice(n);
}

fn value(r: &mut Rng, out: &mut Vec<u8>, depth: u32) {
    let choice = if depth > 4 { r.below(5) } else { r.below(8) };
    match choice {
        0 => string(r, out),
        1 => number(r, out),
        2 => out.extend_from_slice(r.pick(&[b"true", b"false", b"null"])),
        3 => number(r, out),
        4 => string(r, out),
        5 | 6 => {
            out.push(b'{');
            let names: [&'static [u8]; 6] =
                [b"\"a\"", b"\"b\"", b"\"price\"", b"\"\\u0061\"", "\"é\"".as_bytes(), b"\"z\""];
            let n = r.below(4);
            for i in 0..n {
                ws(r, out);
                out.extend_from_slice(r.pick(&names));
                ws(r, out);
                out.push(b':');
                ws(r, out);
                value(r, out, depth + 1);
                ws(r, out);
                if i + 1 < n {
                    out.push(b',');
                }
            }
            out.push(b'}');
        }
        _ => {
            out.push(b'[');
            let n = r.below(4);
            for i in 0..n {
                ws(r, out);
                value(r, out, depth + 1);
                ws(r, out);
                if i + 1 < n {
                    out.push(b',');
                }
            }
            out.push(b']');
        }
    }
}

/// A top-level array of generated elements, sometimes with one nested to the depth bound.
fn array(r: &mut Rng) -> Vec<u8> {
    let mut out = Vec::new();
    ws(r, &mut out);
    out.push(b'[');
    let n = r.below(6);
    for i in 0..n {
        ws(r, &mut out);
        if r.below(20) == 0 {
            // The array is depth 1: an element of depth 127 is the deepest allowed.
            let d = DEFAULT_MAX_DEPTH as usize - 2 + r.below(3);
            out.extend(std::iter::repeat_n(b'[', d));
            out.extend(std::iter::repeat_n(b']', d));
        } else {
            value(r, &mut out, 1);
        }
        ws(r, &mut out);
        if i + 1 < n {
            out.push(b',');
        }
    }
    out.push(b']');
    ws(r, &mut out);
    out
}

/// One damage to `text`.
fn damage(r: &mut Rng, text: &mut Vec<u8>) {
    let junk: &[&[u8]] = &[
        b",",
        b"]",
        b"[",
        b"}",
        b"{",
        b"\"",
        b"\\",
        b"\0",
        b"\xFF",
        b"\xC3",
        b" ",
        b"x",
        b":",
        b"1",
        b"-",
        b"t",
        b"\xEF\xBB\xBF",
        b"\x01",
    ];
    let at = r.below(text.len() + 1);
    match r.below(7) {
        0 => text.truncate(at),
        1 if at < text.len() => text[at] = r.pick(junk)[0],
        2 => {
            let j = r.pick(junk);
            text.splice(at..at, j.iter().copied());
        }
        3 if at < text.len() => {
            text.remove(at);
        }
        4 => text.extend_from_slice(r.pick(&[b"x", b",1", b"]", b" \0", b"[]", b"\xFF"])),
        5 => text.splice(0..0, b"\xEF\xBB\xBF".iter().copied()).for_each(drop),
        _ => text.extend(std::iter::repeat_n(0u8, r.below(4) + 1)),
    }
}

/// A reader that hands out 1 to `max` bytes per call.
struct Trickle<'a> {
    data: &'a [u8],
    rng: Rng,
    max: usize,
}

impl Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = (self.rng.below(self.max) + 1).min(buf.len()).min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

/// The canonical form of the whole text, or its error.
fn whole(text: &[u8]) -> Result<Vec<u8>, Error> {
    let mut nodes = Nodes::new();
    let doc = nodes.parse(text)?;
    canonical(doc.root())
}

/// The same through the streaming reader: `[`, the elements' canonical forms joined by `,`,
/// `]`; a value that is not an array is read whole.
fn streamed(reader: impl Read) -> Result<Vec<u8>, Error> {
    let unwrap = |e: ReadError| match e {
        ReadError::Input(e) => e,
        ReadError::Io(e) => panic!("io: {e}"),
    };
    let mut r = ArrayReader::new(reader);
    match r.start().map_err(unwrap)? {
        Start::Value => whole(&r.into_whole().map_err(unwrap)?),
        Start::Array => {
            let mut out = vec![b'['];
            while let Some(el) = r.next_element().map_err(unwrap)? {
                if out.len() > 1 {
                    out.push(b',');
                }
                out.extend_from_slice(&canonical(el.doc.root())?);
            }
            out.push(b']');
            Ok(out)
        }
    }
}

fn check(text: &[u8], seed: u64) {
    let want = whole(text);
    for max in [1, 3, 17, 4096] {
        let got = streamed(Trickle { data: text, rng: Rng(seed | 1), max });
        assert_eq!(got, want, "chunks of up to {max}: {:?}", String::from_utf8_lossy(text));
    }
}

#[test]
fn streaming_gives_the_whole_documents_verdict_on_generated_arrays() {
    let mut r = Rng(0x5EED_CAFE_F00D_1234);
    let (mut ok, mut failed) = (0, 0);
    for _ in 0..3000 {
        let text = array(&mut r);
        if whole(&text).is_ok() {
            ok += 1;
        } else {
            failed += 1;
        }
        check(&text, r.next());
    }
    // The generator reaches both verdicts often (policy edges make some arrays invalid).
    assert!(ok > 1000 && failed > 300, "ok {ok}, failed {failed}");
}

#[test]
fn streaming_gives_the_whole_documents_verdict_on_damaged_arrays() {
    let mut r = Rng(0xBAD_DA7A_0000_0001);
    let mut kinds = std::collections::BTreeSet::new();
    for _ in 0..6000 {
        let mut text = array(&mut r);
        for _ in 0..=r.below(2) {
            damage(&mut r, &mut text);
        }
        if let Err(e) = whole(&text) {
            kinds.insert(
                format!("{e:?}").split(" {").next().unwrap_or_default().to_string() + &format!("{:?}", e.class()),
            );
            if let Error::Json { kind, .. } = e {
                kinds.insert(format!("{kind:?}"));
            }
        }
        check(&text, r.next());
    }
    for k in [
        "UnexpectedEnd",
        "UnexpectedByte",
        "TrailingBytes",
        "InvalidUtf8",
        "ByteOrderMark",
        "ControlCharacter",
        "InvalidEscape",
    ] {
        assert!(kinds.contains(k), "no case reached {k}: {kinds:?}");
    }
}

/// Inputs longer than the reader's buffer: elements end at, straddle and begin at the
/// buffer's end (the reader reads 256 KiB at a time), where parsing an element where it
/// begins cannot see its end and the element is scanned instead; the verdict and output
/// are still the whole document's.
#[test]
fn elements_across_the_buffers_end_give_the_whole_documents_verdict() {
    let mut r = Rng(0x0B0F_FE25_0000_0001);
    // Valid elements that never fail (no policy edges): numbers, literals, strings, nests.
    let (mut elements, mut bytes) = (Vec::new(), 0);
    while bytes < 600_000 {
        let mut v = Vec::new();
        value(&mut r, &mut v, 1);
        if whole(&v).is_ok() {
            bytes += v.len() + 1;
            elements.push(v);
        }
    }
    let numbers: Vec<Vec<u8>> = (0..110_000u64).map(|i| (i * 7919 % 100_000).to_string().into_bytes()).collect();
    // Elements that need more nodes than the first tape, and more than 64 KiB (scanned
    // first after such an element), between small ones.
    let big = |n: usize| format!("[{}0]", "0,".repeat(n)).into_bytes();
    let mixed: Vec<Vec<u8>> =
        [big(70_000), b"1".to_vec(), big(90_000), big(5_000), b"{}".to_vec(), big(40_000), b"[2]".to_vec()].to_vec();
    for list in [&elements, &numbers, &mixed] {
        for shift in [0usize, 1, 3, 377] {
            let mut text = vec![b' '; shift];
            text.push(b'[');
            for (i, e) in list.iter().enumerate() {
                if i > 0 {
                    text.extend_from_slice(if i % 3 == 0 { b" , " } else { b"," });
                }
                text.extend_from_slice(e);
            }
            text.push(b']');
            check_once(&text);
            // Cut where the first and the second buffer end, and one byte on either side.
            for cut in [256 * 1024 - 1, 256 * 1024, 512 * 1024 + 1] {
                check_once(&text[..cut.min(text.len())]);
            }
        }
    }
}

fn check_once(text: &[u8]) {
    let got = streamed(Trickle { data: text, rng: Rng(7), max: 1 << 16 });
    assert_eq!(got, whole(text), "{} bytes", text.len());
}

#[test]
fn fixed_cases() {
    for text in [
        &b""[..],
        b"   ",
        b"[",
        b"[]",
        b"[ ]",
        b" [1] ",
        b"[1,]",
        b"[,1]",
        b"[1 2]",
        b"[tr]",
        b"[tru,1]",
        b"[1.]",
        b"[1.,2]",
        b"[-]",
        b"[\"a\"x]",
        b"[{\"a\":1]]",
        b"[{\"a\":1,\"a\":2}]",
        b"[1]]",
        b"[1]}",
        b"[1}",
        b"[\"\\u",
        b"[\"\\ud800\",1]",
        b"[1,\0]",
        b"\0\0\0",
        b"[1]\xFF",
        b"\xFF[1]",
        b"[\"\xC3\"]",
        b"[1,2\xC3",
        b"\xEF\xBB\xBF[]",
        b"\xEF\xBB",
        b"{\"a\":1}",
        b"\"s\"",
        b"12",
        b"[[[[",
        b"[\"\\\"],\"]",
        b"[9007199254740993]",
        b"[-0]",
        b"[1e400]",
        b" \n\t[\r1\n]\n",
    ] {
        check(text, 7);
    }
    // Elements beyond the small-element size (parsed through `Nodes`), good and damaged.
    let big = "a".repeat(70_000);
    let pad = " ".repeat(70_000);
    for text in [
        format!("[\"{big}\",{{\"a\":[1,2,{pad}3]}}]"),
        format!("[\"{big}\",{{\"a\":[1,2,{pad}x]}}]"),
        format!("[\"{big}\",{{\"a\":[1,2,{pad}3],\"a\":1}}]"),
        format!("[1,{{\"a\":[1,2,{pad}tru]}}]"),
        format!("[[{pad}"),
    ] {
        check(text.as_bytes(), 11);
    }
    // Nesting at and beyond the bound, directly and behind another element.
    for d in [127usize, 128, 129, 130] {
        let mut t = b"[1,".to_vec();
        t.extend(std::iter::repeat_n(b'[', d - 1));
        t.extend(std::iter::repeat_n(b']', d - 1));
        t.push(b']');
        check(&t, 9);
    }
}

#[test]
fn memory_is_bounded_by_the_largest_element() {
    // 4 MB of 400-byte elements: the reader holds a few of them, not the input.
    let element = format!("{{\"pad\":\"{}\",\"n\":[1,2,3]}}", "x".repeat(380));
    let count = 10_000;
    let mut text = b"[".to_vec();
    for i in 0..count {
        if i > 0 {
            text.push(b',');
        }
        text.extend_from_slice(element.as_bytes());
    }
    text.push(b']');
    let mut r = ArrayReader::new(&text[..]);
    assert_eq!(r.start().unwrap(), Start::Array);
    let mut n = 0;
    let mut most = 0;
    while let Some(el) = r.next_element().unwrap() {
        assert_eq!(el.index, n);
        n += 1;
        most = most.max(r.held());
    }
    assert_eq!(n, count);
    assert!(most < 1024 * 1024, "held {most} bytes for a {} byte input", text.len());
}

#[test]
fn garbage_is_refused_without_holding_it() {
    // 8 MB of NUL bytes: the verdict of the whole document, byte 0, from a reader that
    // never holds more than a chunk.
    let zeros = vec![0u8; 8 << 20];
    let mut r = ArrayReader::new(&zeros[..]);
    let e = r.start().unwrap_err();
    assert!(matches!(e, ReadError::Input(e) if e == whole(&zeros).unwrap_err()), "{e}");
    assert!(r.held() < 1024 * 1024);
    // Invalid UTF-8 far behind the first error still wins, as for the whole document.
    let mut t = zeros.clone();
    t[5_000_000] = 0xFF;
    assert_eq!(streamed(&t[..]), whole(&t));
}

#[test]
fn a_cap_refuses_larger_inputs_with_the_size() {
    let text = b"[1,2,3,4,5,6,7,8,9]";
    let cap_err = |r: Result<Vec<u8>, ReadError>| match r {
        Err(ReadError::Input(Error::Limit { kind: concordia_core::error::Limit::Size, offset })) => offset,
        other => panic!("{other:?}"),
    };
    assert_eq!(cap_err(read_all(&text[..], 0, Some(10))), 10);
    assert_eq!(cap_err(read_all(&text[..], text.len() as u64, Some(10))), 10);
    assert_eq!(read_all(&text[..], 0, Some(text.len() as u64)).unwrap(), text);
    assert_eq!(read_all(&text[..], 5, None).unwrap(), text);
    let mut r = ArrayReader::new(Trickle { data: text, rng: Rng(3), max: 2 }).with_cap(Some(8));
    let got = loop {
        match r.next_element().map(|e| e.map(|e| e.index)) {
            Ok(Some(_)) => {}
            other => break other,
        }
    };
    match got {
        Err(ReadError::Input(Error::Limit { kind: concordia_core::error::Limit::Size, offset: 8 })) => {}
        other => panic!("{other:?}"),
    }
    // Lines mode.
    let mut r = ArrayReader::lines(&b"{\"a\":1}\n\n[2]"[..]);
    let mut lines = Vec::new();
    while let Some((at, line)) = r.next_line().unwrap() {
        lines.push((at, line.to_vec()));
    }
    assert_eq!(lines, [(0, b"{\"a\":1}".to_vec()), (8, Vec::new()), (9, b"[2]".to_vec())]);
}
