"""ES256 (ECDSA P-256) as the reference SDK signs and verifies it (issue 24).

Interop both ways with the SDK over generated messages; signatures byte-identical to
``cryptography``'s deterministic (RFC 6979) signing normalized to low S; every edge class
of docs/adr/0004 (high S, non-DER, non-minimal DER, r or s zero or >= n, off-curve and
identity keys) judged by ``cryptography`` and the SDK, and ours never more lenient.
"""

from __future__ import annotations

import base64
import subprocess
from typing import Any, Callable, Dict, List, Tuple

import concordia.signing as sdk_signing
import pytest
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature, encode_dss_signature
from hypothesis import given, settings
from hypothesis import strategies as st

import concordia_rs as rs

N = sdk_signing.P256_ORDER
HALF = sdk_signing.P256_HALF_ORDER

# JSON values the canonical form is defined on (no floats: their text is tested elsewhere).
json_leaf = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**53) + 1, 2**53 - 1), st.text(max_size=12)
)
json_value = st.recursive(
    json_leaf,
    lambda kids: st.one_of(st.lists(kids, max_size=4), st.dictionaries(st.text(max_size=8), kids, max_size=4)),
    max_leaves=12,
)
messages = st.dictionaries(st.text(max_size=10).filter(lambda k: k != "signature"), json_value, max_size=6)


def sdk_pair(d: int) -> sdk_signing.ES256KeyPair:
    k = ec.derive_private_key(d, ec.SECP256R1())
    return sdk_signing.ES256KeyPair(private_key=k, public_key=k.public_key())


def b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode()


def der_int(x: int, *, pad: int = 0, length: int | None = None) -> bytes:
    """A DER INTEGER of a non-negative x (minimal unless `pad` extra zero bytes)."""
    body = x.to_bytes(max(1, (x.bit_length() + 8) // 8), "big")
    body = b"\x00" * pad + body
    n = len(body) if length is None else length
    return b"\x02" + bytes([n]) + body


def der_seq(*parts: bytes) -> bytes:
    body = b"".join(parts)
    return b"\x30" + bytes([len(body)]) + body


# --- interop ---------------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(msg=messages, d=st.integers(1, N - 1))
def test_interop_both_ways(msg: Dict[str, Any], d: int) -> None:
    sdk_kp = sdk_pair(d)
    ours = rs.ES256KeyPair.from_sdk(sdk_kp)
    assert ours.public_key_b64() == sdk_kp.public_key_b64()
    assert ours.public_key_bytes() == sdk_kp.public_key_bytes()
    # SDK -> us: every key form the issue names (SDK object, raw X9.62 bytes, base64 text).
    sig = sdk_signing.sign_message(msg, sdk_kp, alg="ES256")
    for key in (sdk_kp.public_key, sdk_kp.public_key_bytes(), sdk_kp.public_key_b64(), ours.public_key):
        assert rs.verify_signature(msg, sig, key, alg="ES256")
    # Us -> SDK, with our key object and with the SDK's.
    for kp in (ours, sdk_kp):
        mine = rs.sign_message(msg, kp, alg="ES256")
        assert sdk_signing.verify_signature(msg, mine, sdk_kp.public_key, alg="ES256")
    # Tampering is refused by both.
    other = dict(msg, signature_probe=1)
    assert not rs.verify_signature(other, sig, sdk_kp.public_key, alg="ES256")
    assert not sdk_signing.verify_signature(other, mine, sdk_kp.public_key, alg="ES256")
    # The top-level signature member is not part of the preimage, on both sides.
    assert rs.verify_signature(dict(msg, signature=sig), sig, sdk_kp.public_key, alg="ES256")


@settings(max_examples=40, deadline=None)
@given(msg=messages, d=st.integers(1, N - 1))
def test_signatures_are_cryptographys_deterministic_ones_with_low_s(msg: Dict[str, Any], d: int) -> None:
    k = ec.derive_private_key(d, ec.SECP256R1())
    payload = sdk_signing.canonical_json(msg)
    r, s = decode_dss_signature(k.sign(payload, ec.ECDSA(hashes.SHA256(), deterministic_signing=True)))
    want = encode_dss_signature(r, min(s, N - s))
    assert rs.sign_message(msg, sdk_pair(d), alg="ES256") == b64(want)
    assert rs.ES256KeyPair.from_sdk(k).sign(payload) == want


def test_key_objects_and_errors() -> None:
    kp = rs.ES256KeyPair.generate()
    assert len(kp.public_key_bytes()) == 65 and kp.public_key_bytes()[0] == 4
    sdk_key = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), kp.public_key_bytes())
    msg = {"type": "mandate", "n": 1}
    assert sdk_signing.verify_signature(msg, rs.sign_message(msg, kp, alg="ES256"), sdk_key, alg="ES256")
    again = rs.ES256KeyPair.from_private_scalar(kp.private_scalar_bytes())
    assert again.public_key == kp.public_key
    assert rs.ES256PublicKey.from_b64(kp.public_key_b64()) == kp.public_key
    assert rs.ES256PublicKey.from_bytes(kp.public_key.public_bytes()).to_b64url() == kp.public_key_b64()
    # The SDK's ES256KeyPair has no verification_material(); ours has the Ed25519 one's
    # shape and rule texts (taken from the SDK's KeyPair), with the P-256 key in it.
    ed_material = sdk_signing.KeyPair.generate().verification_material()
    assert kp.verification_material() == dict(
        ed_material, key_type="P-256", alg="ES256", public_key_b64url=kp.public_key_b64()
    )
    assert "ES256KeyPair(public_key=" in repr(kp)
    # The SDK's own errors: the wrong key type is TypeError, an unknown alg ValueError.
    with pytest.raises(TypeError, match="ES256 requires an ES256KeyPair"):
        rs.sign_message(msg, rs.KeyPair.generate(), alg="ES256")
    with pytest.raises(TypeError, match="EdDSA requires"):
        rs.sign_message(msg, kp, alg="EdDSA")
    with pytest.raises(ValueError):
        rs.sign_message(msg, kp, alg="ES384")
    assert not rs.verify_signature(msg, rs.sign_message(msg, kp, alg="ES256"), kp.public_key, alg="ES384")
    # An ES256 signature under alg="EdDSA", and an Ed25519 key under ES256: False, as the SDK.
    assert not rs.verify_signature(msg, rs.sign_message(msg, kp, alg="ES256"), kp.public_key, alg="EdDSA")
    ed = rs.KeyPair.generate()
    assert not rs.verify_signature(msg, rs.sign_message(msg, ed), ed.public_key, alg="ES256")
    # A P-384 key is not an ES256 key.
    p384 = ec.generate_private_key(ec.SECP384R1())
    with pytest.raises(TypeError):
        rs.sign_message(msg, p384, alg="ES256")
    assert not rs.verify_signature(msg, rs.sign_message(msg, kp, alg="ES256"), p384.public_key(), alg="ES256")
    for bad in (b"", b"\x00", b"\x04" + b"\x00" * 64, kp.public_key_bytes()[:-1]):
        with pytest.raises(ValueError):
            rs.ES256PublicKey.from_bytes(bad)
    for bad in (b"\x00" * 32, N.to_bytes(32, "big"), b"\x01" * 31):
        with pytest.raises(ValueError):
            rs.ES256KeyPair.from_private_scalar(bad)


def test_accelerate_routes_es256_to_rust() -> None:
    msg = {"mandate_id": "m1", "constraints": {"max": 10}}
    sdk_kp = sdk_pair(12345)
    expected = rs.sign_message(msg, sdk_kp, alg="ES256")
    # Without accelerate(): OpenSSL's random nonce, so two signatures differ.
    assert sdk_signing.sign_message(msg, sdk_kp, alg="ES256") != sdk_signing.sign_message(msg, sdk_kp, alg="ES256")
    with rs.accelerated() as patched:
        assert "concordia.signing.sign_message" in patched
        # The Rust path: deterministic, the core's bytes.
        assert sdk_signing.sign_message(msg, sdk_kp, alg="ES256") == expected
        assert sdk_signing.verify_signature(msg, expected, sdk_kp.public_key, alg="ES256")
        # A refusal falls back to the SDK, which decides (and refuses too).
        assert not sdk_signing.verify_signature(dict(msg, x=1), expected, sdk_kp.public_key, alg="ES256")
        with pytest.raises(TypeError):
            sdk_signing.sign_message(msg, sdk_signing.KeyPair.generate(), alg="ES256")
    # deaccelerate() restored the SDK's own (random-nonce) signing.
    assert sdk_signing.sign_message(msg, sdk_kp, alg="ES256") != sdk_signing.sign_message(msg, sdk_kp, alg="ES256")


# --- the edge classes of the verification policy ----------------------------------------


def cryptography_verdict(pub: ec.EllipticCurvePublicKey, der: bytes, payload: bytes) -> bool:
    """What OpenSSL says of DER bytes, without the SDK's low-S rule."""
    try:
        pub.verify(der, payload, ec.ECDSA(hashes.SHA256()))
        return True
    except (InvalidSignature, ValueError):
        return False


def edge_cases(d: int, msg: Dict[str, Any]) -> List[Tuple[str, bytes]]:
    """(class, DER bytes) for every signature edge class of the ADR."""
    k = ec.derive_private_key(d, ec.SECP256R1())
    payload = sdk_signing.canonical_json(msg)
    r, s = decode_dss_signature(k.sign(payload, ec.ECDSA(hashes.SHA256(), deterministic_signing=True)))
    s = min(s, N - s)
    good = encode_dss_signature(r, s)
    ri, si = der_int(r), der_int(s)
    cases = [
        ("valid low S", good),
        ("high S (r, n - s)", encode_dss_signature(r, N - s)),
        ("r = 0", der_seq(der_int(0), si)),
        ("s = 0", der_seq(ri, der_int(0))),
        ("r = n", der_seq(der_int(N), si)),
        ("s = n", der_seq(ri, der_int(N))),
        ("r + n", der_seq(der_int(r + N), si)),
        ("s + n", der_seq(ri, der_int(s + N))),
        ("s = n - 1", der_seq(ri, der_int(N - 1))),
        ("non-minimal r (extra 00)", der_seq(der_int(r, pad=1), si)),
        ("non-minimal s (extra 00)", der_seq(ri, der_int(s, pad=1))),
        ("sequence length in long form", b"\x30\x81" + good[1:2] + good[2:]),
        ("trailing byte", good + b"\x00"),
        ("bytes inside the sequence", der_seq(ri, si, b"\x05\x00")),
        ("truncated", good[:-1]),
        ("r || s (P1363)", r.to_bytes(32, "big") + s.to_bytes(32, "big")),
        ("SET instead of SEQUENCE", b"\x31" + good[1:]),
        ("indefinite length", b"\x30\x80" + good[2:] + b"\x00\x00"),
    ]
    # A negative r: the leading 00 dropped when r's top bit is set, else the top bit forced.
    rb = r.to_bytes(32, "big")
    if rb[0] & 0x80:
        cases.append(("negative r", der_seq(b"\x02\x20" + rb, si)))
    else:
        cases.append(("negative r", der_seq(b"\x02\x20" + bytes([rb[0] | 0x80]) + rb[1:], si)))
    return cases


@pytest.mark.parametrize("d", [1, 2, 0xC9AFA9D845BA75166B5C215767B1D6934E50C3DB36E89B127B8A622B120F6721, N - 1])
def test_edge_classes_against_cryptography_and_the_sdk(d: int, concordia_cli) -> None:
    msg = {"type": "negotiate.offer", "d": d % 1000}
    sdk_kp = sdk_pair(d)
    payload = sdk_signing.canonical_json(msg)
    table = {}
    for label, der in edge_cases(d, msg):
        text = b64(der)
        sdk = sdk_signing.verify_signature(msg, text, sdk_kp.public_key, alg="ES256")
        ossl = cryptography_verdict(sdk_kp.public_key, der, payload)
        ours = rs.verify_signature(msg, text, sdk_kp.public_key, alg="ES256")
        with rs.accelerated():
            accel = sdk_signing.verify_signature(msg, text, sdk_kp.public_key, alg="ES256")
        assert not (ours and not sdk), f"{label}: more lenient than the SDK"
        assert accel == sdk, f"{label}: accelerate() changed the SDK's answer"
        table[label] = (ossl, sdk, ours)
    # The table of docs/adr/0004 (ES256 section): one valid spelling, everything else refused.
    assert table["valid low S"] == (True, True, True)
    # OpenSSL alone accepts the high-S twin; the SDK's low-S rule refuses it, and so do we.
    assert table["high S (r, n - s)"] == (True, False, False)
    for label, verdicts in table.items():
        if label not in ("valid low S", "high S (r, n - s)"):
            assert verdicts == (False, False, False), label
    # The CLI gives the same verdicts (exit 0 only for the valid signature).
    for label, der in edge_cases(d, msg):
        signed = dict(msg, signature=b64(der))
        out = subprocess.run(
            [str(concordia_cli), "verify", "--alg", "ES256", "--public-key", sdk_kp.public_key_b64()],
            input=rs.canonical_json(signed),
            capture_output=True,
        )
        assert (out.returncode == 0) == (label == "valid low S"), (label, out.stderr)
        assert out.returncode in (0, 1, 2)


def test_one_spelling_of_the_signature_text() -> None:
    sdk_kp = sdk_pair(99)
    # A (deterministic) signature whose text has padding and a URL-safe character, so that
    # every respelling below differs from it.
    for n in range(100):
        msg = {"n": n}
        sig = rs.sign_message(msg, sdk_kp, alg="ES256")
        if sig.endswith("=") and ("-" in sig or "_" in sig):
            break
    assert sdk_signing.verify_signature(msg, sig, sdk_kp.public_key, alg="ES256")
    raw = base64.urlsafe_b64decode(sig)
    std = base64.b64encode(raw).decode()
    respellings = {
        "unpadded": sig.rstrip("="),
        "standard alphabet": std,
        "leading space": " " + sig,
        "newline": sig + "\n",
        "extra padding": sig + "==",
    }
    lenient = 0
    for label, text in respellings.items():
        assert text != sig
        assert not rs.verify_signature(msg, text, sdk_kp.public_key, alg="ES256"), label
        # accelerate() leaves the SDK's own (lenient) base64 reading in charge of these.
        sdk = sdk_signing.verify_signature(msg, text, sdk_kp.public_key, alg="ES256")
        lenient += sdk
        with rs.accelerated():
            assert sdk_signing.verify_signature(msg, text, sdk_kp.public_key, alg="ES256") == sdk, label
    # The SDK accepts some of them (the standard alphabet, whitespace): we are stricter.
    assert lenient > 0


KEY_CASES: List[Tuple[str, Callable[[bytes], bytes]]] = [
    ("off the curve (y + 1)", lambda u: u[:-1] + bytes([u[-1] ^ 1])),
    ("identity (SEC1 00)", lambda u: b"\x00"),
    ("all-zero point", lambda u: b"\x04" + b"\x00" * 64),
    ("x = p", lambda u: b"\x02" + (2**256 - 2**224 + 2**192 + 2**96 - 1).to_bytes(32, "big")),
    ("hybrid form 06/07", lambda u: bytes([6 | (u[-1] & 1)]) + u[1:]),
    ("truncated", lambda u: u[:64]),
]


def test_key_edge_classes_against_cryptography() -> None:
    kp = sdk_pair(7)
    u = kp.public_key_bytes()
    msg = {"n": 1}
    sig = sdk_signing.sign_message(msg, kp, alg="ES256")
    for label, make in KEY_CASES:
        bad = make(u)
        # cryptography (the SDK's key loader, from_encoded_point) refuses the bytes: the SDK
        # cannot even hold such a key.
        with pytest.raises(ValueError):
            ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), bad)
        with pytest.raises(ValueError):
            rs.ES256PublicKey.from_bytes(bad)
        assert not rs.verify_signature(msg, sig, bad, alg="ES256"), label
        assert not rs.verify_signature(msg, sig, b64(bad), alg="ES256"), label
    # The compressed form of the same key is accepted by both.
    compressed = kp.public_key.public_bytes(serialization.Encoding.X962, serialization.PublicFormat.CompressedPoint)
    assert rs.verify_signature(msg, sig, compressed, alg="ES256")
    assert ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), compressed) == kp.public_key
