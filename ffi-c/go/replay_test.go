package concordia

import (
	"testing"
	"time"
)

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

	if v, err := w.Check(id1, created, now); err != nil || v != Fresh {
		t.Fatalf("first delivery: %v %v", v, err)
	}
	if v, err := w.Check(id1, created, now); err != nil || v != Duplicate {
		t.Fatalf("second delivery: %v %v", v, err)
	}
	if ok, err := w.Contains(id1); err != nil || !ok {
		t.Fatalf("contains id1: %v %v", ok, err)
	}
	if ok, err := w.Contains(id2); err != nil || ok {
		t.Fatalf("contains id2 before its delivery: %v %v", ok, err)
	}
	if v, err := w.Check(id2, created, now); err != nil || v != Fresh {
		t.Fatalf("id2: %v %v", v, err)
	}
	// Full: every slot holds an id still inside the window; the refusal changes nothing.
	if _, err := w.Check(id3, created, now); Code(err) != LimitCapacity {
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
		if _, err := w.Check(tc.id, tc.created, now); Code(err) != tc.want {
			t.Errorf("%s: got %v, want %v", tc.name, err, tc.want.Message())
		}
	}

	// Snapshot and restore: the restored window knows id1 and id2.
	snap, err := w.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if len(snap) != 68+2*28 {
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
	if v, err := r.Check(id1, created, now); err != nil || v != Duplicate {
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
	if ok, _ := r.Contains(id1); ok {
		t.Fatal("a refused snapshot left ids behind")
	}
	// Created before the cold start: may have been accepted before the restart.
	if _, err := r.Check(id1, created, now); Code(err) != Temporal {
		t.Fatalf("envelope from before the cold start: %v", err)
	}
	if err := r.EndColdStart(); err != nil {
		t.Fatal(err)
	}
	if v, err := r.Check(id1, created, now); err != nil || v != Fresh {
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
	if _, err := w.Check(id1, created, now); Code(err) != InvalidState {
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
	if _, err := w.Check(id, now.Add(-5*time.Second).Format(time.RFC3339), now); Code(err) != Temporal {
		t.Fatalf("created before the cold start: %v", err)
	}
	if v, err := w.Check(id, now.Add(5*time.Second).Format(time.RFC3339), now.Add(6*time.Second)); err != nil || v != Fresh {
		t.Fatalf("created after the cold start: %v %v", v, err)
	}
}
