package concordia

/*
#include "concordia.h"
*/
import "C"

import "runtime"

// ES256KeyPair is an ECDSA P-256 key pair held by the library, for ES256 signatures as the
// reference SDK makes them (DER, low S; deterministic here, RFC 6979). It is immutable, so
// several goroutines may sign with it at once; Close releases it (and erases the scalar).
type ES256KeyPair struct {
	p *C.concordia_es256_keypair
}

func newES256KeyPair(p *C.concordia_es256_keypair) *ES256KeyPair {
	k := &ES256KeyPair{p: p}
	runtime.SetFinalizer(k, (*ES256KeyPair).Close)
	return k
}

// NewES256KeyPair makes the key pair of a 32-byte big-endian private scalar (0 < d < n).
func NewES256KeyPair(scalar []byte) (*ES256KeyPair, error) {
	var p *C.concordia_es256_keypair
	if err := call(func() C.concordia_result {
		return C.concordia_es256_keypair_from_scalar(in(scalar), C.size_t(len(scalar)), &p)
	}); err != nil {
		return nil, err
	}
	return newES256KeyPair(p), nil
}

// GenerateES256KeyPair makes a key pair from operating system randomness; keep Scalar()
// to restore it.
func GenerateES256KeyPair() (*ES256KeyPair, error) {
	var p *C.concordia_es256_keypair
	if err := call(func() C.concordia_result { return C.concordia_es256_keypair_generate(&p) }); err != nil {
		return nil, err
	}
	return newES256KeyPair(p), nil
}

// Close releases the key pair; it may be called more than once.
func (k *ES256KeyPair) Close() {
	if k.p != nil {
		C.concordia_es256_keypair_free(k.p)
		k.p = nil
	}
	runtime.SetFinalizer(k, nil)
}

// PublicKey is the uncompressed X9.62 public key, 65 bytes (the SDK's public_key_bytes()).
func (k *ES256KeyPair) PublicKey() []byte {
	out, _ := output(func(o *C.uint8_t, c C.size_t, n *C.size_t) C.concordia_result {
		return C.concordia_es256_keypair_public_key(k.p, o, c, n)
	})
	runtime.KeepAlive(k)
	return out
}

// PublicKeyB64URL is the public key as padded base64url text (88 characters), the SDK's
// ES256KeyPair.public_key_b64().
func (k *ES256KeyPair) PublicKeyB64URL() string {
	out, _ := textOutput(func(o *C.uint8_t, c C.size_t, n *C.size_t) C.concordia_result {
		return C.concordia_es256_keypair_public_key_b64url(k.p, o, c, n)
	})
	runtime.KeepAlive(k)
	return out
}

// Scalar is the 32-byte private scalar. Keep it secret.
func (k *ES256KeyPair) Scalar() []byte {
	out, _ := output(func(o *C.uint8_t, c C.size_t, n *C.size_t) C.concordia_result {
		return C.concordia_es256_keypair_scalar(k.p, o, c, n)
	})
	runtime.KeepAlive(k)
	return out
}

// SignObject signs a JSON object with ES256 under the top-level signature rule and returns
// the signed object, canonical, with its "signature" member.
func (k *ES256KeyPair) SignObject(json []byte) ([]byte, error) {
	out, err := output(func(o *C.uint8_t, c C.size_t, n *C.size_t) C.concordia_result {
		return C.concordia_es256_sign_object(k.p, in(json), C.size_t(len(json)), o, c, n)
	})
	runtime.KeepAlive(k)
	return out, err
}

// VerifyObjectES256 verifies the top-level ES256 "signature" of a JSON object under an
// X9.62 public key (65 bytes uncompressed or 33 compressed); nil means it verifies.
func VerifyObjectES256(json, publicKey []byte) error {
	return call(func() C.concordia_result {
		return C.concordia_es256_verify_object(in(json), C.size_t(len(json)), in(publicKey), C.size_t(len(publicKey)))
	})
}

// ES256PublicKeyFromB64 decodes base64 text of an ES256 public key (as the SDK reads it)
// into the uncompressed point, 65 bytes.
func ES256PublicKeyFromB64(text string) ([]byte, error) {
	var m cmem
	defer m.free()
	s := m.str(text)
	return output(func(o *C.uint8_t, c C.size_t, n *C.size_t) C.concordia_result {
		return C.concordia_es256_public_key_from_b64(s, o, c, n)
	})
}
