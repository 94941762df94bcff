//! `concordia jcs` and `concordia hash`.

use concordia_core::{digest, jcs};

use crate::outln;
use crate::util::{
    canonical, emit, fail, input_fail, max_input, nodes_for, open_input, parse, read_input, write_stdout, Args,
    CliResult, Output, VecRefSink,
};
use concordia_host::{ArrayReader, Nodes, Start};

pub const JCS_HELP: &str = "concordia jcs [--lines] [FILE]
  Writes the RFC 8785 canonical form of the JSON in FILE (default stdin).
  A top-level array is read and written one element at a time, so memory is bounded by
  its largest element, not by the input; the verdict and the output are those of reading
  it whole (an output that fails after its first MiB leaves what was written, exit 2).
  --lines   FILE is JSON Lines: one canonical line out per line in, or
            `!error <class> <byte-offset> <message>` for a rejected line (streamed).";

pub const HASH_HELP: &str = "concordia hash [--hex] [FILE]
  Prints sha256:<hex> over the canonical form of the JSON in FILE (default stdin).
  --hex     print the bare 64 hex digits";

pub fn jcs(mut args: Args) -> CliResult {
    let lines = args.flag("--lines");
    let pos = args.positionals(1)?;
    let (name, input) = open_input(pos.first().map(String::as_str))?;
    if lines {
        return jcs_lines(&name, input);
    }
    let mut reader = ArrayReader::new(input).with_cap(max_input());
    if reader.start().map_err(|e| input_fail(&name, e))? == Start::Value {
        let input = reader.into_whole().map_err(|e| input_fail(&name, e))?;
        let mut nodes = nodes_for(&input)?;
        let doc = parse(&name, &input, &mut nodes)?;
        return emit(&canonical(doc.root())?);
    }
    // A top-level array: `[`, each element's canonical form, `,` between, `]`.
    let mut out = Output::new();
    out.buf.push(b'[');
    let mut first = true;
    while let Some(element) = reader.next_element().map_err(|e| input_fail(&name, e))? {
        if !first {
            out.buf.push(b',');
        }
        first = false;
        jcs::write(element.doc.root(), &mut VecRefSink(&mut out.buf)).map_err(|e| fail("canonical form", e))?;
        out.spill()?;
    }
    out.buf.push(b']');
    out.finish()
}

fn jcs_lines(name: &str, input: impl std::io::Read) -> CliResult {
    let mut reader = ArrayReader::lines(input).with_cap(max_input());
    let mut out = Output::new();
    let mut nodes = Nodes::new();
    while let Some((_, line)) = reader.next_line().map_err(|e| input_fail(name, e))? {
        match nodes.parse(line) {
            Ok(doc) => jcs::write(doc.root(), &mut VecRefSink(&mut out.buf)).map_err(|e| fail("canonical form", e))?,
            Err(e) => {
                out.buf.extend_from_slice(format!("!error {} {} {}", e.class(), e.offset().unwrap_or(0), e).as_bytes())
            }
        }
        out.buf.push(b'\n');
        out.spill()?;
    }
    write_stdout(&out.buf)
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
