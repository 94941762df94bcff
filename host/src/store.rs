//! Files that hold state across processes, written once for every surface: an exclusive
//! advisory lock ([`StoreLock`]) and an atomic replacement ([`write_atomic`]: write a
//! temporary file beside the target, fsync it, rename it over the target, fsync the
//! directory), so a reader sees the old contents or the new, never a mix, and a crash
//! loses at most the update in progress.
//!
//! The lock is `flock(LOCK_EX)` on a separate `<file>.lock` (the file itself is replaced
//! by each update, so a lock on it would lock a file that is no longer the store). The
//! kernel releases it when the process ends, however it ends, so a crash never leaves a
//! stale lock. (`std::fs::File::lock` does the same from Rust 1.89; the workspace builds at
//! 1.88, hence `libc`.) On targets without `flock` the lock file is created with
//! `create_new` and removed on drop, and a waiter gives up after [`LOCK_WAIT`].

use std::ffi::OsString;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How long [`StoreLock::acquire`] waits on targets without `flock`.
pub const LOCK_WAIT: Duration = Duration::from_secs(10);

/// `path` with `suffix` appended to its file name.
fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut name: OsString = path.file_name().map(OsString::from).unwrap_or_default();
    name.push(suffix);
    path.with_file_name(name)
}

/// An exclusive lock on the store at a path, held until dropped.
#[derive(Debug)]
pub struct StoreLock {
    #[cfg_attr(unix, allow(dead_code))]
    path: PathBuf,
    _file: File,
}

impl StoreLock {
    /// Takes the exclusive lock of the store at `store` (the lock file is `<store>.lock`),
    /// waiting while another process holds it.
    ///
    /// # Errors
    /// The I/O error of creating or locking the lock file.
    pub fn acquire(store: &Path) -> io::Result<StoreLock> {
        let path = with_suffix(store, ".lock");
        imp::lock(path)
    }
}

#[cfg(unix)]
#[allow(unsafe_code)]
mod imp {
    use std::os::unix::io::AsRawFd;

    use super::{io, File, OpenOptions, PathBuf, StoreLock};

    pub(super) fn lock(path: PathBuf) -> io::Result<StoreLock> {
        let file: File = OpenOptions::new().read(true).write(true).create(true).truncate(false).open(&path)?;
        loop {
            // SAFETY: `flock` takes a file descriptor and flags and touches no memory of
            // ours; the descriptor is open for as long as `file` lives, which outlives the
            // call (and the lock, which the kernel releases when the descriptor closes).
            let r = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) };
            if r == 0 {
                return Ok(StoreLock { path, _file: file });
            }
            let e = io::Error::last_os_error();
            if e.kind() != io::ErrorKind::Interrupted {
                return Err(e);
            }
        }
    }
}

#[cfg(not(unix))]
mod imp {
    use std::time::Instant;

    use super::{fs, io, OpenOptions, PathBuf, StoreLock, LOCK_WAIT};

    pub(super) fn lock(path: PathBuf) -> io::Result<StoreLock> {
        let start = Instant::now();
        loop {
            match OpenOptions::new().write(true).create_new(true).open(&path) {
                Ok(file) => return Ok(StoreLock { path, _file: file }),
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists && start.elapsed() < LOCK_WAIT => {
                    std::thread::sleep(std::time::Duration::from_millis(20));
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                    return Err(io::Error::new(
                        io::ErrorKind::WouldBlock,
                        format!("{} is held by another process (remove it if none is running)", path.display()),
                    ))
                }
                Err(e) => return Err(e),
            }
        }
    }

    impl Drop for StoreLock {
        fn drop(&mut self) {
            let _ = fs::remove_file(&self.path);
        }
    }
}

/// The contents of `path`, or `None` when it does not exist.
///
/// # Errors
/// Any other I/O error.
pub fn read_if_exists(path: &Path) -> io::Result<Option<Vec<u8>>> {
    match fs::read(path) {
        Ok(b) => Ok(Some(b)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// Replaces `path` with `bytes` atomically and durably: writes `<path>.tmp`, fsyncs it,
/// renames it over `path` and fsyncs the directory. Callers that may run concurrently
/// hold a [`StoreLock`] on `path` (the temporary name is fixed).
///
/// # Errors
/// The I/O error of any step (the target is then unchanged).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let tmp = with_suffix(path, ".tmp");
    let r = (|| {
        {
            // Closed (end of scope) before the rename.
            let mut f = OpenOptions::new().write(true).create(true).truncate(true).open(&tmp)?;
            f.write_all(bytes)?;
            f.sync_all()?;
        }
        fs::rename(&tmp, path)
    })();
    if r.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    r?;
    sync_dir(path)
}

#[cfg(unix)]
fn sync_dir(path: &Path) -> io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    File::open(dir)?.sync_all()
}

#[cfg(not(unix))]
fn sync_dir(_path: &Path) -> io::Result<()> {
    // Directories cannot be opened for fsync here; the rename is atomic nonetheless.
    Ok(())
}
