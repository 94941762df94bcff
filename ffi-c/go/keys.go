package concordia

/*
#include "concordia.h"
*/
import "C"

import "runtime"

// KeyPair is an Ed25519 key pair held by the library. It is immutable, so several
// goroutines may sign with it at once; Close releases it (and overwrites the secret key).
type KeyPair struct {
	p *C.concordia_keypair
}

func newKeyPair(p *C.concordia_keypair) *KeyPair {
	k := &KeyPair{p: p}
	runtime.SetFinalizer(k, (*KeyPair).Close)
	return k
}

// NewKeyPair derives the key pair of a 32-byte seed (RFC 8032; the reference SDK's raw
// private key bytes).
func NewKeyPair(seed []byte) (*KeyPair, error) {
	var p *C.concordia_keypair
	if err := call(func() C.concordia_result { return C.concordia_keypair_from_seed(in(seed), C.size_t(len(seed)), &p) }); err != nil {
		return nil, err
	}
	return newKeyPair(p), nil
}

// GenerateKeyPair makes a key pair from operating system randomness; keep Seed() to
// restore it.
func GenerateKeyPair() (*KeyPair, error) {
	var p *C.concordia_keypair
	if err := call(func() C.concordia_result { return C.concordia_keypair_generate(&p) }); err != nil {
		return nil, err
	}
	return newKeyPair(p), nil
}

// Close releases the key pair; it may be called more than once.
func (k *KeyPair) Close() {
	if k.p != nil {
		C.concordia_keypair_free(k.p)
		k.p = nil
	}
	runtime.SetFinalizer(k, nil)
}

// PublicKey is the 32-byte Ed25519 public key.
func (k *KeyPair) PublicKey() []byte {
	out, _ := output(func(o *C.uint8_t, c C.size_t, n *C.size_t) C.concordia_result {
		return C.concordia_keypair_public_key(k.p, o, c, n)
	})
	runtime.KeepAlive(k)
	return out
}

// PublicKeyB64URL is the public key as padded base64url text (44 characters), the form of
// keys.json files and the reference SDK.
func (k *KeyPair) PublicKeyB64URL() string {
	out, _ := textOutput(func(o *C.uint8_t, c C.size_t, n *C.size_t) C.concordia_result {
		return C.concordia_keypair_public_key_b64url(k.p, o, c, n)
	})
	runtime.KeepAlive(k)
	return out
}

// Seed is the 32-byte seed (the private key). Keep it secret.
func (k *KeyPair) Seed() []byte {
	out, _ := output(func(o *C.uint8_t, c C.size_t, n *C.size_t) C.concordia_result {
		return C.concordia_keypair_seed(k.p, o, c, n)
	})
	runtime.KeepAlive(k)
	return out
}

// PublicKeyToB64URL converts a 32-byte public key to padded base64url text.
func PublicKeyToB64URL(publicKey []byte) (string, error) {
	return textOutput(func(o *C.uint8_t, c C.size_t, n *C.size_t) C.concordia_result {
		return C.concordia_public_key_to_b64url(in(publicKey), C.size_t(len(publicKey)), o, c, n)
	})
}

// PublicKeyFromB64 decodes a base64 public key text (URL-safe or standard alphabet,
// padding optional, as the reference SDK accepts) into its 32 bytes.
func PublicKeyFromB64(text string) ([]byte, error) {
	var m cmem
	defer m.free()
	s := m.str(text)
	return output(func(o *C.uint8_t, c C.size_t, n *C.size_t) C.concordia_result {
		return C.concordia_public_key_from_b64(s, o, c, n)
	})
}

// SignObject signs a JSON object under the top-level signature rule (SPEC §9.2 rule 1)
// and returns the signed object, canonical, with its "signature" member.
func (k *KeyPair) SignObject(json []byte) ([]byte, error) {
	out, err := output(func(o *C.uint8_t, c C.size_t, n *C.size_t) C.concordia_result {
		return C.concordia_sign_object(k.p, in(json), C.size_t(len(json)), o, c, n)
	})
	runtime.KeepAlive(k)
	return out, err
}

// VerifyObject verifies the top-level "signature" of a JSON object under a 32-byte
// Ed25519 public key; nil means it verifies.
func VerifyObject(json, publicKey []byte) error {
	return call(func() C.concordia_result {
		return C.concordia_verify_object(in(json), C.size_t(len(json)), in(publicKey), C.size_t(len(publicKey)))
	})
}

// Party is an agent as it appears in an envelope's "from" and "to".
type Party struct {
	AgentID     string
	PrincipalID string // "" when absent
}

// Envelope holds the fields of a Concordia message (SPEC §4.1). Empty optional texts are
// omitted from the message, as the reference SDK's build_envelope omits them.
type Envelope struct {
	Concordia string // protocol version; "" for the library's default
	Type      string // e.g. "negotiate.offer"
	ID        string
	SessionID string
	Timestamp string // ISO 8601 UTC
	From      Party
	To        []Party
	PrevHash  string // "sha256:<hex>"; "" for the genesis hash (first message)
	Body      []byte // JSON, written canonical
	InReplyTo string
	Reasoning string
	TTL       *uint64 // seconds; nil when absent
}

// SignEnvelope builds the envelope, signs it and returns the signed message, canonical.
func (k *KeyPair) SignEnvelope(e Envelope) ([]byte, error) {
	var m cmem
	defer m.free()
	party := func(p Party) C.concordia_party {
		return C.concordia_party{agent_id: m.str(p.AgentID), principal_id: m.opt(p.PrincipalID)}
	}
	env := (*C.concordia_envelope)(m.alloc(C.sizeof_concordia_envelope))
	env.concordia = m.opt(e.Concordia)
	env.message_type = m.str(e.Type)
	env.id = m.str(e.ID)
	env.session_id = m.str(e.SessionID)
	env.timestamp = m.str(e.Timestamp)
	env.from = party(e.From)
	if len(e.To) > 0 {
		to := (*C.concordia_party)(m.alloc(len(e.To) * C.sizeof_concordia_party))
		for i, p := range e.To {
			unsafeIndex(to, i)[0] = party(p)
		}
		env.to = to
		env.to_count = C.size_t(len(e.To))
	}
	env.prev_hash = m.opt(e.PrevHash)
	env.body_json = m.str(string(e.Body))
	env.in_reply_to = m.opt(e.InReplyTo)
	env.reasoning = m.opt(e.Reasoning)
	if e.TTL != nil {
		env.ttl = C.uint64_t(*e.TTL)
		env.has_ttl = 1
	}
	out, err := output(func(o *C.uint8_t, c C.size_t, n *C.size_t) C.concordia_result {
		return C.concordia_envelope_sign(k.p, env, o, c, n)
	})
	runtime.KeepAlive(k)
	return out, err
}
