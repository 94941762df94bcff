package concordia

/*
#include "concordia.h"
*/
import "C"

import (
	"runtime"
	"time"
)

// Action is a Consensus room action.
type Action uint32

// The room actions: advisory (need a body) and terminal (empty body).
const (
	Comment       Action = C.CONCORDIA_CONSENSUS_COMMENT
	Question      Action = C.CONCORDIA_CONSENSUS_QUESTION
	ChangeRequest Action = C.CONCORDIA_CONSENSUS_CHANGE_REQUEST
	Agree         Action = C.CONCORDIA_CONSENSUS_AGREE
	Disagree      Action = C.CONCORDIA_CONSENSUS_DISAGREE
	Abstain       Action = C.CONCORDIA_CONSENSUS_ABSTAIN
)

// Outcome is the outcome of a Consensus round.
type Outcome uint32

// The outcomes.
const (
	Pending      Outcome = C.CONCORDIA_CONSENSUS_PENDING
	Reached      Outcome = C.CONCORDIA_CONSENSUS_REACHED
	Disagreed    Outcome = C.CONCORDIA_CONSENSUS_DISAGREED
	NoConsensus  Outcome = C.CONCORDIA_CONSENSUS_NO_CONSENSUS
	RoundExpired Outcome = C.CONCORDIA_CONSENSUS_EXPIRED
)

// String is the wire word: pending, reached, disagreed, no_consensus or expired.
func (o Outcome) String() string {
	s, err := textOutput(func(out *C.uint8_t, c C.size_t, n *C.size_t) C.concordia_result {
		return C.concordia_consensus_outcome_name(C.uint32_t(o), out, c, n)
	})
	if err != nil {
		return "Outcome(?)"
	}
	return s
}

// RevisionDigest is the revision digest (64 lowercase hex) of canonicalRevision, a JSON
// text read with the RFC 8785 number domain the venue uses.
func RevisionDigest(canonicalRevision []byte) (string, error) {
	return textOutput(func(o *C.uint8_t, c C.size_t, n *C.size_t) C.concordia_result {
		return C.concordia_consensus_revision_digest(in(canonicalRevision), C.size_t(len(canonicalRevision)), o, c, n)
	})
}

// VerifyRevision checks canonicalRevision against the venue's revisionDigest (64 hex
// digits, optionally "sha256:"-prefixed).
func VerifyRevision(canonicalRevision []byte, expected string) error {
	var m cmem
	defer m.free()
	e := m.str(expected)
	return call(func() C.concordia_result {
		return C.concordia_consensus_verify_revision(in(canonicalRevision), C.size_t(len(canonicalRevision)), e)
	})
}

// MarkdownDigest is the SHA-256 (64 lowercase hex) of the exact Markdown bytes.
func MarkdownDigest(markdown []byte) string {
	s, _ := textOutput(func(o *C.uint8_t, c C.size_t, n *C.size_t) C.concordia_result {
		return C.concordia_consensus_markdown_digest(ptr(markdown), C.size_t(len(markdown)), o, c, n)
	})
	return s
}

// VerifyMarkdown checks Markdown bytes against the venue's markdownDigest.
func VerifyMarkdown(markdown []byte, expected string) error {
	var m cmem
	defer m.free()
	e := m.str(expected)
	return call(func() C.concordia_result {
		return C.concordia_consensus_verify_markdown(ptr(markdown), C.size_t(len(markdown)), e)
	})
}

// Invitation is what an invitation email holds, without its secrets, and its checks.
type Invitation struct {
	ID           string // invitation_id (a UUID)
	ExchangeHref string // agent_exchange.href; redacted (?<redacted>, #<redacted>) when NoQuery failed
	HTTPS        bool   // both URLs use HTTPS
	Origin       bool   // both URLs have exactly the expected origin
	NoQuery      bool   // no query string, no fragment in the exchange URL
	UUIDs        bool   // envelope, invite-path and exchange-path UUIDs are identical
	Secret       bool   // the invite fragment is secret=<valid base64url>
	Valid        bool   // every check passed
}

// CheckInvitation reads the CONSENSUS INVITATION V1 block of a plain-text email and checks
// it against origin ("" for https://consensus.md). When the block parses, the Invitation
// is returned with every check, and the error is the first failed check's (Binding,
// Privacy or Encoding), nil when all passed.
func CheckInvitation(email []byte, origin string) (Invitation, error) {
	var m cmem
	defer m.free()
	o := m.opt(origin)
	info := (*C.concordia_consensus_invitation)(m.alloc(C.sizeof_concordia_consensus_invitation))
	err := call(func() C.concordia_result {
		return C.concordia_consensus_invitation_check(in(email), C.size_t(len(email)), o, info)
	})
	if e := Code(err); e != OK && info.exchange_href_len == 0 {
		return Invitation{}, err
	}
	id := C.GoBytes(unsafePointer(&info.invitation_id[0]), C.int(len(info.invitation_id)))
	href := C.GoBytes(unsafePointer(&info.exchange_href[0]), C.int(info.exchange_href_len))
	return Invitation{
		ID: string(id), ExchangeHref: string(href),
		HTTPS: info.https != 0, Origin: info.origin != 0, NoQuery: info.no_query != 0,
		UUIDs: info.uuids != 0, Secret: info.secret != 0, Valid: info.valid != 0,
	}, err
}

// Command is a validated room command.
type Command struct {
	Action         Action
	Revision       uint64
	Digest         string // 64 lowercase hex, normalized
	IdempotencyKey string // "cns1:" + 43 base64url characters
	Wire           []byte // the wire body, canonical JSON (BuildCommand only)
}

func commandOf(c *C.concordia_consensus_command) Command {
	return Command{
		Action:         Action(c.action),
		Revision:       uint64(c.revision),
		Digest:         C.GoStringN((*C.char)(unsafePointer(&c.digest[0])), C.int(len(c.digest))),
		IdempotencyKey: C.GoStringN((*C.char)(unsafePointer(&c.idempotency_key[0])), C.int(len(c.idempotency_key))),
	}
}

// BuildCommand builds and validates a room command: advisory actions need a body of 1 to
// 4000 characters, terminal ones an empty body; revision is 1 to 2^53 - 1; digest is 64
// hex digits, optionally "sha256:"-prefixed.
func BuildCommand(action Action, body string, revision uint64, digest string) (Command, error) {
	var m cmem
	defer m.free()
	b, d := m.str(body), m.str(digest)
	info := (*C.concordia_consensus_command)(m.alloc(C.sizeof_concordia_consensus_command))
	wire, err := output(func(o *C.uint8_t, c C.size_t, n *C.size_t) C.concordia_result {
		return C.concordia_consensus_command_build(C.uint32_t(action), b, C.uint64_t(revision), d, info, o, c, n)
	})
	if err != nil {
		return Command{}, err
	}
	cmd := commandOf(info)
	cmd.Wire = wire
	return cmd, nil
}

// ParseCommand reads and validates a received wire body (exactly action, body, revision,
// digest).
func ParseCommand(wire []byte) (Command, error) {
	var info C.concordia_consensus_command
	if err := call(func() C.concordia_result {
		return C.concordia_consensus_command_parse(in(wire), C.size_t(len(wire)), &info)
	}); err != nil {
		return Command{}, err
	}
	return commandOf(&info), nil
}

// Participant is a room roster entry.
type Participant struct {
	ID    string
	Agent bool // an invited agent; false for a human
}

// Applied is what Room.Apply did.
type Applied struct {
	Status  int // 201 new event, 200 exact replay; on a refusal 400, 404 or 409
	Event   int // index of the event in the log
	Outcome Outcome
}

// Room is the Consensus unanimity room model: one locked revision, a deadline, 2 to 8
// participants and an append-only event log. Not safe for concurrent use.
type Room struct {
	p *C.concordia_consensus_room
}

// NewRoom creates a pending room for revision with its digest (64 hex digits), closing
// at deadline, with the roster (2 to 8 participants, at least one human).
func NewRoom(revision uint64, digest string, deadline time.Time, roster []Participant) (*Room, error) {
	var m cmem
	defer m.free()
	d := m.str(digest)
	var cr *C.concordia_consensus_participant
	if len(roster) > 0 {
		cr = (*C.concordia_consensus_participant)(m.alloc(len(roster) * C.sizeof_concordia_consensus_participant))
		for i, p := range roster {
			kind := C.uint32_t(C.CONCORDIA_CONSENSUS_HUMAN)
			if p.Agent {
				kind = C.CONCORDIA_CONSENSUS_AGENT
			}
			unsafeIndex(cr, i)[0] = C.concordia_consensus_participant{id: m.str(p.ID), kind: kind}
		}
	}
	r := &Room{}
	if err := call(func() C.concordia_result {
		return C.concordia_consensus_room_new(C.uint64_t(revision), d, unix(deadline), cr, C.size_t(len(roster)), &r.p)
	}); err != nil {
		return nil, err
	}
	runtime.SetFinalizer(r, (*Room).Close)
	return r, nil
}

// Apply applies a command (its wire body) from participant at now with the
// Idempotency-Key key ("" for the command's derived key). On a refusal the error is the
// refusal's (e.g. Digest for a stale digest, Transition for a closed round) and Applied
// still carries the HTTP status.
func (r *Room) Apply(participant string, wire []byte, key string, now time.Time) (Applied, error) {
	var m cmem
	defer m.free()
	p, k := m.str(participant), m.opt(key)
	var a C.concordia_consensus_applied
	err := call(func() C.concordia_result {
		return C.concordia_consensus_room_apply(r.p, p, in(wire), C.size_t(len(wire)), k, unix(now), &a)
	})
	runtime.KeepAlive(r)
	return Applied{int(a.status), int(a.event), Outcome(a.outcome)}, err
}

// Outcome is the outcome as seen at now, without changing the room.
func (r *Room) Outcome(now time.Time) Outcome {
	var o C.concordia_consensus_outcome
	_ = call(func() C.concordia_result { return C.concordia_consensus_room_outcome(r.p, unix(now), &o) })
	runtime.KeepAlive(r)
	return Outcome(o)
}

// Close releases the room; it may be called more than once.
func (r *Room) Close() {
	if r.p != nil {
		C.concordia_consensus_room_free(r.p)
		r.p = nil
	}
	runtime.SetFinalizer(r, nil)
}

// VerifyArtifact verifies CONSENSUS.md bytes against its Content-Digest header (RFC 9530),
// its X-Consensus-SHA256 header and the round's outcome (only Reached has an artifact).
func VerifyArtifact(artifact []byte, contentDigest, xConsensusSHA256 string, outcome Outcome) error {
	var m cmem
	defer m.free()
	cd, x := m.str(contentDigest), m.str(xConsensusSHA256)
	return call(func() C.concordia_result {
		return C.concordia_consensus_verify_artifact(ptr(artifact), C.size_t(len(artifact)), cd, x, C.uint32_t(outcome))
	})
}
