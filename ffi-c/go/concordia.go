// Package concordia is the Go binding of libconcordia, the C ABI of concordia-core: RFC
// 8785 JSON, SHA-256, Ed25519 keys and signatures, Concordia transcripts, sessions,
// attestations and conformance profiles, the Consensus venue primitives and AIP (handles,
// DID Documents, sealed envelopes, credentials, trust and ranking).
//
// Every check is made by the library; this package converts Go values to the C ABI's
// pointer-and-length pairs, sizes output buffers (a first call with no buffer reports the
// length needed), and turns result codes into errors of type *Error, which carry the code,
// its reason class and the library's detail.
//
// Objects that own library memory (KeyPair, AIPKeyPair, TranscriptVerifier, Session, Room)
// have a Close method; a finalizer closes an object that was not closed.
//
// The package finds the C library through pkg-config, so install libconcordia first
// (from a checkout: tools/install-c.sh --prefix /usr/local; see ffi-c/README.md). By
// default cgo links the shared library (pkg-config concordia), which the program loads at
// run time; with the build tag concordia_static it links libconcordia.a (pkg-config
// concordia-static) and the program needs nothing at run time (link_shared.go and
// link_static.go hold the two cgo lines). For a prefix outside the loader's path, set
// PKG_CONFIG_PATH to its lib/pkgconfig, and for the shared library an rpath, e.g.
// CGO_LDFLAGS=-Wl,-rpath,<prefix>/lib.
package concordia

/*
#include <stdlib.h>
#include "concordia.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"runtime"
	"time"
	"unsafe"
)

// Result is a concordia_result code: 0 success, 1xx usage, 2xx malformed JSON, 3xx keys
// and signatures, 4xx the protocol's reason classes, 5xx limits, 9xx internal.
type Result uint32

// The result codes of include/concordia.h.
const (
	OK                    Result = C.CONCORDIA_OK
	NullArgument          Result = C.CONCORDIA_NULL_ARGUMENT
	BufferTooSmall        Result = C.CONCORDIA_BUFFER_TOO_SMALL
	InvalidArgument       Result = C.CONCORDIA_INVALID_ARGUMENT
	UnknownProfile        Result = C.CONCORDIA_UNKNOWN_PROFILE
	InvalidState          Result = C.CONCORDIA_INVALID_STATE
	NotAvailable          Result = C.CONCORDIA_NOT_AVAILABLE
	IO                    Result = C.CONCORDIA_IO
	JSONUnexpectedEnd     Result = C.CONCORDIA_JSON_UNEXPECTED_END
	JSONDuplicateKey      Result = C.CONCORDIA_JSON_DUPLICATE_KEY
	Signature             Result = C.CONCORDIA_SIGNATURE
	UnknownKey            Result = C.CONCORDIA_UNKNOWN_KEY
	Encoding              Result = C.CONCORDIA_ENCODING
	Schema                Result = C.CONCORDIA_SCHEMA
	Digest                Result = C.CONCORDIA_DIGEST
	Binding               Result = C.CONCORDIA_BINDING
	Temporal              Result = C.CONCORDIA_TEMPORAL
	Privacy               Result = C.CONCORDIA_PRIVACY
	Transition            Result = C.CONCORDIA_TRANSITION
	MaxRounds             Result = C.CONCORDIA_MAX_ROUNDS
	Shape                 Result = C.CONCORDIA_SHAPE
	AIPReplay             Result = C.CONCORDIA_AIP_REPLAY
	LimitDepth            Result = C.CONCORDIA_LIMIT_DEPTH
	LimitSize             Result = C.CONCORDIA_LIMIT_SIZE
	LimitCapacity         Result = C.CONCORDIA_LIMIT_CAPACITY
	LimitMemory           Result = C.CONCORDIA_LIMIT_MEMORY
	Panic                 Result = C.CONCORDIA_PANIC
	Internal              Result = C.CONCORDIA_INTERNAL
	RandomnessUnavailable Result = C.CONCORDIA_RANDOMNESS_UNAVAILABLE
)

// Message is the library's fixed one-line description of the code.
func (r Result) Message() string {
	return fetch(func(out *C.uint8_t, cap C.size_t, n *C.size_t) C.concordia_result {
		return C.concordia_result_message(C.uint32_t(r), out, cap, n)
	})
}

// Class is the code's reason class: "schema", "signature", "digest", "binding",
// "temporal", "privacy", "transition", "input", "limit", "internal" or "ok".
func (r Result) Class() string {
	return fetch(func(out *C.uint8_t, cap C.size_t, n *C.size_t) C.concordia_result {
		return C.concordia_result_class(C.uint32_t(r), out, cap, n)
	})
}

// Error is a failed call: its code, the code's reason class, the library's detail (for
// example "binding check failed: prev_hash"), and for malformed JSON or an exceeded
// limit the byte offset in the input (-1 otherwise).
type Error struct {
	Code   Result
	Class  string
	Detail string
	Offset int
}

func (e *Error) Error() string {
	return fmt.Sprintf("concordia: %s (%d, %s)", e.Detail, e.Code, e.Class)
}

// Is reports whether target is an *Error with the same code, so that
// errors.Is(err, &concordia.Error{Code: concordia.Signature}) works.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}

// Code returns the result code of an error from this package: OK for nil, Internal for
// an error of another kind.
func Code(err error) Result {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	if err == nil {
		return OK
	}
	return Internal
}

// ptr returns a pointer to the first byte of b, or nil for an empty slice.
func ptr(b []byte) *C.uint8_t {
	if len(b) == 0 {
		return nil
	}
	return (*C.uint8_t)(unsafe.Pointer(&b[0]))
}

// in is b as a required input: never NULL, so that an empty input reaches the library
// (which reports it, e.g. as malformed JSON) rather than counting as a missing argument.
func in(b []byte) *C.uint8_t {
	if len(b) == 0 {
		return empty
	}
	return ptr(b)
}

// empty is one byte of C memory, the pointer of every empty required input.
var empty = (*C.uint8_t)(C.calloc(1, 1))

// fetch reads a short text output of the library (messages, classes).
func fetch(f func(out *C.uint8_t, cap C.size_t, n *C.size_t) C.concordia_result) string {
	var buf [256]byte
	var n C.size_t
	if f((*C.uint8_t)(unsafe.Pointer(&buf[0])), C.size_t(len(buf)), &n) != C.CONCORDIA_OK {
		return ""
	}
	return string(buf[:n])
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
	offset := -1
	var off C.size_t
	if C.concordia_last_error_offset(&off) == C.CONCORDIA_OK {
		offset = int(off)
	}
	if detail == "" {
		detail = code.Message()
	}
	return &Error{Code: code, Class: code.Class(), Detail: detail, Offset: offset}
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

// textOutput is output as a string.
func textOutput(f func(out *C.uint8_t, cap C.size_t, n *C.size_t) C.concordia_result) (string, error) {
	b, err := output(f)
	return string(b), err
}

// cmem holds C copies of the Go values of one call (the C ABI's structs may not point
// into Go memory); free releases them.
type cmem struct{ ptrs []unsafe.Pointer }

func (m *cmem) alloc(size int) unsafe.Pointer {
	if size == 0 {
		size = 1
	}
	p := C.calloc(1, C.size_t(size))
	if p == nil {
		panic("concordia: out of C memory")
	}
	m.ptrs = append(m.ptrs, p)
	return p
}

// str is s as a concordia_str in C memory.
func (m *cmem) str(s string) C.concordia_str {
	p := m.alloc(len(s))
	copy(unsafe.Slice((*byte)(p), len(s)), s)
	return C.concordia_str{ptr: (*C.uint8_t)(p), len: C.size_t(len(s))}
}

// opt is s as a concordia_str, absent (NULL) when s is empty.
func (m *cmem) opt(s string) C.concordia_str {
	if s == "" {
		return C.concordia_str{}
	}
	return m.str(s)
}

// strs is a C array of concordia_str.
func (m *cmem) strs(list []string) (*C.concordia_str, C.size_t) {
	if len(list) == 0 {
		return nil, 0
	}
	p := (*C.concordia_str)(m.alloc(len(list) * C.sizeof_concordia_str))
	arr := unsafe.Slice(p, len(list))
	for i, s := range list {
		arr[i] = m.str(s)
	}
	return p, C.size_t(len(list))
}

func (m *cmem) free() {
	for _, p := range m.ptrs {
		C.free(p)
	}
	m.ptrs = nil
}

// unix is t as Unix seconds (the library reads no clock).
func unix(t time.Time) C.int64_t { return C.int64_t(t.Unix()) }

// span is the text of a concordia_span of input.
func span(input []byte, s C.concordia_span) string {
	return string(input[int(s.offset) : int(s.offset)+int(s.len)])
}

// Version is the library's version text, e.g. "0.1.0".
func Version() string {
	out, _ := textOutput(func(o *C.uint8_t, c C.size_t, n *C.size_t) C.concordia_result { return C.concordia_version(o, c, n) })
	return out
}

// HeaderVersion is the version number (major*10000 + minor*100 + patch) of the header
// cgo compiled against.
const HeaderVersion = C.CONCORDIA_VERSION_NUMBER

// LibraryVersion is the version number of the linked library.
func LibraryVersion() uint32 { return uint32(C.concordia_version_number()) }

// Canonicalize returns the RFC 8785 canonical form of a JSON text, read strictly (I-JSON:
// no duplicate names, no lone surrogates, no -0, no integers beyond 2^53 - 1).
func Canonicalize(json []byte) ([]byte, error) {
	return output(func(o *C.uint8_t, c C.size_t, n *C.size_t) C.concordia_result {
		return C.concordia_canonicalize(ptr(json), C.size_t(len(json)), o, c, n)
	})
}

// Hash returns "sha256:<hex>" of the canonical form of a JSON text.
func Hash(json []byte) (string, error) {
	return textOutput(func(o *C.uint8_t, c C.size_t, n *C.size_t) C.concordia_result {
		return C.concordia_hash(ptr(json), C.size_t(len(json)), o, c, n)
	})
}

// unsafeIndex is the one-element slice at index i of a C array.
func unsafeIndex[T any](p *T, i int) []T {
	return unsafe.Slice(p, i+1)[i:]
}

// unsafePointer converts a pointer into C memory for C.GoBytes and friends.
func unsafePointer[T any](p *T) unsafe.Pointer { return unsafe.Pointer(p) }

// unsafeSlice is n elements of a C array.
func unsafeSlice[T any](p *T, n int) []T { return unsafe.Slice(p, n) }
