package concordia

/*
#include "concordia.h"
*/
import "C"

import (
	"runtime"
	"time"
)

// ValidityMode is the mode of an attestation's validity window (§9.7.3).
type ValidityMode uint32

// The validity modes.
const (
	ValidityAbsolute ValidityMode = C.CONCORDIA_VALIDITY_ABSOLUTE // From until Until
	ValidityRelative ValidityMode = C.CONCORDIA_VALIDITY_RELATIVE // Duration after From
	ValidityWindow   ValidityMode = C.CONCORDIA_VALIDITY_WINDOW   // any Duration within [From, Until]
)

// AttestationParams is what an attestation needs besides its session.
type AttestationParams struct {
	ID                  string // attestation_id, e.g. "att_<8 hex>"
	Now                 time.Time
	Mode                ValidityMode
	From, Until         time.Time
	Duration            time.Duration // whole seconds; relative and window modes
	Category            string        // meta.category; "" when absent
	ValueRange          string        // meta.value_range; "" when absent
	ResolutionMechanism string        // direct, split, foa, tradeoff, escalation or none
}

// Signer is a party's key for GenerateAttestation.
type Signer struct {
	AgentID string
	Key     *KeyPair
}

// GenerateAttestation returns the signed, countersigned attestation (canonical JSON) of a
// concluded session. Each party with a key among signers signs and countersigns.
func (s *Session) GenerateAttestation(p AttestationParams, signers ...Signer) ([]byte, error) {
	var m cmem
	defer m.free()
	cp := (*C.concordia_attestation_params)(m.alloc(C.sizeof_concordia_attestation_params))
	cp.attestation_id = m.str(p.ID)
	cp.now = unix(p.Now)
	cp.validity_mode = C.uint32_t(p.Mode)
	cp.validity_from = unix(p.From)
	cp.validity_until = unix(p.Until)
	cp.validity_duration_seconds = C.uint32_t(p.Duration / time.Second)
	cp.category = m.opt(p.Category)
	cp.value_range = m.opt(p.ValueRange)
	cp.resolution_mechanism = m.str(p.ResolutionMechanism)
	var cs *C.concordia_signer
	if len(signers) > 0 {
		cs = (*C.concordia_signer)(m.alloc(len(signers) * C.sizeof_concordia_signer))
		for i, sg := range signers {
			unsafeIndex(cs, i)[0] = C.concordia_signer{agent_id: m.str(sg.AgentID), keypair: sg.Key.p}
		}
	}
	out, err := output(func(o *C.uint8_t, c C.size_t, n *C.size_t) C.concordia_result {
		return C.concordia_attestation_generate(s.p, cp, cs, C.size_t(len(signers)), o, c, n)
	})
	runtime.KeepAlive(s)
	runtime.KeepAlive(signers)
	return out, err
}

// SetBinding is how an attestation binds its transcript (§9.6.5b).
type SetBinding uint32

// The set binding states.
const (
	Bound         SetBinding = C.CONCORDIA_SET_BINDING_BOUND          // the transcript given is the one bound
	Unchecked     SetBinding = C.CONCORDIA_SET_BINDING_UNCHECKED      // no transcript given
	LegacyUnbound SetBinding = C.CONCORDIA_SET_BINDING_LEGACY_UNBOUND // below 0.3.0
)

// AttestationResult is what VerifyAttestation established.
type AttestationResult struct {
	Parties           int // party signatures that verified
	Countersignatures int // countersignatures that verified
	Binding           SetBinding
}

// VerifyAttestation verifies an attestation under a key map (agent_id to base64url key)
// and, when transcript (a JSON array of the session's messages) is not nil, that the
// transcript verifies and is the one the attestation binds.
func VerifyAttestation(attestation, keys, transcript []byte) (AttestationResult, error) {
	var v C.concordia_attestation_verified
	err := call(func() C.concordia_result {
		return C.concordia_attestation_verify(in(attestation), C.size_t(len(attestation)), in(keys), C.size_t(len(keys)),
			ptr(transcript), C.size_t(len(transcript)), &v)
	})
	return AttestationResult{int(v.parties), int(v.countersignatures), SetBinding(v.binding)}, err
}
