"""One verdict for ES256 (issue 24) on every surface that verifies it.

The edge classes of docs/adr/0004 (ES256 section), crafted over a Concordia message: an
honest signature (the SDK's, random nonce), its high-S twin, r or s zero or >= n,
non-minimal and negative DER integers, BER lengths, trailing, inner and missing bytes, other
tags, the P1363 form, respellings of the text, and keys off the curve or the identity. Each
input is judged by OpenSSL alone (`cryptography`, without the SDK's low-S rule), the SDK's
`verify_signature(..., alg="ES256")` with and without `concordia_rs.accelerate()`, and five
concordia-rs surfaces (Python dict, CLI `verify --alg ES256`, C `concordia_es256_verify_object`,
UniFFI `verify_signature_es256`, and the Python raw-bytes key path), which must all agree and
never accept what the SDK refuses. Run by tools/ci/verdict.sh with the surfaces of
cross_surface_verdict.py.
"""

from __future__ import annotations

import base64
import ctypes
import json
import sys
from pathlib import Path
from typing import Optional

import pytest

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from cross_surface_verdict import ACCEPT, REJECT, Surfaces, SurfaceMissing, _exit_verdict, _py_verdict  # noqa: E402

from cryptography.exceptions import InvalidSignature  # noqa: E402
from cryptography.hazmat.primitives import hashes, serialization  # noqa: E402
from cryptography.hazmat.primitives.asymmetric import ec  # noqa: E402
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature, encode_dss_signature  # noqa: E402

MSG = {"concordia": "0.1.0", "type": "negotiate.offer", "body": {"price": 2050}, "note": "h\u00e9llo"}


def b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode()


def der_int(x: int, pad: int = 0) -> bytes:
    body = b"\x00" * pad + x.to_bytes(max(1, (x.bit_length() + 8) // 8), "big")
    return b"\x02" + bytes([len(body)]) + body


def der_seq(*parts: bytes) -> bytes:
    body = b"".join(parts)
    return b"\x30" + bytes([len(body)]) + body


@pytest.fixture(scope="module")
def surfaces(tmp_path_factory: pytest.TempPathFactory) -> Surfaces:
    try:
        s = Surfaces(tmp_path_factory.mktemp("es256"))
    except SurfaceMissing as e:
        pytest.fail(f"a surface is missing: {e}")
    cp, sz = ctypes.c_char_p, ctypes.c_size_t
    s.c.concordia_es256_verify_object.argtypes = [cp, sz, cp, sz]
    s.c.concordia_es256_verify_object.restype = ctypes.c_uint32
    return s


def cases(sdk_signing) -> list[tuple[str, dict, bytes]]:
    """(class, signed message, X9.62 key) for every edge class."""
    n = sdk_signing.P256_ORDER
    k = ec.derive_private_key(0xC0FFEE, ec.SECP256R1())
    kp = sdk_signing.ES256KeyPair(private_key=k, public_key=k.public_key())
    key = kp.public_key_bytes()
    # An honest SDK signature whose text has padding and a URL-safe character, so every
    # respelling below differs from it (the SDK's nonce is random: draw until it does).
    for _ in range(200):
        sig = sdk_signing.sign_message(MSG, kp, alg="ES256")
        if sig.endswith("=") and ("-" in sig or "_" in sig):
            break
    raw = base64.urlsafe_b64decode(sig)
    r, s = decode_dss_signature(raw)
    ri, si = der_int(r), der_int(s)
    rb = r.to_bytes(32, "big")
    neg_r = b"\x02\x20" + (rb if rb[0] & 0x80 else bytes([rb[0] | 0x80]) + rb[1:])
    ders = [
        ("honest (SDK)", raw),
        ("high S", encode_dss_signature(r, n - s)),
        ("r = 0", der_seq(der_int(0), si)),
        ("s = 0", der_seq(ri, der_int(0))),
        ("r = n", der_seq(der_int(n), si)),
        ("s = n", der_seq(ri, der_int(n))),
        ("r + n", der_seq(der_int(r + n), si)),
        ("s + n", der_seq(ri, der_int(s + n))),
        ("non-minimal r", der_seq(der_int(r, pad=1), si)),
        ("non-minimal s", der_seq(ri, der_int(s, pad=1))),
        ("negative r", der_seq(neg_r, si)),
        ("long-form length", b"\x30\x81" + raw[1:]),
        ("indefinite length", b"\x30\x80" + raw[2:] + b"\x00\x00"),
        ("trailing byte", raw + b"\x00"),
        ("inner extra element", der_seq(ri, si, b"\x05\x00")),
        ("truncated", raw[:-1]),
        ("SET tag", b"\x31" + raw[1:]),
        ("P1363 r || s", rb + s.to_bytes(32, "big")),
    ]
    out = [(label, dict(MSG, signature=b64(d)), key) for label, d in ders]
    for label, text in [
        ("text unpadded", sig.rstrip("=")),
        ("text standard alphabet", base64.b64encode(raw).decode()),
        ("text with a space", " " + sig),
        ("text with excess padding", sig + "=="),
    ]:
        out.append((label, dict(MSG, signature=text), key))
    other = ec.derive_private_key(0xBEEF, ec.SECP256R1()).public_key()
    out.append(("another key", dict(MSG, signature=sig), other.public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)))
    out.append(("key off the curve", dict(MSG, signature=sig), key[:-1] + bytes([key[-1] ^ 1])))
    out.append(("identity key", dict(MSG, signature=sig), b"\x00"))
    return out


def verdicts(s: Surfaces, msg: dict, key: bytes) -> dict[str, str]:
    sdk_signing, rs = s.sdk_signing, s.rs
    text = rs.canonical_json(msg)
    sig_text = msg["signature"]
    try:
        sdk_key: Optional[ec.EllipticCurvePublicKey] = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), key)
    except ValueError:
        sdk_key = None  # the SDK cannot hold such a key: its verdict is a refusal

    def openssl() -> bool:
        if sdk_key is None:
            return False
        try:
            sdk_key.verify(base64.urlsafe_b64decode(sig_text), sdk_signing.canonical_json(
                {k: v for k, v in msg.items() if k != "signature"}), ec.ECDSA(hashes.SHA256()))
            return True
        except (InvalidSignature, ValueError):
            return False

    v = {
        "openssl": _py_verdict(openssl),
        "sdk": _py_verdict(lambda: sdk_key is not None and s.sdk_verify(msg, sig_text, sdk_key, alg="ES256")),
    }
    with rs.accelerated():
        v["sdk accelerated"] = _py_verdict(
            lambda: sdk_key is not None and sdk_signing.verify_signature(msg, sig_text, sdk_key, alg="ES256"))
    v["rs dict"] = _py_verdict(lambda: rs.verify_signature(msg, sig_text, key, alg="ES256"))
    v["rs base64 key"] = _py_verdict(lambda: rs.verify_signature(msg, sig_text, b64(key), alg="ES256"))
    f = s._file(text)
    try:
        import subprocess

        proc = subprocess.run([s.cli, "verify", "--alg", "ES256", "--public-key", b64(key), str(f)],
                              stdin=subprocess.DEVNULL, capture_output=True, timeout=60)
    finally:
        f.unlink()
    v["cli"] = _exit_verdict(proc)
    rc = s.c.concordia_es256_verify_object(text, len(text), key, len(key))
    v["c"] = ACCEPT if rc == 0 else (REJECT if rc < 900 else f"crash: code {rc}")
    v["uniffi"] = _py_verdict(lambda: s.uniffi.verify_signature_es256(text.decode(), b64(key)) is None)
    return v


OURS = ("rs dict", "rs base64 key", "cli", "c", "uniffi")


def test_es256_one_verdict_never_more_lenient(surfaces: Surfaces) -> None:
    table = {label: verdicts(surfaces, msg, key) for label, msg, key in cases(surfaces.sdk_signing)}
    for label, v in table.items():
        assert not any(x.startswith("crash") for x in v.values()), (label, v)
        ours = {v[o] for o in OURS}
        assert len(ours) == 1, f"{label}: surfaces disagree: {v}"
        assert not (v["rs dict"] == ACCEPT and v["sdk"] == REJECT), f"{label}: more lenient than the SDK: {v}"
        assert v["sdk accelerated"] == v["sdk"], f"{label}: accelerate() changed the SDK's verdict: {v}"
    # The ADR table: only the honest signature is ours; OpenSSL alone takes the high-S twin;
    # the SDK takes the lenient respellings of the text, which we refuse (one spelling).
    assert table["honest (SDK)"]["rs dict"] == ACCEPT and table["honest (SDK)"]["sdk"] == ACCEPT
    assert table["high S"]["openssl"] == ACCEPT and table["high S"]["sdk"] == REJECT
    for label, v in table.items():
        if label != "honest (SDK)":
            assert v["rs dict"] == REJECT, (label, v)
    for label in ("text standard alphabet", "text with a space", "text with excess padding"):
        assert table[label]["sdk"] == ACCEPT, (label, table[label])
    print(json.dumps({k: (v["openssl"], v["sdk"], v["rs dict"]) for k, v in table.items()}, indent=1))
