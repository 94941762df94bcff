//! Shared harness code for the concordia-core fuzz targets (see FUZZING.md).
//!
//! * [`oracle`]: an independent RFC 8785 canonicalizer built from `serde_json` (correctly
//!   rounded floats), UTF-16 key sorting and `ryu-js` number formatting.
//! * [`vectors`]: the vendored conformance vectors and structure-aware mutations of them.
//! * [`session`]: a driver that turns arbitrary steps into signed messages for
//!   `session::Session::apply` and checks the state machine's invariants after each step.
//!
//! The fuzz targets stay a few lines each; everything they assert is documented here.

use concordia_core::json::{self, Doc, Node};
use concordia_host::VecSink;

pub mod oracle;
pub mod session;
pub mod vectors;

/// The RFC 8785 form of `value`, as the core writes it.
///
/// # Panics
/// When the core fails to write a value it parsed (a finding).
pub fn canonical(value: json::Value<'_>) -> Vec<u8> {
    let mut sink = VecSink::default();
    if let Err(e) = concordia_core::jcs::write(value, &mut sink) {
        panic!("jcs::write failed on a parsed value: {e:?}");
    }
    sink.0
}

/// A node buffer that always suffices for `input` (the documented `len / 2 + 2`).
pub fn nodes_for(input: &[u8]) -> Vec<Node> {
    vec![Node::EMPTY; input.len() / 2 + 2]
}

/// Parses `input` with the default options into `nodes`.
pub fn parse<'a>(input: &'a [u8], nodes: &'a mut Vec<Node>) -> concordia_core::Result<Doc<'a>> {
    *nodes = nodes_for(input);
    json::parse(input, nodes)
}
