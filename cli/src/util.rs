//! Shared plumbing of the subcommands: input, buffers sized to the input, exit codes.

use std::fmt;
use std::io::{IsTerminal, Read, Write};

use concordia_core::json::{self, Doc, Node, Options};
use concordia_core::sink::{CountSink, Sink};
use concordia_core::{jcs, Error};

/// Why a command failed, which decides the exit status.
#[derive(Debug)]
pub enum Fail {
    /// Exit 1: the input was well-formed but did not verify.
    Rejected(String),
    /// Exit 2: bad arguments or malformed input.
    Usage(String),
}

impl fmt::Display for Fail {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Fail::Rejected(m) | Fail::Usage(m) => f.write_str(m),
        }
    }
}

pub type CliResult<T = ()> = Result<T, Fail>;

pub fn usage(msg: impl Into<String>) -> Fail {
    Fail::Usage(msg.into())
}

/// An input error: a one-line message naming the file and, for parse errors, the byte.
pub fn input_error(name: &str, e: Error) -> Fail {
    Fail::Usage(format!("{name}: {e}"))
}

/// Reads FILE, or stdin when `path` is `None` or `-`.
pub fn read_input(path: Option<&str>) -> CliResult<(String, Vec<u8>)> {
    match path {
        None | Some("-") => {
            let mut buf = Vec::new();
            std::io::stdin().read_to_end(&mut buf).map_err(|e| usage(format!("<stdin>: {e}")))?;
            Ok(("<stdin>".into(), buf))
        }
        Some(p) => {
            let buf = std::fs::read(p).map_err(|e| usage(format!("{p}: {e}")))?;
            Ok((p.to_string(), buf))
        }
    }
}

/// A node buffer that always suffices for `input`, well-formed or not (a node per byte at
/// the most), so malformed text gets its syntax error with its byte offset, never a
/// buffer limit. 24 bytes of memory per input byte.
pub fn nodes_for(input: &[u8]) -> Vec<Node> {
    vec![Node::EMPTY; json::nodes_for_any(input.len())]
}

/// Parses with a nesting bound suited to a command-line tool (the core's default is 128).
pub fn parse<'a>(name: &str, input: &'a [u8], nodes: &'a mut [Node]) -> CliResult<Doc<'a>> {
    json::parse_with(input, nodes, &cli_options()).map_err(|e| input_error(name, e))
}

pub fn cli_options() -> Options {
    Options { max_depth: 512, ..Options::default() }
}

/// A growable sink for the CLI (the core itself never allocates).
#[derive(Default)]
pub struct VecSink(pub Vec<u8>);

impl Sink for VecSink {
    fn write(&mut self, bytes: &[u8]) -> concordia_core::Result<()> {
        self.0.extend_from_slice(bytes);
        Ok(())
    }
}

/// The canonical bytes of `value`, in a buffer of exactly the right size.
pub fn canonical(value: json::Value<'_>) -> Vec<u8> {
    let mut count = CountSink::default();
    let _ = jcs::write(value, &mut count);
    let mut out = vec![0u8; count.0];
    match jcs::write_to_slice(value, &mut out) {
        Ok(n) => out.truncate(n),
        Err(_) => out.clear(),
    }
    out
}

/// A JSON string literal with RFC 8785 escaping.
pub fn json_str(s: &str) -> String {
    let mut sink = VecSink::default();
    let _ = jcs::write_plain_str(s, &mut sink);
    String::from_utf8(sink.0).unwrap_or_default()
}

/// Writes bytes to stdout; a newline is added only for a terminal, so piped output stays
/// byte-exact.
pub fn emit(bytes: &[u8]) -> CliResult {
    let stdout = std::io::stdout();
    let tty = stdout.is_terminal();
    let mut lock = stdout.lock();
    lock.write_all(bytes).map_err(|e| usage(format!("stdout: {e}")))?;
    if tty {
        let _ = lock.write_all(b"\n");
    }
    lock.flush().map_err(|e| usage(format!("stdout: {e}")))
}

/// Simple argument cursor: flags with values, and positionals.
pub struct Args {
    items: Vec<String>,
}

impl Args {
    pub fn new(items: Vec<String>) -> Self {
        Args { items }
    }

    /// Removes `--name VALUE` (or `--name=VALUE`) and returns VALUE.
    pub fn value(&mut self, name: &str) -> CliResult<Option<String>> {
        let eq = format!("{name}=");
        if let Some(i) = self.items.iter().position(|a| a == name) {
            if i + 1 >= self.items.len() {
                return Err(usage(format!("{name} needs a value")));
            }
            let v = self.items.remove(i + 1);
            self.items.remove(i);
            return Ok(Some(v));
        }
        if let Some(i) = self.items.iter().position(|a| a.starts_with(&eq)) {
            let v = self.items.remove(i)[eq.len()..].to_string();
            return Ok(Some(v));
        }
        Ok(None)
    }

    /// Removes `--name` and says whether it was there.
    pub fn flag(&mut self, name: &str) -> bool {
        if let Some(i) = self.items.iter().position(|a| a == name) {
            self.items.remove(i);
            true
        } else {
            false
        }
    }

    /// The remaining positionals; rejects unknown flags.
    pub fn positionals(self, max: usize) -> CliResult<Vec<String>> {
        if let Some(f) = self.items.iter().find(|a| a.starts_with("--")) {
            return Err(usage(format!("unknown option {f}")));
        }
        if self.items.len() > max {
            return Err(usage(format!("unexpected argument {}", self.items[max])));
        }
        Ok(self.items)
    }
}

impl Args {
    /// Removes and returns the first positional (a subcommand name).
    pub fn positionals_first(&mut self) -> Option<String> {
        let i = self.items.iter().position(|a| !a.starts_with("--"))?;
        Some(self.items.remove(i))
    }
}
