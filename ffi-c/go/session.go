package concordia

/*
#include "concordia.h"
*/
import "C"

import (
	"runtime"
	"time"
)

// State is a session state (SPEC §5).
type State uint32

// The session states.
const (
	Proposed State = C.CONCORDIA_STATE_PROPOSED
	Active   State = C.CONCORDIA_STATE_ACTIVE
	Agreed   State = C.CONCORDIA_STATE_AGREED
	Rejected State = C.CONCORDIA_STATE_REJECTED
	Expired  State = C.CONCORDIA_STATE_EXPIRED
	Dormant  State = C.CONCORDIA_STATE_DORMANT
)

func (s State) String() string {
	switch s {
	case Proposed:
		return "PROPOSED"
	case Active:
		return "ACTIVE"
	case Agreed:
		return "AGREED"
	case Rejected:
		return "REJECTED"
	case Expired:
		return "EXPIRED"
	case Dormant:
		return "DORMANT"
	}
	return "State(?)"
}

// Role is a party's role in a session.
type Role uint32

// The roles.
const (
	Initiator Role = C.CONCORDIA_ROLE_INITIATOR
	Responder Role = C.CONCORDIA_ROLE_RESPONDER
	Mediator  Role = C.CONCORDIA_ROLE_MEDIATOR
	Witness   Role = C.CONCORDIA_ROLE_WITNESS
)

// Timing holds the timing parameters of SPEC §5.3.
type Timing struct {
	SessionTTL time.Duration // whole seconds
	OfferTTL   time.Duration // whole seconds
	MaxRounds  uint32
}

// DefaultTiming is the protocol's default timing (the core's Timing::default(), docs/limits.md).
func DefaultTiming() Timing {
	var t C.concordia_timing
	_ = call(func() C.concordia_result { return C.concordia_timing_default(&t) })
	return Timing{time.Duration(t.session_ttl) * time.Second, time.Duration(t.offer_ttl) * time.Second, uint32(t.max_rounds)}
}

// Session is the Concordia session state machine (8 parties, 32 terms). A message that
// fails any check leaves it unchanged. Not safe for concurrent use.
type Session struct {
	p *C.concordia_session
}

// NewSession creates a session in PROPOSED with the identifier id, created at createdAt,
// with timing (nil: DefaultTiming).
func NewSession(id string, createdAt time.Time, timing *Timing) (*Session, error) {
	var m cmem
	defer m.free()
	var t *C.concordia_timing
	if timing != nil {
		t = (*C.concordia_timing)(m.alloc(C.sizeof_concordia_timing))
		t.session_ttl = C.uint32_t(timing.SessionTTL / time.Second)
		t.offer_ttl = C.uint32_t(timing.OfferTTL / time.Second)
		t.max_rounds = C.uint32_t(timing.MaxRounds)
	}
	s := &Session{}
	idStr := m.str(id)
	if err := call(func() C.concordia_result { return C.concordia_session_new(idStr, unix(createdAt), t, &s.p) }); err != nil {
		return nil, err
	}
	runtime.SetFinalizer(s, (*Session).Close)
	return s, nil
}

// AddParty registers a party with its role and 32-byte public key.
func (s *Session) AddParty(agentID string, role Role, publicKey []byte) error {
	var m cmem
	defer m.free()
	id := m.str(agentID)
	err := call(func() C.concordia_result {
		return C.concordia_session_add_party(s.p, id, C.uint32_t(role), in(publicKey), C.size_t(len(publicKey)))
	})
	runtime.KeepAlive(s)
	return err
}

// Apply checks a signed message at now and, when it passes, advances the session; it
// returns the new state. keys (a JSON key map; nil to use the registered keys) is then
// the only source of the sender's key, as the reference SDK's resolver.
func (s *Session) Apply(message []byte, now time.Time, keys []byte) (State, error) {
	var st C.concordia_state
	err := call(func() C.concordia_result {
		return C.concordia_session_apply(s.p, in(message), C.size_t(len(message)), unix(now), ptr(keys), C.size_t(len(keys)), &st)
	})
	runtime.KeepAlive(s)
	return State(st), err
}

// State is the current state.
func (s *Session) State() State {
	var st C.concordia_state
	_ = call(func() C.concordia_result { return C.concordia_session_state(s.p, &st) })
	runtime.KeepAlive(s)
	return State(st)
}

// Counts is the number of offer rounds and of accepted messages.
func (s *Session) Counts() (rounds uint32, messages uint64) {
	var r C.uint32_t
	var n C.uint64_t
	_ = call(func() C.concordia_result { return C.concordia_session_counts(s.p, &r, &n) })
	runtime.KeepAlive(s)
	return uint32(r), uint64(n)
}

// Tip is the hash of the last accepted message ("sha256:<hex>"; the genesis hash before
// the first), the prev_hash of the next.
func (s *Session) Tip() string {
	out, _ := textOutput(func(o *C.uint8_t, c C.size_t, n *C.size_t) C.concordia_result {
		return C.concordia_session_tip(s.p, o, c, n)
	})
	runtime.KeepAlive(s)
	return out
}

// Close releases the session; it may be called more than once.
func (s *Session) Close() {
	if s.p != nil {
		C.concordia_session_free(s.p)
		s.p = nil
	}
	runtime.SetFinalizer(s, nil)
}
