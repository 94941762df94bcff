package concordia

/*
#include "concordia.h"
*/
import "C"

import (
	"fmt"
	"runtime"
)

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

// TranscriptFormat is how a transcript file is laid out.
type TranscriptFormat uint32

// The transcript formats of VerifyTranscriptFile.
const (
	// TranscriptArray is a JSON array of messages (read one message at a time), or an
	// object whose "messages" member is that array (read whole).
	TranscriptArray TranscriptFormat = C.CONCORDIA_TRANSCRIPT_ARRAY
	// TranscriptLines is JSON Lines: one message per line; blank lines are skipped.
	TranscriptLines TranscriptFormat = C.CONCORDIA_TRANSCRIPT_LINES
)

// MessageError is a transcript message that failed a protocol check: its index and the
// library's error (Code(err) gives its code).
type MessageError struct {
	Index uint64
	Err   *Error
}

func (e *MessageError) Error() string { return fmt.Sprintf("message %d: %v", e.Index, e.Err) }

// Unwrap gives the library's error.
func (e *MessageError) Unwrap() error { return e.Err }

// VerifyTranscriptFile verifies the transcript in the file at path one message at a
// time, so memory is bounded by the largest message, whatever the transcript's length.
// keysJSON maps each agent_id to its base64url public key; maxInput refuses larger files
// (LimitSize), 0 means no cap. It returns the number of messages and the chain head
// ("sha256:<hex>" of the last message; the genesis hash for an empty transcript). When a
// message fails a protocol check the error is a *MessageError with its index, and count
// is the number of messages before it; a file that cannot be read is IO, malformed JSON a
// 2xx code with the byte offset in the file.
func VerifyTranscriptFile(path string, keysJSON []byte, format TranscriptFormat, maxInput uint64) (count uint64, head string, err error) {
	p := []byte(path)
	var n C.uint64_t
	failed := C.uint64_t(^uint64(0))
	buf := make([]byte, C.CONCORDIA_DIGEST_TEXT_LEN)
	var hl C.size_t
	err = call(func() C.concordia_result {
		return C.concordia_verify_transcript_file(in(p), C.size_t(len(p)), in(keysJSON), C.size_t(len(keysJSON)),
			C.uint32_t(format), C.uint64_t(maxInput), &n, ptr(buf), C.size_t(len(buf)), &hl, &failed)
	})
	if err != nil {
		if uint64(failed) != ^uint64(0) {
			return uint64(n), "", &MessageError{Index: uint64(failed), Err: err.(*Error)}
		}
		return uint64(n), "", err
	}
	return uint64(n), string(buf[:hl]), nil
}
