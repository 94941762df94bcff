//! `ReplayWindow`: the AIP replay window (`concordia_core::aip::replay`) with snapshot and
//! restore across restarts. The rules are the core's; this file converts arguments and
//! owns the window's storage (on the heap, allocated fallibly: `MemoryError`).

use concordia_core::aip::envelope;
use concordia_core::aip::replay::{IdSlot, ReplayWindow as CoreWindow, TimeSlot, Verdict};
use concordia_core::time::Timestamp;
use pyo3::exceptions::PyMemoryError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::errors::{core, new_err, Exc};
use crate::{now_ts, timestamp_of};

/// The most ids a window may be created for.
const MAX_CAPACITY: usize = 1 << 24;

type HostReplayWindow = CoreWindow<Box<[IdSlot]>, Box<[TimeSlot]>>;

/// `n` copies of `fill` on the heap, allocated in place; `MemoryError` when it cannot be.
fn slots<T: Clone>(n: usize, fill: T) -> PyResult<Box<[T]>> {
    let mut v = Vec::new();
    v.try_reserve_exact(n).map_err(|e| PyMemoryError::new_err(format!("cannot allocate the replay window: {e}")))?;
    v.resize(n, fill);
    Ok(v.into_boxed_slice())
}

/// Remembers AIP message ids for 600 s (duplicate detection for at-least-once delivery):
/// `check` answers `"fresh"` (remembered now) or `"duplicate"`, and raises
/// `TemporalError` for a `created_at` more than 300 s ahead of `now`, more than 600 s
/// old, or not after a cold start still in force, and `LimitError` when every slot holds
/// an id still inside the window. A refused check changes nothing, its clock included.
///
/// `snapshot()` gives the state as versioned, checksummed bytes; `restore(bytes)` reads
/// them back after a restart, and fails closed: bytes it refuses (`EncodingError`,
/// `LimitError`) leave the window empty and cold-started (see `cold_start`).
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
        if capacity == 0 || capacity > MAX_CAPACITY {
            return Err(new_err(Exc::InvalidArgument, "capacity must be 1 to 16777216", Some("input")));
        }
        Ok(ReplayWindow {
            inner: CoreWindow::new_in(slots(capacity, IdSlot::EMPTY)?, slots(capacity, TimeSlot::EMPTY)?),
        })
    }

    /// Checks one delivery of message `message_id` (a lowercase UUID v4) created at
    /// `created_at` (RFC 3339) against `now` (Unix seconds; default: the clock).
    #[pyo3(signature = (message_id, created_at, now = None))]
    fn check(
        &mut self,
        py: Python<'_>,
        message_id: &str,
        created_at: &str,
        now: Option<f64>,
    ) -> PyResult<&'static str> {
        let id = core(envelope::parse_uuid_v4(message_id))?;
        let created = core(envelope::parse_rfc3339(created_at))?;
        let now = time_or_now(py, now)?;
        Ok(match core(self.inner.check(id, created, now))? {
            Verdict::Fresh => "fresh",
            Verdict::Duplicate => "duplicate",
        })
    }

    /// Whether the id is remembered.
    fn contains(&self, message_id: &str) -> PyResult<bool> {
        Ok(self.inner.contains(core(envelope::parse_uuid_v4(message_id))?))
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

    /// The state as versioned, checksummed bytes (68 + 28 per id). Save it before acting
    /// on a `"fresh"` verdict.
    fn snapshot<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let mut out = slots(self.inner.snapshot_len(), 0u8)?;
        let n = core(self.inner.snapshot(&mut out))?;
        Ok(PyBytes::new(py, out.get(..n).unwrap_or(&[])))
    }

    /// Replaces the state with a snapshot; on refusal the window is emptied and
    /// cold-started at `now` (Unix seconds; default: the clock) and the error raised.
    #[pyo3(signature = (snapshot, now = None))]
    fn restore(&mut self, py: Python<'_>, snapshot: &[u8], now: Option<f64>) -> PyResult<()> {
        let now = time_or_now(py, now)?;
        core(self.inner.restore(snapshot, now))
    }

    /// Forgets every id and starts cold at `now` (default: the clock); call it when there
    /// is no snapshot to restore. Until 600 s have passed, envelopes created at or before
    /// the start are refused, since they may have been accepted before the restart.
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
