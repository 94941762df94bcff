package concordia

import (
	"errors"
	"fmt"
	"testing"
)

func TestVersion(t *testing.T) {
	if LibraryVersion() != HeaderVersion {
		t.Fatalf("library %d, header %d", LibraryVersion(), HeaderVersion)
	}
	if Version() == "" {
		t.Fatal("empty version")
	}
}

func TestCanonicalizeAndHash(t *testing.T) {
	tests := []struct {
		name, in, want string
		code           Result
		class          string
		offset         int
	}{
		{"sorted and minimal", `{"b": 1.50, "a": [true, "\u00e9"]}`, `{"a":[true,"é"],"b":1.5}`, OK, "", -1},
		{"empty object", `{}`, `{}`, OK, "", -1},
		{"duplicate key", `{"a": 1, "a": 2}`, "", JSONDuplicateKey, "input", 9},
		{"unexpected end", `{"a":`, "", JSONUnexpectedEnd, "input", 5},
		{"empty input", ``, "", JSONUnexpectedEnd, "input", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, err := Canonicalize([]byte(tc.in))
			if Code(err) != tc.code {
				t.Fatalf("code %d, want %d (%v)", Code(err), tc.code, err)
			}
			if err == nil {
				if string(out) != tc.want {
					t.Fatalf("got %q, want %q", out, tc.want)
				}
				return
			}
			var e *Error
			if !errors.As(err, &e) || e.Class != tc.class || e.Offset != tc.offset {
				t.Fatalf("error %+v, want class %q offset %d", err, tc.class, tc.offset)
			}
			if !errors.Is(err, &Error{Code: tc.code}) {
				t.Fatal("errors.Is by code")
			}
		})
	}
	h, err := Hash([]byte(`{}`))
	if err != nil || h != "sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a" {
		t.Fatalf("hash: %q %v", h, err)
	}
}

func TestResultClasses(t *testing.T) {
	for _, tc := range []struct {
		code  Result
		class string
	}{
		{OK, "ok"}, {NullArgument, "input"}, {Signature, "signature"}, {Schema, "schema"}, {Digest, "digest"},
		{Binding, "binding"}, {Temporal, "temporal"}, {Privacy, "privacy"}, {Transition, "transition"},
		{LimitCapacity, "limit"}, {Panic, "internal"},
	} {
		if got := tc.code.Class(); got != tc.class {
			t.Errorf("%d: class %q, want %q", tc.code, got, tc.class)
		}
		if tc.code.Message() == "" {
			t.Errorf("%d: no message", tc.code)
		}
	}
}

func ExampleCanonicalize() {
	out, _ := Canonicalize([]byte(`{"b": 1.50, "a": [true, "\u00e9"]}`))
	fmt.Println(string(out))
	_, err := Canonicalize([]byte(`{"a": 1, "a": 2}`))
	fmt.Println(Code(err) == JSONDuplicateKey, err.(*Error).Offset)
	// Output:
	// {"a":[true,"é"],"b":1.5}
	// true 9
}
