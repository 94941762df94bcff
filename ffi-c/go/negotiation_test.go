package concordia

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

const (
	seller = "did:concordia:agent:camera-seller"
	buyer  = "did:concordia:agent:camera-buyer"
)

var t0 = time.Unix(1780000000, 0).UTC()

type step struct {
	typ, body, reasoning string
	from                 int // 0 seller, 1 buyer
}

var steps = []step{
	{"negotiate.open", `{"terms":{"item":{"value":"Canon EOS R5","type":"string"},"price":{"value":2200,"currency":"USD","type":"numeric"}},"timing":{"session_ttl":86400,"offer_ttl":3600,"max_rounds":20}}`, "Selling a lightly used camera.", 0},
	{"negotiate.accept_session", `{}`, "", 1},
	{"negotiate.offer", `{"offer_id":"off_1","terms":{"item":{"value":"Canon EOS R5"},"price":{"value":2200,"currency":"USD"}},"complete":true}`, "", 0},
	{"negotiate.counter", `{"offer_id":"off_2","terms":{"item":{"value":"Canon EOS R5"},"price":{"value":2050,"currency":"USD"}},"complete":true}`, "Comparable bodies sell for less.", 1},
	{"negotiate.accept", `{"offer_id":"off_2"}`, "Deal.", 0},
}

// negotiation is a concluded session between a seller and a buyer.
type negotiation struct {
	keys     [2]*KeyPair
	keysJSON []byte
	session  *Session
	messages [][]byte
}

func (n *negotiation) Close() {
	n.session.Close()
	n.keys[0].Close()
	n.keys[1].Close()
}

// negotiate runs the five steps through signed envelopes and a session.
func negotiate() (*negotiation, error) {
	n := &negotiation{}
	var err error
	for i, s := range [][]byte{bytes.Repeat([]byte{7}, 32), bytes.Repeat([]byte{9}, 32)} {
		if n.keys[i], err = NewKeyPair(s); err != nil {
			return nil, err
		}
	}
	n.keysJSON, _ = json.Marshal(map[string]string{seller: n.keys[0].PublicKeyB64URL(), buyer: n.keys[1].PublicKeyB64URL()})
	if n.session, err = NewSession("ses_go_test", t0, nil); err != nil {
		return nil, err
	}
	if err = n.session.AddParty(seller, Initiator, n.keys[0].PublicKey()); err != nil {
		return nil, err
	}
	if err = n.session.AddParty(buyer, Responder, n.keys[1].PublicKey()); err != nil {
		return nil, err
	}
	ids := []string{seller, buyer}
	for i, s := range steps {
		at := t0.Add(time.Duration(45*(i+1)) * time.Second)
		env := Envelope{
			Type: s.typ, ID: fmt.Sprintf("msg_%d", i), SessionID: "ses_go_test",
			Timestamp: at.Format("2006-01-02T15:04:05Z"),
			From:      Party{AgentID: ids[s.from]}, To: []Party{{AgentID: ids[1-s.from]}},
			PrevHash: n.session.Tip(), Body: []byte(s.body), Reasoning: s.reasoning,
		}
		msg, err := n.keys[s.from].SignEnvelope(env)
		if err != nil {
			return nil, fmt.Errorf("step %d: %w", i, err)
		}
		if _, err := n.session.Apply(msg, at, nil); err != nil {
			return nil, fmt.Errorf("step %d: %w", i, err)
		}
		n.messages = append(n.messages, msg)
	}
	return n, nil
}

func attestationParams() AttestationParams {
	return AttestationParams{
		ID: "att_0badc0de", Now: t0.Add(time.Hour), Mode: ValidityRelative, From: t0.Add(time.Hour),
		Duration: 90 * 24 * time.Hour, Category: "electronics.cameras", ResolutionMechanism: "split",
	}
}

func TestNegotiation(t *testing.T) {
	n, err := negotiate()
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	if st := n.session.State(); st != Agreed {
		t.Fatalf("state %v", st)
	}
	if rounds, msgs := n.session.Counts(); rounds != 2 || msgs != 5 {
		t.Fatalf("counts %d %d", rounds, msgs)
	}
	// A message that does not fit leaves the session as it was.
	if _, err := n.session.Apply(n.messages[4], t0.Add(10*time.Minute), nil); err == nil {
		t.Fatal("replayed accept was applied")
	}
	if n.session.State() != Agreed {
		t.Fatal("state changed")
	}

	// The transcript verifies message by message; a tampered message does not.
	for _, tc := range []struct {
		name   string
		tamper int
		code   Result
		head   bool
	}{
		{"intact", -1, OK, true},
		{"tampered counter", 3, Signature, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, err := NewTranscriptVerifier(n.keysJSON)
			if err != nil {
				t.Fatal(err)
			}
			defer v.Close()
			var got error
			for i, m := range n.messages {
				if i == tc.tamper {
					m = bytes.Replace(m, []byte(`"value":2050`), []byte(`"value":1950`), 1)
				}
				if got = v.Push(m); got != nil {
					break
				}
			}
			if Code(got) != tc.code {
				t.Fatalf("code %d, want %d (%v)", Code(got), tc.code, got)
			}
			count, head, err := v.Finish()
			if err != nil || (tc.head && (count != 5 || head != n.session.Tip())) {
				t.Fatalf("finish %d %q %v", count, head, err)
			}
			if err := v.Push(n.messages[0]); Code(err) != InvalidState {
				t.Fatalf("push after finish: %v", err)
			}
		})
	}

	// The attestation: generated from the session, verified bound to its transcript.
	att, err := n.session.GenerateAttestation(attestationParams(), Signer{seller, n.keys[0]}, Signer{buyer, n.keys[1]})
	if err != nil {
		t.Fatal(err)
	}
	transcript, _ := json.Marshal(rawMessages(n.messages))
	short, _ := json.Marshal(rawMessages(n.messages[:4]))
	for _, tc := range []struct {
		name       string
		transcript []byte
		code       Result
		binding    SetBinding
	}{
		{"bound", transcript, OK, Bound},
		{"no transcript", nil, OK, Unchecked},
		{"short transcript", short, Binding, Bound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := VerifyAttestation(att, n.keysJSON, tc.transcript)
			if Code(err) != tc.code {
				t.Fatalf("code %d, want %d (%v)", Code(err), tc.code, err)
			}
			if err == nil && (got.Binding != tc.binding || got.Parties != 2 || got.Countersignatures != 2) {
				t.Fatalf("%+v", got)
			}
		})
	}
	p := attestationParams()
	p.Mode = 9
	if _, err := n.session.GenerateAttestation(p); Code(err) != InvalidArgument {
		t.Fatalf("mode: %v", err)
	}
}

func rawMessages(msgs [][]byte) []json.RawMessage {
	out := make([]json.RawMessage, len(msgs))
	for i, m := range msgs {
		out[i] = m
	}
	return out
}

func ExampleSession() {
	s, _ := NewSession("ses_example", time.Unix(1780000000, 0), nil)
	defer s.Close()
	seller, _ := NewKeyPair(bytes.Repeat([]byte{7}, 32))
	defer seller.Close()
	_ = s.AddParty("seller", Initiator, seller.PublicKey())
	_ = s.AddParty("buyer", Responder, nil)
	open, _ := seller.SignEnvelope(Envelope{
		Type: "negotiate.open", ID: "m0", SessionID: "ses_example", Timestamp: "2026-05-28T20:27:00Z",
		From: Party{AgentID: "seller"}, To: []Party{{AgentID: "buyer"}},
		Body: []byte(`{"terms":{"price":{"value":10,"currency":"USD"}}}`),
	})
	state, err := s.Apply(open, time.Unix(1780000020, 0), nil)
	fmt.Println(state, err)
	// Output: PROPOSED <nil>
}

func ExampleTranscriptVerifier() {
	n, _ := negotiate()
	defer n.Close()
	v, _ := NewTranscriptVerifier(n.keysJSON)
	defer v.Close()
	for _, m := range n.messages {
		if err := v.Push(m); err != nil {
			fmt.Println(err)
		}
	}
	count, head, _ := v.Finish()
	fmt.Println(count, head == n.session.Tip())
	// Output: 5 true
}

func ExampleVerifyAttestation() {
	n, _ := negotiate()
	defer n.Close()
	att, _ := n.session.GenerateAttestation(attestationParams(), Signer{seller, n.keys[0]}, Signer{buyer, n.keys[1]})
	transcript, _ := json.Marshal(rawMessages(n.messages))
	got, err := VerifyAttestation(att, n.keysJSON, transcript)
	fmt.Println(got.Parties, got.Countersignatures, got.Binding == Bound, err)
	// Output: 2 2 true <nil>
}

func TestVerifyTranscriptFile(t *testing.T) {
	n, err := negotiate()
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	array, _ := json.Marshal(rawMessages(n.messages))
	lines := append(bytes.Join(n.messages, []byte("\n\n")), '\n')
	wrapped := append(append([]byte(`{"messages":`), array...), '}')
	for _, tc := range []struct {
		name   string
		data   []byte
		format TranscriptFormat
	}{
		{"array", array, TranscriptArray},
		{"lines", lines, TranscriptLines},
		{"wrapped", wrapped, TranscriptArray},
	} {
		count, head, err := VerifyTranscriptFile(write(tc.name, tc.data), n.keysJSON, tc.format, 0)
		if err != nil || count != 5 || head != n.session.Tip() {
			t.Fatalf("%s: %d %q %v", tc.name, count, head, err)
		}
	}

	// A message out of the chain: a *MessageError with its index.
	skip, _ := json.Marshal(rawMessages([][]byte{n.messages[0], n.messages[2]}))
	count, _, err := VerifyTranscriptFile(write("skip", skip), n.keysJSON, TranscriptArray, 0)
	var me *MessageError
	if !errors.As(err, &me) || me.Index != 1 || count != 1 || Code(err) != Binding {
		t.Fatalf("skip: %d %v", count, err)
	}
	// A file malformed after the failing message is malformed; the offset is the file's.
	broken := append(append([]byte{}, skip...), ',')
	_, _, err = VerifyTranscriptFile(write("broken", broken), n.keysJSON, TranscriptArray, 0)
	var e *Error
	if errors.As(err, &me) || !errors.As(err, &e) || e.Code/100 != 2 || e.Offset != len(skip) {
		t.Fatalf("broken: %v", err)
	}
	// The cap, a missing file, keys that are not an object, an unknown format.
	for _, tc := range []struct {
		path   string
		keys   []byte
		format TranscriptFormat
		cap    uint64
		code   Result
	}{
		{write("array", array), n.keysJSON, TranscriptArray, 100, LimitSize},
		{filepath.Join(dir, "missing.json"), n.keysJSON, TranscriptArray, 0, IO},
		{write("array", array), []byte(`[]`), TranscriptArray, 0, Schema},
		{write("array", array), n.keysJSON, 7, 0, InvalidArgument},
		{"", n.keysJSON, TranscriptArray, 0, InvalidArgument},
	} {
		if _, _, err := VerifyTranscriptFile(tc.path, tc.keys, tc.format, tc.cap); Code(err) != tc.code {
			t.Fatalf("%s: %v, want %d", tc.path, err, tc.code)
		}
	}
}
