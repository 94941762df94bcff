package concordia

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// The reference SDK's ES256 message (concordia-protocol 0.10.0, sign_message(..., alg="ES256")
// with the key of scalar bytes 1..32) and its high-S twin, which the SDK refuses.
const (
	sdkES256Key = "BFFcPW6545a5BNP-yn9U_c0MwemXvzddylFa0KbDtANfRTa-OlDzGPv5pUdZAqIhUCvvDVfgjFOyzApW8X2fk1Q="
	sdkES256Sig = "MEUCIQDCbJPtS5AVE6yoVCADcYKeJ9viS43YVgV1jRCCSqdpqwIgOKr-uD_bCr7uIcvbTKhDAgytybG9tJzgMk_3-vExJWM="
	highSSig    = "MEYCIQDCbJPtS5AVE6yoVCADcYKeJ9viS43YVgV1jRCCSqdpqwIhAMdVAUbAJPVCEd40JLNXvP2wOTD76WMBpMFp0sgLMf_u"
)

func sdkES256Message(sig string) []byte {
	return []byte(`{"concordia":"interop","n":1,"text":"h\u00e9llo","signature":"` + sig + `"}`)
}

func TestES256(t *testing.T) {
	d := make([]byte, 32)
	for i := range d {
		d[i] = byte(i + 1)
	}
	k, err := NewES256KeyPair(d)
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	if k.PublicKeyB64URL() != sdkES256Key || !bytes.Equal(k.Scalar(), d) || len(k.PublicKey()) != 65 {
		t.Fatalf("key parts: %s", k.PublicKeyB64URL())
	}
	pk, err := ES256PublicKeyFromB64(sdkES256Key)
	if err != nil || !bytes.Equal(pk, k.PublicKey()) {
		t.Fatalf("from b64: %v", err)
	}
	for _, tc := range []struct {
		name string
		msg  []byte
		key  []byte
		code Result
	}{
		{"SDK signature", sdkES256Message(sdkES256Sig), pk, OK},
		{"high S", sdkES256Message(highSSig), pk, Signature},
		{"unpadded text", sdkES256Message(strings.TrimRight(sdkES256Sig, "=")), pk, Encoding},
		{"no signature", []byte(`{"a":1}`), pk, Schema},
		{"off-curve key", sdkES256Message(sdkES256Sig), append(append([]byte{}, pk[:64]...), pk[64]^1), Encoding},
		{"identity key", sdkES256Message(sdkES256Sig), []byte{0}, Encoding},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := VerifyObjectES256(tc.msg, tc.key); Code(err) != tc.code {
				t.Fatalf("code %d, want %d (%v)", Code(err), tc.code, err)
			}
		})
	}
	a, err := k.SignObject([]byte(`{"b": 2, "a": 1}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := k.SignObject([]byte(`{"a":1,"b":2}`))
	if !bytes.Equal(a, b) || !bytes.HasPrefix(a, []byte(`{"a":1,"b":2,"signature":"`)) {
		t.Fatalf("deterministic canonical signing: %s / %s", a, b)
	}
	if err := VerifyObjectES256(a, pk); err != nil {
		t.Fatal(err)
	}
	if _, err := NewES256KeyPair(make([]byte, 32)); Code(err) != InvalidArgument {
		t.Fatalf("zero scalar: %v", err)
	}
	g, err := GenerateES256KeyPair()
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	s, _ := g.SignObject([]byte(`{}`))
	if VerifyObjectES256(s, g.PublicKey()) != nil || Code(VerifyObjectES256(s, pk)) != Signature {
		t.Fatal("generated key")
	}
	g.Close()
	g.Close()
}

func ExampleES256KeyPair_SignObject() {
	k, _ := NewES256KeyPair(bytes.Repeat([]byte{7}, 32))
	defer k.Close()
	signed, _ := k.SignObject([]byte(`{"mandate": 1}`))
	fmt.Println(VerifyObjectES256(signed, k.PublicKey()) == nil)
	// Output: true
}
