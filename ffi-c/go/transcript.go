package concordia

/*
#include "concordia.h"
*/
import "C"

import "runtime"

// TranscriptVerifier checks a hash-chained transcript one message at a time (SPEC §9.3):
// each prev_hash links the previous message, the session_id stays the same, the sender's
// key is in the key map and the signature verifies. Not safe for concurrent use.
type TranscriptVerifier struct {
	p *C.concordia_transcript_verifier
}

// NewTranscriptVerifier creates a verifier with a key map, a JSON object of agent_id to
// base64url public key (the keys.json of `concordia demo`).
func NewTranscriptVerifier(keysJSON []byte) (*TranscriptVerifier, error) {
	t := &TranscriptVerifier{}
	err := call(func() C.concordia_result {
		return C.concordia_transcript_verifier_new(in(keysJSON), C.size_t(len(keysJSON)), &t.p)
	})
	if err != nil {
		return nil, err
	}
	runtime.SetFinalizer(t, (*TranscriptVerifier).Close)
	return t, nil
}

// Push checks the next message; a message that fails leaves the verifier unchanged.
func (t *TranscriptVerifier) Push(message []byte) error {
	err := call(func() C.concordia_result {
		return C.concordia_transcript_verifier_push(t.p, in(message), C.size_t(len(message)))
	})
	runtime.KeepAlive(t)
	return err
}

// Finish ends the transcript and returns the number of accepted messages and the chain
// head ("sha256:<hex>" of the last accepted message). Later pushes fail with InvalidState.
func (t *TranscriptVerifier) Finish() (uint64, string, error) {
	var count C.uint64_t
	head := make([]byte, C.CONCORDIA_DIGEST_TEXT_LEN)
	var n C.size_t
	err := call(func() C.concordia_result {
		return C.concordia_transcript_verifier_finish(t.p, &count, ptr(head), C.size_t(len(head)), &n)
	})
	runtime.KeepAlive(t)
	return uint64(count), string(head[:n]), err
}

// Close releases the verifier; it may be called more than once.
func (t *TranscriptVerifier) Close() {
	if t.p != nil {
		C.concordia_transcript_verifier_free(t.p)
		t.p = nil
	}
	runtime.SetFinalizer(t, nil)
}
