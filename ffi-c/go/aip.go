package concordia

/*
#include "concordia.h"
*/
import "C"

import (
	"runtime"
	"time"
)

// Handle is an AIP agent handle in every spelling AIP uses.
type Handle struct {
	Name    string // the agent name (before '#')
	Domain  string // the registry domain (after '#')
	Handle  string // name#domain
	URLForm string // name%23domain
	AtForm  string // @name@domain
	DID     string // did:aip:<domain>:<name>
}

func handleOf(write func(form C.uint32_t, o *C.uint8_t, c C.size_t, n *C.size_t) C.concordia_result) (Handle, error) {
	var h Handle
	for _, f := range []struct {
		form C.uint32_t
		dst  *string
	}{
		{C.CONCORDIA_AIP_HANDLE, &h.Handle},
		{C.CONCORDIA_AIP_HANDLE_URL_FORM, &h.URLForm},
		{C.CONCORDIA_AIP_HANDLE_AT_FORM, &h.AtForm},
		{C.CONCORDIA_AIP_HANDLE_DID, &h.DID},
		{C.CONCORDIA_AIP_HANDLE_NAME, &h.Name},
		{C.CONCORDIA_AIP_HANDLE_DOMAIN, &h.Domain},
	} {
		s, err := textOutput(func(o *C.uint8_t, c C.size_t, n *C.size_t) C.concordia_result { return write(f.form, o, c, n) })
		if err != nil {
			return Handle{}, err
		}
		*f.dst = s
	}
	return h, nil
}

// ParseHandle parses a handle written name#domain, name%23domain, @name@domain or
// did:aip:<domain>:<name>.
func ParseHandle(text string) (Handle, error) {
	var m cmem
	defer m.free()
	t := m.str(text)
	return handleOf(func(form C.uint32_t, o *C.uint8_t, c C.size_t, n *C.size_t) C.concordia_result {
		return C.concordia_aip_handle(t, form, o, c, n)
	})
}

// HandleOf is the handle of name at domain, checked against the handle grammar.
func HandleOf(name, domain string) (Handle, error) {
	var m cmem
	defer m.free()
	nm, dm := m.str(name), m.str(domain)
	return handleOf(func(form C.uint32_t, o *C.uint8_t, c C.size_t, n *C.size_t) C.concordia_result {
		return C.concordia_aip_handle_of(nm, dm, form, o, c, n)
	})
}

// RouteMode is how messages reach an agent.
type RouteMode uint32

// The route modes.
const (
	Direct RouteMode = C.CONCORDIA_AIP_ROUTE_DIRECT // HTTP POST to the agent's endpoint
	Relay  RouteMode = C.CONCORDIA_AIP_ROUTE_RELAY  // a relay hub's durable stream
)

// DIDDocument is the AIP subset of a DID Document.
type DIDDocument struct {
	ID            string // a did:aip DID
	Endpoint      string
	RouteMode     RouteMode
	SigningKeys   [][]byte // 32-byte Ed25519 keys, document order
	AgreementKeys [][]byte // 32-byte X25519 keys, document order
}

// ParseDIDDocument reads the AIP subset of a DID Document (JSON).
func ParseDIDDocument(doc []byte) (DIDDocument, error) {
	var info C.concordia_aip_did_document
	if err := call(func() C.concordia_result {
		return C.concordia_aip_did_document_parse(in(doc), C.size_t(len(doc)), &info)
	}); err != nil {
		return DIDDocument{}, err
	}
	d := DIDDocument{ID: span(doc, info.id), Endpoint: span(doc, info.endpoint), RouteMode: RouteMode(info.route_mode)}
	for i := 0; i < int(info.signing_key_count); i++ {
		d.SigningKeys = append(d.SigningKeys, C.GoBytes(unsafePointer(&info.signing_keys[i][0]), 32))
	}
	for i := 0; i < int(info.agreement_key_count); i++ {
		d.AgreementKeys = append(d.AgreementKeys, C.GoBytes(unsafePointer(&info.agreement_keys[i][0]), 32))
	}
	return d, nil
}

// Route is where to deliver.
type Route struct {
	Mode     RouteMode
	Endpoint string // "" for a relay without an endpoint (the sender's hub relays by domain)
}

// SelectRoute chooses how to deliver to the subject of a DID Document: direct when its
// route mode is direct and the caller found the endpoint reachable, relay otherwise.
func SelectRoute(doc []byte, endpointReachable bool) (Route, error) {
	var r C.concordia_aip_route
	reach := C.uint8_t(0)
	if endpointReachable {
		reach = 1
	}
	if err := call(func() C.concordia_result {
		return C.concordia_aip_select_route(in(doc), C.size_t(len(doc)), reach, &r)
	}); err != nil {
		return Route{}, err
	}
	route := Route{Mode: RouteMode(r.mode)}
	if r.has_endpoint != 0 {
		route.Endpoint = span(doc, r.endpoint)
	}
	return route, nil
}

// AIPKeyPair is an AIP agent's key pair: Ed25519 (signs envelopes and credentials) and
// X25519 (opens sealed bodies). Immutable; Close releases it and overwrites the secrets.
type AIPKeyPair struct {
	p *C.concordia_aip_keypair
}

func newAIPKeyPair(p *C.concordia_aip_keypair) *AIPKeyPair {
	k := &AIPKeyPair{p: p}
	runtime.SetFinalizer(k, (*AIPKeyPair).Close)
	return k
}

// GenerateAIPKeyPair makes an AIP key pair from operating system randomness; keep
// Ed25519Seed() and X25519Secret() to restore it.
func GenerateAIPKeyPair() (*AIPKeyPair, error) {
	var p *C.concordia_aip_keypair
	if err := call(func() C.concordia_result { return C.concordia_aip_keypair_generate(&p) }); err != nil {
		return nil, err
	}
	return newAIPKeyPair(p), nil
}

// NewAIPKeyPair is the key pair of a 32-byte Ed25519 seed and a 32-byte X25519 private key.
func NewAIPKeyPair(ed25519Seed, x25519Secret []byte) (*AIPKeyPair, error) {
	var p *C.concordia_aip_keypair
	if err := call(func() C.concordia_result {
		return C.concordia_aip_keypair_from_seeds(in(ed25519Seed), C.size_t(len(ed25519Seed)), in(x25519Secret), C.size_t(len(x25519Secret)), &p)
	}); err != nil {
		return nil, err
	}
	return newAIPKeyPair(p), nil
}

// Close releases the key pair; it may be called more than once.
func (k *AIPKeyPair) Close() {
	if k.p != nil {
		C.concordia_aip_keypair_free(k.p)
		k.p = nil
	}
	runtime.SetFinalizer(k, nil)
}

func (k *AIPKeyPair) export(part C.uint32_t) []byte {
	out, _ := output(func(o *C.uint8_t, c C.size_t, n *C.size_t) C.concordia_result {
		return C.concordia_aip_keypair_export(k.p, part, o, c, n)
	})
	runtime.KeepAlive(k)
	return out
}

// Ed25519PublicKey is the 32-byte Ed25519 public key.
func (k *AIPKeyPair) Ed25519PublicKey() []byte { return k.export(C.CONCORDIA_AIP_ED25519_PUBLIC_KEY) }

// X25519PublicKey is the 32-byte X25519 public key.
func (k *AIPKeyPair) X25519PublicKey() []byte { return k.export(C.CONCORDIA_AIP_X25519_PUBLIC_KEY) }

// Ed25519Seed is the 32-byte Ed25519 seed. Keep it secret.
func (k *AIPKeyPair) Ed25519Seed() []byte { return k.export(C.CONCORDIA_AIP_ED25519_SEED) }

// X25519Secret is the 32-byte X25519 private key. Keep it secret.
func (k *AIPKeyPair) X25519Secret() []byte { return k.export(C.CONCORDIA_AIP_X25519_SECRET) }

// Ed25519Multibase is the Ed25519 public key as a multikey (z6Mk...).
func (k *AIPKeyPair) Ed25519Multibase() string {
	return string(k.export(C.CONCORDIA_AIP_ED25519_MULTIBASE))
}

// X25519Multibase is the X25519 public key as a multikey (z6LS...).
func (k *AIPKeyPair) X25519Multibase() string {
	return string(k.export(C.CONCORDIA_AIP_X25519_MULTIBASE))
}

// DIDKey is the Ed25519 key's did:key (a credential issuer).
func (k *AIPKeyPair) DIDKey() string { return string(k.export(C.CONCORDIA_AIP_DID_KEY)) }

// DIDDocument is this key pair's DID Document for did (a did:aip), RFC 8785 JSON.
func (k *AIPKeyPair) DIDDocument(did string, mode RouteMode, endpoint string) ([]byte, error) {
	var m cmem
	defer m.free()
	d, e := m.str(did), m.str(endpoint)
	out, err := output(func(o *C.uint8_t, c C.size_t, n *C.size_t) C.concordia_result {
		return C.concordia_aip_keypair_did_document(k.p, d, C.uint32_t(mode), e, o, c, n)
	})
	runtime.KeepAlive(k)
	return out, err
}

// SigningKey is the Ed25519 half as a KeyPair (to sign objects or issue credentials).
func (k *AIPKeyPair) SigningKey() (*KeyPair, error) {
	var p *C.concordia_keypair
	err := call(func() C.concordia_result { return C.concordia_aip_keypair_signing_key(k.p, &p) })
	runtime.KeepAlive(k)
	if err != nil {
		return nil, err
	}
	return newKeyPair(p), nil
}

// DIDKey is the did:key of an Ed25519 key pair (the issuer of its credentials).
func DIDKey(k *KeyPair) (string, error) {
	s, err := textOutput(func(o *C.uint8_t, c C.size_t, n *C.size_t) C.concordia_result {
		return C.concordia_aip_did_key(k.p, o, c, n)
	})
	runtime.KeepAlive(k)
	return s, err
}

// NewMessageID is a new message id: a lowercase UUID v4 from operating system randomness.
func NewMessageID() (string, error) {
	return textOutput(func(o *C.uint8_t, c C.size_t, n *C.size_t) C.concordia_result {
		return C.concordia_aip_new_message_id(o, c, n)
	})
}

// SealHeader holds the header fields a sender chooses.
type SealHeader struct {
	ID        string // a lowercase UUID v4 (NewMessageID)
	From      string // the sender's did:aip
	Type      string // 1-128 of a-z 0-9 . _ -, starting with a letter
	CreatedAt string // RFC 3339, e.g. 2026-05-10T14:25:00Z
}

// Seal seals body (JSON, written canonical) to the recipient's DID Document, signs the
// envelope with sender's Ed25519 key and returns it (canonical JSON).
func Seal(sender *AIPKeyPair, recipientDoc []byte, h SealHeader, body []byte) ([]byte, error) {
	var m cmem
	defer m.free()
	ch := (*C.concordia_aip_seal_header)(m.alloc(C.sizeof_concordia_aip_seal_header))
	ch.id, ch.from, ch.message_type, ch.created_at = m.str(h.ID), m.str(h.From), m.str(h.Type), m.str(h.CreatedAt)
	out, err := output(func(o *C.uint8_t, c C.size_t, n *C.size_t) C.concordia_result {
		return C.concordia_aip_seal(sender.p, in(recipientDoc), C.size_t(len(recipientDoc)), ch, in(body), C.size_t(len(body)), o, c, n)
	})
	runtime.KeepAlive(sender)
	return out, err
}

// Header is the header of an envelope.
type Header struct {
	ID, From, To, Type, CreatedAt string
	Created                       time.Time // CreatedAt, whole seconds
}

func headerOf(env []byte, h *C.concordia_aip_header) Header {
	return Header{
		ID: span(env, h.id), From: span(env, h.from), To: span(env, h.to), Type: span(env, h.message_type),
		CreatedAt: span(env, h.created_at), Created: time.Unix(int64(h.created_at_unix), 0).UTC(),
	}
}

// ParseEnvelope checks an envelope's shape (not its signature or body) and returns its
// header, e.g. for a replay check before opening.
func ParseEnvelope(env []byte) (Header, error) {
	var h C.concordia_aip_header
	if err := call(func() C.concordia_result { return C.concordia_aip_envelope_parse(in(env), C.size_t(len(env)), &h) }); err != nil {
		return Header{}, err
	}
	return headerOf(env, &h), nil
}

// VerifyEnvelope verifies an envelope against the sender's DID Document: from must be its
// id and sig must verify under one of its Ed25519 keys.
func VerifyEnvelope(senderDoc, env []byte) (Header, error) {
	var h C.concordia_aip_header
	if err := call(func() C.concordia_result {
		return C.concordia_aip_verify_envelope(in(senderDoc), C.size_t(len(senderDoc)), in(env), C.size_t(len(env)), &h)
	}); err != nil {
		return Header{}, err
	}
	return headerOf(env, &h), nil
}

// OpenChecks is the recipient's policy for Open. nil, or the zero value, is the safe
// default: freshness at the operating system's clock (created_at at most MAX_FUTURE_SKEW
// ahead and WINDOW old, docs/limits.md) and the addressee required, so RecipientDID must be set (Open(..., nil)
// returns InvalidArgument). Opting out of a check is by name only.
type OpenChecks struct {
	RecipientDID  string    // the recipient's own did:aip: the envelope's to must name it
	AnyRecipient  bool      // skip the addressee check (RecipientDID must then be "")
	Now           time.Time // check freshness at Now instead of the clock (zero: the clock)
	SkipFreshness bool      // do not check created_at at all (an archive; Now is ignored)
	// Window, when set, also refuses an id it has already seen (AIPReplay); it remembers
	// only envelopes that passed every other check. Not with SkipFreshness.
	Window *ReplayWindow
}

// Open opens an envelope as its recipient under checks (nil: the defaults), in this
// order: the signature under the sender's DID Document (as VerifyEnvelope), the
// addressee, the body opens with recipient's X25519 key, then freshness; it returns the
// header and the body. Errors: InvalidArgument (no RecipientDID, a malformed one), Binding
// (another addressee or sender), Signature (a wrong key, a tampered envelope, stale or
// not), Temporal, AIPReplay (with a Window that has seen the id), and those of
// ParseEnvelope.
func Open(recipient *AIPKeyPair, senderDoc, env []byte, checks *OpenChecks) (Header, []byte, error) {
	var m cmem
	defer m.free()
	var cc *C.concordia_aip_open_checks
	if checks != nil {
		cc = (*C.concordia_aip_open_checks)(m.alloc(C.sizeof_concordia_aip_open_checks))
		cc.recipient_did = m.opt(checks.RecipientDID)
		if checks.AnyRecipient {
			cc.addressee = C.CONCORDIA_AIP_ADDRESSEE_UNCHECKED
		}
		switch {
		case checks.SkipFreshness:
			cc.freshness = C.CONCORDIA_AIP_FRESHNESS_UNCHECKED
		case !checks.Now.IsZero():
			cc.freshness = C.CONCORDIA_AIP_FRESHNESS_AT
			cc.now = unix(checks.Now)
		}
		if checks.Window != nil {
			cc.window = checks.Window.p
			defer runtime.KeepAlive(checks.Window)
		}
	}
	var h C.concordia_aip_header
	body, err := output(func(o *C.uint8_t, c C.size_t, n *C.size_t) C.concordia_result {
		return C.concordia_aip_open(recipient.p, cc, in(senderDoc), C.size_t(len(senderDoc)), in(env), C.size_t(len(env)), &h, o, c, n)
	})
	runtime.KeepAlive(recipient)
	if err != nil {
		return Header{}, nil, err
	}
	return headerOf(env, &h), body, nil
}

// IssueCredential adds an eddsa-jcs-2022 proof to a credential (a JSON object without
// proof whose issuer is the key's did:key) and returns it, canonical. created is an
// optional RFC 3339 time for the proof ("" for none).
func IssueCredential(key *KeyPair, credential []byte, created string) ([]byte, error) {
	var m cmem
	defer m.free()
	cr := m.opt(created)
	out, err := output(func(o *C.uint8_t, c C.size_t, n *C.size_t) C.concordia_result {
		return C.concordia_aip_vc_issue(key.p, in(credential), C.size_t(len(credential)), cr, o, c, n)
	})
	runtime.KeepAlive(key)
	return out, err
}

// VerifyOptions are the checks of VerifyCredential besides the proof. The zero value (or
// nil) checks the time at the OS clock, as every surface does by default.
type VerifyOptions struct {
	// Now: check the validity period and the proof's created/expires at Now (zero: at
	// the OS clock).
	Now time.Time
	// NoTimeCheck skips the time checks (Now is then ignored); a proof that expires
	// before it was created is refused all the same.
	NoTimeCheck bool
	Anchors     []string // the issuer must be one of these (nil: any issuer; empty non-nil: none)
	Revoked     []string // revoked credential ids, compared with the decoded id
	Domain      string   // the domain the proof must carry ("": not required)
	Challenge   string   // the challenge the proof must carry ("": not required)
}

// VerifiedCredential is what VerifyCredential established.
type VerifiedCredential struct {
	Issuer    string // the issuer did:key
	Subject   string // credentialSubject.id ("" when absent)
	PublicKey []byte // the Ed25519 key that signed
}

// VerifyCredential verifies the eddsa-jcs-2022 proof of a credential, that the signer is
// the issuer, and opts (nil: the default policy, the time checked at the OS clock). An
// issuer or credentialSubject.id written with JSON escapes is refused (Schema).
func VerifyCredential(credential []byte, opts *VerifyOptions) (VerifiedCredential, error) {
	var m cmem
	defer m.free()
	var co *C.concordia_aip_vc_options
	if opts != nil {
		co = (*C.concordia_aip_vc_options)(m.alloc(C.sizeof_concordia_aip_vc_options))
		switch {
		case opts.NoTimeCheck:
			co.time = C.CONCORDIA_AIP_VC_TIME_UNCHECKED
		case !opts.Now.IsZero():
			co.time = C.CONCORDIA_AIP_VC_TIME_AT
			co.now = unix(opts.Now)
		}
		co.domain = m.opt(opts.Domain)
		co.challenge = m.opt(opts.Challenge)
		if opts.Anchors != nil {
			co.check_anchors = 1
			co.anchors, co.anchor_count = m.strs(opts.Anchors)
		}
		co.revoked, co.revoked_count = m.strs(opts.Revoked)
	}
	var v C.concordia_aip_vc_verified
	if err := call(func() C.concordia_result {
		return C.concordia_aip_vc_verify(in(credential), C.size_t(len(credential)), co, &v)
	}); err != nil {
		return VerifiedCredential{}, err
	}
	out := VerifiedCredential{Issuer: span(credential, v.issuer), PublicKey: C.GoBytes(unsafePointer(&v.public_key[0]), 32)}
	if v.has_subject != 0 {
		out.Subject = span(credential, v.subject)
	}
	return out, nil
}

// Edge is one verified credential of the trust graph: Issuer vouches for Subject.
type Edge struct {
	Issuer, Subject string
	Revoked         bool
}

// TrustEvent is an interaction outcome for the trust score.
type TrustEvent uint32

// The trust events.
const (
	TrustSuccess    TrustEvent = C.CONCORDIA_AIP_TRUST_SUCCESS    // closes 5% of the gap to the ceiling
	TrustFailure    TrustEvent = C.CONCORDIA_AIP_TRUST_FAILURE    // halves the score
	TrustRevocation TrustEvent = C.CONCORDIA_AIP_TRUST_REVOCATION // zeroes the score
)

// TrustCeiling is the credential ceiling of subject: 1 for an anchor, else the best over
// non-revoked credential paths from an anchor (at most 4 hops) of 0.5 per hop; 0 without.
func TrustCeiling(subject string, edges []Edge, anchors []string) (float64, error) {
	var m cmem
	defer m.free()
	s := m.str(subject)
	var ce *C.concordia_aip_edge
	if len(edges) > 0 {
		ce = (*C.concordia_aip_edge)(m.alloc(len(edges) * C.sizeof_concordia_aip_edge))
		for i, e := range edges {
			r := C.uint8_t(0)
			if e.Revoked {
				r = 1
			}
			unsafeIndex(ce, i)[0] = C.concordia_aip_edge{issuer: m.str(e.Issuer), subject: m.str(e.Subject), revoked: r}
		}
	}
	a, an := m.strs(anchors)
	var out C.double
	err := call(func() C.concordia_result {
		return C.concordia_aip_trust_ceiling(s, ce, C.size_t(len(edges)), a, an, &out)
	})
	return float64(out), err
}

// TrustUpdate applies one event to a trust score under ceiling.
func TrustUpdate(score, ceiling float64, event TrustEvent) (float64, error) {
	var out C.double
	err := call(func() C.concordia_result {
		return C.concordia_aip_trust_update(C.double(score), C.double(ceiling), C.uint32_t(event), &out)
	})
	return float64(out), err
}

// TrustScore is the trust score of a history of events, folded from 0 under ceiling.
func TrustScore(ceiling float64, history []TrustEvent) (float64, error) {
	var m cmem
	defer m.free()
	var h *C.uint32_t
	if len(history) > 0 {
		h = (*C.uint32_t)(m.alloc(len(history) * 4))
		for i, e := range history {
			unsafeIndex(h, i)[0] = C.uint32_t(e)
		}
	}
	var out C.double
	err := call(func() C.concordia_result {
		return C.concordia_aip_trust_score(C.double(ceiling), h, C.size_t(len(history)), &out)
	})
	return float64(out), err
}

// RRF is Reciprocal Rank Fusion, 1/(60 + semanticRank) + 1/(60 + ftsRank); ranks start
// at 1 and 0 means absent from that list.
func RRF(semanticRank, ftsRank uint32) (float64, error) {
	var out C.double
	err := call(func() C.concordia_result {
		return C.concordia_aip_rrf(C.uint32_t(semanticRank), C.uint32_t(ftsRank), &out)
	})
	return float64(out), err
}

// FinalScore is rrf * (1 + 0.3 * trustScore), trustScore in [0, 1].
func FinalScore(rrf, trustScore float64) (float64, error) {
	var out C.double
	err := call(func() C.concordia_result {
		return C.concordia_aip_final_score(C.double(rrf), C.double(trustScore), &out)
	})
	return float64(out), err
}

// Candidate is one search result to rank.
type Candidate struct {
	SemanticRank uint32 // from 1; 0 when absent from the semantic list
	FTSRank      uint32 // from 1; 0 when absent from the full-text list
	TrustScore   float64
}

// Ranked is a ranked result.
type Ranked struct {
	Index      int // position of the candidate in the input
	RRF        float64
	FinalScore float64
}

// Rank scores candidates and orders them by final score, descending (ties: higher RRF,
// then input order).
func Rank(candidates []Candidate) ([]Ranked, error) {
	if len(candidates) == 0 {
		return []Ranked{}, nil
	}
	var m cmem
	defer m.free()
	cc := (*C.concordia_aip_candidate)(m.alloc(len(candidates) * C.sizeof_concordia_aip_candidate))
	for i, c := range candidates {
		unsafeIndex(cc, i)[0] = C.concordia_aip_candidate{semantic_rank: C.uint32_t(c.SemanticRank), fts_rank: C.uint32_t(c.FTSRank), trust_score: C.double(c.TrustScore)}
	}
	out := (*C.concordia_aip_ranked)(m.alloc(len(candidates) * C.sizeof_concordia_aip_ranked))
	var n C.size_t
	if err := call(func() C.concordia_result {
		return C.concordia_aip_rank(cc, C.size_t(len(candidates)), out, C.size_t(len(candidates)), &n)
	}); err != nil {
		return nil, err
	}
	ranked := make([]Ranked, int(n))
	for i, r := range unsafeSlice(out, int(n)) {
		ranked[i] = Ranked{Index: int(r.index), RRF: float64(r.rrf), FinalScore: float64(r.final_score)}
	}
	return ranked, nil
}
