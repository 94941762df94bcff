//! The vendored conformance vectors (`conformance/vectors/{positive,canary}`) and
//! structure-aware mutations of them for `verify_profile`.
//!
//! A fuzz input is a two-byte little-endian vector index (modulo the number of vectors)
//! followed by bytes that `arbitrary` turns into a whitespace choice and up to
//! [`MAX_MUTATIONS`] [`Mutation`]s of the tree `{"input": .., "context": ..}`. A two-byte
//! input is the unmutated vector: the seed corpus holds one per vector.
//!
//! Checks:
//! * every unmutated vector gets its `expected` verdict (so every positive vector accepts);
//! * a mutation sequence that only reorders object members and changes whitespace keeps the
//!   verdict (accept stays accept, reject stays reject): the profiles must read values, not
//!   the input's layout;
//! * nothing panics, whatever the mutations (the core's own no-panic rule).

use std::path::PathBuf;
use std::sync::OnceLock;

use arbitrary::{Arbitrary, Unstructured};
use concordia_core::profiles::{verify_profile, Profile, VerifyOptions};
use serde_json::{Map, Value};

/// At most this many mutations are applied to one vector.
pub const MAX_MUTATIONS: usize = 12;
/// Mutations that would grow the tree beyond this many nodes are skipped.
const MAX_NODES: usize = 20_000;

/// One conformance vector, ready to mutate.
#[derive(Debug, Clone)]
pub struct Vector {
    /// File name, e.g. `pos-synthetic-cosign.json`.
    pub name: String,
    /// The vector's profile.
    pub profile: Profile,
    /// `expected == "accept"`.
    pub accept: bool,
    /// `{"input": .., "context": ..}`.
    pub tree: Value,
}

/// The vendored vectors directory (compile-time path: the fuzz project lives in the repo).
pub fn vectors_dir() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../conformance/vectors"))
}

/// The positive and canary vectors, sorted by directory and file name.
pub fn all() -> &'static [Vector] {
    static VECTORS: OnceLock<Vec<Vector>> = OnceLock::new();
    VECTORS.get_or_init(|| {
        let mut out = Vec::new();
        for dir in ["positive", "canary"] {
            let mut files: Vec<_> = std::fs::read_dir(vectors_dir().join(dir))
                .unwrap_or_else(|e| panic!("reading conformance/vectors/{dir}: {e}"))
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "json"))
                .collect();
            files.sort();
            for path in files {
                let text = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                let v: Value = serde_json::from_slice(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                let profile = v["verification_profile"].as_str().and_then(Profile::from_name);
                let Some(profile) = profile else { continue };
                let mut tree = Map::new();
                tree.insert("input".into(), v["input"].clone());
                tree.insert("context".into(), v["context"].clone());
                out.push(Vector {
                    name: path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default(),
                    profile,
                    accept: v["expected"] == "accept",
                    tree: Value::Object(tree),
                });
            }
        }
        assert!(!out.is_empty(), "no conformance vectors found");
        out
    })
}

/// What to do at the chosen node.
#[derive(Arbitrary, Debug, Clone)]
pub enum Op {
    /// Remove the node from its parent.
    Delete,
    /// Replace with `null`.
    Null,
    /// Replace with a boolean.
    Bool(bool),
    /// Replace with an integer.
    Int(i64),
    /// Replace with a double (non-finite becomes `null`).
    Float(f64),
    /// Replace with a string.
    Str(String),
    /// Strings: flip one bit of one character; numbers: add a small delta.
    Nudge(u8, u8),
    /// Strings and arrays: keep only the first `n` characters or elements.
    Truncate(u8),
    /// Replace with a copy of another node (by preorder index).
    CopyFrom(u16),
    /// Replace `x` with `[x]`.
    Wrap,
    /// Replace a container with its first element or member value.
    Unwrap,
    /// Arrays: append a copy of element `i`; objects: insert a member named `name` holding
    /// a copy of another node.
    Grow(u8, String),
    /// Objects: rename a member.
    Rename(u8, String),
    /// Objects: swap two members' positions (meaning-preserving); arrays: swap two
    /// elements (not meaning-preserving).
    Swap(u8, u8),
}

/// A mutation: an operation at the node with preorder index `at` (modulo the node count).
#[derive(Arbitrary, Debug, Clone)]
pub struct Mutation {
    /// Preorder index of the target node.
    pub at: u16,
    /// The operation.
    pub op: Op,
}

/// A decoded fuzz input.
#[derive(Debug, Clone)]
pub struct Case {
    /// Index into [`all`].
    pub index: usize,
    /// Serialize with indentation instead of compactly.
    pub pretty: bool,
    /// The mutations, in order.
    pub mutations: Vec<Mutation>,
}

impl Case {
    /// Decodes a fuzz input (never fails: missing bytes mean "no more mutations").
    pub fn decode(data: &[u8]) -> Case {
        let n = all().len();
        let index =
            usize::from(u16::from_le_bytes([data.first().copied().unwrap_or(0), data.get(1).copied().unwrap_or(0)]))
                % n;
        let mut u = Unstructured::new(data.get(2..).unwrap_or(&[]));
        let pretty = !u.is_empty() && bool::arbitrary(&mut u).unwrap_or(false);
        let mut mutations = Vec::new();
        while !u.is_empty() && mutations.len() < MAX_MUTATIONS {
            match Mutation::arbitrary(&mut u) {
                Ok(m) => mutations.push(m),
                Err(_) => break,
            }
        }
        Case { index, pretty, mutations }
    }
}

fn count(v: &Value) -> usize {
    1 + match v {
        Value::Array(a) => a.iter().map(count).sum(),
        Value::Object(m) => m.values().map(count).sum(),
        _ => 0,
    }
}

/// The node with preorder index `i` (0 is the root).
fn nth(v: &Value, i: usize) -> Option<&Value> {
    fn go<'a>(v: &'a Value, i: &mut usize) -> Option<&'a Value> {
        if *i == 0 {
            return Some(v);
        }
        *i -= 1;
        let children: Box<dyn Iterator<Item = &Value>> = match v {
            Value::Array(a) => Box::new(a.iter()),
            Value::Object(m) => Box::new(m.values()),
            _ => return None,
        };
        for c in children {
            if let Some(found) = go(c, i) {
                return Some(found);
            }
        }
        None
    }
    let mut i = i;
    go(v, &mut i)
}

/// The path (member names / element indices) of the node with preorder index `i`.
fn path_of(v: &Value, i: usize) -> Option<Vec<Seg>> {
    fn go(v: &Value, i: &mut usize, path: &mut Vec<Seg>) -> bool {
        if *i == 0 {
            return true;
        }
        *i -= 1;
        match v {
            Value::Array(a) => {
                for (k, c) in a.iter().enumerate() {
                    path.push(Seg::Index(k));
                    if go(c, i, path) {
                        return true;
                    }
                    path.pop();
                }
            }
            Value::Object(m) => {
                for (k, c) in m {
                    path.push(Seg::Key(k.clone()));
                    if go(c, i, path) {
                        return true;
                    }
                    path.pop();
                }
            }
            _ => {}
        }
        false
    }
    let mut i = i;
    let mut path = Vec::new();
    go(v, &mut i, &mut path).then_some(path)
}

#[derive(Debug, Clone)]
enum Seg {
    Key(String),
    Index(usize),
}

fn at_mut<'a>(v: &'a mut Value, path: &[Seg]) -> Option<&'a mut Value> {
    let mut cur = v;
    for s in path {
        cur = match (s, cur) {
            (Seg::Key(k), Value::Object(m)) => m.get_mut(k)?,
            (Seg::Index(i), Value::Array(a)) => a.get_mut(*i)?,
            _ => return None,
        };
    }
    Some(cur)
}

/// Applies `m` to `tree`; returns whether the document's meaning is certainly unchanged
/// (only object members were reordered).
pub fn apply(tree: &mut Value, m: &Mutation) -> bool {
    let total = count(tree);
    let at = usize::from(m.at) % total;
    let Some(path) = path_of(tree, at) else { return true };
    let donor = |tree: &Value, j: u16| nth(tree, usize::from(j) % total).cloned();
    // Never mutate the root itself: the harness reads `input` and `context` from it.
    if path.is_empty() {
        return true;
    }
    match &m.op {
        Op::Delete => {
            let (last, parent) =
                path.split_last().map(|(l, p)| (l.clone(), p.to_vec())).unwrap_or((Seg::Index(0), vec![]));
            if parent.is_empty() {
                return true; // keep `input` and `context`
            }
            match (at_mut(tree, &parent), last) {
                (Some(Value::Object(o)), Seg::Key(k)) => {
                    o.shift_remove(&k);
                }
                (Some(Value::Array(a)), Seg::Index(i)) if i < a.len() => {
                    a.remove(i);
                }
                _ => {}
            }
            false
        }
        Op::CopyFrom(j) => {
            let Some(d) = donor(tree, *j) else { return true };
            if total + count(&d) > MAX_NODES {
                return true;
            }
            if let Some(node) = at_mut(tree, &path) {
                *node = d;
            }
            false
        }
        Op::Grow(i, name) => {
            let Some(node) = at_mut(tree, &path) else { return true };
            let extra = match node {
                Value::Array(a) if !a.is_empty() => a.get(usize::from(*i) % a.len()).cloned(),
                Value::Object(_) => None,
                _ => return true,
            };
            match extra {
                Some(e) if total + count(&e) <= MAX_NODES => {
                    if let Value::Array(a) = node {
                        a.push(e);
                    }
                }
                Some(_) => return true,
                None => {
                    let d = donor(tree, u16::from(*i)).unwrap_or(Value::Null);
                    if total + count(&d) > MAX_NODES {
                        return true;
                    }
                    if let Some(Value::Object(o)) = at_mut(tree, &path) {
                        o.insert(name.clone(), d);
                    }
                }
            }
            false
        }
        op => {
            let Some(node) = at_mut(tree, &path) else { return true };
            edit(node, op)
        }
    }
}

fn edit(node: &mut Value, op: &Op) -> bool {
    match op {
        Op::Null => *node = Value::Null,
        Op::Bool(b) => *node = Value::Bool(*b),
        Op::Int(i) => *node = Value::from(*i),
        Op::Float(f) => *node = Value::from(*f),
        Op::Str(s) => *node = Value::String(s.clone()),
        Op::Nudge(a, b) => match node {
            Value::String(s) => {
                let mut chars: Vec<char> = s.chars().collect();
                if chars.is_empty() {
                    chars.push('a');
                }
                let k = usize::from(*a) % chars.len();
                let flipped = u32::from(chars[k]) ^ (1 << (b % 21));
                chars[k] = char::from_u32(flipped).unwrap_or('?');
                *s = chars.into_iter().collect();
            }
            Value::Number(n) => {
                let delta = f64::from(*b as i8) * if *a % 2 == 0 { 1.0 } else { 1e-3 };
                *node = Value::from(n.as_f64().unwrap_or(0.0) + delta);
            }
            _ => return true,
        },
        Op::Truncate(n) => match node {
            Value::String(s) => *s = s.chars().take(usize::from(*n)).collect(),
            Value::Array(a) => a.truncate(usize::from(*n)),
            _ => return true,
        },
        Op::Wrap => *node = Value::Array(vec![node.take()]),
        Op::Unwrap => {
            let inner = match node {
                Value::Array(a) => a.first().cloned(),
                Value::Object(m) => m.values().next().cloned(),
                _ => None,
            };
            match inner {
                Some(i) => *node = i,
                None => return true,
            }
        }
        Op::Rename(i, name) => {
            let Value::Object(m) = node else { return true };
            if m.is_empty() {
                return true;
            }
            let k = usize::from(*i) % m.len();
            let mut entries: Vec<(String, Value)> = std::mem::take(m).into_iter().collect();
            entries[k].0 = name.clone();
            // A rename onto an existing name drops the earlier member (serde_json keeps the last).
            *m = entries.into_iter().collect();
        }
        Op::Swap(i, j) => match node {
            Value::Object(m) if !m.is_empty() => {
                let (i, j) = (usize::from(*i) % m.len(), usize::from(*j) % m.len());
                let mut entries: Vec<(String, Value)> = std::mem::take(m).into_iter().collect();
                entries.swap(i, j);
                *m = entries.into_iter().collect();
                return true;
            }
            Value::Array(a) if !a.is_empty() => {
                let (i, j) = (usize::from(*i) % a.len(), usize::from(*j) % a.len());
                a.swap(i, j);
                return i == j;
            }
            _ => return true,
        },
        Op::Delete | Op::CopyFrom(_) | Op::Grow(..) => {}
    }
    false
}

/// Serializes the tree, parses it with the core and runs the vector's profile on it.
/// Returns `None` when the core's reader rejects the text (which `serde_json` wrote, so
/// only the documented policies can cause that, e.g. `-0.0` from a mutation).
pub fn verdict(profile: Profile, tree: &Value, pretty: bool) -> Option<concordia_core::Result<()>> {
    let text = if pretty { serde_json::to_vec_pretty(tree) } else { serde_json::to_vec(tree) }.ok()?;
    let mut nodes = crate::nodes_for(&text);
    let doc = match concordia_core::json::parse(&text, &mut nodes) {
        Ok(doc) => doc,
        Err(e) => {
            assert!(
                crate::oracle::documented_rejection(&e),
                "the core rejects serde_json output for an undocumented reason: {e:?}"
            );
            return None;
        }
    };
    let root = doc.root();
    let (Some(input), Some(context)) = (root.get("input"), root.get("context")) else {
        return None;
    };
    Some(verify_profile(profile, input, context, &VerifyOptions::default()))
}

/// The verdict on each unmutated vector, computed once.
fn baselines() -> &'static [bool] {
    static B: OnceLock<Vec<bool>> = OnceLock::new();
    B.get_or_init(|| {
        all()
            .iter()
            .map(|v| {
                let got = verdict(v.profile, &v.tree, false);
                let ok = matches!(got, Some(Ok(())));
                assert_eq!(ok, v.accept, "unmutated vector {} ({}): {:?}", v.name, v.profile, got);
                ok
            })
            .collect()
    })
}

/// The whole `verify_profile` target: decode, mutate, verify, check the invariants.
pub fn run(data: &[u8]) {
    let accepts = baselines();
    let case = Case::decode(data);
    let v = &all()[case.index];
    let mut tree = v.tree.clone();
    let mut preserving = true;
    for m in &case.mutations {
        preserving &= apply(&mut tree, m);
    }
    let got = verdict(v.profile, &tree, case.pretty);
    if preserving {
        let ok = matches!(got, Some(Ok(())));
        assert_eq!(
            ok, accepts[case.index],
            "member reordering / whitespace changed the verdict of {} ({}): {:?}",
            v.name, v.profile, got
        );
    }
}
