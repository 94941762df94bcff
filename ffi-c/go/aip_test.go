package concordia

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"
)

const (
	alice = "did:aip:aigentix.org:alice"
	bob   = "did:aip:aigentix.org:bob"
)

func TestHandles(t *testing.T) {
	want := Handle{Name: "alice", Domain: "aigentix.org", Handle: "alice#aigentix.org", URLForm: "alice%23aigentix.org",
		AtForm: "@alice@aigentix.org", DID: alice}
	for _, tc := range []struct {
		in   string
		code Result
	}{
		{"alice#aigentix.org", OK}, {"alice%23aigentix.org", OK}, {"@alice@aigentix.org", OK}, {alice, OK},
		{"no handle", InvalidArgument}, {"Alice#aigentix.org", InvalidArgument},
	} {
		h, err := ParseHandle(tc.in)
		if Code(err) != tc.code || (err == nil && h != want) {
			t.Errorf("%s: %+v %v", tc.in, h, err)
		}
	}
	if h, err := HandleOf("alice", "aigentix.org"); err != nil || h != want {
		t.Fatalf("HandleOf: %+v %v", h, err)
	}
}

// agents are alice and bob with fixed keys and their DID Documents.
func agents(t testing.TB) (a, b *AIPKeyPair, aliceDoc, bobDoc []byte) {
	var err error
	if a, err = NewAIPKeyPair(seed(1), seed(2)); err != nil {
		t.Fatal(err)
	}
	if b, err = NewAIPKeyPair(seed(3), seed(4)); err != nil {
		t.Fatal(err)
	}
	aliceDoc, _ = a.DIDDocument(alice, Direct, "https://alice.example/aip")
	bobDoc, _ = b.DIDDocument(bob, Relay, "wss://hub.aigentix.org/relay/bob")
	return
}

func TestAIPKeysAndDocuments(t *testing.T) {
	a, b, aliceDoc, bobDoc := agents(t)
	defer a.Close()
	defer b.Close()
	if !bytes.Equal(a.Ed25519Seed(), seed(1)) || !bytes.Equal(a.X25519Secret(), seed(2)) {
		t.Fatal("secrets")
	}
	if !strings.HasPrefix(a.Ed25519Multibase(), "z6Mk") || !strings.HasPrefix(a.X25519Multibase(), "z6LS") ||
		!strings.HasPrefix(a.DIDKey(), "did:key:z6Mk") {
		t.Fatal("text forms")
	}
	sk, err := a.SigningKey()
	if err != nil || !bytes.Equal(sk.PublicKey(), a.Ed25519PublicKey()) {
		t.Fatalf("signing key: %v", err)
	}
	if d, _ := DIDKey(sk); d != a.DIDKey() {
		t.Fatal("did:key")
	}
	sk.Close()
	if _, err := NewAIPKeyPair(seed(1), seed(2)[:5]); Code(err) != InvalidArgument {
		t.Fatalf("short secret: %v", err)
	}
	g, err := GenerateAIPKeyPair()
	if err != nil || bytes.Equal(g.Ed25519PublicKey(), a.Ed25519PublicKey()) {
		t.Fatalf("generate: %v", err)
	}
	g.Close()

	doc, err := ParseDIDDocument(aliceDoc)
	if err != nil || doc.ID != alice || doc.Endpoint != "https://alice.example/aip" || doc.RouteMode != Direct ||
		len(doc.SigningKeys) != 1 || !bytes.Equal(doc.SigningKeys[0], a.Ed25519PublicKey()) ||
		len(doc.AgreementKeys) != 1 || !bytes.Equal(doc.AgreementKeys[0], a.X25519PublicKey()) {
		t.Fatalf("%+v %v", doc, err)
	}
	for _, tc := range []struct {
		name      string
		doc       []byte
		reachable bool
		want      Route
	}{
		{"direct reachable", aliceDoc, true, Route{Direct, "https://alice.example/aip"}},
		{"direct unreachable", aliceDoc, false, Route{Relay, ""}},
		{"relay", bobDoc, true, Route{Relay, "wss://hub.aigentix.org/relay/bob"}},
	} {
		if r, err := SelectRoute(tc.doc, tc.reachable); err != nil || r != tc.want {
			t.Errorf("%s: %+v %v", tc.name, r, err)
		}
	}
	if _, err := ParseDIDDocument([]byte(`{}`)); Code(err) != Schema {
		t.Fatalf("empty document: %v", err)
	}
	if _, err := a.DIDDocument("did:web:x", Direct, "https://x"); Code(err) != InvalidArgument {
		t.Fatalf("did:web: %v", err)
	}
}

func TestEnvelopes(t *testing.T) {
	a, b, aliceDoc, bobDoc := agents(t)
	defer a.Close()
	defer b.Close()
	id, err := NewMessageID()
	if err != nil || len(id) != 36 || id[14] != '4' {
		t.Fatalf("id %q %v", id, err)
	}
	created := time.Date(2026, 5, 10, 14, 25, 0, 0, time.UTC)
	h := SealHeader{ID: id, From: alice, Type: "aip.commerce.offer.request", CreatedAt: "2026-05-10T14:25:00Z"}
	env, err := Seal(a, bobDoc, h, []byte(`{"qty": 2, "item": "camera"}`))
	if err != nil {
		t.Fatal(err)
	}
	hdr, err := ParseEnvelope(env)
	if err != nil || hdr.ID != id || hdr.From != alice || hdr.To != bob || !hdr.Created.Equal(created) {
		t.Fatalf("%+v %v", hdr, err)
	}
	if _, err := VerifyEnvelope(aliceDoc, env); err != nil {
		t.Fatal(err)
	}
	tampered := bytes.Replace(env, []byte("aip.commerce"), []byte("aip.commercf"), 1)
	for _, tc := range []struct {
		name   string
		key    *AIPKeyPair
		sender []byte
		env    []byte
		checks *OpenChecks
		code   Result
	}{
		// Issue 32: nil is the safe default (addressee required, freshness at the clock).
		{"nil checks: no recipient DID", b, aliceDoc, env, nil, InvalidArgument},
		{"zero checks: no recipient DID", b, aliceDoc, env, &OpenChecks{}, InvalidArgument},
		{"default freshness is the clock", b, aliceDoc, env, &OpenChecks{RecipientDID: bob}, Temporal},
		{"freshness skipped by name", b, aliceDoc, env, &OpenChecks{RecipientDID: bob, SkipFreshness: true}, OK},
		{"addressee skipped by name", b, aliceDoc, env, &OpenChecks{AnyRecipient: true, Now: created}, OK},
		{"addressee skipped with a DID", b, aliceDoc, env, &OpenChecks{RecipientDID: bob, AnyRecipient: true, Now: created}, InvalidArgument},
		{"addressee and fresh", b, aliceDoc, env, &OpenChecks{RecipientDID: bob, Now: created.Add(time.Minute)}, OK},
		{"600 s old", b, aliceDoc, env, &OpenChecks{RecipientDID: bob, Now: created.Add(600 * time.Second)}, OK},
		{"601 s old", b, aliceDoc, env, &OpenChecks{RecipientDID: bob, Now: created.Add(601 * time.Second)}, Temporal},
		{"301 s ahead", b, aliceDoc, env, &OpenChecks{RecipientDID: bob, Now: created.Add(-301 * time.Second)}, Temporal},
		{"other addressee", b, aliceDoc, env, &OpenChecks{RecipientDID: alice, Now: created}, Binding},
		{"wrong sender document", b, bobDoc, env, &OpenChecks{RecipientDID: bob, Now: created}, Binding},
		{"wrong key", a, aliceDoc, env, &OpenChecks{AnyRecipient: true, Now: created}, Signature},
		{"tampered", b, aliceDoc, tampered, &OpenChecks{RecipientDID: bob, Now: created}, Signature},
		// Issue 32: stale at the clock and tampered: the signature is checked first.
		{"stale and tampered", b, aliceDoc, tampered, &OpenChecks{RecipientDID: bob}, Signature},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, body, err := Open(tc.key, tc.sender, tc.env, tc.checks)
			if Code(err) != tc.code {
				t.Fatalf("code %d, want %d (%v)", Code(err), tc.code, err)
			}
			if err == nil && string(body) != `{"item":"camera","qty":2}` {
				t.Fatalf("body %s", body)
			}
		})
	}
	// A replay window: the second delivery is AIPReplay (one composition with the window).
	w, err := NewReplayWindow(16)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	withWindow := &OpenChecks{RecipientDID: bob, Now: created, Window: w}
	if _, body, err := Open(b, aliceDoc, env, withWindow); err != nil || string(body) != `{"item":"camera","qty":2}` {
		t.Fatalf("first delivery: %s %v", body, err)
	}
	if _, _, err := Open(b, aliceDoc, env, withWindow); Code(err) != AIPReplay {
		t.Fatalf("second delivery: %v", err)
	}
	if _, _, err := Open(b, aliceDoc, env, &OpenChecks{RecipientDID: bob, SkipFreshness: true, Window: w}); Code(err) != InvalidArgument {
		t.Fatalf("window without a clock: %v", err)
	}
	h.Type = "Bad Type"
	if _, err := Seal(a, bobDoc, h, []byte(`{}`)); Code(err) != Schema {
		t.Fatalf("bad type: %v", err)
	}
}

func TestCredentials(t *testing.T) {
	k, _ := NewKeyPair(seed(1))
	defer k.Close()
	issuer, _ := DIDKey(k)
	cred := []byte(`{"@context": ["https://www.w3.org/ns/credentials/v2"], "id": "urn:uuid:c1", ` +
		`"type": ["VerifiableCredential"], "issuer": "` + issuer + `", "validFrom": "2026-01-01T00:00:00Z", ` +
		`"validUntil": "2099-01-01T00:00:00Z", "credentialSubject": {"id": "` + bob + `"}}`)
	signed, err := IssueCredential(k, cred, "2026-01-01T00:00:00Z")
	if err != nil {
		t.Fatal(err)
	}
	in2026 := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name string
		cred []byte
		opts *VerifyOptions
		code Result
	}{
		{"no options", signed, nil, OK},
		{"anchored, in time", signed, &VerifyOptions{Now: in2026, Anchors: []string{issuer}}, OK},
		{"expired", signed, &VerifyOptions{Now: in2026.AddDate(80, 0, 0)}, Temporal},
		{"expired, time off by name", signed, &VerifyOptions{Now: in2026.AddDate(80, 0, 0), NoTimeCheck: true}, OK},
		{"proof created 301 s ahead", signed, &VerifyOptions{Now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(-301 * time.Second)}, Temporal},
		{"domain required, absent", signed, &VerifyOptions{Domain: "example.org"}, Binding},
		{"challenge required, absent", signed, &VerifyOptions{Challenge: "n-0S6"}, Binding},
		// Issue 32: the revoked id respelled with a JSON escape is still revoked.
		{"revoked, escaped id", bytes.Replace(signed, []byte("urn:uuid:c1"), []byte(`urn:uuid:\u00631`), 1), &VerifyOptions{Revoked: []string{"urn:uuid:c1"}}, Binding},
		{"escaped id, not revoked", bytes.Replace(signed, []byte("urn:uuid:c1"), []byte(`urn:uuid:\u00631`), 1), nil, OK},
		{"escaped subject", bytes.Replace(signed, []byte(bob), []byte(`\u0064`+bob[1:]), 1), nil, Schema},
		{"not an anchor", signed, &VerifyOptions{Anchors: []string{"did:key:z6MkOther"}}, Binding},
		{"no anchors", signed, &VerifyOptions{Anchors: []string{}}, Binding},
		{"revoked", signed, &VerifyOptions{Revoked: []string{"urn:uuid:c1"}}, Binding},
		{"tampered", bytes.Replace(signed, []byte("aigentix"), []byte("aigentiy"), 1), nil, Signature},
		{"unsigned", cred, nil, Schema},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, err := VerifyCredential(tc.cred, tc.opts)
			if Code(err) != tc.code {
				t.Fatalf("code %d, want %d (%v)", Code(err), tc.code, err)
			}
			if err == nil && (v.Issuer != issuer || v.Subject != bob || !bytes.Equal(v.PublicKey, k.PublicKey())) {
				t.Fatalf("%+v", v)
			}
		})
	}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

func TestTrustAndRanking(t *testing.T) {
	edges := []Edge{{"did:key:root", "did:key:a", false}, {"did:key:a", "did:key:b", false}, {"did:key:root", "did:key:c", true}}
	for _, tc := range []struct {
		subject string
		want    float64
	}{
		{"did:key:root", 1}, {"did:key:a", 0.5}, {"did:key:b", 0.25}, {"did:key:c", 0}, {"did:key:z", 0},
	} {
		if got, err := TrustCeiling(tc.subject, edges, []string{"did:key:root"}); err != nil || !near(got, tc.want) {
			t.Errorf("%s: %v %v", tc.subject, got, err)
		}
	}
	for _, tc := range []struct {
		score float64
		event TrustEvent
		want  float64
		code  Result
	}{
		{0, TrustSuccess, 0.05, OK}, {0.5, TrustFailure, 0.25, OK}, {0.5, TrustRevocation, 0, OK}, {0.5, TrustEvent(7), 0, InvalidArgument},
	} {
		if got, err := TrustUpdate(tc.score, 1, tc.event); Code(err) != tc.code || !near(got, tc.want) {
			t.Errorf("update %v %v: %v %v", tc.score, tc.event, got, err)
		}
	}
	if s, err := TrustScore(1, []TrustEvent{TrustSuccess, TrustSuccess, TrustFailure}); err != nil || !near(s, (0.05+0.95*0.05)/2) {
		t.Fatalf("score %v %v", s, err)
	}
	if r, _ := RRF(1, 2); !near(r, 1.0/61+1.0/62) {
		t.Fatal("rrf")
	}
	if _, err := FinalScore(0.5, 1.5); Code(err) != InvalidArgument {
		t.Fatalf("final: %v", err)
	}
	ranked, err := Rank([]Candidate{{2, 0, 0}, {1, 1, 0.5}, {3, 2, 1}})
	if err != nil || len(ranked) != 3 || ranked[0].Index != 2 || ranked[1].Index != 1 || ranked[2].Index != 0 {
		t.Fatalf("%+v %v", ranked, err)
	}
	if r, err := Rank(nil); err != nil || len(r) != 0 {
		t.Fatal("empty rank")
	}
}

func ExampleParseHandle() {
	h, _ := ParseHandle("@alice@aigentix.org")
	fmt.Println(h.Handle, h.URLForm, h.DID)
	// Output: alice#aigentix.org alice%23aigentix.org did:aip:aigentix.org:alice
}

func ExampleSeal() {
	sender, _ := NewAIPKeyPair(bytes.Repeat([]byte{1}, 32), bytes.Repeat([]byte{2}, 32))
	defer sender.Close()
	recipient, _ := NewAIPKeyPair(bytes.Repeat([]byte{3}, 32), bytes.Repeat([]byte{4}, 32))
	defer recipient.Close()
	senderDoc, _ := sender.DIDDocument("did:aip:aigentix.org:alice", Direct, "https://alice.example/aip")
	recipientDoc, _ := recipient.DIDDocument("did:aip:aigentix.org:bob", Relay, "wss://hub.aigentix.org/relay/bob")

	id, _ := NewMessageID()
	env, _ := Seal(sender, recipientDoc, SealHeader{
		ID: id, From: "did:aip:aigentix.org:alice", Type: "aip.commerce.offer.request", CreatedAt: "2026-05-10T14:25:00Z",
	}, []byte(`{"qty": 2, "item": "camera"}`))

	now := time.Date(2026, 5, 10, 14, 26, 0, 0, time.UTC)
	h, body, err := Open(recipient, senderDoc, env, &OpenChecks{RecipientDID: "did:aip:aigentix.org:bob", Now: now})
	fmt.Println(h.From, h.Type, string(body), err)
	_, _, err = Open(recipient, senderDoc, env, &OpenChecks{RecipientDID: "did:aip:aigentix.org:bob", Now: now.Add(time.Hour)})
	fmt.Println(Code(err) == Temporal)
	// Output:
	// did:aip:aigentix.org:alice aip.commerce.offer.request {"item":"camera","qty":2} <nil>
	// true
}

func ExampleVerifyCredential() {
	k, _ := NewKeyPair(bytes.Repeat([]byte{1}, 32))
	defer k.Close()
	issuer, _ := DIDKey(k)
	signed, _ := IssueCredential(k, []byte(`{"@context": ["https://www.w3.org/ns/credentials/v2"], `+
		`"type": ["VerifiableCredential"], "issuer": "`+issuer+`", "credentialSubject": {"id": "did:aip:aigentix.org:bob"}}`), "")
	v, err := VerifyCredential(signed, &VerifyOptions{Anchors: []string{issuer}})
	fmt.Println(v.Subject, v.Issuer == issuer, err)
	// Output: did:aip:aigentix.org:bob true <nil>
}

func ExampleRank() {
	ranked, _ := Rank([]Candidate{
		{SemanticRank: 2, TrustScore: 0},
		{SemanticRank: 1, FTSRank: 1, TrustScore: 0.5},
		{SemanticRank: 3, FTSRank: 2, TrustScore: 1},
	})
	for _, r := range ranked {
		fmt.Printf("%d %.4f\n", r.Index, r.FinalScore)
	}
	// Output:
	// 2 0.0416
	// 1 0.0377
	// 0 0.0161
}
