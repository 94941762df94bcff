// Package concordia calls libconcordia, the C ABI of concordia-core, through cgo.
//
// It is a thin example binding: every check is made by the library; this package only
// converts Go values to pointer-and-length pairs, sizes output buffers (a first call with
// no buffer returns CONCORDIA_BUFFER_TOO_SMALL and the needed length), and turns result
// codes into errors.
//
// Build the library first: cargo build --release -p concordia-ffi (from the repository
// root); cgo links target/release/libconcordia.a.
package concordia

/*
#cgo CFLAGS: -I${SRCDIR}/../../../include
#cgo LDFLAGS: ${SRCDIR}/../../../target/release/libconcordia.a -lm -ldl -lpthread
#include <stdlib.h>
#include "concordia.h"
*/
import "C"

import (
	"fmt"
	"runtime"
	"unsafe"
)

// Result is a concordia_result code.
type Result uint32

// Codes this package names; see include/concordia.h for all of them.
const (
	OK             Result = C.CONCORDIA_OK
	BufferTooSmall Result = C.CONCORDIA_BUFFER_TOO_SMALL
	Signature      Result = C.CONCORDIA_SIGNATURE
	Binding        Result = C.CONCORDIA_BINDING
	UnknownProfile Result = C.CONCORDIA_UNKNOWN_PROFILE
	InvalidState   Result = C.CONCORDIA_INVALID_STATE
)

// Error is a failed call: its code, the code's reason class, and the library's detail.
type Error struct {
	Code   Result
	Class  string
	Detail string
}

func (e *Error) Error() string {
	return fmt.Sprintf("concordia: %d (%s): %s", e.Code, e.Class, e.Detail)
}

// ptr returns a pointer to the first byte of b, or nil for an empty slice.
func ptr(b []byte) *C.uint8_t {
	if len(b) == 0 {
		return nil
	}
	return (*C.uint8_t)(unsafe.Pointer(&b[0]))
}

// text copies s into C memory (free with C.free) as a concordia_str.
func text(s string) (C.concordia_str, unsafe.Pointer) {
	p := C.CBytes([]byte(s))
	return C.concordia_str{ptr: (*C.uint8_t)(p), len: C.size_t(len(s))}, p
}

// fetch reads a text output of the library (result messages, classes).
func fetch(f func(out *C.uint8_t, cap C.size_t, n *C.size_t) C.concordia_result) string {
	var buf [256]byte
	var n C.size_t
	if f((*C.uint8_t)(unsafe.Pointer(&buf[0])), C.size_t(len(buf)), &n) != C.CONCORDIA_OK {
		return ""
	}
	return string(buf[:n])
}

// ClassOf returns the reason class of a code ("schema", "signature", "binding", ...).
func ClassOf(code Result) string {
	return fetch(func(out *C.uint8_t, cap C.size_t, n *C.size_t) C.concordia_result {
		return C.concordia_result_class(C.uint32_t(code), out, cap, n)
	})
}

// MessageOf returns the fixed description of a code.
func MessageOf(code Result) string {
	return fetch(func(out *C.uint8_t, cap C.size_t, n *C.size_t) C.concordia_result {
		return C.concordia_result_message(C.uint32_t(code), out, cap, n)
	})
}

// call runs one library call on a locked OS thread, so that the thread-local last error
// read afterwards is this call's.
func call(f func() C.concordia_result) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	code := Result(f())
	if code == OK {
		return nil
	}
	detail := fetch(func(out *C.uint8_t, cap C.size_t, n *C.size_t) C.concordia_result {
		return C.concordia_last_error_message(out, cap, n)
	})
	if detail == "" {
		detail = MessageOf(code)
	}
	return &Error{Code: code, Class: ClassOf(code), Detail: detail}
}

// Code returns the result code of an error from this package (OK for nil).
func Code(err error) Result {
	if e, ok := err.(*Error); ok {
		return e.Code
	}
	if err == nil {
		return OK
	}
	return Result(C.CONCORDIA_INTERNAL)
}

// output calls f once to learn the length, then with a buffer of that length.
func output(f func(out *C.uint8_t, cap C.size_t, n *C.size_t) C.concordia_result) ([]byte, error) {
	var n C.size_t
	err := call(func() C.concordia_result { return f(nil, 0, &n) })
	if Code(err) != BufferTooSmall {
		if err == nil {
			return []byte{}, nil
		}
		return nil, err
	}
	buf := make([]byte, int(n))
	err = call(func() C.concordia_result { return f(ptr(buf), C.size_t(len(buf)), &n) })
	if err != nil {
		return nil, err
	}
	return buf[:n], nil
}

// Version is the library's version text.
func Version() string {
	out, _ := output(func(o *C.uint8_t, c C.size_t, n *C.size_t) C.concordia_result { return C.concordia_version(o, c, n) })
	return string(out)
}

// HeaderVersion is the version number of the header cgo compiled against.
const HeaderVersion = C.CONCORDIA_VERSION_NUMBER

// LibraryVersion is the version number of the linked library.
func LibraryVersion() uint32 { return uint32(C.concordia_version_number()) }

// Canonicalize returns the RFC 8785 canonical form of a JSON text.
func Canonicalize(json []byte) ([]byte, error) {
	return output(func(o *C.uint8_t, c C.size_t, n *C.size_t) C.concordia_result {
		return C.concordia_canonicalize(ptr(json), C.size_t(len(json)), o, c, n)
	})
}

// Hash returns sha256:<hex> of the canonical form of a JSON text.
func Hash(json []byte) (string, error) {
	out, err := output(func(o *C.uint8_t, c C.size_t, n *C.size_t) C.concordia_result {
		return C.concordia_hash(ptr(json), C.size_t(len(json)), o, c, n)
	})
	return string(out), err
}

// VerifyProfile checks a record under a conformance profile with its context object.
func VerifyProfile(profile string, input, context []byte) error {
	name, p := text(profile)
	defer C.free(p)
	return call(func() C.concordia_result {
		return C.concordia_verify_profile(name, ptr(input), C.size_t(len(input)), ptr(context), C.size_t(len(context)))
	})
}

// TranscriptVerifier checks a hash-chained transcript one message at a time.
type TranscriptVerifier struct {
	v *C.concordia_transcript_verifier
}

// NewTranscriptVerifier creates a verifier with a key map (agent_id to base64url key).
func NewTranscriptVerifier(keysJSON []byte) (*TranscriptVerifier, error) {
	t := &TranscriptVerifier{}
	err := call(func() C.concordia_result {
		return C.concordia_transcript_verifier_new(ptr(keysJSON), C.size_t(len(keysJSON)), &t.v)
	})
	if err != nil {
		return nil, err
	}
	return t, nil
}

// Push checks the next message.
func (t *TranscriptVerifier) Push(message []byte) error {
	return call(func() C.concordia_result {
		return C.concordia_transcript_verifier_push(t.v, ptr(message), C.size_t(len(message)))
	})
}

// Finish ends the transcript and returns the message count and the chain head.
func (t *TranscriptVerifier) Finish() (uint64, string, error) {
	var count C.uint64_t
	head := make([]byte, C.CONCORDIA_DIGEST_TEXT_LEN)
	var n C.size_t
	err := call(func() C.concordia_result {
		return C.concordia_transcript_verifier_finish(t.v, &count, ptr(head), C.size_t(len(head)), &n)
	})
	return uint64(count), string(head[:n]), err
}

// Free releases the verifier.
func (t *TranscriptVerifier) Free() {
	C.concordia_transcript_verifier_free(t.v)
	t.v = nil
}

// Verified is what AttestationVerify established.
type Verified struct {
	Parties, Countersignatures int
	Bound                      bool
}

// AttestationVerify checks an attestation under a key map and, when transcript is not
// nil, that it binds that transcript (a JSON array of messages).
func AttestationVerify(attestation, keys, transcript []byte) (Verified, error) {
	var v C.concordia_attestation_verified
	tptr := ptr(transcript)
	err := call(func() C.concordia_result {
		return C.concordia_attestation_verify(ptr(attestation), C.size_t(len(attestation)), ptr(keys), C.size_t(len(keys)),
			tptr, C.size_t(len(transcript)), &v)
	})
	return Verified{int(v.parties), int(v.countersignatures), v.binding == C.CONCORDIA_SET_BINDING_BOUND}, err
}
