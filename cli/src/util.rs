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

use concordia_core::json::{self, Doc};
use concordia_host::Nodes;
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

/// The node buffer for one input: the host layer sizes it to the text when it parses
/// ([`concordia_host::Nodes`]: one cheap counting pass, never the worst case up front), and
/// a buffer that cannot be allocated is a one-line error, not an abort.
pub fn nodes_for(_input: &[u8]) -> CliResult<Nodes> {
    Ok(Nodes::new())
}

/// Parses under the one parsing policy of every Concordia surface
/// ([`concordia_host::options`]: the core's default options, nesting depth
/// [`json::DEFAULT_MAX_DEPTH`], integers within ±(2^53 - 1)), into nodes sized to the text.
pub fn parse<'a>(name: &str, input: &'a [u8], nodes: &'a mut Nodes) -> CliResult<Doc<'a>> {
    nodes.parse(input).map_err(|e| input_error(name, e))
}

pub use concordia_host::{VecRefSink, VecSink};

/// The canonical bytes of `value`, in a buffer of exactly the right size; an output that
/// cannot be allocated is a one-line error.
pub fn canonical(value: json::Value<'_>) -> CliResult<Vec<u8>> {
    concordia_host::canonical(value).map_err(|e| usage(format!("canonical form: {e}")))
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
