package concordia

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

const (
	revHex = "d3626ac30a87e6f7a6428233b3c68299976865fa5508e4267c5415c76af7a772"
	mdHex  = "14d41f966c61c434d5cad639ff71cad48c953f7387bf17d42434c86cd93c726d"
)

func TestConsensusDigests(t *testing.T) {
	d, err := RevisionDigest([]byte(`{"b": 1, "a": 2}`))
	if err != nil || d != revHex {
		t.Fatalf("revision digest %q %v", d, err)
	}
	if MarkdownDigest([]byte("# Agreement\n")) != mdHex {
		t.Fatal("markdown digest")
	}
	for _, tc := range []struct {
		name     string
		err      error
		expected Result
	}{
		{"revision", VerifyRevision([]byte(`{"a":2,"b":1}`), revHex), OK},
		{"revision prefixed", VerifyRevision([]byte(`{"a":2,"b":1}`), "sha256:"+revHex), OK},
		{"revision mismatch", VerifyRevision([]byte(`{"a":2}`), revHex), Digest},
		{"revision malformed", VerifyRevision([]byte(`{"a":`), revHex), JSONUnexpectedEnd},
		{"markdown", VerifyMarkdown([]byte("# Agreement\n"), mdHex), OK},
		{"markdown mismatch", VerifyMarkdown([]byte("# Agreement"), mdHex), Digest},
		{"markdown bad hex", VerifyMarkdown([]byte("x"), "xyz"), Encoding},
	} {
		if Code(tc.err) != tc.expected {
			t.Errorf("%s: %v, want %d", tc.name, tc.err, tc.expected)
		}
	}
}

const invID = "3f2b8c1e-5d4a-4e7b-9c2f-1a2b3c4d5e6f"

func email(invite string) []byte {
	return []byte("Hello agent,\r\n\r\n---BEGIN CONSENSUS INVITATION V1---\r\n" +
		`{"schema": "https://consensus.md/schemas/invitation-email/v1", "invitation_id": "` + invID + `", ` +
		`"invite_uri": "` + invite + `", "agent_exchange": {"method": "POST", "href": ` +
		`"https://consensus.md/api/v1/agent/invitations/` + invID + `/exchange"}, ` +
		`"agent_claim": {"email_proof": "ep_private_proof_123"}}` + "\r\n---END CONSENSUS INVITATION V1---\r\n")
}

func TestCheckInvitation(t *testing.T) {
	secret := "#secret=6_asp1MbRl66oRMolZ2m4ep4Q3azK7nvIuj-2X7NjlA"
	for _, tc := range []struct {
		name, invite, origin string
		code                 Result
		valid                bool
	}{
		{"valid", "https://consensus.md/i/" + invID + secret, "", OK, true},
		{"query string", "https://consensus.md/i/" + invID + "?a=1" + secret, "", Privacy, false},
		{"other origin", "https://consensus.md/i/" + invID + secret, "https://example.org", Binding, false},
		{"no secret", "https://consensus.md/i/" + invID, "", Encoding, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			inv, err := CheckInvitation(email(tc.invite), tc.origin)
			if Code(err) != tc.code || inv.Valid != tc.valid || inv.ID != invID {
				t.Fatalf("%+v %v", inv, err)
			}
			if strings.Contains(fmt.Sprintf("%+v", inv), "6_asp1") {
				t.Fatal("secret crossed the boundary")
			}
		})
	}
	if _, err := CheckInvitation([]byte("no block"), ""); Code(err) != Schema {
		t.Fatalf("no block: %v", err)
	}
}

// Issue 32 class 12: an exchange URL with a query or fragment (which may carry the secret)
// comes back redacted, in the struct and in its error.
func TestCheckInvitationRedactsExchangeURL(t *testing.T) {
	const secret = "6_asp1MbRl66oRMolZ2m4ep4Q3azK7nvIuj-2X7NjlA"
	href := "https://consensus.md/api/v1/agent/invitations/" + invID + "/exchange"
	invite := "https://consensus.md/i/" + invID + "#secret=" + secret
	for tail, shown := range map[string]string{
		"?secret=" + secret:     "?<redacted>",
		"#secret=" + secret:     "#<redacted>",
		"?a=1#secret=" + secret: "?<redacted>#<redacted>",
	} {
		text := strings.Replace(string(email(invite)), href, href+tail, 1)
		inv, err := CheckInvitation([]byte(text), "")
		if Code(err) != Privacy || inv.NoQuery || inv.ExchangeHref != href+shown {
			t.Fatalf("%q: %+v %v", tail, inv, err)
		}
		if strings.Contains(fmt.Sprintf("%+v %v", inv, err), secret) {
			t.Fatalf("%q: secret crossed the boundary", tail)
		}
	}
}

func TestCommands(t *testing.T) {
	for _, tc := range []struct {
		name     string
		action   Action
		body     string
		revision uint64
		digest   string
		code     Result
	}{
		{"agree", Agree, "", 1, mdHex, OK},
		{"comment", Comment, "Looks good.", 2, "sha256:" + mdHex, OK},
		{"agree with body", Agree, "yes", 1, mdHex, Schema},
		{"comment without body", Comment, "", 1, mdHex, Schema},
		{"revision 0", Agree, "", 0, mdHex, Schema},
		{"bad digest", Agree, "", 1, "abc", Encoding},
		{"unknown action", Action(42), "", 1, mdHex, InvalidArgument},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd, err := BuildCommand(tc.action, tc.body, tc.revision, tc.digest)
			if Code(err) != tc.code {
				t.Fatalf("code %d, want %d (%v)", Code(err), tc.code, err)
			}
			if err != nil {
				return
			}
			if cmd.Digest != mdHex || !strings.HasPrefix(cmd.IdempotencyKey, "cns1:") || len(cmd.IdempotencyKey) != 48 {
				t.Fatalf("%+v", cmd)
			}
			parsed, err := ParseCommand(cmd.Wire)
			if err != nil || parsed.IdempotencyKey != cmd.IdempotencyKey || parsed.Action != tc.action || parsed.Revision != tc.revision {
				t.Fatalf("parsed %+v %v", parsed, err)
			}
		})
	}
	if _, err := ParseCommand([]byte(`{"action":"agree"}`)); Code(err) != Schema {
		t.Fatalf("parse: %v", err)
	}
}

func TestRoom(t *testing.T) {
	deadline := time.Unix(1800000000, 0)
	roster := []Participant{{ID: "alice"}, {ID: "bot", Agent: true}}
	if _, err := NewRoom(1, mdHex, deadline, roster[1:]); Code(err) != Schema {
		t.Fatalf("one participant: %v", err)
	}
	room, err := NewRoom(1, mdHex, deadline, roster)
	if err != nil {
		t.Fatal(err)
	}
	defer room.Close()
	agree, _ := BuildCommand(Agree, "", 1, mdHex)
	stale, _ := BuildCommand(Agree, "", 1, revHex)
	comment, _ := BuildCommand(Comment, "Fine.", 1, mdHex)
	before := deadline.Add(-time.Hour)
	for _, tc := range []struct {
		name, who string
		wire      []byte
		key       string
		code      Result
		status    int
		outcome   Outcome
	}{
		{"comment", "bot", comment.Wire, "", OK, 201, Pending},
		{"exact replay", "bot", comment.Wire, "", OK, 200, Pending},
		{"key reused", "bot", agree.Wire, comment.IdempotencyKey, Binding, 409, Pending},
		{"unknown participant", "mallory", agree.Wire, "", UnknownKey, 404, Pending},
		{"bad key", "bot", agree.Wire, "bad key!", Schema, 400, Pending},
		{"stale digest", "bot", stale.Wire, "", Digest, 409, Pending},
		{"bot agrees", "bot", agree.Wire, "", OK, 201, Pending},
		{"alice agrees", "alice", agree.Wire, "", OK, 201, Reached},
		{"closed", "alice", comment.Wire, "", Transition, 409, Reached},
	} {
		a, err := room.Apply(tc.who, tc.wire, tc.key, before)
		if Code(err) != tc.code || a.Status != tc.status || a.Outcome != tc.outcome {
			t.Errorf("%s: %+v %v", tc.name, a, err)
		}
	}
	if o := room.Outcome(deadline.Add(time.Hour)); o != Reached || o.String() != "reached" {
		t.Fatalf("outcome %v", o)
	}
	late, _ := NewRoom(1, mdHex, deadline, roster)
	defer late.Close()
	if o := late.Outcome(deadline); o != RoundExpired || o.String() != "expired" {
		t.Fatalf("expired: %v", o)
	}
}

func TestVerifyArtifact(t *testing.T) {
	body := []byte("{\"hello\": \"world\"}\n")
	field := "sha-256=:RK/0qy18MlBSVnWgjwz6lZEWjP/lF5HF9bvEF8FabDg=:"
	hex := "44aff4ab2d7c3250525675a08f0cfa9591168cffe51791c5f5bbc417c15a6c38"
	for _, tc := range []struct {
		name    string
		body    []byte
		hex     string
		outcome Outcome
		code    Result
	}{
		{"reached", body, hex, Reached, OK},
		{"changed bytes", body[1:], hex, Reached, Digest},
		{"headers differ", body, mdHex, Reached, Digest},
		{"not reached", body, hex, Disagreed, Transition},
	} {
		if err := VerifyArtifact(tc.body, field, tc.hex, tc.outcome); Code(err) != tc.code {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}

func ExampleBuildCommand() {
	digest := MarkdownDigest([]byte("# Agreement\n"))
	cmd, _ := BuildCommand(Agree, "", 1, digest)
	fmt.Println(string(cmd.Wire))
	fmt.Println(len(cmd.IdempotencyKey), cmd.IdempotencyKey[:5])
	_, err := BuildCommand(Agree, "looks good", 1, digest)
	fmt.Println(Code(err) == Schema)
	// Output:
	// {"action":"agree","body":"","digest":"14d41f966c61c434d5cad639ff71cad48c953f7387bf17d42434c86cd93c726d","revision":1}
	// 48 cns1:
	// true
}

func ExampleRoom() {
	digest := MarkdownDigest([]byte("# Agreement\n"))
	deadline := time.Unix(1800000000, 0)
	room, _ := NewRoom(1, digest, deadline, []Participant{{ID: "alice"}, {ID: "bot", Agent: true}})
	defer room.Close()
	agree, _ := BuildCommand(Agree, "", 1, digest)
	now := deadline.Add(-time.Hour)
	for _, who := range []string{"bot", "alice", "alice"} {
		a, err := room.Apply(who, agree.Wire, "", now)
		fmt.Println(who, a.Status, a.Outcome, err == nil)
	}
	// Output:
	// bot 201 pending true
	// alice 201 reached true
	// alice 200 reached true
}
