//! Shared plumbing of the subcommands: input, output, buffers sized to the input, exit
//! codes.
//!
//! # Exit status
//!
//! Every subcommand exits 0 ok, 1 verification failed, 2 usage or malformed input, and the
//! choice between 1 and 2 for an error of the core is made in one place, [`fail`], by the
//! error's [`Class`] ([`exit_status`]):
//!
//! - `input` and `limit` (malformed JSON, an undecodable encoding, an argument out of its
//!   domain, a bound exceeded) exit 2: the input could not be judged;
//! - every protocol reason class (`schema`, `signature`, `digest`, `binding`, `temporal`,
//!   `privacy`, `transition`) exits 1: the input was judged and failed.
//!
//! Errors that are not about the input being judged exit 2 whatever their class: bad
//! arguments and options (an option value the core cannot read, such as `--now yesterday`,
//! goes through [`bad_arg`]), unreadable files and failed writes ([`usage`]).
//!
//! Output never panics: every byte for stdout goes through [`write_stdout`] (or the
//! [`outln!`](crate::outln) macro), which turns a write error into a one-line failure (exit
//! 2), and every diagnostic through [`stderr_line`], which ignores a failing stderr. A
//! closed stdout (the reader went away: EPIPE, e.g. `concordia ... | head -c 10`) is not an
//! error: the rest of the output is discarded quietly and the exit status is the command's
//! own verdict, the same as when the reader reads everything.

use std::fmt;
use std::io::{self, IsTerminal, Read, Write};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use concordia_core::error::Limit;
use concordia_core::json::{self, Doc};
use concordia_core::{jcs, Class, Error};
use concordia_host::{read_all, Nodes, ReadError};

/// Why a command failed, which decides the exit status.
#[derive(Debug)]
pub enum Fail {
    /// Exit 1: the input was judged and did not verify.
    Rejected(String),
    /// Exit 2: bad arguments, unreadable or malformed input, a failed write.
    Usage(String),
}

impl Fail {
    /// The process exit status of this failure.
    pub fn code(&self) -> i32 {
        match self {
            Fail::Rejected(_) => 1,
            Fail::Usage(_) => 2,
        }
    }
}

impl fmt::Display for Fail {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Fail::Rejected(m) | Fail::Usage(m) => f.write_str(m),
        }
    }
}

pub type CliResult<T = ()> = Result<T, Fail>;

/// A usage error (exit 2) that is not an error of the core: a bad flag, a missing file, a
/// failed write.
pub fn usage(msg: impl Into<String>) -> Fail {
    Fail::Usage(msg.into())
}

/// The exit status for a core error of class `class`: 2 for `input` and `limit` (the input
/// could not be judged), 1 for every protocol reason class (it was judged and failed).
pub const fn exit_status(class: Class) -> i32 {
    match class {
        Class::Input | Class::Limit => 2,
        Class::Schema
        | Class::Signature
        | Class::Digest
        | Class::Binding
        | Class::Temporal
        | Class::Privacy
        | Class::Transition => 1,
        // `Class` is non-exhaustive: a class added later is not a verdict until it is
        // listed above.
        _ => 2,
    }
}

/// The one way a core error about the input being judged becomes a failure: the message is
/// `<context>: <error>` (one line; parse errors keep their byte offset) and the exit status
/// is [`exit_status`] of the error's class.
pub fn fail(context: &str, e: Error) -> Fail {
    let msg = match allowed_values(&e) {
        Some(allowed) => format!("{context}: {e} ({allowed})"),
        None => format!("{context}: {e}"),
    };
    match exit_status(e.class()) {
        1 => Fail::Rejected(msg),
        _ => Fail::Usage(msg),
    }
}

/// What a core error that refuses a word outside a fixed set allows, for the one-line
/// message (the core's errors are `&'static str` and stay as they are; the CLI adds the
/// choices). `None` for every other error.
pub fn allowed_values(e: &Error) -> Option<String> {
    use concordia_core::consensus::command::Action;
    use concordia_core::consensus::invitation::{BEGIN_MARKER, END_MARKER};
    let words = |w: &[&str]| format!("allowed: {}", w.join(", "));
    match e {
        Error::Schema("action") => Some(words(&Action::ALL.map(Action::as_str))),
        Error::Schema("participant kind") => {
            Some(words(&concordia_core::consensus::room::ParticipantKind::ALL.map(|k| k.as_str())))
        }
        Error::Schema("outcome") => Some(words(&outcome_words())),
        Error::Schema("invitation markers") => {
            Some(format!("expected one block between the lines `{BEGIN_MARKER}` and `{END_MARKER}`, see examples/consensus/email.txt"))
        }
        _ => None,
    }
}

/// The outcome words of `concordia_core::consensus::Outcome`.
pub fn outcome_words() -> [&'static str; 5] {
    concordia_core::consensus::Outcome::ALL.map(concordia_core::consensus::Outcome::as_str)
}

/// The help of one subcommand of a command group: the entries of `group_help` (lines with
/// two spaces of indent, then `prefix` and `path`, and the more indented lines that follow
/// them), then the group help's last paragraph (its exit status). `None` when no entry
/// names `path`.
pub fn sub_help(group_help: &str, cmd: &str, prefix: &str, path: &str) -> Option<String> {
    let want = format!("{prefix}{path}");
    let mut out = String::new();
    let mut taking = false;
    for line in group_help.lines() {
        let entry = line.strip_prefix("  ").filter(|l| !l.starts_with(' '));
        if let Some(entry) = entry {
            taking = entry == want || entry.starts_with(&format!("{want} "));
            if taking {
                let entry = entry.strip_prefix(prefix).unwrap_or(entry);
                out.push_str(&format!("usage: concordia {cmd} {entry}\n"));
            }
        } else if taking && line.starts_with("   ") {
            out.push_str("    ");
            out.push_str(line.trim_start());
            out.push('\n');
        } else {
            taking = false;
        }
    }
    if out.is_empty() {
        return None;
    }
    if let Some((_, last)) = group_help.rsplit_once("\n\n") {
        out.push('\n');
        out.push_str(last);
    }
    Some(out)
}

/// A core error about a command-line argument (an option value such as `--now`,
/// `--origin`, `--public-key`): a usage error, exit 2, whatever its class; the command never
/// got to judge its input.
pub fn bad_arg(flag: &str, e: Error) -> Fail {
    Fail::Usage(format!("{flag}: {e}"))
}

/// A usage error for a command that needs a subcommand: one line naming the choices.
pub fn need_sub(cmd: &str, choices: &str) -> Fail {
    usage(format!("{cmd}: expected {choices} (see `concordia {cmd} --help`)"))
}

/// A usage error for a subcommand that is missing or unknown: one line listing the choices.
pub fn bad_sub(cmd: &str, given: Option<&str>, choices: &[&str]) -> Fail {
    let list = choices.join(", ");
    match given {
        None => usage(format!("{cmd}: missing subcommand, expected one of {list} (see `concordia {cmd} --help`)")),
        Some(g) => usage(format!(
            "{cmd}: unknown subcommand `{}`, expected one of {list} (see `concordia {cmd} --help`)",
            one_line(g)
        )),
    }
}

/// `text` with its control characters escaped, so that it cannot split an error line.
pub fn one_line(text: &str) -> String {
    if text.chars().any(char::is_control) {
        let mut out = String::with_capacity(text.len() + 8);
        for c in text.chars() {
            if c.is_control() {
                out.extend(c.escape_debug());
            } else {
                out.push(c);
            }
        }
        out
    } else {
        text.to_string()
    }
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

/// The `--max-input BYTES` cap (0: none), set once from the command line.
static MAX_INPUT: AtomicU64 = AtomicU64::new(0);

/// Sets the `--max-input` cap for every input read from now on.
pub fn set_max_input(bytes: u64) {
    MAX_INPUT.store(bytes, Ordering::Relaxed);
}

/// The `--max-input` cap, if one was given.
pub fn max_input() -> Option<u64> {
    match MAX_INPUT.load(Ordering::Relaxed) {
        0 => None,
        n => Some(n),
    }
}

/// Reads `--max-input`'s value: bytes, or with a binary suffix `K`, `M`, `G` (`64M`).
pub fn parse_size(text: &str) -> CliResult<u64> {
    let (digits, unit) = match text.as_bytes().last() {
        Some(b'k' | b'K') => (&text[..text.len() - 1], 1u64 << 10),
        Some(b'm' | b'M') => (&text[..text.len() - 1], 1 << 20),
        Some(b'g' | b'G') => (&text[..text.len() - 1], 1 << 30),
        _ => (text, 1),
    };
    digits.parse::<u64>().ok().and_then(|n| n.checked_mul(unit)).filter(|&n| n > 0).ok_or_else(|| {
        usage(format!("--max-input: expected a positive number of bytes (or with K, M, G), got {}", one_line(text)))
    })
}

/// The failure for an input that could not be read: an I/O error or an input over
/// `--max-input` or beyond the memory there is (exit 2, one line naming the size), or the
/// input's own error (exit by its class).
pub fn input_fail(name: &str, e: ReadError) -> Fail {
    match e {
        ReadError::Io(e) => usage(format!("{name}: {e}")),
        ReadError::Input(Error::Limit { kind: Limit::Size, offset }) if max_input() == Some(offset as u64) => {
            usage(format!("{name}: input larger than --max-input ({offset} bytes)"))
        }
        ReadError::Input(Error::Limit { kind: Limit::Memory, offset }) => {
            usage(format!("{name}: not enough memory for the input ({offset} bytes)"))
        }
        ReadError::Input(e) => fail(name, e),
    }
}

/// An input for streaming: FILE, or stdin when `path` is `None` or `-`.
pub fn open_input(path: Option<&str>) -> CliResult<(String, Box<dyn Read>)> {
    match path {
        None | Some("-") => Ok(("<stdin>".into(), Box::new(io::stdin().lock()))),
        Some(p) => {
            let name = display_name(p);
            let file = std::fs::File::open(p).map_err(|e| usage(format!("{name}: {e}")))?;
            Ok((name, Box::new(file)))
        }
    }
}

/// Reads FILE, or stdin when `path` is `None` or `-`, whole: fallibly (an input the memory
/// cannot hold is a one-line error, exit 2, not an abort) and under `--max-input`.
pub fn read_input(path: Option<&str>) -> CliResult<(String, Vec<u8>)> {
    match path {
        None | Some("-") => {
            let buf = read_all(io::stdin().lock(), 0, max_input()).map_err(|e| input_fail("<stdin>", e))?;
            Ok(("<stdin>".into(), buf))
        }
        Some(p) => {
            let name = display_name(p);
            let file = std::fs::File::open(p).map_err(|e| usage(format!("{name}: {e}")))?;
            let hint = file.metadata().map(|m| m.len()).unwrap_or(0);
            let buf = read_all(file, hint, max_input()).map_err(|e| input_fail(&name, e))?;
            Ok((name, buf))
        }
    }
}

/// Output held in memory up to [`Output::HOLD`] bytes and then written in blocks of that
/// size: a command that fails before its output grows that large writes nothing, as when
/// the output is written at once; a larger streamed output that fails part way leaves what
/// was written, and the exit status says it failed.
pub struct Output {
    pub buf: Vec<u8>,
}

impl Output {
    pub const HOLD: usize = 1 << 20;

    pub fn new() -> Self {
        Output { buf: Vec::new() }
    }

    /// Writes the held block once it has grown to [`Output::HOLD`].
    pub fn spill(&mut self) -> CliResult {
        if self.buf.len() >= Self::HOLD {
            write_stdout(&self.buf)?;
            self.buf.clear();
        }
        Ok(())
    }

    /// Writes the rest; a newline follows for a terminal (as [`emit`]).
    pub fn finish(self) -> CliResult {
        emit(&self.buf)
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
    nodes.parse(input).map_err(|e| fail(name, e))
}

pub use concordia_host::{VecRefSink, VecSink};

/// The canonical bytes of `value`, in a buffer of exactly the right size; an output that
/// cannot be allocated is a one-line error.
pub fn canonical(value: json::Value<'_>) -> CliResult<Vec<u8>> {
    concordia_host::canonical(value).map_err(|e| fail("canonical form", e))
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
    let written = if bytes.len() >= LARGE_WRITE { write_unbuffered(&mut lock, bytes) } else { lock.write_all(bytes) };
    match written.and_then(|()| lock.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {
            STDOUT_CLOSED.store(true, Ordering::Relaxed);
            Ok(())
        }
        Err(e) => Err(usage(format!("cannot write to stdout: {e}"))),
    }
}

/// Blocks of at least this many bytes go to stdout without its line buffer.
const LARGE_WRITE: usize = 64 * 1024;

/// Writes a large block straight to the stdout file descriptor (after what the line buffer
/// holds): stdout's line buffer would search the whole block for its last newline first
/// (canonical JSON has none), about one instruction per byte of output.
#[cfg(unix)]
fn write_unbuffered(lock: &mut io::StdoutLock<'_>, bytes: &[u8]) -> io::Result<()> {
    use std::os::fd::AsFd;
    lock.flush()?;
    match lock.as_fd().try_clone_to_owned() {
        Ok(fd) => std::fs::File::from(fd).write_all(bytes),
        // No descriptor to copy (stdout closed): stdout's own writer decides, as for small writes.
        Err(_) => lock.write_all(bytes),
    }
}

#[cfg(not(unix))]
fn write_unbuffered(lock: &mut io::StdoutLock<'_>, bytes: &[u8]) -> io::Result<()> {
    lock.write_all(bytes)
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
    /// The arguments left.
    pub fn into_items(self) -> Vec<String> {
        self.items
    }

    /// Removes and returns the first positional (a subcommand name).
    pub fn positionals_first(&mut self) -> Option<String> {
        let i = self.items.iter().position(|a| !a.starts_with("--"))?;
        Some(self.items.remove(i))
    }
}

#[cfg(test)]
mod tests {
    use super::{exit_status, fail, Fail};
    use concordia_core::{Class, Error};

    #[test]
    fn every_core_error_exits_by_its_class() {
        let errors = [
            Error::Json { kind: concordia_core::error::Syntax::DuplicateKey, offset: 9 },
            Error::Limit { kind: concordia_core::error::Limit::Depth, offset: 3 },
            Error::BufferTooSmall { needed: 10 },
            Error::Encoding("signature"),
            Error::InvalidArgument("origin"),
            Error::Signature,
            Error::UnknownKey,
            Error::Schema("x"),
            Error::Shape { what: "invalid type", offset: 5 },
            Error::Digest("x"),
            Error::Binding("prev_hash"),
            Error::Temporal("x"),
            Error::Privacy("x"),
            Error::Transition("x"),
            Error::MaxRounds,
        ];
        for e in errors {
            let want = match e.class() {
                Class::Input | Class::Limit => 2,
                _ => 1,
            };
            let f = fail("t.json", e);
            assert_eq!(f.code(), want, "{e:?}");
            assert_eq!(exit_status(e.class()), want, "{e:?}");
            assert_eq!(f.to_string(), format!("t.json: {e}"));
            assert!(matches!((&f, want), (Fail::Rejected(_), 1) | (Fail::Usage(_), 2)));
        }
        // Parse errors keep their byte offset.
        let e = Error::Json { kind: concordia_core::error::Syntax::DuplicateKey, offset: 9 };
        assert_eq!(fail("<stdin>", e).to_string(), "<stdin>: malformed JSON at byte 9: duplicate member name");
        let e = Error::Shape { what: "invalid type", offset: 5 };
        assert_eq!(fail("<stdin>", e).to_string(), "<stdin>: schema check failed: invalid type at byte 5");
        // An option the core cannot read is a usage error whatever its class.
        assert_eq!(super::bad_arg("--now", Error::Temporal("x")).code(), 2);
        assert_eq!(super::one_line("a\nb"), "a\\nb");
    }
}
