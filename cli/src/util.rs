//! Shared plumbing of the subcommands: input, output, buffers sized to the input, exit
//! codes.
//!
//! Output never panics: every byte for stdout goes through [`write_stdout`] (or the
//! [`outln!`](crate::outln) macro), which turns a write error into a one-line failure (exit
//! 2), and every diagnostic through [`stderr_line`], which ignores a failing stderr. A
//! closed stdout (the reader went away: EPIPE, e.g. `concordia ... | head -c 10`) is not an
//! error: the rest of the output is discarded quietly and the exit status is the command's
//! own verdict, the same as when the reader reads everything.

use std::fmt;
use std::io::{self, IsTerminal, Read, Write};
use std::sync::atomic::{AtomicBool, Ordering};

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

/// A file name as messages show it: as given, or quoted with escapes when it holds control
/// characters (a newline in a name must not split an error line).
pub fn display_name(p: &str) -> String {
    if p.chars().any(char::is_control) {
        format!("{p:?}")
    } else {
        p.to_string()
    }
}

/// Reads FILE, or stdin when `path` is `None` or `-`.
pub fn read_input(path: Option<&str>) -> CliResult<(String, Vec<u8>)> {
    match path {
        None | Some("-") => {
            let mut buf = Vec::new();
            io::stdin().read_to_end(&mut buf).map_err(|e| usage(format!("<stdin>: {e}")))?;
            Ok(("<stdin>".into(), buf))
        }
        Some(p) => {
            let name = display_name(p);
            let buf = std::fs::read(p).map_err(|e| usage(format!("{name}: {e}")))?;
            Ok((name, buf))
        }
    }
}

/// A node buffer that always suffices for `input`, well-formed or not (a node per byte at
/// the most), so malformed text gets its syntax error with its byte offset, never a
/// buffer limit. 24 bytes of memory per input byte; an input too large for that memory is
/// a one-line error, not an abort.
pub fn nodes_for(input: &[u8]) -> CliResult<Vec<Node>> {
    let mut nodes = Vec::new();
    resize_nodes(&mut nodes, input.len())?;
    Ok(nodes)
}

/// Makes `nodes` exactly the buffer [`nodes_for`] would allocate for `len` input bytes.
pub fn resize_nodes(nodes: &mut Vec<Node>, len: usize) -> CliResult {
    let n = json::nodes_for_any(len);
    nodes.clear();
    nodes
        .try_reserve_exact(n)
        .map_err(|_| usage(format!("input of {len} bytes is too large for this machine's memory")))?;
    nodes.resize(n, Node::EMPTY);
    Ok(())
}

/// The one parsing policy of every Concordia surface: the core's default options (nesting
/// depth [`json::DEFAULT_MAX_DEPTH`], integers within ±(2^53 - 1)).
pub fn options() -> Options {
    Options::default()
}

/// Parses under the core's one policy ([`options`]).
pub fn parse<'a>(name: &str, input: &'a [u8], nodes: &'a mut [Node]) -> CliResult<Doc<'a>> {
    json::parse_with(input, nodes, &options()).map_err(|e| input_error(name, e))
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

/// Set once stdout's reader has gone away (EPIPE); later output is discarded.
static STDOUT_CLOSED: AtomicBool = AtomicBool::new(false);

/// Writes `bytes` to stdout and flushes them. A write error (a full disk, an I/O error) is
/// a one-line failure, exit 2; a closed pipe ends the output quietly (see the module docs).
pub fn write_stdout(bytes: &[u8]) -> CliResult {
    if STDOUT_CLOSED.load(Ordering::Relaxed) {
        return Ok(());
    }
    let mut lock = io::stdout().lock();
    match lock.write_all(bytes).and_then(|()| lock.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {
            STDOUT_CLOSED.store(true, Ordering::Relaxed);
            Ok(())
        }
        Err(e) => Err(usage(format!("cannot write to stdout: {e}"))),
    }
}

/// `println!` that returns a [`CliResult`] instead of panicking on a write error.
#[macro_export]
macro_rules! outln {
    () => {
        $crate::util::write_stdout(b"\n")
    };
    ($($arg:tt)*) => {
        $crate::util::write_stdout(format!("{}\n", format_args!($($arg)*)).as_bytes())
    };
}

/// Writes one line to stderr; a failing stderr is ignored (there is nowhere left to say so).
pub fn stderr_line(line: &str) {
    let _ = writeln!(io::stderr().lock(), "{line}");
}

/// Writes bytes to stdout; a newline is added only for a terminal, so piped output stays
/// byte-exact.
pub fn emit(bytes: &[u8]) -> CliResult {
    write_stdout(bytes)?;
    if io::stdout().is_terminal() {
        write_stdout(b"\n")?;
    }
    Ok(())
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
