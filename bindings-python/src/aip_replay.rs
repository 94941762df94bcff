//! `ReplayWindow`: the AIP replay window (`concordia_core::aip::replay`) with snapshot and
//! restore across restarts. The rules are the core's and the window (its capacity rule, its
//! heap storage, allocated fallibly: `MemoryError`) is `concordia_host::replay::new_window`'s;
//! this file converts arguments.

use concordia_core::aip::envelope;
use concordia_core::aip::replay::{replay_key, Integrity, Verdict};
use concordia_core::time::Timestamp;
use concordia_host::replay::{new_window, snapshot_sealed, HostReplayWindow};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::errors::core;
use crate::{now_ts, timestamp_of};

/// Remembers AIP messages (sender DID and message id) for the replay window, `WINDOW`
/// (duplicate detection for at-least-once delivery): `check` answers `"fresh"`
/// (remembered now) or `"duplicate"` (only a copy from the same sender), and raises
/// `TemporalError` for a `created_at` more than `MAX_FUTURE_SKEW` ahead of `now`, more than
/// `WINDOW` old (the core's constants; docs/limits.md states their values), or not after a
/// cold-start guard still in force, and `LimitError` when every slot holds a message still
/// inside the window. A refused check changes nothing, its clock included.
///
/// `snapshot()` gives the state as versioned, checksummed bytes (one generation more each
/// time); `restore(bytes)` reads them back after a restart, and fails closed: bytes it
/// refuses (`EncodingError`, `BindingError`, `LimitError`) leave the window empty and
/// cold-started (see `cold_start`). The checksum detects accidents, not tampering: pass
/// `mac_key` (and `owner`) to seal with HMAC-SHA256, and `min_generation` to refuse an
/// older copy.
#[pyclass(module = "concordia_rs")]
pub struct ReplayWindow {
    pub(crate) inner: HostReplayWindow,
}

fn time_or_now(py: Python<'_>, now: Option<f64>) -> PyResult<Timestamp> {
    match now {
        Some(t) => timestamp_of(t),
        None => now_ts(py),
    }
}

#[pymethods]
impl ReplayWindow {
    /// An empty window for `capacity` ids (48 bytes each).
    #[new]
    #[pyo3(signature = (capacity = 1024))]
    fn new(capacity: usize) -> PyResult<Self> {
        Ok(ReplayWindow { inner: core(new_window(capacity))? })
    }

    /// Checks one delivery of message `message_id` (a lowercase UUID v4) from `sender`
    /// (its DID, the envelope's signed `from`) created at `created_at` (RFC 3339) against
    /// `now` (Unix seconds; default: the clock).
    #[pyo3(signature = (sender, message_id, created_at, now = None))]
    fn check(
        &mut self,
        py: Python<'_>,
        sender: &str,
        message_id: &str,
        created_at: &str,
        now: Option<f64>,
    ) -> PyResult<&'static str> {
        let id = core(envelope::parse_uuid_v4(message_id))?;
        let created = core(envelope::parse_rfc3339(created_at))?;
        let now = time_or_now(py, now)?;
        Ok(match core(self.inner.check(replay_key(sender, id), created, now))? {
            Verdict::Fresh => "fresh",
            Verdict::Duplicate => "duplicate",
        })
    }

    /// Whether the message `message_id` from `sender` is remembered.
    fn contains(&self, sender: &str, message_id: &str) -> PyResult<bool> {
        Ok(self.inner.contains(replay_key(sender, core(envelope::parse_uuid_v4(message_id))?)))
    }

    /// The generation of the last snapshot written or restored (0 before any).
    #[getter]
    fn generation(&self) -> u64 {
        self.inner.generation()
    }

    fn __len__(&self) -> usize {
        self.inner.len()
    }

    /// The most ids it remembers at once.
    #[getter]
    fn capacity(&self) -> usize {
        self.inner.capacity()
    }

    /// Whether a cold-start guard is in force.
    #[getter]
    fn cold_started(&self) -> bool {
        self.inner.cold_start_guard().is_some()
    }

    /// The state as versioned bytes (76 + 28 per message), one generation more. Save it
    /// before acting on a `"fresh"` verdict. With `mac_key` (at least 16 bytes, kept
    /// outside the file) sealed with HMAC-SHA256, bound to `owner` (e.g. the recipient's
    /// DID); else a checksum, which detects accidents, not tampering.
    #[pyo3(signature = (mac_key = None, owner = None))]
    fn snapshot<'py>(
        &mut self,
        py: Python<'py>,
        mac_key: Option<&[u8]>,
        owner: Option<&[u8]>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let i = Integrity { mac_key, owner: owner.unwrap_or(&[]), min_generation: 0 };
        Ok(PyBytes::new(py, &core(snapshot_sealed(&mut self.inner, &i))?))
    }

    /// Replaces the state with a snapshot, checking its MAC under `mac_key` and `owner`
    /// (as `snapshot` sealed it) and that its generation is at least `min_generation`; on
    /// refusal the window is emptied and cold-started at `now` (Unix seconds; default: the
    /// clock) and the error raised (`BindingError` for a MAC that does not verify, a MAC
    /// missing or unexpected, or an older generation).
    #[pyo3(signature = (snapshot, now = None, mac_key = None, owner = None, min_generation = 0))]
    fn restore(
        &mut self,
        py: Python<'_>,
        snapshot: &[u8],
        now: Option<f64>,
        mac_key: Option<&[u8]>,
        owner: Option<&[u8]>,
        min_generation: u64,
    ) -> PyResult<()> {
        let now = time_or_now(py, now)?;
        let i = Integrity { mac_key, owner: owner.unwrap_or(&[]), min_generation };
        core(self.inner.restore_sealed(snapshot, now, &i))
    }

    /// Forgets every message and starts cold at `now` (default: the clock); call it when
    /// there is no snapshot to restore. Envelopes created at or before
    /// `now + MAX_FUTURE_SKEW` are refused until `now + WINDOW + MAX_FUTURE_SKEW`
    /// (docs/limits.md), since the lost window may have accepted them.
    #[pyo3(signature = (now = None))]
    fn cold_start(&mut self, py: Python<'_>, now: Option<f64>) -> PyResult<()> {
        let now = time_or_now(py, now)?;
        self.inner.cold_start(now);
        Ok(())
    }

    /// Drops the cold-start guard: the caller explicitly accepts that envelopes created
    /// before the cold start may be replays.
    fn end_cold_start(&mut self) {
        self.inner.end_cold_start();
    }

    fn __repr__(&self) -> String {
        format!("ReplayWindow(len={}, capacity={})", self.inner.len(), self.inner.capacity())
    }
}

/// Adds the class to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<ReplayWindow>()
}
