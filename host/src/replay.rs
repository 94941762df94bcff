//! The AIP replay window on the heap, and kept in a file across processes.
//!
//! [`new_window`] allocates a core [`ReplayWindow`] on the heap fallibly (every surface's
//! window: UniFFI, C, Python, CLI); [`snapshot`] writes its snapshot into a vector.
//! [`ReplayStore`] keeps a window in a file for one-shot processes (the CLI's
//! `aip open --replay-store`): it takes the store's exclusive lock ([`StoreLock`]), restores
//! the window, and [`ReplayStore::save`] replaces the file atomically ([`write_atomic`])
//! before the caller acts on a `Fresh` verdict. All rules (format, checksum, freshness,
//! cold start) are the core's: see [`concordia_core::aip::replay`].

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

use concordia_core::aip::replay::{IdSlot, ReplayWindow, TimeSlot};
use concordia_core::time::Timestamp;
use concordia_core::{Error, Result};

use crate::store::{read_if_exists, write_atomic, StoreLock};
use crate::try_filled;

/// A replay window over heap storage.
pub type HostReplayWindow = ReplayWindow<Box<[IdSlot]>, Box<[TimeSlot]>>;

/// The capacity of a [`ReplayStore`]'s window: 65,536 ids (3 MiB in memory; the file holds
/// 28 bytes per id remembered).
pub const STORE_CAPACITY: usize = 65_536;

/// An empty window of `capacity` ids on the heap (allocated in place, fallibly).
///
/// # Errors
/// [`Error::Limit`] with `Limit::Memory` when it cannot be allocated.
pub fn new_window(capacity: usize) -> Result<HostReplayWindow> {
    Ok(ReplayWindow::new_in(
        try_filled(capacity, IdSlot::EMPTY)?.into_boxed_slice(),
        try_filled(capacity, TimeSlot::EMPTY)?.into_boxed_slice(),
    ))
}

/// The window's snapshot (see [`ReplayWindow::snapshot`]) in a new vector.
///
/// # Errors
/// [`Error::Limit`] with `Limit::Memory` when it cannot be allocated.
pub fn snapshot<T: AsRef<[IdSlot]>, H: AsRef<[TimeSlot]>>(w: &ReplayWindow<T, H>) -> Result<Vec<u8>> {
    let mut out = try_filled(w.snapshot_len(), 0u8)?;
    let n = w.snapshot(&mut out)?;
    out.truncate(n);
    Ok(out)
}

/// Why a [`ReplayStore`] could not be opened or saved.
#[derive(Debug)]
pub enum StoreError {
    /// Reading, writing or locking the file failed.
    Io(io::Error),
    /// The file is not a usable snapshot (truncated, corrupt, another version, too many
    /// ids) or the window cannot be allocated: refused, fail closed.
    Refused(Error),
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StoreError::Io(e) => e.fmt(f),
            StoreError::Refused(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for StoreError {}

/// How a [`ReplayStore`] started.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Opened {
    /// From the file's snapshot.
    Restored,
    /// The file did not exist: cold start (envelopes created before now are refused until
    /// a full window has passed).
    ColdStart,
    /// The file did not exist and the caller said the store is new: empty, unguarded.
    New,
}

/// A replay window kept in a file, locked for the life of this value.
#[derive(Debug)]
pub struct ReplayStore {
    path: PathBuf,
    _lock: StoreLock,
    /// The window; check envelopes with it, then [`save`](ReplayStore::save).
    pub window: HostReplayWindow,
    /// How it started.
    pub opened: Opened,
}

impl ReplayStore {
    /// Locks the store at `path` (waiting for other holders) and restores its window. A
    /// missing file is a cold start at `now`, or, when `new_ok`, an empty window without
    /// the cold-start guard (only for a store known to be new). A file that is not a
    /// usable snapshot is refused (the caller must not go on; removing the file gives a
    /// cold start).
    ///
    /// # Errors
    /// [`StoreError::Io`] when the file cannot be locked or read; [`StoreError::Refused`]
    /// for an unusable file.
    pub fn open(path: &Path, now: Timestamp, new_ok: bool) -> std::result::Result<ReplayStore, StoreError> {
        let lock = StoreLock::acquire(path).map_err(StoreError::Io)?;
        let mut window = new_window(STORE_CAPACITY).map_err(StoreError::Refused)?;
        let opened = match read_if_exists(path).map_err(StoreError::Io)? {
            Some(bytes) => {
                window.restore(&bytes, now).map_err(StoreError::Refused)?;
                Opened::Restored
            }
            None if new_ok => Opened::New,
            None => {
                window.cold_start(now);
                Opened::ColdStart
            }
        };
        Ok(ReplayStore { path: path.to_path_buf(), _lock: lock, window, opened })
    }

    /// Writes the window's snapshot over the file, atomically and durably.
    ///
    /// # Errors
    /// [`StoreError::Io`] when it cannot be written (the file keeps its previous contents).
    pub fn save(&self) -> std::result::Result<(), StoreError> {
        let bytes = snapshot(&self.window).map_err(StoreError::Refused)?;
        write_atomic(&self.path, &bytes).map_err(StoreError::Io)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use concordia_core::aip::replay::Verdict;

    fn dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("concordia-host-replay-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn store_round_trip_cold_start_and_corruption() {
        let d = dir("rt");
        let path = d.join("replay.bin");
        let now = Timestamp::from_unix(1_800_000_000);
        {
            let mut s = ReplayStore::open(&path, now, false).unwrap();
            assert_eq!(s.opened, Opened::ColdStart);
            assert!(s.window.check(1, now, now).is_err(), "created at the cold start");
            assert_eq!(s.window.check(1, now.add_seconds(1).unwrap(), now), Ok(Verdict::Fresh));
            s.save().unwrap();
        }
        {
            let mut s = ReplayStore::open(&path, now, false).unwrap();
            assert_eq!(s.opened, Opened::Restored);
            assert_eq!(s.window.check(1, now.add_seconds(1).unwrap(), now), Ok(Verdict::Duplicate));
        }
        let mut bytes = std::fs::read(&path).unwrap();
        bytes[40] ^= 0x10;
        std::fs::write(&path, &bytes).unwrap();
        assert!(matches!(ReplayStore::open(&path, now, false), Err(StoreError::Refused(_))));
        std::fs::write(&path, &bytes[..bytes.len() - 1]).unwrap();
        assert!(matches!(ReplayStore::open(&path, now, false), Err(StoreError::Refused(_))));
        std::fs::remove_file(&path).unwrap();
        let s = ReplayStore::open(&path, now, true).unwrap();
        assert_eq!((s.opened, s.window.cold_start_guard()), (Opened::New, None));
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn concurrent_holders_are_serialized() {
        let d = dir("conc");
        let path = d.join("replay.bin");
        let now = Timestamp::from_unix(1_800_000_000);
        ReplayStore::open(&path, now, true).unwrap().save().unwrap();
        let fresh: usize = std::thread::scope(|sc| {
            let hs: Vec<_> = (0..8)
                .map(|_| {
                    sc.spawn(|| {
                        let mut s = ReplayStore::open(&path, now, false).unwrap();
                        let v = s.window.check(42, now, now).unwrap();
                        std::thread::sleep(std::time::Duration::from_millis(5));
                        s.save().unwrap();
                        usize::from(v == Verdict::Fresh)
                    })
                })
                .collect();
            hs.into_iter().map(|h| h.join().unwrap()).sum()
        });
        assert_eq!(fresh, 1);
        let _ = std::fs::remove_dir_all(&d);
    }
}
