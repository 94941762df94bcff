//! `concordia jcs` and `concordia hash`.

use concordia_core::digest;

use crate::outln;
use crate::util::{canonical, emit, nodes_for, parse, read_input, write_stdout, Args, CliResult};
use concordia_host::Nodes;

pub const JCS_HELP: &str = "concordia jcs [--lines] [FILE]
  Writes the RFC 8785 canonical form of the JSON in FILE (default stdin).
  --lines   FILE is JSON Lines: one canonical line out per line in, or
            `!error <class> <byte-offset> <message>` for a rejected line.";

pub const HASH_HELP: &str = "concordia hash [--hex] [FILE]
  Prints sha256:<hex> over the canonical form of the JSON in FILE (default stdin).
  --hex     print the bare 64 hex digits";

pub fn jcs(mut args: Args) -> CliResult {
    let lines = args.flag("--lines");
    let pos = args.positionals(1)?;
    let (name, input) = read_input(pos.first().map(String::as_str))?;
    if lines {
        return jcs_lines(&input);
    }
    let mut nodes = nodes_for(&input)?;
    let doc = parse(&name, &input, &mut nodes)?;
    emit(&canonical(doc.root())?)
}

fn jcs_lines(input: &[u8]) -> CliResult {
    let mut out = Vec::with_capacity(input.len());
    let mut nodes = Nodes::new();
    let mut lines: Vec<&[u8]> = input.split(|&b| b == b'\n').collect();
    if lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    for line in lines {
        match nodes.parse(line) {
            Ok(doc) => out.extend_from_slice(&canonical(doc.root())?),
            Err(e) => out.extend_from_slice(
                format!("!error {} {} {}", e.class(), e.offset().unwrap_or(0), e).as_bytes(),
            ),
        }
        out.push(b'\n');
    }
    write_stdout(&out)
}

pub fn hash(mut args: Args) -> CliResult {
    let hex = args.flag("--hex");
    let pos = args.positionals(1)?;
    let (name, input) = read_input(pos.first().map(String::as_str))?;
    let mut nodes = nodes_for(&input)?;
    let doc = parse(&name, &input, &mut nodes)?;
    let d = digest::sha256_jcs(doc.root());
    let text = if hex { d.to_hex().as_str().to_string() } else { d.to_prefixed().as_str().to_string() };
    outln!("{text}")
}
