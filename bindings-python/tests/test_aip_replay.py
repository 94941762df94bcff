"""The AIP replay window (issue 19): verdicts, a refused check keeps the clock, snapshot and
restore, fail-closed restore of damaged bytes, cold start."""

import random
from datetime import datetime, timezone

import pytest

import concordia_rs as c

NOW = 1778423100.0  # 2026-05-10T14:25:00Z
CREATED = "2026-05-10T14:25:00Z"
A = "1b4e28ba-2fa1-4d3b-a3f5-ef19b5a7633b"
B = "2341a9c9-1109-4602-bc5c-4b14a1e3c833"
ALICE = "did:aip:aigentix.org:alice"
MALLORY = "did:aip:evil.example:mallory"


def state(snapshot: bytes) -> bytes:
    """A snapshot without its generation and seal."""
    return snapshot[:8] + snapshot[16:-32]


def test_verdicts_and_clock():
    w = c.ReplayWindow(16)
    assert (len(w), w.capacity, w.cold_started) == (0, 16, False)
    assert w.check(ALICE, A, CREATED, NOW) == "fresh"
    assert w.check(ALICE, A, CREATED, NOW + 5) == "duplicate"
    assert w.contains(ALICE, A) and not w.contains(ALICE, B) and len(w) == 1
    with pytest.raises(c.TemporalError, match="future"):
        w.check(ALICE, B, "2026-05-10T14:30:06Z", NOW)
    # Refused with a later now: nothing changes, the clock included.
    with pytest.raises(c.TemporalError, match="older"):
        w.check(ALICE, B, CREATED, NOW + 601)
    assert w.check(ALICE, B, CREATED, NOW) == "fresh"
    with pytest.raises(c.SchemaError):
        w.check(ALICE, "not-a-uuid", CREATED, NOW)
    with pytest.raises(c.InvalidArgumentError):
        c.ReplayWindow(0)
    full = c.ReplayWindow(1)
    full.check(ALICE, A, CREATED, NOW)
    with pytest.raises(c.LimitError):
        full.check(ALICE, B, CREATED, NOW)
    assert "ReplayWindow(len=1, capacity=1)" == repr(full)


def test_snapshot_restore_identical_verdicts():
    rng = random.Random(19)
    ids = [f"00000000-0000-4000-8000-{i:012x}" for i in range(40)]
    w, now = c.ReplayWindow(64), NOW
    restored = c.ReplayWindow(64)
    for step in range(400):
        now += rng.randint(-20, 60)
        created = now + rng.randint(-700, 350)
        created_text = datetime.fromtimestamp(created, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        mid = rng.choice(ids)
        if step % 37 == 0:
            restored = c.ReplayWindow(64)
            snap = w.snapshot()
            if snap[5] & 1 == 0:
                continue  # no clock yet: restores as a cold start
            restored.restore(snap, 0)
            assert state(restored.snapshot()) == state(w.snapshot())
        outcomes = []
        for win in (w, restored):
            try:
                outcomes.append(win.check(ALICE, mid, created_text, now))
            except c.ConcordiaError as e:
                outcomes.append(type(e).__name__)
        assert outcomes[0] == outcomes[1], step


def test_damaged_snapshots_fail_closed():
    w = c.ReplayWindow(8)
    w.check(ALICE, A, CREATED, NOW)
    snap = w.snapshot()
    assert isinstance(snap, bytes) and len(snap) == 76 + 28
    rng = random.Random(7)
    damaged = [snap[:n] for n in range(len(snap))] + [b"", b"\x00" * 104, snap + b"\x00"]
    for _ in range(200):
        b = bytearray(snap)
        b[rng.randrange(len(b))] ^= 1 << rng.randrange(8)
        damaged.append(bytes(b))
    for bad in damaged:
        r = c.ReplayWindow(8)
        with pytest.raises((c.EncodingError, c.BindingError)):
            r.restore(bad, NOW)
        assert r.cold_started and len(r) == 0
        with pytest.raises(c.TemporalError, match="cold-start guard"):
            r.check(ALICE, A, CREATED, NOW)
    # More ids than the capacity: LimitError, and a cold start too.
    two = c.ReplayWindow(4)
    two.check(ALICE, A, CREATED, NOW)
    two.check(ALICE, B, CREATED, NOW)
    tiny = c.ReplayWindow(1)
    with pytest.raises(c.LimitError):
        tiny.restore(two.snapshot(), NOW)
    assert tiny.cold_started


def test_cold_start_and_opt_out():
    r = c.ReplayWindow(8)
    r.cold_start(NOW)
    assert r.cold_started
    with pytest.raises(c.TemporalError):
        r.check(ALICE, A, CREATED, NOW)
    # Issue 32: up to 300 s after the start is refused too (the lost window took that).
    with pytest.raises(c.TemporalError):
        r.check(ALICE, A, "2026-05-10T14:30:00Z", NOW)
    assert r.check(ALICE, A, "2026-05-10T14:30:01Z", NOW + 1) == "fresh"
    r.end_cold_start()
    assert not r.cold_started
    assert r.check(ALICE, B, CREATED, NOW) == "fresh"
    # The guard survives a snapshot.
    g = c.ReplayWindow(8)
    g.cold_start(NOW)
    h = c.ReplayWindow(8)
    h.restore(g.snapshot())
    assert h.cold_started


def test_keys_are_sender_and_id():
    """Issue 32: another sender's copy of Alice's id, first in, is not a replay of hers."""
    w = c.ReplayWindow(8)
    assert w.check(MALLORY, A, CREATED, NOW) == "fresh"
    assert not w.contains(ALICE, A)
    assert w.check(ALICE, A, CREATED, NOW) == "fresh"
    assert w.check(ALICE, A, CREATED, NOW) == "duplicate"


def test_sealed_snapshots_refuse_edits_swap_and_rollback():
    """Issue 32: with a MAC key, an edited, another owner's, an unsealed or an older
    snapshot is refused (BindingError), fail closed; an unclocked one restores guarded."""
    key = bytes(range(32))
    w = c.ReplayWindow(8)
    w.check(ALICE, A, CREATED, NOW)
    old = w.snapshot(mac_key=key, owner=b"did:web:me")
    cur = w.snapshot(mac_key=key, owner=b"did:web:me")
    assert w.generation == 2
    plain = w.snapshot()
    edited = bytearray(cur)
    edited[40] ^= 1
    cases = [
        (old, b"did:web:me", 2),
        (cur, b"did:web:other", 0),
        (plain, b"did:web:me", 0),
        (bytes(edited), b"did:web:me", 0),
    ]
    for snap, owner, minimum in cases:
        r = c.ReplayWindow(8)
        with pytest.raises(c.BindingError):
            r.restore(snap, NOW, mac_key=key, owner=owner, min_generation=minimum)
        assert r.cold_started and len(r) == 0 and r.generation >= minimum
    with pytest.raises(c.BindingError):
        c.ReplayWindow(8).restore(cur, NOW)
    r = c.ReplayWindow(8)
    r.restore(cur, NOW, mac_key=key, owner=b"did:web:me", min_generation=2)
    assert r.check(ALICE, A, CREATED, NOW) == "duplicate"
    with pytest.raises(c.InvalidArgumentError):
        w.snapshot(mac_key=b"short")
    never = c.ReplayWindow(8).snapshot()
    r = c.ReplayWindow(8)
    r.restore(never, NOW)
    assert r.cold_started


@pytest.mark.parametrize("capacity", [0, (1 << 24) + 1])
def test_capacity_out_of_range_is_the_hosts_rule(capacity):
    # One capacity rule (concordia_host::replay::new_window) for C, Go and Python: 1 to 2**24.
    with pytest.raises(c.InvalidArgumentError, match="16777216"):
        c.ReplayWindow(capacity)
    assert c.ReplayWindow(1).capacity == 1
