package concordia

import (
	"bytes"
	"fmt"
	"testing"
)

func seed(b byte) []byte { return bytes.Repeat([]byte{b}, 32) }

func TestKeyPairs(t *testing.T) {
	for _, tc := range []struct {
		name string
		seed []byte
		code Result
	}{
		{"32 bytes", seed(7), OK},
		{"31 bytes", seed(7)[:31], InvalidArgument},
		{"empty", nil, InvalidArgument},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k, err := NewKeyPair(tc.seed)
			if Code(err) != tc.code {
				t.Fatalf("code %d, want %d (%v)", Code(err), tc.code, err)
			}
			if err != nil {
				return
			}
			defer k.Close()
			if !bytes.Equal(k.Seed(), tc.seed) || len(k.PublicKey()) != 32 || len(k.PublicKeyB64URL()) != 44 {
				t.Fatal("key parts")
			}
			pk, err := PublicKeyFromB64(k.PublicKeyB64URL())
			if err != nil || !bytes.Equal(pk, k.PublicKey()) {
				t.Fatalf("from b64: %v", err)
			}
			b64, err := PublicKeyToB64URL(pk)
			if err != nil || b64 != k.PublicKeyB64URL() {
				t.Fatalf("to b64: %v", err)
			}
		})
	}
	g, err := GenerateKeyPair()
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if len(g.Seed()) != 32 {
		t.Fatal("generated seed")
	}
	g.Close()
	g.Close() // idempotent
	if _, err := PublicKeyFromB64("not base64!"); Code(err) != Encoding {
		t.Fatalf("bad b64: %v", err)
	}
}

func TestSignVerify(t *testing.T) {
	k, _ := NewKeyPair(seed(7))
	defer k.Close()
	other, _ := NewKeyPair(seed(9))
	defer other.Close()
	signed, err := k.SignObject([]byte(`{"b": 2, "a": 1}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		json []byte
		key  []byte
		code Result
	}{
		{"valid", signed, k.PublicKey(), OK},
		{"other key", signed, other.PublicKey(), Signature},
		{"tampered", bytes.Replace(signed, []byte(`"a":1`), []byte(`"a":2`), 1), k.PublicKey(), Signature},
		{"unsigned", []byte(`{"a":1}`), k.PublicKey(), Schema},
		{"short key", signed, k.PublicKey()[:31], InvalidArgument},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := VerifyObject(tc.json, tc.key); Code(err) != tc.code {
				t.Fatalf("code %d, want %d (%v)", Code(err), tc.code, err)
			}
		})
	}
	if _, err := k.SignObject([]byte(`[1]`)); Code(err) != Schema {
		t.Fatalf("array: %v", err)
	}
}

func ExampleKeyPair_SignObject() {
	k, _ := NewKeyPair(bytes.Repeat([]byte{7}, 32))
	defer k.Close()
	signed, _ := k.SignObject([]byte(`{"b": 2, "a": 1}`))
	fmt.Println(VerifyObject(signed, k.PublicKey()) == nil)
	fmt.Println(Code(VerifyObject(bytes.Replace(signed, []byte(`"b":2`), []byte(`"b":3`), 1), k.PublicKey())) == Signature)
	// Output:
	// true
	// true
}
