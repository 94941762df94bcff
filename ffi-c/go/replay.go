package concordia

// #include "concordia.h"
// #include <stdlib.h>
import "C"

import (
	"runtime"
	"time"
)

// Verdict is a replay window's answer for one delivery of a message id.
type Verdict uint32

const (
	// Fresh: the id was not seen inside the window; it is remembered now.
	Fresh Verdict = C.CONCORDIA_AIP_FRESH
	// Duplicate: the id was already seen inside the window (a replay).
	Duplicate Verdict = C.CONCORDIA_AIP_DUPLICATE
)

// ReplayWindow remembers the AIP messages (sender DID and message id) seen in the last
// WINDOW seconds (the core's replay rule, through the C ABI; docs/limits.md states the
// value): only a copy from the same sender is a duplicate. It is not safe for concurrent
// use: guard it with a mutex when goroutines share it. Close releases it (the finalizer does too).
type ReplayWindow struct {
	p *C.concordia_aip_replay_window
}

// NewReplayWindow makes an empty window for capacity ids (1 to the library's maximum,
// 48 bytes each). An out-of-range capacity is InvalidArgument, memory exhaustion
// LimitMemory.
func NewReplayWindow(capacity int) (*ReplayWindow, error) {
	if capacity < 0 {
		return nil, &Error{Code: InvalidArgument, Class: InvalidArgument.Class(), Detail: "capacity must not be negative", Offset: -1}
	}
	var p *C.concordia_aip_replay_window
	if err := call(func() C.concordia_result { return C.concordia_aip_replay_window_new(C.size_t(capacity), &p) }); err != nil {
		return nil, err
	}
	w := &ReplayWindow{p: p}
	runtime.SetFinalizer(w, (*ReplayWindow).Close)
	return w, nil
}

// Close releases the window; it may be called more than once. A closed window's methods
// return InvalidState.
func (w *ReplayWindow) Close() {
	if w.p != nil {
		C.concordia_aip_replay_window_free(w.p)
		w.p = nil
	}
	runtime.SetFinalizer(w, nil)
}

func (w *ReplayWindow) live() error {
	if w == nil || w.p == nil {
		return &Error{Code: InvalidState, Class: InvalidState.Class(), Detail: "replay window is closed", Offset: -1}
	}
	return nil
}

// Check judges one delivery of message id (a lowercase UUID v4) from the sender from (its
// DID, the envelope's signed from) created at createdAt (RFC 3339) at time now: Fresh (and
// remembered) or Duplicate. Temporal when createdAt is more than MAX_FUTURE_SKEW ahead of now,
// more than WINDOW old, or not after a cold-start guard still in force; LimitCapacity when the
// message is new and every slot holds one still inside the window; Schema for an id or
// time that does not parse. A failed check changes nothing.
func (w *ReplayWindow) Check(from, id, createdAt string, now time.Time) (Verdict, error) {
	if err := w.live(); err != nil {
		return 0, err
	}
	var m cmem
	defer m.free()
	var v C.concordia_aip_verdict
	err := call(func() C.concordia_result {
		return C.concordia_aip_replay_window_check(w.p, m.str(from), m.str(id), m.str(createdAt), C.int64_t(now.Unix()), &v)
	})
	runtime.KeepAlive(w)
	return Verdict(v), err
}

// Contains reports whether the message id from the sender from is remembered.
func (w *ReplayWindow) Contains(from, id string) (bool, error) {
	if err := w.live(); err != nil {
		return false, err
	}
	var m cmem
	defer m.free()
	var out C.uint8_t
	err := call(func() C.concordia_result {
		return C.concordia_aip_replay_window_contains(w.p, m.str(from), m.str(id), &out)
	})
	runtime.KeepAlive(w)
	return out == 1, err
}

// Len returns the number of ids remembered and the capacity.
func (w *ReplayWindow) Len() (n, capacity int, err error) {
	if err = w.live(); err != nil {
		return 0, 0, err
	}
	var l, c C.size_t
	err = call(func() C.concordia_result { return C.concordia_aip_replay_window_len(w.p, &l, &c) })
	runtime.KeepAlive(w)
	return int(l), int(c), err
}

// Snapshot is the window's state as versioned, checksummed bytes, one generation more
// than the last (see Generation). Save it before acting on a Fresh verdict and give it to
// Restore after a restart. The checksum detects accidents, not tampering: see
// SnapshotSealed.
func (w *ReplayWindow) Snapshot() ([]byte, error) {
	return w.SnapshotSealed(nil, nil)
}

// SnapshotSealed is Snapshot sealed with HMAC-SHA256 under macKey (at least 16 bytes,
// kept outside the snapshot's file) and bound to owner (e.g. the recipient's DID; may be
// empty), so an edited snapshot, another key's or another owner's does not restore. A nil
// macKey is the plain checksum (owner must then be empty). InvalidArgument for a short
// key or an owner without a key.
func (w *ReplayWindow) SnapshotSealed(macKey, owner []byte) ([]byte, error) {
	if err := w.live(); err != nil {
		return nil, err
	}
	b, err := output(func(out *C.uint8_t, cap C.size_t, n *C.size_t) C.concordia_result {
		return C.concordia_aip_replay_window_snapshot_sealed(w.p, ptr(macKey), C.size_t(len(macKey)), ptr(owner), C.size_t(len(owner)), out, cap, n)
	})
	runtime.KeepAlive(macKey)
	runtime.KeepAlive(owner)
	runtime.KeepAlive(w)
	return b, err
}

// Generation is the generation of the last snapshot the window wrote or restored (0
// before any). Keep the value a snapshot was written with to pass as minGeneration to
// RestoreSealed.
func (w *ReplayWindow) Generation() (uint64, error) {
	if err := w.live(); err != nil {
		return 0, err
	}
	var g C.uint64_t
	err := call(func() C.concordia_result { return C.concordia_aip_replay_window_generation(w.p, &g) })
	runtime.KeepAlive(w)
	return uint64(g), err
}

// Restore replaces the window's state with a snapshot. It fails closed: truncated,
// corrupt or foreign bytes, or a version-1 snapshot (Encoding), more messages than the
// capacity (LimitCapacity), or a sealed snapshot (Binding) leave the window emptied and
// cold-started at now. A snapshot of a window that never accepted anything restores as a
// cold start at now.
func (w *ReplayWindow) Restore(snapshot []byte, now time.Time) error {
	return w.RestoreSealed(snapshot, now, nil, nil, 0)
}

// RestoreSealed is Restore checking the snapshot's HMAC-SHA256 under macKey and owner (as
// SnapshotSealed wrote it) and that its generation is at least minGeneration (0: any). An
// edited snapshot, another key's or owner's, an unsealed one, or an older generation
// (rollback) is Binding, fail closed; the window's generation is then at least
// minGeneration.
func (w *ReplayWindow) RestoreSealed(snapshot []byte, now time.Time, macKey, owner []byte, minGeneration uint64) error {
	if err := w.live(); err != nil {
		return err
	}
	err := call(func() C.concordia_result {
		return C.concordia_aip_replay_window_restore_sealed(w.p, ptr(snapshot), C.size_t(len(snapshot)), C.int64_t(now.Unix()),
			ptr(macKey), C.size_t(len(macKey)), ptr(owner), C.size_t(len(owner)), C.uint64_t(minGeneration))
	})
	runtime.KeepAlive(snapshot)
	runtime.KeepAlive(macKey)
	runtime.KeepAlive(owner)
	runtime.KeepAlive(w)
	return err
}

// ColdStart forgets every message and starts cold at now (when there is no snapshot):
// envelopes created at or before now + MAX_FUTURE_SKEW are refused (Temporal) until
// now + WINDOW + MAX_FUTURE_SKEW (docs/limits.md), since the lost window may have accepted
// them (it took createdAt up to MAX_FUTURE_SKEW ahead of its clock). Genuine envelopes
// created in that time are refused too.
func (w *ReplayWindow) ColdStart(now time.Time) error {
	if err := w.live(); err != nil {
		return err
	}
	err := call(func() C.concordia_result { return C.concordia_aip_replay_window_cold_start(w.p, C.int64_t(now.Unix())) })
	runtime.KeepAlive(w)
	return err
}

// EndColdStart drops the cold-start guard: the caller accepts that envelopes created
// before the cold start may be replays.
func (w *ReplayWindow) EndColdStart() error {
	if err := w.live(); err != nil {
		return err
	}
	err := call(func() C.concordia_result { return C.concordia_aip_replay_window_end_cold_start(w.p) })
	runtime.KeepAlive(w)
	return err
}

// ColdStarted reports whether a cold-start guard is in force.
func (w *ReplayWindow) ColdStarted() (bool, error) {
	if err := w.live(); err != nil {
		return false, err
	}
	var out C.uint8_t
	err := call(func() C.concordia_result { return C.concordia_aip_replay_window_is_cold_started(w.p, &out) })
	runtime.KeepAlive(w)
	return out == 1, err
}
