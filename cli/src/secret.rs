//! Where a command's secret output goes: a new file of mode 0600 (`-o FILE`), or stdout
//! with a warning when stdout is a file that others can read.
//!
//! `-o FILE` creates the file with `O_CREAT | O_EXCL` (never an existing file, never
//! through a symlink) and mode 0600, as `ssh-keygen` and `age-keygen -o` do; `--force`
//! replaces an existing regular file (still not through a symlink: `O_NOFOLLOW`) and sets
//! its mode to 0600 before writing. On stdout the secret is written past stdout's buffer
//! (no copy left in it); when stdout is a regular file readable by group or others (a
//! `> key.json` redirect under umask 022), a warning goes to stderr first, as `wg genkey`
//! warns.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};

use crate::util::{display_name, stderr_line, usage, Args, CliResult};

/// The option lines of every command that writes a secret (for its `--help`), a literal
/// for `concat!`.
#[macro_export]
macro_rules! secret_out_help {
    () => {
        "  -o, --out FILE  write the key to FILE, created with mode 0600 (refuses an existing
                  FILE or a symlink; --force replaces an existing file). Without -o the key
                  goes to stdout, with a warning on stderr when stdout is a file that group
                  or others can read (e.g. `> key.json`)
  --force         with -o: replace an existing FILE"
    };
}

/// What `-o`/`--out` and `--force` asked for, read before anything is generated.
pub struct Dest {
    path: Option<String>,
    force: bool,
}

impl Dest {
    /// Reads `-o FILE`, `--out FILE` and `--force` from `args`.
    pub fn from_args(args: &mut Args) -> CliResult<Dest> {
        let short = args.value("-o")?;
        let long = args.value("--out")?;
        let force = args.flag("--force");
        let path = match (short, long) {
            (Some(_), Some(_)) => return Err(usage("give -o or --out, not both")),
            (p, None) | (None, p) => p,
        };
        if force && path.is_none() {
            return Err(usage("--force needs -o FILE"));
        }
        Ok(Dest { path, force })
    }

    /// Opens the destination file, when there is one, before the secret is written (so a
    /// refused file costs no secret).
    pub fn open(&self) -> CliResult<Option<File>> {
        let Some(path) = &self.path else { return Ok(None) };
        let name = display_name(path);
        let mut o = OpenOptions::new();
        o.write(true);
        if self.force {
            o.create(true).truncate(true);
        } else {
            o.create_new(true);
        }
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            o.mode(0o600).custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC);
        }
        let file = o.open(path).map_err(|e| match e.kind() {
            io::ErrorKind::AlreadyExists => usage(format!("{name}: exists (use --force to replace it)")),
            _ if is_symlink(path) => usage(format!("{name}: is a symlink (refused)")),
            _ => usage(format!("{name}: {e}")),
        })?;
        let meta = file.metadata().map_err(|e| usage(format!("{name}: {e}")))?;
        if !meta.is_file() {
            return Err(usage(format!("{name}: not a regular file")));
        }
        #[cfg(unix)]
        {
            // A replaced file keeps its old mode: make it 0600 before the secret goes in.
            use std::os::unix::fs::PermissionsExt;
            file.set_permissions(std::fs::Permissions::from_mode(0o600)).map_err(|e| usage(format!("{name}: {e}")))?;
        }
        Ok(Some(file))
    }

    /// Writes `secret` (with its final newline) to `file` (from [`Dest::open`]) or stdout.
    pub fn write(&self, file: Option<File>, secret: &[u8]) -> CliResult {
        match (file, &self.path) {
            (Some(mut f), Some(path)) => f
                .write_all(secret)
                .and_then(|()| f.sync_all())
                .map_err(|e| usage(format!("{}: {e}", display_name(path)))),
            _ => write_stdout_secret(secret),
        }
    }
}

fn is_symlink(path: &str) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
}

/// Whether stdout is a regular file that group or others may read.
#[cfg(unix)]
fn stdout_readable_by_others() -> Option<u32> {
    use std::os::fd::AsFd;
    use std::os::unix::fs::PermissionsExt;
    let fd = io::stdout().as_fd().try_clone_to_owned().ok()?;
    let meta = File::from(fd).metadata().ok()?;
    let mode = meta.permissions().mode() & 0o777;
    (meta.is_file() && mode & 0o044 != 0).then_some(mode)
}

#[cfg(not(unix))]
fn stdout_readable_by_others() -> Option<u32> {
    None
}

/// Writes a secret to stdout past its buffer, after the warning when stdout is a file
/// others can read.
fn write_stdout_secret(secret: &[u8]) -> CliResult {
    if let Some(mode) = stdout_readable_by_others() {
        stderr_line(&format!(
            "concordia: warning: writing a secret key to a file that others can read (mode {mode:04o}); \
             use -o FILE (created with mode 0600) or chmod 600 it"
        ));
    }
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        let mut lock = io::stdout().lock();
        let _ = lock.flush();
        if let Ok(fd) = lock.as_fd().try_clone_to_owned() {
            let mut raw = File::from(fd);
            return match raw.write_all(secret) {
                Err(e) if e.kind() != io::ErrorKind::BrokenPipe => Err(usage(format!("cannot write to stdout: {e}"))),
                _ => Ok(()),
            };
        }
    }
    crate::util::write_stdout(secret)
}
