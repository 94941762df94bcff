//! Files that hold state across processes, written once for every surface: the store's
//! real path ([`resolve`]), an exclusive advisory lock ([`StoreLock`]) and an atomic
//! replacement ([`write_atomic`]: write a new temporary file beside the target, fsync it,
//! rename it over the target, fsync the directory), so a reader sees the old contents or
//! the new, never a mix, and a crash loses at most the update in progress.
//!
//! A store is one file, whatever path names it: [`resolve`] follows symbolic links once,
//! and the lock, the reads and the replacement all use that real path, so a symlink and
//! the path it points to share one lock and one file (a symlink is not replaced by a
//! regular file that would become a second store). A store file with more than one hard
//! link is refused ([`check_single_link`]): two names for one file would give two locks,
//! and after the first replacement two stores.
//!
//! The lock is `flock(LOCK_EX)` on a separate `<file>.lock` (the file itself is replaced
//! by each update, so a lock on it would lock a file that is no longer the store), opened
//! without following a symlink (`O_NOFOLLOW`; a symlink there is refused) and created
//! with mode 0600. The kernel releases it when the process ends, however it ends, so a
//! crash never leaves a stale lock. (`std::fs::File::lock` does the same from Rust 1.89;
//! the workspace builds at 1.88, hence `libc`.) On targets without `flock` the lock file
//! is created with `create_new` and removed on drop, and a waiter gives up after
//! [`LOCK_WAIT`].
//!
//! The temporary file of [`write_atomic`] has a name of its own each time
//! (`<file>.tmp.<pid>.<n>`), is created with `O_CREAT | O_EXCL | O_NOFOLLOW` and mode
//! 0600, and is renamed over the target: a file or symlink planted at any temporary name
//! is never written through.

use std::ffi::OsString;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// How long [`StoreLock::acquire`] waits on targets without `flock`.
pub const LOCK_WAIT: Duration = Duration::from_secs(10);

/// `path` with `suffix` appended to its file name.
fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut name: OsString = path.file_name().map(OsString::from).unwrap_or_default();
    name.push(suffix);
    path.with_file_name(name)
}

fn refused(what: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, what)
}

/// The real path of the store named `path`: symbolic links followed (the file's own and
/// its directories'). A store that does not exist yet resolves to its name in the real
/// directory; a symlink whose target does not exist is refused (the store would be created
/// at a name chosen by whoever planted the link).
///
/// # Errors
/// The I/O error of resolving the directory; `InvalidInput` for a dangling symlink or a
/// path without a file name.
pub fn resolve(path: &Path) -> io::Result<PathBuf> {
    match fs::canonicalize(path) {
        Ok(real) => return Ok(real),
        Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
        Err(_) => {}
    }
    if fs::symlink_metadata(path).is_ok() {
        return Err(refused(format!("{} is a symbolic link to a file that does not exist", path.display())));
    }
    let name = path.file_name().ok_or_else(|| refused(format!("{} names no file", path.display())))?;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    Ok(fs::canonicalize(dir)?.join(name))
}

/// Refuses a store file (a real path from [`resolve`]) that has more than one hard link;
/// a missing file passes.
///
/// # Errors
/// `InvalidInput` naming the file and its link count; other I/O errors of `lstat`.
pub fn check_single_link(real: &Path) -> io::Result<()> {
    match fs::symlink_metadata(real) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
        Ok(m) if m.file_type().is_symlink() => Err(refused(format!("{} is a symbolic link", real.display()))),
        Ok(m) => links_ok(real, &m),
    }
}

#[cfg(unix)]
fn links_ok(real: &Path, m: &fs::Metadata) -> io::Result<()> {
    use std::os::unix::fs::MetadataExt;
    if m.nlink() > 1 {
        return Err(refused(format!(
            "{} has {} hard links: a store must have one name (remove the other links)",
            real.display(),
            m.nlink()
        )));
    }
    Ok(())
}

#[cfg(not(unix))]
fn links_ok(_real: &Path, _m: &fs::Metadata) -> io::Result<()> {
    Ok(())
}

/// An exclusive lock on the store at a path, held until dropped.
#[derive(Debug)]
pub struct StoreLock {
    #[cfg_attr(unix, allow(dead_code))]
    path: PathBuf,
    _file: File,
}

impl StoreLock {
    /// Takes the exclusive lock of the store at `store` (the lock file is `<store>.lock`
    /// beside the store's real path, see [`resolve`]), waiting while another process holds
    /// it.
    ///
    /// # Errors
    /// The I/O error of resolving, creating or locking the lock file; `InvalidInput` when
    /// the lock file is a symbolic link.
    pub fn acquire(store: &Path) -> io::Result<StoreLock> {
        let path = with_suffix(&resolve(store)?, ".lock");
        imp::lock(path)
    }
}

#[cfg(unix)]
#[allow(unsafe_code)]
mod imp {
    use std::os::unix::fs::OpenOptionsExt;
    use std::os::unix::io::AsRawFd;

    use super::{io, refused, File, OpenOptions, PathBuf, StoreLock};

    pub(super) fn lock(path: PathBuf) -> io::Result<StoreLock> {
        let file: File = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .mode(0o600)
            .custom_flags(libc::O_NOFOLLOW)
            .open(&path)
            .map_err(|e| {
                if e.raw_os_error() == Some(libc::ELOOP) {
                    refused(format!("{} is a symbolic link: refusing to lock through it", path.display()))
                } else {
                    e
                }
            })?;
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

/// A new file beside `path` that did not exist (never a planted file or symlink), mode
/// 0600, and its name.
fn create_temporary(path: &Path) -> io::Result<(File, PathBuf)> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut last = None;
    for _ in 0..16 {
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let tmp = with_suffix(path, &format!(".tmp.{}.{n}", std::process::id()));
        let mut o = OpenOptions::new();
        o.write(true).create_new(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            o.mode(0o600).custom_flags(libc::O_NOFOLLOW);
        }
        match o.open(&tmp) {
            Ok(f) => return Ok((f, tmp)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap_or_else(|| io::Error::other("no temporary name is free")))
}

/// Replaces `path` with `bytes` atomically and durably: writes a new temporary file beside
/// it (`O_EXCL | O_NOFOLLOW`, mode 0600, a name of its own), fsyncs it, renames it over
/// `path` and fsyncs the directory. `path` should be a real path ([`resolve`]); a symlink
/// there is refused rather than replaced. Callers that may run concurrently hold a
/// [`StoreLock`] on `path`.
///
/// # Errors
/// The I/O error of any step (the target is then unchanged); `InvalidInput` when `path` is
/// a symbolic link.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    if fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
        return Err(refused(format!("{} is a symbolic link: refusing to replace it", path.display())));
    }
    let (mut f, tmp) = create_temporary(path)?;
    let r = (|| {
        f.write_all(bytes)?;
        f.sync_all()?;
        // Closed before the rename.
        drop(f);
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
