//! The AIP replay window on the heap, and kept in a file across processes.
//!
//! [`new_window`] allocates a core [`ReplayWindow`] on the heap fallibly (every surface's
//! window: UniFFI, C, Python, CLI); [`snapshot`] and [`snapshot_sealed`] write its
//! snapshot into a vector. [`ReplayStore`] keeps a window in a file for one-shot processes
//! (the CLI's `aip open --replay-store`): it resolves the file's real path once, takes the
//! store's exclusive lock ([`StoreLock`]), refuses a file with more than one hard link,
//! restores the window, and [`ReplayStore::save`] replaces the file atomically
//! ([`write_atomic`]) before the caller acts on a `Fresh` verdict. All rules (format,
//! checksum or MAC, generation, freshness, cold start) are the core's: see
//! [`concordia_core::aip::replay`]; the threat model is docs/adr/0007.

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

use concordia_core::aip::replay::{IdSlot, Integrity, ReplayWindow, TimeSlot};
use concordia_core::time::Timestamp;
use concordia_core::{Error, Result};

use crate::store::{check_single_link, read_if_exists, resolve, write_atomic, StoreLock};
use crate::try_filled;

/// A replay window over heap storage.
pub type HostReplayWindow = ReplayWindow<Box<[IdSlot]>, Box<[TimeSlot]>>;

/// The most keys one window may be created for: 16,777,216 (48 bytes each, 768 MiB).
pub const MAX_CAPACITY: usize = 1 << 24;

/// The capacity of a [`ReplayStore`]'s window: [`Capacity::Large`], 65,536 keys (3 MiB in
/// memory; the file holds 28 bytes per key remembered).
pub const STORE_CAPACITY: usize = Capacity::Large.keys();

/// The named capacities of the surfaces that offer a choice by name (JavaScript's
/// `"small"`, UniFFI's `AipReplayCapacity`); C, Go and Python take a number of keys
/// (1 to [`MAX_CAPACITY`]). One window's memory is 48 bytes per key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Capacity {
    /// 1,024 keys (48 KiB).
    Small,
    /// 16,384 keys (768 KiB).
    Medium,
    /// 65,536 keys (3 MiB).
    Large,
}

impl Capacity {
    /// Every named capacity, smallest first.
    pub const ALL: [Capacity; 3] = [Capacity::Small, Capacity::Medium, Capacity::Large];

    /// The number of keys.
    #[must_use]
    pub const fn keys(self) -> usize {
        match self {
            Capacity::Small => 1024,
            Capacity::Medium => 16_384,
            Capacity::Large => 65_536,
        }
    }

    /// The name: `small`, `medium` or `large`.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Capacity::Small => "small",
            Capacity::Medium => "medium",
            Capacity::Large => "large",
        }
    }

    /// The capacity named `name` (exact spelling, lowercase).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for any other name.
    pub fn parse(name: &str) -> Result<Capacity> {
        Capacity::ALL
            .into_iter()
            .find(|c| c.as_str() == name)
            .ok_or(Error::InvalidArgument("replay window capacity must be small, medium or large"))
    }
}

/// An empty window of `capacity` keys on the heap (allocated in place, fallibly): the one
/// constructor every surface's window comes from.
///
/// # Errors
/// [`Error::InvalidArgument`] for a capacity of 0 or above [`MAX_CAPACITY`];
/// [`Error::Limit`] with `Limit::Memory` when it cannot be allocated.
pub fn new_window(capacity: usize) -> Result<HostReplayWindow> {
    if capacity == 0 || capacity > MAX_CAPACITY {
        return Err(Error::InvalidArgument("replay window capacity must be 1 to 16777216 keys"));
    }
    Ok(ReplayWindow::new_in(
        try_filled(capacity, IdSlot::EMPTY)?.into_boxed_slice(),
        try_filled(capacity, TimeSlot::EMPTY)?.into_boxed_slice(),
    ))
}

/// The window's snapshot (see [`ReplayWindow::snapshot`]: one generation more) in a new
/// vector.
///
/// # Errors
/// [`Error::Limit`] with `Limit::Memory` when it cannot be allocated.
pub fn snapshot<T, H>(w: &mut ReplayWindow<T, H>) -> Result<Vec<u8>>
where
    T: AsRef<[IdSlot]> + AsMut<[IdSlot]>,
    H: AsRef<[TimeSlot]> + AsMut<[TimeSlot]>,
{
    snapshot_sealed(w, &Integrity::NONE)
}

/// The window's snapshot sealed as `integrity` says (see [`ReplayWindow::snapshot_sealed`])
/// in a new vector.
///
/// # Errors
/// [`Error::Limit`] with `Limit::Memory` when it cannot be allocated;
/// [`Error::InvalidArgument`] for a MAC key that is too short or an owner without a key.
pub fn snapshot_sealed<T, H>(w: &mut ReplayWindow<T, H>, integrity: &Integrity<'_>) -> Result<Vec<u8>>
where
    T: AsRef<[IdSlot]> + AsMut<[IdSlot]>,
    H: AsRef<[TimeSlot]> + AsMut<[TimeSlot]>,
{
    let mut out = try_filled(w.snapshot_len(), 0u8)?;
    let n = w.snapshot_sealed(&mut out, integrity)?;
    out.truncate(n);
    Ok(out)
}

/// Why a [`ReplayStore`] could not be opened or saved.
#[derive(Debug)]
pub enum StoreError {
    /// Resolving, reading, writing or locking the file failed, or the file is unsafe to
    /// use (more than one hard link, a symlinked lock file, a dangling symlink).
    Io(io::Error),
    /// The file is not a usable snapshot (truncated, corrupt, another version, too many
    /// keys, a MAC that does not verify, a generation older than the minimum) or the
    /// window cannot be allocated: refused, fail closed.
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
    /// The file did not exist: cold start (envelopes created up to 300 s after now are
    /// refused until everything that covers is older than the window).
    ColdStart,
    /// The file did not exist and the caller said the store is new: empty, unguarded.
    New,
}

/// How a [`ReplayStore`] opens and seals its file.
#[derive(Clone, Copy, Debug, Default)]
pub struct StoreOptions<'a> {
    /// A missing file is a new, unguarded store (only for a store known to be new) rather
    /// than a cold start.
    pub new_ok: bool,
    /// The snapshot's integrity: MAC key and owner (checked on open, used on every save)
    /// and the minimum generation (checked on open). [`Integrity::NONE`]: the checksum.
    pub integrity: Integrity<'a>,
}

/// A replay window kept in a file, locked for the life of this value.
pub struct ReplayStore {
    path: PathBuf,
    _lock: StoreLock,
    mac_key: Option<Vec<u8>>,
    owner: Vec<u8>,
    /// The window; check envelopes with it, then [`save`](ReplayStore::save).
    pub window: HostReplayWindow,
    /// How it started.
    pub opened: Opened,
}

impl fmt::Debug for ReplayStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ReplayStore")
            .field("path", &self.path)
            .field("sealed", &self.mac_key.is_some())
            .field("window", &self.window)
            .field("opened", &self.opened)
            .finish_non_exhaustive()
    }
}

impl Drop for ReplayStore {
    fn drop(&mut self) {
        if let Some(k) = self.mac_key.as_mut() {
            k.iter_mut().for_each(|b| *b = 0);
            std::hint::black_box(k);
        }
    }
}

impl ReplayStore {
    /// [`open_with`](Self::open_with) with the plain checksum.
    ///
    /// # Errors
    /// As [`open_with`](Self::open_with).
    pub fn open(path: &Path, now: Timestamp, new_ok: bool) -> std::result::Result<ReplayStore, StoreError> {
        Self::open_with(path, now, &StoreOptions { new_ok, integrity: Integrity::NONE })
    }

    /// Resolves the store's real path (symlinks followed once: every name of the store
    /// shares one lock and one file), locks it (waiting for other holders), refuses a file
    /// with more than one hard link, and restores its window under `options.integrity`. A
    /// missing file is a cold start at `now`, written to the file at once, or, when
    /// `new_ok`, an empty window without the cold-start guard (only for a store known to be
    /// new); either way the window's generation starts at the minimum given. A file that is not a usable snapshot is
    /// refused (the caller must not go on; removing the file gives a cold start).
    ///
    /// # Errors
    /// [`StoreError::Io`] when the file cannot be resolved, locked, read or (at a cold
    /// start) written, or is unsafe;
    /// [`StoreError::Refused`] for an unusable file or invalid `integrity`.
    pub fn open_with(
        path: &Path,
        now: Timestamp,
        options: &StoreOptions<'_>,
    ) -> std::result::Result<ReplayStore, StoreError> {
        let real = resolve(path).map_err(StoreError::Io)?;
        let lock = StoreLock::acquire(&real).map_err(StoreError::Io)?;
        check_single_link(&real).map_err(StoreError::Io)?;
        let mut window = new_window(STORE_CAPACITY).map_err(StoreError::Refused)?;
        let i = &options.integrity;
        let opened = match read_if_exists(&real).map_err(StoreError::Io)? {
            Some(bytes) => {
                window.restore_sealed(&bytes, now, i).map_err(StoreError::Refused)?;
                Opened::Restored
            }
            None => {
                // A cold start at `now`, the generation at the minimum; refuses bad arguments.
                if let Err(e @ Error::InvalidArgument(_)) = window.restore_sealed(&[], now, i) {
                    return Err(StoreError::Refused(e));
                }
                if options.new_ok {
                    window.end_cold_start();
                    Opened::New
                } else {
                    Opened::ColdStart
                }
            }
        };
        let mut store = ReplayStore {
            path: real,
            _lock: lock,
            mac_key: i.mac_key.map(<[u8]>::to_vec),
            owner: i.owner.to_vec(),
            window,
            opened,
        };
        if opened == Opened::ColdStart {
            // The start is kept at once: every later open restores the same guard (a store
            // never written would start cold anew at each open and never accept anything).
            store.save()?;
        }
        Ok(store)
    }

    /// The store's real path (symlinks resolved).
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Writes the window's snapshot over the file, atomically and durably, sealed as at
    /// open, and returns its generation (keep it to pass as the minimum next time).
    ///
    /// # Errors
    /// [`StoreError::Io`] when it cannot be written (the file keeps its previous contents).
    pub fn save(&mut self) -> std::result::Result<u64, StoreError> {
        let integrity = Integrity { mac_key: self.mac_key.as_deref(), owner: &self.owner, min_generation: 0 };
        let bytes = snapshot_sealed(&mut self.window, &integrity).map_err(StoreError::Refused)?;
        write_atomic(&self.path, &bytes).map_err(StoreError::Io)?;
        Ok(self.window.generation())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use concordia_core::aip::replay::{replay_key, Verdict};

    #[test]
    fn one_capacity_rule() {
        for bad in [0, MAX_CAPACITY + 1, usize::MAX] {
            assert!(matches!(new_window(bad), Err(Error::InvalidArgument(m)) if m.contains(&MAX_CAPACITY.to_string())));
        }
        assert_eq!(new_window(1).unwrap().capacity(), 1);
        for c in Capacity::ALL {
            assert_eq!(Capacity::parse(c.as_str()), Ok(c));
            assert_eq!(new_window(c.keys()).unwrap().capacity(), c.keys());
        }
        for name in ["Small", "", "huge", " small", "small\0"] {
            assert!(matches!(Capacity::parse(name), Err(Error::InvalidArgument(_))), "{name:?}");
        }
        assert!(Capacity::ALL.windows(2).all(|w| w[0].keys() < w[1].keys()));
        assert_eq!(STORE_CAPACITY, Capacity::Large.keys());
    }

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
        let later = now.add_seconds(301).unwrap();
        {
            let mut s = ReplayStore::open(&path, now, false).unwrap();
            assert_eq!(s.opened, Opened::ColdStart);
            assert!(s.window.check(1, now, now).is_err(), "created at the cold start");
            assert!(s.window.check(1, now.add_seconds(300).unwrap(), now).is_err(), "within the skew of the start");
            assert_eq!(s.window.check(1, later, later), Ok(Verdict::Fresh));
            assert_eq!(s.save().unwrap(), 2, "the cold start was saved at open (generation 1)");
        }
        {
            let mut s = ReplayStore::open(&path, now, false).unwrap();
            assert_eq!(s.opened, Opened::Restored);
            assert_eq!(s.window.check(1, later, later), Ok(Verdict::Duplicate));
        }
        let mut bytes = std::fs::read(&path).unwrap();
        bytes[50] ^= 0x10;
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
        {
            let mut s = ReplayStore::open(&path, now, true).unwrap();
            s.window.check(1, now, now).unwrap();
            s.save().unwrap();
        }
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

    /// Issue 32 (class 4): with a MAC key and a minimum generation, an older copy, another
    /// owner's store and a store edited with its checksum recomputed are refused, fail
    /// closed; an unclocked "never used" snapshot put over the store is a cold start.
    #[test]
    fn sealed_store_refuses_rollback_swap_and_edits() {
        let d = dir("sealed");
        let (path, other) = (d.join("replay.bin"), d.join("other.bin"));
        let now = Timestamp::from_unix(1_800_000_000);
        let key = [9u8; 32];
        let seal = |owner: &'static [u8], min| StoreOptions {
            new_ok: true,
            integrity: Integrity { mac_key: Some(&key), owner, min_generation: min },
        };
        let alice = replay_key("did:web:alice.example", 7);
        let mut s = ReplayStore::open_with(&path, now, &seal(b"did:web:me", 0)).unwrap();
        s.window.check(1, now, now).unwrap();
        assert_eq!(s.save().unwrap(), 1);
        let old = std::fs::read(&path).unwrap();
        s.window.check(alice, now, now).unwrap();
        let generation = s.save().unwrap();
        drop(s);
        let mut o = ReplayStore::open_with(&other, now, &seal(b"did:web:someone-else", 0)).unwrap();
        o.window.check(3, now, now).unwrap();
        o.save().unwrap();
        drop(o);
        let current = std::fs::read(&path).unwrap();
        let mut never = new_window(4).unwrap();
        let unclocked = snapshot(&mut never).unwrap();
        let cases: [(&str, &[u8]); 3] =
            [("older copy", &old), ("another agent's store", &std::fs::read(&other).unwrap()), ("plain", &unclocked)];
        for (what, bytes) in cases {
            std::fs::write(&path, bytes).unwrap();
            let r = ReplayStore::open_with(&path, now, &seal(b"did:web:me", generation));
            assert!(matches!(r, Err(StoreError::Refused(Error::Binding(_)))), "{what}: {r:?}");
        }
        // Without a key the checksum alone lets a "never used" snapshot through, but only as
        // a cold start: the forgotten envelope still does not open.
        std::fs::write(&path, &unclocked).unwrap();
        let mut s = ReplayStore::open(&path, now, false).unwrap();
        assert!(s.window.cold_start_guard().is_some());
        assert!(s.window.check(alice, now, now).is_err());
        drop(s);
        std::fs::write(&path, &current).unwrap();
        let mut s = ReplayStore::open_with(&path, now, &seal(b"did:web:me", generation)).unwrap();
        assert_eq!(s.window.check(alice, now, now), Ok(Verdict::Duplicate));
        assert_eq!(s.save().unwrap(), generation + 1);
        assert!(!format!("{s:?}").contains("9, 9"), "the key is not in Debug");
        let _ = std::fs::remove_dir_all(&d);
    }

    /// Issue 32 (class 3): a symlink to the store and the store's real path share one lock
    /// and one file.
    #[cfg(unix)]
    #[test]
    fn symlinked_store_shares_the_lock_and_the_file() {
        let d = dir("symlink");
        let real = d.join("replay.bin");
        let link = d.join("link.bin");
        let now = Timestamp::from_unix(1_800_000_000);
        ReplayStore::open(&real, now, true).unwrap().save().unwrap();
        std::os::unix::fs::symlink(&real, &link).unwrap();
        let held = ReplayStore::open(&link, now, false).unwrap();
        assert_eq!(held.path(), std::fs::canonicalize(&real).unwrap());
        let got = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let waiter = {
            let (real, got) = (real.clone(), got.clone());
            std::thread::spawn(move || {
                let s = ReplayStore::open(&real, now, false).unwrap();
                got.store(true, std::sync::atomic::Ordering::SeqCst);
                s.window.len()
            })
        };
        std::thread::sleep(std::time::Duration::from_millis(200));
        assert!(!got.load(std::sync::atomic::Ordering::SeqCst), "the real path took a second lock");
        let mut held = held;
        held.window.check(5, now, now).unwrap();
        held.save().unwrap();
        drop(held);
        assert_eq!(waiter.join().unwrap(), 1, "the real path sees what was saved through the link");
        assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink(), "the link is not replaced");
        let _ = std::fs::remove_dir_all(&d);
    }

    /// Issue 32 (class 3): a symlink planted at the old fixed temporary name (or at the
    /// lock's name) is not written through; a store with a second hard link is refused.
    #[cfg(unix)]
    #[test]
    fn planted_links_are_not_followed_and_hard_links_refused() {
        let d = dir("planted");
        let path = d.join("replay.bin");
        let victim = d.join("victim");
        std::fs::write(&victim, b"precious").unwrap();
        std::os::unix::fs::symlink(&victim, d.join("replay.bin.tmp")).unwrap();
        let now = Timestamp::from_unix(1_800_000_000);
        let mut s = ReplayStore::open(&path, now, true).unwrap();
        s.window.check(1, now, now).unwrap();
        s.save().unwrap();
        drop(s);
        assert_eq!(std::fs::read(&victim).unwrap(), b"precious");
        assert!(std::fs::symlink_metadata(d.join("replay.bin.tmp")).unwrap().file_type().is_symlink());
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o600, "the store is written 0600");
        }
        // A hard link to the store: refused, with a clear error.
        std::fs::hard_link(&path, d.join("second-name.bin")).unwrap();
        let e = ReplayStore::open(&path, now, false).unwrap_err();
        assert!(matches!(&e, StoreError::Io(_)) && e.to_string().contains("hard links"), "{e}");
        std::fs::remove_file(d.join("second-name.bin")).unwrap();
        assert!(ReplayStore::open(&path, now, false).is_ok());
        // A symlinked lock file: refused.
        std::fs::remove_file(d.join("replay.bin.lock")).unwrap();
        std::os::unix::fs::symlink(&victim, d.join("replay.bin.lock")).unwrap();
        let e = ReplayStore::open(&path, now, false).unwrap_err();
        assert!(e.to_string().contains("symbolic link"), "{e}");
        assert_eq!(std::fs::read(&victim).unwrap(), b"precious");
        // A dangling symlink as the store: refused (not created at the link's target).
        let dangling = d.join("dangling.bin");
        std::os::unix::fs::symlink(d.join("nowhere"), &dangling).unwrap();
        assert!(ReplayStore::open(&dangling, now, true).is_err());
        assert!(!d.join("nowhere").exists());
        let _ = std::fs::remove_dir_all(&d);
    }
}
