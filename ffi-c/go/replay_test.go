package concordia

import (
	"testing"
	"time"
)

const replayAlice = "did:aip:aigentix.org:alice"

func newID(t *testing.T) string {
	t.Helper()
	id, err := NewMessageID()
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func TestReplayWindow(t *testing.T) {
	now := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	created := now.Add(-10 * time.Second).Format(time.RFC3339)
	w, err := NewReplayWindow(2)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	id1, id2, id3 := newID(t), newID(t), newID(t)

	if v, err := w.Check(replayAlice, id1, created, now); err != nil || v != Fresh {
		t.Fatalf("first delivery: %v %v", v, err)
	}
	if v, err := w.Check(replayAlice, id1, created, now); err != nil || v != Duplicate {
		t.Fatalf("second delivery: %v %v", v, err)
	}
	if ok, err := w.Contains(replayAlice, id1); err != nil || !ok {
		t.Fatalf("contains id1: %v %v", ok, err)
	}
	if ok, err := w.Contains(replayAlice, id2); err != nil || ok {
		t.Fatalf("contains id2 before its delivery: %v %v", ok, err)
	}
	if v, err := w.Check(replayAlice, id2, created, now); err != nil || v != Fresh {
		t.Fatalf("id2: %v %v", v, err)
	}
	// Full: every slot holds an id still inside the window; the refusal changes nothing.
	if _, err := w.Check(replayAlice, id3, created, now); Code(err) != LimitCapacity {
		t.Fatalf("id3 in a full window: %v", err)
	}
	if n, c, err := w.Len(); err != nil || n != 2 || c != 2 {
		t.Fatalf("len %d cap %d %v", n, c, err)
	}
	for _, tc := range []struct {
		name, id, created string
		want              Result
	}{
		{"601 s old", id3, now.Add(-601 * time.Second).Format(time.RFC3339), Temporal},
		{"301 s ahead", id3, now.Add(301 * time.Second).Format(time.RFC3339), Temporal},
		{"not a UUID v4", "not-a-uuid", created, Schema},
		{"not RFC 3339", id3, "yesterday", Schema},
	} {
		if _, err := w.Check(replayAlice, tc.id, tc.created, now); Code(err) != tc.want {
			t.Errorf("%s: got %v, want %v", tc.name, err, tc.want.Message())
		}
	}

	// Snapshot and restore: the restored window knows id1 and id2.
	snap, err := w.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if len(snap) != 76+2*28 {
		t.Fatalf("snapshot of 2 ids is %d bytes", len(snap))
	}
	r, err := NewReplayWindow(4)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := r.Restore(snap, now); err != nil {
		t.Fatal(err)
	}
	if v, err := r.Check(replayAlice, id1, created, now); err != nil || v != Duplicate {
		t.Fatalf("id1 after restore: %v %v", v, err)
	}

	// A damaged snapshot fails closed: Encoding, the window emptied and cold-started.
	bad := append([]byte(nil), snap...)
	bad[len(bad)-1] ^= 1
	if err := r.Restore(bad, now); Code(err) != Encoding {
		t.Fatalf("damaged snapshot: %v", err)
	}
	if cold, err := r.ColdStarted(); err != nil || !cold {
		t.Fatalf("cold start after a refused snapshot: %v %v", cold, err)
	}
	if ok, _ := r.Contains(replayAlice, id1); ok {
		t.Fatal("a refused snapshot left ids behind")
	}
	// Created before the cold start: may have been accepted before the restart.
	if _, err := r.Check(replayAlice, id1, created, now); Code(err) != Temporal {
		t.Fatalf("envelope from before the cold start: %v", err)
	}
	if err := r.EndColdStart(); err != nil {
		t.Fatal(err)
	}
	if v, err := r.Check(replayAlice, id1, created, now); err != nil || v != Fresh {
		t.Fatalf("after EndColdStart: %v %v", v, err)
	}
	if err := r.Restore(snap[:10], now); Code(err) != Encoding {
		t.Fatalf("truncated snapshot: %v", err)
	}
	if err := r.Restore(nil, now); Code(err) != Encoding {
		t.Fatalf("empty snapshot: %v", err)
	}

	// Capacity out of range; a closed window.
	if _, err := NewReplayWindow(0); Code(err) != InvalidArgument {
		t.Fatalf("capacity 0: %v", err)
	}
	if _, err := NewReplayWindow(-1); Code(err) != InvalidArgument {
		t.Fatalf("capacity -1: %v", err)
	}
	w.Close()
	w.Close()
	if _, err := w.Check(replayAlice, id1, created, now); Code(err) != InvalidState {
		t.Fatalf("closed window: %v", err)
	}
}

func TestReplayWindowColdStart(t *testing.T) {
	now := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	w, err := NewReplayWindow(8)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.ColdStart(now); err != nil {
		t.Fatal(err)
	}
	id := newID(t)
	if _, err := w.Check(replayAlice, id, now.Add(-5*time.Second).Format(time.RFC3339), now); Code(err) != Temporal {
		t.Fatalf("created before the cold start: %v", err)
	}
	// Issue 32: the lost window accepted createdAt up to 300 s ahead of its clock.
	if _, err := w.Check(replayAlice, id, now.Add(300*time.Second).Format(time.RFC3339), now.Add(6*time.Second)); Code(err) != Temporal {
		t.Fatalf("created within 300 s after the cold start: %v", err)
	}
	if v, err := w.Check(replayAlice, id, now.Add(301*time.Second).Format(time.RFC3339), now.Add(6*time.Second)); err != nil || v != Fresh {
		t.Fatalf("created after the guard: %v %v", v, err)
	}
}

// Issue 32: keys are sender and id; sealed snapshots refuse edits, other owners, unsealed
// bytes and rollback.
func TestReplayWindowSenderAndSealed(t *testing.T) {
	now := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	created := now.Format(time.RFC3339)
	w, err := NewReplayWindow(8)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	id := newID(t)
	const mallory = "did:aip:evil.example:mallory"
	if v, err := w.Check(mallory, id, created, now); err != nil || v != Fresh {
		t.Fatalf("mallory first: %v %v", v, err)
	}
	if v, err := w.Check(replayAlice, id, created, now); err != nil || v != Fresh {
		t.Fatalf("alice's genuine envelope after mallory's copy of its id: %v %v", v, err)
	}
	key := []byte("0123456789abcdef0123456789abcdef")
	old, err := w.SnapshotSealed(key, []byte(replayAlice))
	if err != nil {
		t.Fatal(err)
	}
	cur, err := w.SnapshotSealed(key, []byte(replayAlice))
	if err != nil {
		t.Fatal(err)
	}
	if g, err := w.Generation(); err != nil || g != 2 {
		t.Fatalf("generation %d %v", g, err)
	}
	plain, err := w.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	edited := append([]byte(nil), cur...)
	edited[40] ^= 1
	r, err := NewReplayWindow(8)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for _, tc := range []struct {
		name  string
		snap  []byte
		owner string
		min   uint64
	}{
		{"older generation", old, replayAlice, 2},
		{"another owner", cur, mallory, 0},
		{"unsealed", plain, replayAlice, 0},
		{"edited", edited, replayAlice, 0},
	} {
		if err := r.RestoreSealed(tc.snap, now, key, []byte(tc.owner), tc.min); Code(err) != Binding {
			t.Errorf("%s: %v", tc.name, err)
		}
		if cold, _ := r.ColdStarted(); !cold {
			t.Errorf("%s: not cold-started", tc.name)
		}
	}
	if err := r.Restore(cur, now); Code(err) != Binding {
		t.Errorf("sealed snapshot without its key: %v", err)
	}
	if err := r.RestoreSealed(cur, now, key, []byte(replayAlice), 2); err != nil {
		t.Fatal(err)
	}
	if v, err := r.Check(replayAlice, id, created, now); err != nil || v != Duplicate {
		t.Fatalf("restored: %v %v", v, err)
	}
	if _, err := w.SnapshotSealed(key[:15], nil); Code(err) != InvalidArgument {
		t.Fatalf("short key: %v", err)
	}
}
