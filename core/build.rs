//! Compiles the frozen JSON Schemas of the conformance suite into static tapes.
//!
//! Reads every `*.json` file in `schemas/` (a byte-identical copy of the vendored, unmodified
//! `conformance/vectors/schemas`, made by `tools/sync-core-schemas.sh`),
//! drops the pure annotation keywords (`description`, `title`, `examples`, `$comment`,
//! `default`, `deprecated`, `readOnly`, `writeOnly`) where they appear as schema keywords,
//! writes the rest as compact JSON text, and emits that text together with the node tape
//! that `json::parse` would build for it. `schema::tests` re-parses every emitted text at
//! test time and requires a node-for-node identical tape, so the layout cannot drift.

#![allow(clippy::unwrap_used, clippy::expect_used)] // A build script should stop loudly on bad input.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    // The tapes are the `schema` feature's (and serde_json its optional build dependency):
    // without it nothing is compiled in and the script has nothing to do.
    #[cfg(feature = "schema")]
    frozen::main();
}

#[cfg(feature = "schema")]
mod frozen {
    use std::cmp::Ordering;
    use std::fmt::Write as _;
    use std::path::Path;

    use serde_json::{Map, Value};

    /// Inside the crate: a byte-identical copy of `conformance/vectors/schemas` made by
    /// `tools/sync-core-schemas.sh` (`tests/vendored_copies.rs` checks it), so the published
    /// package builds on its own.
    const SCHEMA_DIR: &str = "schemas";

    /// Keywords that only annotate; dropping them does not change any validation result.
    const ANNOTATIONS: &[&str] =
        &["description", "title", "examples", "$comment", "default", "deprecated", "readOnly", "writeOnly"];
    /// Keywords whose value is one schema.
    const ONE_SCHEMA: &[&str] = &[
        "additionalProperties",
        "items",
        "additionalItems",
        "contains",
        "not",
        "if",
        "then",
        "else",
        "propertyNames",
        "unevaluatedItems",
        "unevaluatedProperties",
        "contentSchema",
    ];
    /// Keywords whose value is an object of schemas.
    const MAP_OF_SCHEMAS: &[&str] = &["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"];
    /// Keywords whose value is an array of schemas.
    const ARRAY_OF_SCHEMAS: &[&str] = &["allOf", "anyOf", "oneOf", "prefixItems"];

    fn strip(schema: &mut Value) {
        let Value::Object(map) = schema else { return };
        map.retain(|k, _| !ANNOTATIONS.contains(&k.as_str()));
        for (k, v) in map.iter_mut() {
            let k = k.as_str();
            if ONE_SCHEMA.contains(&k) {
                strip(v);
            } else if MAP_OF_SCHEMAS.contains(&k) {
                if let Value::Object(m) = v {
                    m.values_mut().for_each(strip);
                }
            } else if ARRAY_OF_SCHEMAS.contains(&k) {
                if let Value::Array(a) = v {
                    a.iter_mut().for_each(strip);
                }
            }
        }
    }

    /// One node as `json::Node::from_raw` takes it. A build script cannot use the crate it
    /// builds, so this mirrors `json::Node`'s fields; the emitted `Node::from_raw(..)` calls
    /// stop compiling if the two ever differ.
    #[derive(Clone, Copy)]
    struct Node {
        kind: &'static str,
        flags: u8,
        start: u32,
        a: u32,
        b: u32,
        c: u32,
        d: u32,
    }

    const NONE: u32 = u32::MAX;
    const F_ESCAPED: u8 = 1;
    const F_INTEGER: u8 = 2;
    const F_CANONICAL: u8 = 4;

    /// The reader's rule for a number literal that is already in ECMAScript form: no exponent,
    /// at most 15 significant digits, no trailing fraction zero, at least 1e-6.
    fn canonical_literal(lit: &str) -> bool {
        let body = lit.trim_start_matches('-');
        if body.contains(['e', 'E']) {
            return false;
        }
        let (int, frac) = body.split_once('.').unwrap_or((body, ""));
        if int.len() > 15 {
            return false;
        }
        if frac.is_empty() {
            return true;
        }
        let sig = if int == "0" {
            let lead = frac.bytes().take_while(|&b| b == b'0').count();
            if lead >= 6 {
                return false;
            }
            frac.len() - lead
        } else {
            int.len() + frac.len()
        };
        sig <= 15 && !frac.ends_with('0')
    }

    struct Tape {
        text: String,
        nodes: Vec<Node>,
    }

    impl Tape {
        fn push(&mut self, n: Node) -> u32 {
            self.nodes.push(n);
            (self.nodes.len() - 1) as u32
        }

        fn pos(&self) -> u32 {
            self.text.len() as u32
        }

        fn string(&mut self, s: &str, is_key: bool) -> u32 {
            let quoted = serde_json::to_string(s).expect("string serializes");
            let start = self.pos() + 1;
            self.text.push_str(&quoted);
            let end = self.pos() - 1;
            let flags = if quoted.contains('\\') { F_ESCAPED } else { 0 };
            // As the reader does: an unescaped member name keeps its first 8 bytes, big-endian.
            let (c, d) = if is_key && flags == 0 {
                let mut p = [0u8; 8];
                for (dst, src) in p.iter_mut().zip(s.as_bytes()) {
                    *dst = *src;
                }
                let v = u64::from_be_bytes(p);
                ((v >> 32) as u32, v as u32)
            } else {
                (0, 0)
            };
            self.push(Node { kind: "String", flags, start, a: end, b: NONE, c, d })
        }

        fn value(&mut self, v: &Value, parent: u32) {
            let start = self.pos();
            match v {
                Value::Null | Value::Bool(_) => {
                    let (word, kind) = match v {
                        Value::Bool(true) => ("true", "True"),
                        Value::Bool(false) => ("false", "False"),
                        _ => ("null", "Null"),
                    };
                    self.text.push_str(word);
                    let end = self.pos();
                    self.push(Node { kind, flags: 0, start, a: end, b: 0, c: 0, d: 0 });
                }
                Value::Number(n) => {
                    let lit = n.to_string();
                    let f: f64 = lit.parse().expect("number literal");
                    assert!(f.is_finite() && !(f == 0.0 && f.is_sign_negative()), "unsupported number {lit}");
                    if !lit.contains(['.', 'e', 'E']) {
                        let digits = lit.trim_start_matches('-');
                        assert!(digits.len() <= 15, "integer literal too long for the strict reader: {lit}");
                    }
                    self.text.push_str(&lit);
                    let end = self.pos();
                    let bits = f.to_bits();
                    let integer = if lit.contains(['.', 'e', 'E']) { 0 } else { F_INTEGER };
                    let flags = integer | if canonical_literal(&lit) { F_CANONICAL } else { 0 };
                    self.push(Node {
                        kind: "Number",
                        flags,
                        start,
                        a: end,
                        b: (bits >> 32) as u32,
                        c: bits as u32,
                        d: 0,
                    });
                }
                Value::String(s) => {
                    self.string(s, false);
                }
                Value::Array(items) => {
                    let idx = self.push(Node {
                        kind: "Array",
                        flags: 0,
                        start,
                        a: 0,
                        b: items.len() as u32,
                        c: parent,
                        d: NONE,
                    });
                    self.text.push('[');
                    for (i, item) in items.iter().enumerate() {
                        if i > 0 {
                            self.text.push(',');
                        }
                        self.value(item, idx);
                    }
                    self.text.push(']');
                    let end = self.nodes.len() as u32;
                    self.nodes[idx as usize].a = end;
                }
                Value::Object(map) => self.object(map, parent, start),
            }
        }

        fn object(&mut self, map: &Map<String, Value>, parent: u32, start: u32) {
            let idx =
                self.push(Node { kind: "Object", flags: 0, start, a: 0, b: map.len() as u32, c: parent, d: NONE });
            self.text.push('{');
            let mut keys: Vec<(u32, &str)> = Vec::new();
            for (i, (k, v)) in map.iter().enumerate() {
                if i > 0 {
                    self.text.push(',');
                }
                let key = self.string(k, true);
                keys.push((key, k));
                self.text.push(':');
                self.value(v, idx);
            }
            self.text.push('}');
            let end = self.nodes.len() as u32;
            // Member names linked in RFC 8785 order (UTF-16 code units).
            keys.sort_by(|x, y| cmp_utf16(x.1, y.1));
            for w in keys.windows(2) {
                self.nodes[w[0].0 as usize].b = w[1].0;
            }
            let node = &mut self.nodes[idx as usize];
            node.a = end;
            if let Some(first) = keys.first() {
                node.d = first.0;
            }
        }
    }

    fn cmp_utf16(a: &str, b: &str) -> Ordering {
        a.encode_utf16().cmp(b.encode_utf16())
    }

    fn ident(file: &str) -> String {
        file.trim_end_matches(".json").replace(['.', '-'], "_").to_ascii_uppercase()
    }

    pub(crate) fn main() {
        println!("cargo:rerun-if-changed={SCHEMA_DIR}");
        let mut files: Vec<String> = std::fs::read_dir(SCHEMA_DIR)
            .expect("core/schemas is readable")
            .map(|e| e.expect("directory entry").file_name().into_string().expect("UTF-8 file name"))
            .filter(|n| n.ends_with(".json"))
            .collect();
        files.sort();

        let mut out = String::from("// @generated by core/build.rs from core/schemas. Do not edit.\n\n");
        let mut table = String::new();
        for file in &files {
            let path = Path::new(SCHEMA_DIR).join(file);
            println!("cargo:rerun-if-changed={}", path.display());
            let text = std::fs::read_to_string(&path).expect("schema is readable");
            let mut schema: Value = serde_json::from_str(&text).expect("schema is JSON");
            strip(&mut schema);
            let id = schema.get("$id").and_then(Value::as_str).map(str::to_owned);
            let mut tape = Tape { text: String::new(), nodes: Vec::new() };
            tape.value(&schema, NONE);
            let name = ident(file);
            writeln!(out, "static SRC_{name}: &str = {:?};", tape.text).unwrap();
            writeln!(out, "static NODES_{name}: [Node; {}] = [", tape.nodes.len()).unwrap();
            for n in &tape.nodes {
                writeln!(
                    out,
                    "    Node::from_raw(Kind::{}, {}, {}, {}, {}, {}, {}),",
                    n.kind, n.flags, n.start, n.a, n.b, n.c, n.d
                )
                .unwrap();
            }
            out.push_str("];\n\n");
            writeln!(
                table,
                "    Frozen {{ file: {file:?}, id: {id:?}, doc: Doc::from_static_parts(SRC_{name}, &NODES_{name}) }},"
            )
            .unwrap();
        }
        writeln!(out, "/// The frozen schemas, sorted by file name.").unwrap();
        writeln!(out, "static FROZEN: [Frozen; {}] = [\n{table}];", files.len()).unwrap();

        let dest = Path::new(&std::env::var("OUT_DIR").expect("OUT_DIR is set")).join("frozen_schemas.rs");
        std::fs::write(dest, out).expect("generated file is writable");
    }
}
