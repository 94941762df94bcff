//! A fixed-capacity replay window for at-least-once relay delivery.
//!
//! A relay delivers every envelope at least once, so the recipient must recognise a
//! message it has already processed. [`ReplayWindow::check`] takes the envelope's replay
//! key (128 bits from its sender and its `id`: [`replay_key`], or
//! [`Envelope::replay_key`](crate::aip::envelope::Envelope::replay_key)), its `created_at`
//! and the caller's `now`, and decides:
//!
//! * `created_at > now + 300 s` (more than [`MAX_FUTURE_SKEW`] ahead): rejected,
//!   [`Error::Temporal`];
//! * `created_at < now - 600 s` (older than [`WINDOW`]): rejected, [`Error::Temporal`];
//!   both bounds are inclusive to the nanosecond (`now + 300 s` and `now - 600 s` pass);
//! * a key already remembered: [`Verdict::Duplicate`], so the caller can acknowledge the
//!   delivery without processing it again;
//! * otherwise the key is remembered and the result is [`Verdict::Fresh`], unless all `N`
//!   slots hold keys that are still inside the window: then the window fails closed with
//!   [`Error::Limit`] (`Capacity`) rather than forget one of them.
//!
//! # Keys: sender and id
//!
//! An entry is keyed by the sender's DID (the envelope's signed `from`) together with the
//! `id`, not by the `id` alone: only a copy from the same sender is a duplicate, so another
//! sender who copies Alice's `id` (ids are not secret) and gets his envelope in first does
//! not make Alice's genuine envelope a "replay". [`replay_key`] is the first 128 bits of
//! SHA-256 over [`REPLAY_KEY_LABEL`], the length of `from` (u64 little-endian), the bytes
//! of `from` and the id (16 bytes, big-endian): collision-resistant (finding two
//! (sender, id) pairs with one key takes about 2^64 work), and the length prefix keeps the
//! fields apart. The window itself only sees 128-bit keys.
//!
//! An entry is evicted exactly when its `created_at` has left the window
//! (`created_at < now - 600 s`); from that moment any copy of that message (same signed
//! `created_at`) is rejected as too old, so no key is ever accepted twice. `now` is made
//! monotone: a `now` earlier than one already seen is read as the latest seen, so a clock
//! stepping back cannot resurrect an evicted key. The clock moves only with an accepted
//! check: a check that fails (any error) leaves the window exactly as it was, its clock
//! included, so a rejected envelope cannot push the window forward.
//!
//! # Restarts: snapshot, restore, cold start
//!
//! [`ReplayWindow::snapshot`] writes the state (keys, `created_at`s, clock, cold-start
//! guard, generation) into a caller buffer ([`ReplayWindow::snapshot_len`] or
//! [`snapshot_len_for`] sizes it); [`ReplayWindow::restore`] reads it back, and the
//! restored window gives the same verdicts as the uninterrupted one. Write the snapshot
//! before acting on a `Fresh` verdict, or a crash in between forgets the key. Bytes (all
//! integers little-endian):
//!
//! ```text
//! 0   "CRWS"         magic
//! 4   2              version (SNAPSHOT_VERSION)
//! 5   flags          bit 0: clock present, bit 1: cold-start guard present,
//!                    bit 2: sealed with a MAC (else a plain SHA-256 checksum); others 0
//! 6   0 0            reserved
//! 8   u64            generation (one more at every snapshot)
//! 16  i64 + u32      clock (seconds, nanoseconds; zero when absent)
//! 28  i64 + u32      cold-start guard (likewise)
//! 40  u32            count
//! 44  count x 28     key (u128), created_at (i64 seconds, u32 nanoseconds), in heap order
//! end-32             SHA-256 of everything before, or its HMAC-SHA256 (bit 2)
//! ```
//!
//! Restoring fails closed: bytes that are missing, truncated, bit-flipped, of another
//! version or inconsistent (a key twice, a `created_at` outside the window at the saved
//! clock, entries out of heap order), or refused by the [`Integrity`] the caller asks
//! for, are refused, and the window is left empty and [cold-started](ReplayWindow::cold_start).
//! A snapshot of version 1 (whose entries were keyed by the `id` alone, so they cannot be
//! converted) is refused the same way, the cold start at the later of its saved clock and
//! `now`. A snapshot without a clock (of a window that never accepted anything) restores as
//! a cold start too, never as an unguarded empty window: such bytes put over a store must
//! not erase what it remembered.
//!
//! # What the checksum covers, and what a MAC adds
//!
//! The SHA-256 checksum detects accidents (a torn write, a flipped bit, a truncated copy),
//! not tampering: anyone who can write the file can delete an entry and recompute the
//! checksum, put back an older copy (rollback), or put another agent's store in its place
//! (swap), and the replay it forgot opens again. A deployment that must resist that
//! chooses [`Integrity`] for [`ReplayWindow::snapshot_sealed`] and
//! [`ReplayWindow::restore_sealed`]:
//!
//! * `mac_key`: the last 32 bytes are HMAC-SHA256 under a key the caller keeps outside
//!   the file (at least 16 bytes; 32 random bytes are right), over [`SNAPSHOT_MAC_LABEL`],
//!   the owner's length (u64 little-endian), the owner and everything before the MAC. An
//!   edited snapshot, a snapshot without a MAC, or one sealed under another key does not
//!   restore (`Error::Binding`); a MAC snapshot restored without its key is refused too.
//! * `owner`: bound into the MAC (e.g. the recipient's DID), so another agent's store
//!   sealed under the same key does not verify. Needs `mac_key`.
//! * `min_generation`: every snapshot carries a generation, one more than the window's
//!   last ([`ReplayWindow::generation`]); restore refuses a generation below the minimum
//!   the caller supplies (an older copy: rollback). The caller keeps the last generation it
//!   saved somewhere the file's writer cannot roll back. Without a MAC the generation can
//!   be edited like the rest, so it then catches accidents (an old backup) only.
//!
//! After a refusal the window's generation is at least `min_generation`, so the next
//! snapshot it writes restores under the same minimum.
//!
//! Structure: an AVL tree keyed by id (lookup and insert O(log N)) and a binary min-heap
//! keyed by `created_at` (eviction O(log N) each), in two arrays the caller provides: one
//! [`IdSlot`] (32 bytes) and one [`TimeSlot`] (16 bytes) per id, so a window of 65,536 ids
//! takes 3 MiB; no allocation. Each array is any `AsRef<[_]> + AsMut<[_]>`: fixed arrays
//! inside the window ([`FixedReplayWindow`], usable in a `static`), slices borrowed from
//! the caller, or boxed slices on a hosted target. (Two arrays rather than one of 48-byte
//! pairs: tree lookups then touch 32-byte nodes only, which measured 15 % faster.)
//!
//! ```
//! use concordia_core::aip::replay::{replay_key, FixedReplayWindow, IdSlot, ReplayWindow, TimeSlot, Verdict};
//! use concordia_core::time::Timestamp;
//!
//! let now = Timestamp::from_unix(1_800_000_000);
//! let (alice, bob) = (replay_key("did:web:alice.example", 7), replay_key("did:web:bob.example", 7));
//! // Storage inside the value...
//! let mut w = FixedReplayWindow::<64>::new();
//! assert_eq!(w.check(alice, now, now), Ok(Verdict::Fresh));
//! assert_eq!(w.check(alice, now, now), Ok(Verdict::Duplicate));
//! // Bob's envelope with Alice's id is not her message.
//! assert_eq!(w.check(bob, now, now), Ok(Verdict::Fresh));
//! // ...or borrowed from the caller.
//! let (mut ids, mut times) = ([IdSlot::EMPTY; 16], [TimeSlot::EMPTY; 16]);
//! let mut w = ReplayWindow::new_in(&mut ids[..], &mut times[..]);
//! assert_eq!(w.capacity(), 16);
//! assert_eq!(w.check(7, now, now), Ok(Verdict::Fresh));
//! ```

use crate::error::{Error, Limit, Result};
use crate::time::Timestamp;

/// How long ids are remembered and how old `created_at` may be: 600 s. Every rule value,
/// with its constant, is listed in docs/limits.md (the wrappers' docs refer to it).
pub const WINDOW: i64 = 600;
/// How far `created_at` may be ahead of `now`: 300 s (docs/limits.md).
pub const MAX_FUTURE_SKEW: i64 = 300;

const NIL: u32 = u32::MAX;

fn key_of(t: Timestamp) -> (i64, u32) {
    (t.unix_seconds(), t.subsec_nanos())
}

/// `[now - WINDOW, now + MAX_FUTURE_SKEW]`.
fn bounds(now: Timestamp) -> Result<(Timestamp, Timestamp)> {
    let oldest = now.add_seconds(-WINDOW).map_err(|_| Error::InvalidArgument("now out of range"))?;
    let newest = now.add_seconds(MAX_FUTURE_SKEW).map_err(|_| Error::InvalidArgument("now out of range"))?;
    Ok((oldest, newest))
}

/// The window's time rule alone, for a caller without a window: `created_at` must lie in
/// `[now - WINDOW, now + MAX_FUTURE_SKEW]` (both bounds inclusive).
///
/// # Errors
/// [`Error::Temporal`] outside it; [`Error::InvalidArgument`] when `now` is too close to
/// the ends of time.
pub fn check_fresh(created_at: Timestamp, now: Timestamp) -> Result<()> {
    let (oldest, newest) = bounds(now)?;
    if created_at > newest {
        return Err(Error::Temporal("created_at is more than 300 s in the future"));
    }
    if created_at < oldest {
        return Err(Error::Temporal("created_at is older than the 600 s replay window"));
    }
    Ok(())
}

/// The domain-separation label of [`replay_key`].
pub const REPLAY_KEY_LABEL: &[u8] = b"concordia aip replay key v1\0";

/// The replay window's key for the envelope `id` from the sender `from` (its DID, the
/// envelope's signed `from` text): the first 16 bytes (big-endian) of SHA-256 over
/// [`REPLAY_KEY_LABEL`], `from`'s length as u64 little-endian, `from`'s bytes and `id` as
/// 16 big-endian bytes. Only a copy from the same sender has the same key.
#[must_use]
pub fn replay_key(from: &str, id: u128) -> u128 {
    let mut h = crate::digest::Sha256Sink::new();
    h.update(REPLAY_KEY_LABEL);
    h.update(&(from.len() as u64).to_le_bytes());
    h.update(from.as_bytes());
    h.update(&id.to_be_bytes());
    u128::from_be_bytes(le(&h.finish().0, 0))
}

/// The version [`ReplayWindow::snapshot`] writes and [`ReplayWindow::restore`] reads.
pub const SNAPSHOT_VERSION: u8 = 2;
/// The domain-separation label of a snapshot's MAC (see [`Integrity`]).
pub const SNAPSHOT_MAC_LABEL: &[u8] = b"concordia aip replay snapshot mac v2\0";
/// The shortest MAC key [`Integrity`] accepts: 16 bytes.
pub const MIN_MAC_KEY_LEN: usize = 16;
const SNAPSHOT_MAGIC: [u8; 4] = *b"CRWS";
const SNAPSHOT_HEADER: usize = 44;
const SNAPSHOT_ENTRY: usize = 28;
const SNAPSHOT_CHECKSUM: usize = 32;
const FLAG_CLOCK: u8 = 1;
const FLAG_GUARD: u8 = 2;
const FLAG_MAC: u8 = 4;
const CORRUPT: Error = Error::Encoding("replay snapshot is corrupt (inconsistent contents)");

/// The length of the snapshot of a window that remembers `ids` keys: 76 + 28 per key (a
/// buffer of `snapshot_len_for(capacity)` bytes holds any snapshot of a window).
#[must_use]
pub const fn snapshot_len_for(ids: usize) -> usize {
    SNAPSHOT_HEADER + SNAPSHOT_CHECKSUM + ids.saturating_mul(SNAPSHOT_ENTRY)
}

/// The integrity a deployment chooses for its snapshots (module documentation: "What the
/// checksum covers, and what a MAC adds"). [`Integrity::NONE`] (the default) is the plain
/// checksum, which detects accidents only. The key is never shown by `Debug`.
#[derive(Clone, Copy, Default)]
pub struct Integrity<'a> {
    /// The HMAC-SHA256 key (at least [`MIN_MAC_KEY_LEN`] bytes), kept outside the
    /// snapshot. `None`: the SHA-256 checksum alone, and a MAC snapshot is refused.
    pub mac_key: Option<&'a [u8]>,
    /// Bound into the MAC (e.g. the recipient's DID), so another owner's snapshot does not
    /// verify; empty: not bound. Only with `mac_key`.
    pub owner: &'a [u8],
    /// [`restore_sealed`](ReplayWindow::restore_sealed) refuses a snapshot whose
    /// generation is below this (rollback); 0 accepts any. Not used by snapshots.
    pub min_generation: u64,
}

impl Integrity<'_> {
    /// The plain checksum, no owner, any generation.
    pub const NONE: Integrity<'static> = Integrity { mac_key: None, owner: &[], min_generation: 0 };

    fn validate(&self) -> Result<()> {
        match self.mac_key {
            Some(k) if k.len() < MIN_MAC_KEY_LEN => {
                Err(Error::InvalidArgument("replay snapshot MAC key must be at least 16 bytes"))
            }
            None if !self.owner.is_empty() => {
                Err(Error::InvalidArgument("a replay snapshot owner is bound only with a MAC key"))
            }
            _ => Ok(()),
        }
    }

    /// The last 32 bytes of a snapshot whose other bytes are `body`.
    fn seal(&self, body: &[u8]) -> [u8; 32] {
        match self.mac_key {
            None => crate::digest::sha256(body).0,
            Some(k) => {
                use hmac::{KeyInit, Mac};
                let Ok(mut m) = hmac::Hmac::<sha2::Sha256>::new_from_slice(k) else { return [0; 32] };
                m.update(SNAPSHOT_MAC_LABEL);
                m.update(&(self.owner.len() as u64).to_le_bytes());
                m.update(self.owner);
                m.update(body);
                m.finalize().into_bytes().into()
            }
        }
    }

    /// Whether `sum` seals `body` (in constant time for a MAC).
    fn verifies(&self, body: &[u8], sum: &[u8]) -> bool {
        let want = self.seal(body);
        let diff = want.iter().zip(sum).fold(u8::from(sum.len() != want.len()), |d, (a, b)| d | (a ^ b));
        diff == 0
    }
}

impl core::fmt::Debug for Integrity<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Integrity")
            .field("mac_key", &self.mac_key.map(|_| "<redacted>"))
            .field("owner_len", &self.owner.len())
            .field("min_generation", &self.min_generation)
            .finish()
    }
}

struct Writer<'a> {
    out: &'a mut [u8],
    at: usize,
}

impl Writer<'_> {
    fn put(&mut self, bytes: &[u8]) {
        if let Some(d) = self.out.get_mut(self.at..self.at + bytes.len()) {
            d.copy_from_slice(bytes);
        }
        self.at += bytes.len();
    }

    fn time(&mut self, t: Option<Timestamp>) {
        let (secs, nanos) = t.map_or((0, 0), key_of);
        self.put(&secs.to_le_bytes());
        self.put(&nanos.to_le_bytes());
    }
}

/// A snapshot whose framing, seal and header have been checked.
struct Snapshot<'a> {
    entries: &'a [u8],
    count: usize,
    generation: u64,
    latest: Option<Timestamp>,
    guard: Option<Timestamp>,
}

fn le<const K: usize>(b: &[u8], at: usize) -> [u8; K] {
    let mut a = [0u8; K];
    if let Some(s) = b.get(at..at + K) {
        a.copy_from_slice(s);
    }
    a
}

fn time_at(b: &[u8], at: usize) -> Result<Timestamp> {
    Timestamp::from_unix_nanos(i64::from_le_bytes(le(b, at)), u32::from_le_bytes(le(b, at + 8))).map_err(|_| CORRUPT)
}

/// The saved clock of a well-formed version-1 snapshot (36-byte header, 28-byte entries,
/// SHA-256 checksum; clock at offset 8 when flag bit 0 is set).
fn v1_clock(s: &[u8]) -> Option<Timestamp> {
    const V1_FIXED: usize = 36 + SNAPSHOT_CHECKSUM;
    if s.len() < V1_FIXED || !(s.len() - V1_FIXED).is_multiple_of(SNAPSHOT_ENTRY) {
        return None;
    }
    if s.get(..4) != Some(&SNAPSHOT_MAGIC[..]) || s.get(4) != Some(&1) || s.get(5).is_none_or(|f| f & 1 == 0) {
        return None;
    }
    let (body, sum) = s.split_at(s.len() - SNAPSHOT_CHECKSUM);
    if crate::digest::sha256(body).as_bytes() != sum {
        return None;
    }
    let t = time_at(s, 8).ok()?;
    bounds(t).ok().map(|_| t)
}

impl<'a> Snapshot<'a> {
    fn parse(s: &'a [u8], integrity: &Integrity<'_>) -> Result<Self> {
        if s.get(..4).is_some_and(|m| m != SNAPSHOT_MAGIC) {
            return Err(Error::Encoding("not a replay window snapshot"));
        }
        if s.get(4) == Some(&1) {
            return Err(Error::Encoding(
                "replay snapshot version 1 (entries keyed by id alone) is not restored: cold start",
            ));
        }
        if s.len() < snapshot_len_for(0) || !(s.len() - snapshot_len_for(0)).is_multiple_of(SNAPSHOT_ENTRY) {
            return Err(Error::Encoding("replay snapshot is truncated or has a wrong length"));
        }
        if s.get(4) != Some(&SNAPSHOT_VERSION) {
            return Err(Error::Encoding("replay snapshot version is not supported"));
        }
        let flags = s.get(5).copied().unwrap_or(0xff);
        let (body, sum) = s.split_at(s.len() - SNAPSHOT_CHECKSUM);
        match (flags & FLAG_MAC != 0, integrity.mac_key.is_some()) {
            (false, false) if !integrity.verifies(body, sum) => {
                return Err(Error::Encoding("replay snapshot checksum does not match"));
            }
            (true, true) if !integrity.verifies(body, sum) => {
                return Err(Error::Binding(
                    "replay snapshot MAC does not verify (another key or owner, or the file was changed)",
                ));
            }
            (false, true) => return Err(Error::Binding("replay snapshot has no MAC, and a MAC key was given")),
            (true, false) => return Err(Error::Binding("replay snapshot is sealed with a MAC: restore needs its key")),
            _ => {}
        }
        if flags & !(FLAG_CLOCK | FLAG_GUARD | FLAG_MAC) != 0 || s.get(6..8) != Some(&[0, 0][..]) {
            return Err(CORRUPT);
        }
        let generation = u64::from_le_bytes(le(s, 8));
        if generation < integrity.min_generation {
            return Err(Error::Binding("replay snapshot generation is older than the minimum (rolled back)"));
        }
        let latest = time_at(s, 16)?;
        let guard = time_at(s, 28)?;
        let count = u32::from_le_bytes(le(s, 40)) as usize;
        let entries = body.get(SNAPSHOT_HEADER..).unwrap_or(&[]);
        if entries.len() != count.saturating_mul(SNAPSHOT_ENTRY) {
            return Err(CORRUPT);
        }
        let latest = if flags & FLAG_CLOCK != 0 { Some(latest) } else { None };
        let guard = if flags & FLAG_GUARD != 0 { Some(guard) } else { None };
        let snap = Snapshot { entries, count, generation, latest, guard };
        match latest {
            // A window without a clock has never accepted anything, nor been cold-started.
            None if count > 0 || guard.is_some() => return Err(CORRUPT),
            None => {}
            Some(l) => {
                let (_, newest) = bounds(l).map_err(|_| CORRUPT)?;
                // A guard covers at most what the window could accept at its clock.
                if guard.is_some_and(|g| g > newest) {
                    return Err(CORRUPT);
                }
            }
        }
        Ok(snap)
    }

    /// Entry `i`: its key and `created_at`, which must lie inside the window at `latest`.
    fn entry(&self, i: usize) -> Result<(u128, Timestamp)> {
        let at = i * SNAPSHOT_ENTRY;
        let id = u128::from_le_bytes(le(self.entries, at));
        let t = time_at(self.entries, at + 16)?;
        let (oldest, newest) = bounds(self.latest.ok_or(CORRUPT)?).map_err(|_| CORRUPT)?;
        if t < oldest || t > newest {
            return Err(CORRUPT);
        }
        Ok((id, t))
    }
}

/// The outcome of an accepted [`ReplayWindow::check`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// First sighting: process the message.
    Fresh,
    /// Already seen inside the window: acknowledge, do not process again.
    Duplicate,
}

#[derive(Clone, Copy, Debug)]
struct TreeNode {
    id: u128,
    left: u32,
    right: u32,
    height: u8,
}

impl TreeNode {
    const EMPTY: TreeNode = TreeNode { id: 0, left: NIL, right: NIL, height: 0 };
}

/// 16 bytes: `created_at` flattened (no padding) and the tree node of the id.
#[derive(Clone, Copy, Debug)]
struct HeapEntry {
    secs: i64,
    nanos: u32,
    node: u32,
}

impl HeapEntry {
    const EMPTY: HeapEntry = HeapEntry { secs: 0, nanos: 0, node: NIL };

    fn new(at: Timestamp, node: u32) -> Self {
        HeapEntry { secs: at.unix_seconds(), nanos: at.subsec_nanos(), node }
    }

    fn key(&self) -> (i64, u32) {
        (self.secs, self.nanos)
    }
}

/// Storage for one id in a [`ReplayWindow`]'s search tree (32 bytes).
#[derive(Clone, Copy, Debug)]
pub struct IdSlot(TreeNode);

impl IdSlot {
    /// An unused slot, for initializing storage: `[IdSlot::EMPTY; 1024]`.
    pub const EMPTY: IdSlot = IdSlot(TreeNode::EMPTY);
}

/// Storage for one id's `created_at` in a [`ReplayWindow`]'s eviction heap (16 bytes).
#[derive(Clone, Copy, Debug)]
pub struct TimeSlot(HeapEntry);

impl TimeSlot {
    /// An unused slot, for initializing storage: `[TimeSlot::EMPTY; 1024]`.
    pub const EMPTY: TimeSlot = TimeSlot(HeapEntry::EMPTY);
}

/// A window whose storage for `N` ids is inside it (usable in a `static`).
pub type FixedReplayWindow<const N: usize> = ReplayWindow<[IdSlot; N], [TimeSlot; N]>;

/// Remembers up to `capacity()` message ids for [`WINDOW`] seconds, in the caller's
/// storage: `T` holds [`IdSlot`]s, `H` holds [`TimeSlot`]s.
#[derive(Clone)]
pub struct ReplayWindow<T, H> {
    nodes: T,
    heap: H,
    len: usize,
    root: u32,
    free: u32,
    unused: u32,
    latest: Option<Timestamp>,
    guard: Option<Timestamp>,
    generation: u64,
}

impl<T: AsRef<[IdSlot]>, H: AsRef<[TimeSlot]>> core::fmt::Debug for ReplayWindow<T, H> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("ReplayWindow")
            .field("len", &self.len)
            .field("capacity", &self.capacity())
            .finish_non_exhaustive()
    }
}

impl<const N: usize> Default for FixedReplayWindow<N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize> FixedReplayWindow<N> {
    /// An empty window with room for `N` ids inside (usable in a `static`).
    #[must_use]
    pub const fn new() -> Self {
        Self::new_in([IdSlot::EMPTY; N], [TimeSlot::EMPTY; N])
    }
}

impl<T: AsRef<[IdSlot]> + AsMut<[IdSlot]>, H: AsRef<[TimeSlot]> + AsMut<[TimeSlot]>> ReplayWindow<T, H> {
    /// An empty window over the caller's storage (previous contents do not matter).
    /// Capacity is the shorter of the two lengths, at most 2^32 - 2.
    pub const fn new_in(ids: T, times: H) -> Self {
        ReplayWindow {
            nodes: ids,
            heap: times,
            len: 0,
            root: NIL,
            free: NIL,
            unused: 0,
            latest: None,
            guard: None,
            generation: 0,
        }
    }

    /// The storage back (for reuse); the window is gone.
    pub fn into_storage(self) -> (T, H) {
        (self.nodes, self.heap)
    }
}

impl<T: AsRef<[IdSlot]>, H: AsRef<[TimeSlot]>> ReplayWindow<T, H> {
    /// Ids currently remembered.
    #[must_use]
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when nothing is remembered.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The most ids it can remember at once: the shorter storage's length (at most
    /// 2^32 - 2).
    #[must_use]
    pub fn capacity(&self) -> usize {
        self.nodes.as_ref().len().min(self.heap.as_ref().len()).min(NIL as usize - 1)
    }

    #[inline]
    fn node(&self, i: u32) -> TreeNode {
        self.nodes.as_ref().get(i as usize).map_or(TreeNode::EMPTY, |s| s.0)
    }

    #[inline]
    fn at(&self, i: usize) -> (i64, u32) {
        self.heap.as_ref().get(i).map_or((0, 0), |s| s.0.key())
    }

    /// The cold-start guard: envelopes created at or before it are refused (see
    /// [`cold_start`](ReplayWindow::cold_start): the start plus [`MAX_FUTURE_SKEW`]);
    /// `None` when not guarded.
    #[must_use]
    pub fn cold_start_guard(&self) -> Option<Timestamp> {
        self.guard
    }

    /// The generation of the last snapshot this window wrote or restored (0 before any);
    /// the next [`snapshot`](Self::snapshot) writes one more. Keep the value a snapshot was
    /// written with to pass as [`Integrity::min_generation`] on restore.
    #[must_use]
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// The length of [`snapshot`](Self::snapshot)'s output now:
    /// [`snapshot_len_for`]`(self.len())`.
    #[must_use]
    pub fn snapshot_len(&self) -> usize {
        snapshot_len_for(self.len)
    }

    /// Whether the key `id` is remembered (O(log N); no eviction, no clock).
    #[must_use]
    pub fn contains(&self, id: u128) -> bool {
        let nodes = self.nodes.as_ref();
        let mut i = self.root;
        while i != NIL {
            let Some(IdSlot(n)) = nodes.get(i as usize) else { return false };
            if id == n.id {
                return true;
            }
            i = if id < n.id { n.left } else { n.right };
        }
        false
    }
}

impl<T: AsRef<[IdSlot]> + AsMut<[IdSlot]>, H: AsRef<[TimeSlot]> + AsMut<[TimeSlot]>> ReplayWindow<T, H> {
    /// Writes the window's state (its keys with their `created_at`, its clock, its
    /// cold-start guard and the next generation) into `out` as versioned, checksummed
    /// bytes (format in the module documentation) and returns their length: the same as
    /// [`snapshot_sealed`](Self::snapshot_sealed) with [`Integrity::NONE`].
    ///
    /// # Errors
    /// As [`snapshot_sealed`](Self::snapshot_sealed).
    pub fn snapshot(&mut self, out: &mut [u8]) -> Result<usize> {
        self.snapshot_sealed(out, &Integrity::NONE)
    }

    /// Writes the window's state into `out`, sealed as `integrity` says (its MAC key and
    /// owner; `min_generation` is not used), and returns the length. The snapshot carries
    /// the generation one more than [`generation`](Self::generation), which it becomes;
    /// [`restore_sealed`](ReplayWindow::restore_sealed) with the same key and owner reads
    /// it back into a window of at least this window's [`len`](Self::len).
    ///
    /// # Errors
    /// [`Error::BufferTooSmall`] with the length needed (an empty `out` is a size query;
    /// the generation does not move); [`Error::InvalidArgument`] for a MAC key shorter than
    /// [`MIN_MAC_KEY_LEN`] or an owner without a key.
    pub fn snapshot_sealed(&mut self, out: &mut [u8], integrity: &Integrity<'_>) -> Result<usize> {
        integrity.validate()?;
        let needed = self.snapshot_len();
        let Some(out) = out.get_mut(..needed) else {
            return Err(Error::BufferTooSmall { needed });
        };
        let generation = self.generation.saturating_add(1);
        let mut flags = 0;
        for (on, bit) in [
            (self.latest.is_some(), FLAG_CLOCK),
            (self.guard.is_some(), FLAG_GUARD),
            (integrity.mac_key.is_some(), FLAG_MAC),
        ] {
            if on {
                flags |= bit;
            }
        }
        let (body, sum) = out.split_at_mut(needed - SNAPSHOT_CHECKSUM);
        let mut w = Writer { out: body, at: 0 };
        w.put(&SNAPSHOT_MAGIC);
        w.put(&[SNAPSHOT_VERSION, flags, 0, 0]);
        w.put(&generation.to_le_bytes());
        w.time(self.latest);
        w.time(self.guard);
        w.put(&u32::try_from(self.len).unwrap_or(u32::MAX).to_le_bytes());
        for slot in self.heap.as_ref().iter().take(self.len) {
            w.put(&self.node(slot.0.node).id.to_le_bytes());
            w.put(&slot.0.secs.to_le_bytes());
            w.put(&slot.0.nanos.to_le_bytes());
        }
        sum.copy_from_slice(&integrity.seal(body));
        self.generation = generation;
        Ok(needed)
    }

    /// Checks one delivery of the envelope whose replay key is `id` ([`replay_key`] of its
    /// sender and id); see the module documentation for the rules. A check that fails (any
    /// `Err`) leaves the window exactly as it was, its clock included: only an accepted
    /// check (`Fresh` or `Duplicate`) moves the clock to `now` and evicts.
    ///
    /// # Errors
    /// [`Error::Temporal`] for a `created_at` outside `[now - 600 s, now + 300 s]`, or
    /// not after the guard of a [cold start](Self::cold_start) still in force;
    /// [`Error::Limit`] (`Capacity`) when the id is new and every slot holds an id still
    /// inside the window; [`Error::InvalidArgument`] when `now` is too close to the ends of
    /// time to subtract the window.
    pub fn check(&mut self, id: u128, created_at: Timestamp, now: Timestamp) -> Result<Verdict> {
        let now = match self.latest {
            Some(l) if l > now => l,
            _ => now,
        };
        let (oldest, _) = bounds(now)?;
        check_fresh(created_at, now)?;
        if self.guard.is_some_and(|g| created_at <= g) {
            return Err(Error::Temporal(
                "created_at is not after the replay window's cold-start guard (what was accepted before it is unknown)",
            ));
        }
        // Full, the id unknown and nothing old enough to evict: refuse before changing
        // anything. (An id that is remembered but about to be evicted frees its own slot.)
        if self.len >= self.capacity() && !self.contains(id) && (self.len == 0 || self.at(0) >= key_of(oldest)) {
            return Err(Error::limit(Limit::Capacity, 0));
        }
        self.latest = Some(now);
        if self.guard.is_some_and(|g| g < oldest) {
            // Everything the guard covers is now too old for the window's own age rule
            // (`created_at < now - 600 s`), so dropping it accepts nothing it refused.
            self.guard = None;
        }
        self.evict_before(oldest);
        if self.contains(id) {
            return Ok(Verdict::Duplicate);
        }
        let slot = self.alloc().ok_or(Error::limit(Limit::Capacity, 0))?;
        self.insert_entry(slot, id, created_at);
        Ok(Verdict::Fresh)
    }

    fn insert_entry(&mut self, slot: u32, id: u128, created_at: Timestamp) {
        self.set(slot, TreeNode { id, left: NIL, right: NIL, height: 1 });
        self.root = self.insert(self.root, slot).0;
        self.heap_push(HeapEntry::new(created_at, slot));
    }

    /// Forgets every key and starts cold at `now` (or the latest `now` already seen, if
    /// later), the start: envelopes whose `created_at` is at or before the start plus
    /// [`MAX_FUTURE_SKEW`] (the guard, [`cold_start_guard`](Self::cold_start_guard)) are
    /// refused ([`Error::Temporal`]), since the window cannot know whether they were
    /// accepted before it lost its memory (a restart without a usable snapshot): the lost
    /// window accepted `created_at` up to its clock plus 300 s, and its clock was not after
    /// the start. The guard lasts until it is older than `now - WINDOW` (a `now` more than
    /// 900 s after the start), when the window's own age rule refuses all it covers.
    /// The cost is availability: genuine envelopes created within 300 s after the start
    /// are refused too (the sender must send anew). [`restore`](Self::restore) calls it on
    /// every snapshot it refuses; call it yourself when there is no snapshot at all. The
    /// guard is kept in snapshots.
    ///
    /// What it does not cover: a clock that was ahead before the loss and behind after it
    /// (a start earlier than the lost window's clock), by as much as it was behind.
    pub fn cold_start(&mut self, now: Timestamp) {
        let start = match self.latest {
            Some(l) if l > now => l,
            _ => now,
        };
        self.clear();
        self.latest = Some(start);
        // At the far end of time every check fails anyway (`bounds` refuses such a `now`).
        self.guard = Some(start.add_seconds(MAX_FUTURE_SKEW).unwrap_or(start));
    }

    /// Drops the cold-start guard: the caller explicitly accepts that envelopes created
    /// before the cold start may be replays (e.g. a store that is known to be new).
    pub fn end_cold_start(&mut self) {
        self.guard = None;
    }

    fn clear(&mut self) {
        self.len = 0;
        self.root = NIL;
        self.free = NIL;
        self.unused = 0;
        self.latest = None;
        self.guard = None;
    }

    /// Replaces the window's state with a [`snapshot`](Self::snapshot) checked with the
    /// plain checksum: [`restore_sealed`](Self::restore_sealed) with [`Integrity::NONE`].
    ///
    /// # Errors
    /// As [`restore_sealed`](Self::restore_sealed).
    pub fn restore(&mut self, snapshot: &[u8], now: Timestamp) -> Result<()> {
        self.restore_sealed(snapshot, now, &Integrity::NONE)
    }

    /// Replaces the window's state with a snapshot, after checking its format, version,
    /// seal (checksum, or MAC under `integrity`'s key and owner), generation (not below
    /// `integrity.min_generation`) and consistency. On success the window gives exactly the
    /// verdicts the snapshotted window would have given, and `now` is not used; except that
    /// a snapshot without a clock (of a window that never accepted anything) restores as a
    /// [cold start](Self::cold_start) at `now`, never as an unguarded empty window.
    ///
    /// Fails closed: on any error (a missing, truncated, corrupt, foreign or rolled-back
    /// snapshot, one that does not verify, or one with more keys than this window holds)
    /// the window is emptied and [cold-started](Self::cold_start) at `now` (for a
    /// version-1 snapshot, at the later of its saved clock and `now`), its generation is
    /// raised to at least `integrity.min_generation`, and the error is returned. Never
    /// panics, whatever the bytes.
    ///
    /// # Errors
    /// [`Error::Encoding`] for bytes that are not a consistent snapshot of version
    /// [`SNAPSHOT_VERSION`] (version 1 included); [`Error::Binding`] for a MAC that does not
    /// verify, a MAC missing or not expected, or a generation below the minimum;
    /// [`Error::Limit`] (`Capacity`) when it holds more keys than
    /// [`capacity`](Self::capacity); [`Error::InvalidArgument`] for an `integrity` that
    /// [`snapshot_sealed`](Self::snapshot_sealed) would refuse.
    pub fn restore_sealed(&mut self, snapshot: &[u8], now: Timestamp, integrity: &Integrity<'_>) -> Result<()> {
        let seen = self.latest;
        let generation = self.generation;
        let r = integrity.validate().and_then(|()| self.try_restore(snapshot, now, integrity));
        if r.is_err() {
            self.latest = match (seen, v1_clock(snapshot)) {
                (Some(a), Some(b)) => Some(a.max(b)),
                (a, b) => a.or(b),
            };
            self.cold_start(now);
            self.generation = generation.max(integrity.min_generation);
        }
        r
    }

    fn try_restore(&mut self, s: &[u8], now: Timestamp, integrity: &Integrity<'_>) -> Result<()> {
        let parsed = Snapshot::parse(s, integrity)?;
        if parsed.count > self.capacity() {
            return Err(Error::limit(Limit::Capacity, 0));
        }
        let seen = self.latest;
        self.clear();
        for i in 0..parsed.count {
            let (id, at) = parsed.entry(i)?;
            // Entries are stored in heap order: each is no earlier than its parent.
            if i > 0 && parsed.entry((i - 1) / 2)?.1 > at {
                return Err(CORRUPT);
            }
            if self.contains(id) {
                return Err(CORRUPT);
            }
            let slot = self.alloc().ok_or(CORRUPT)?;
            self.insert_entry(slot, id, at);
        }
        self.generation = parsed.generation;
        match parsed.latest {
            None => {
                self.latest = seen;
                self.cold_start(now);
            }
            Some(_) => {
                self.latest = parsed.latest;
                self.guard = parsed.guard;
            }
        }
        Ok(())
    }

    fn evict_before(&mut self, oldest: Timestamp) {
        while self.len > 0 {
            let top = self.heap.as_ref().first().map_or(HeapEntry::EMPTY, |s| s.0);
            if top.key() >= key_of(oldest) {
                break;
            }
            self.heap_pop();
            let id = self.node(top.node).id;
            let (root, removed, _) = self.remove(self.root, id);
            self.root = root;
            if removed != NIL {
                self.set(removed, TreeNode { left: self.free, ..TreeNode::EMPTY });
                self.free = removed;
            }
        }
    }

    fn alloc(&mut self) -> Option<u32> {
        let cap = self.capacity();
        if self.len >= cap {
            return None;
        }
        if self.free != NIL {
            let i = self.free;
            self.free = self.node(i).left;
            Some(i)
        } else if (self.unused as usize) < cap {
            self.unused += 1;
            Some(self.unused - 1)
        } else {
            None
        }
    }

    // ---- AVL tree over the node arena ----

    #[inline]
    fn set(&mut self, i: u32, n: TreeNode) {
        if let Some(slot) = self.nodes.as_mut().get_mut(i as usize) {
            slot.0 = n;
        }
    }

    #[inline]
    fn h(&self, i: u32) -> u8 {
        if i == NIL {
            0
        } else {
            self.node(i).height
        }
    }

    #[inline]
    fn fix(&mut self, i: u32) {
        let mut n = self.node(i);
        n.height = 1 + self.h(n.left).max(self.h(n.right));
        self.set(i, n);
    }

    #[inline]
    fn rotate_right(&mut self, y: u32) -> u32 {
        let mut yn = self.node(y);
        let x = yn.left;
        let mut xn = self.node(x);
        yn.left = xn.right;
        xn.right = y;
        self.set(y, yn);
        self.set(x, xn);
        self.fix(y);
        self.fix(x);
        x
    }

    #[inline]
    fn rotate_left(&mut self, x: u32) -> u32 {
        let mut xn = self.node(x);
        let y = xn.right;
        let mut yn = self.node(y);
        xn.right = yn.left;
        yn.left = x;
        self.set(x, xn);
        self.set(y, yn);
        self.fix(x);
        self.fix(y);
        y
    }

    fn balance(&mut self, i: u32) -> u32 {
        self.fix(i);
        let n = self.node(i);
        let bf = i16::from(self.h(n.left)) - i16::from(self.h(n.right));
        if bf > 1 {
            let l = self.node(n.left);
            if self.h(l.left) < self.h(l.right) {
                let nl = self.rotate_left(n.left);
                self.set(i, TreeNode { left: nl, ..self.node(i) });
            }
            return self.rotate_right(i);
        }
        if bf < -1 {
            let r = self.node(n.right);
            if self.h(r.right) < self.h(r.left) {
                let nr = self.rotate_right(n.right);
                self.set(i, TreeNode { right: nr, ..self.node(i) });
            }
            return self.rotate_left(i);
        }
        i
    }

    /// Inserts node `new` under `i`; returns the new subtree root and whether the subtree's
    /// height changed (when it did not, nothing above needs rebalancing).
    fn insert(&mut self, i: u32, new: u32) -> (u32, bool) {
        if i == NIL {
            return (new, true);
        }
        let n = self.node(i);
        let (child, grew) = if self.node(new).id < n.id { self.insert(n.left, new) } else { self.insert(n.right, new) };
        if self.node(new).id < n.id {
            self.set(i, TreeNode { left: child, ..n });
        } else {
            self.set(i, TreeNode { right: child, ..n });
        }
        if !grew {
            return (i, false);
        }
        let r = self.balance(i);
        (r, self.h(r) != n.height)
    }

    /// Removes `id` from the subtree at `i`; returns the new subtree root, the detached
    /// node (NIL when absent) and whether the subtree's height changed. Nodes are relinked,
    /// never copied, so indices stay stable.
    fn remove(&mut self, i: u32, id: u128) -> (u32, u32, bool) {
        if i == NIL {
            return (NIL, NIL, false);
        }
        let n = self.node(i);
        if id != n.id {
            let left = id < n.id;
            let (child, removed, shrank) = self.remove(if left { n.left } else { n.right }, id);
            if left {
                self.set(i, TreeNode { left: child, ..n });
            } else {
                self.set(i, TreeNode { right: child, ..n });
            }
            if !shrank {
                return (i, removed, false);
            }
            let r = self.balance(i);
            return (r, removed, self.h(r) != n.height);
        }
        if n.left == NIL {
            return (n.right, i, true);
        }
        if n.right == NIL {
            return (n.left, i, true);
        }
        let (rest, m, _) = self.remove_min(n.right);
        self.set(m, TreeNode { left: n.left, right: rest, height: n.height, ..self.node(m) });
        let r = self.balance(m);
        (r, i, self.h(r) != n.height)
    }

    fn remove_min(&mut self, i: u32) -> (u32, u32, bool) {
        let n = self.node(i);
        if n.left == NIL {
            return (n.right, i, true);
        }
        let (l, m, shrank) = self.remove_min(n.left);
        self.set(i, TreeNode { left: l, ..n });
        if !shrank {
            return (i, m, false);
        }
        let r = self.balance(i);
        (r, m, self.h(r) != n.height)
    }

    // ---- min-heap by created_at ----

    #[inline]
    fn swap_entries(&mut self, a: usize, b: usize) {
        let heap = self.heap.as_mut();
        if let (Some(&x), Some(&y)) = (heap.get(a), heap.get(b)) {
            if let Some(s) = heap.get_mut(a) {
                *s = y;
            }
            if let Some(s) = heap.get_mut(b) {
                *s = x;
            }
        }
    }

    fn heap_push(&mut self, e: HeapEntry) {
        let mut i = self.len;
        if let Some(slot) = self.heap.as_mut().get_mut(i) {
            slot.0 = e;
        } else {
            return;
        }
        self.len += 1;
        while i > 0 {
            let p = (i - 1) / 2;
            if self.at(p) <= self.at(i) {
                break;
            }
            self.swap_entries(p, i);
            i = p;
        }
    }

    fn heap_pop(&mut self) {
        if self.len == 0 {
            return;
        }
        self.len -= 1;
        self.swap_entries(0, self.len);
        let mut i = 0;
        loop {
            let (l, r) = (2 * i + 1, 2 * i + 2);
            let mut m = i;
            if l < self.len && self.at(l) < self.at(m) {
                m = l;
            }
            if r < self.len && self.at(r) < self.at(m) {
                m = r;
            }
            if m == i {
                break;
            }
            self.swap_entries(i, m);
            i = m;
        }
    }

    #[cfg(test)]
    pub(crate) fn check_invariants(&self) -> usize {
        fn walk<T: AsRef<[IdSlot]> + AsMut<[IdSlot]>, H: AsRef<[TimeSlot]> + AsMut<[TimeSlot]>>(
            w: &ReplayWindow<T, H>,
            i: u32,
            lo: Option<u128>,
            hi: Option<u128>,
        ) -> (u8, usize) {
            if i == NIL {
                return (0, 0);
            }
            let n = w.node(i);
            assert!(lo.is_none_or(|l| n.id > l) && hi.is_none_or(|h| n.id < h), "BST order");
            let (hl, cl) = walk(w, n.left, lo, Some(n.id));
            let (hr, cr) = walk(w, n.right, Some(n.id), hi);
            assert!(hl.abs_diff(hr) <= 1, "AVL balance");
            assert_eq!(n.height, 1 + hl.max(hr), "height");
            (n.height, cl + cr + 1)
        }
        let (_, count) = walk(self, self.root, None, None);
        assert_eq!(count, self.len, "tree size = heap size");
        for i in 1..self.len {
            assert!(self.at((i - 1) / 2) <= self.at(i), "heap order");
        }
        count
    }
}
