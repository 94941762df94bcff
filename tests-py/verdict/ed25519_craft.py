"""Crafted Ed25519 signatures for the verdict tests (test code only, never shipped).

A small pure-Python model of edwards25519 (integer arithmetic in extended coordinates,
point encoding and decoding including the non-canonical encodings, the eight points of
small order, RFC 8032 signing with a SHA-512 challenge ``k``) that builds, over the bytes
of one message, a signature of every divergence class of "Taming the many EdDSAs"
(Chalkias, Garillot, Nikolaenko, 2020) and of the ed25519-speccheck cases:

* honest signatures (``valid``);
* small-order public key ``A`` (identity, order 2, 4, 8), with ``S = 0`` and small-order
  ``R`` as in speccheck cases 0 and 1, and with ``R = rB``;
* small-order ``R`` under an honest key;
* mixed-order ``A = aB + T`` where the cofactorless equation holds and where only the
  cofactored one holds (speccheck 4 and 5), and mixed ``A`` with mixed ``R``;
* ``R = rB + T`` (only the cofactored equation holds);
* ``S >= L``: ``S + L``, ``S + 2L``, ``S + 8L`` (top bit set), ``S + 15L``;
* non-canonical encodings of ``A`` and ``R``: ``y >= p`` and ``x = 0`` with the sign bit
  set (the identity with the sign bit, and ``(0, -1)`` with it).

Every case records what the verification equations actually give (computed here with
independent point arithmetic, not assumed from how it was built), so the tests can check
the helper itself: a cofactored-only case really fails the cofactorless equation, a
"cofactorless" case really passes it.

Deterministic: every scalar comes from SHA-512 of fixed labels.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Iterator, Optional

# --------------------------------------------------------------------------- field, curve

P = 2**255 - 19
L = 2**252 + 27742317777372353535851937790883648493
D = (-121665 * pow(121666, -1, P)) % P
SQRT_M1 = pow(2, (P - 1) // 4, P)  # a square root of -1


def _inv(x: int) -> int:
    return pow(x, P - 2, P)


def _sqrt(u: int) -> Optional[int]:
    """A square root of ``u`` mod p (either one), or None."""
    u %= P
    x = pow(u, (P + 3) // 8, P)
    if (x * x - u) % P == 0:
        return x
    x = (x * SQRT_M1) % P
    if (x * x - u) % P == 0:
        return x
    return None


def x_from_y(y: int) -> Optional[int]:
    """An x with (x, y) on the curve ``-x^2 + y^2 = 1 + d x^2 y^2`` (even root), or None."""
    y %= P
    num = (y * y - 1) % P
    den = (D * y * y + 1) % P
    x = _sqrt(num * _inv(den))
    if x is None:
        return None
    return x if x % 2 == 0 else P - x


# Points in extended coordinates (X, Y, Z, T) with x = X/Z, y = Y/Z, xy = T/Z.
Point = tuple[int, int, int, int]

IDENTITY: Point = (0, 1, 1, 0)


def from_affine(x: int, y: int) -> Point:
    x %= P
    y %= P
    if (-x * x + y * y - 1 - D * x * x % P * y * y) % P != 0:
        raise ValueError("not on the curve")
    return (x, y, 1, x * y % P)


def add(p1: Point, p2: Point) -> Point:
    """Unified addition (HWCD08, a = -1); also correct for doubling and small order."""
    x1, y1, z1, t1 = p1
    x2, y2, z2, t2 = p2
    a = (y1 - x1) * (y2 - x2) % P
    b = (y1 + x1) * (y2 + x2) % P
    c = 2 * t1 * t2 * D % P
    dd = 2 * z1 * z2 % P
    e, f, g, h = b - a, dd - c, dd + c, b + a
    return (e * f % P, g * h % P, f * g % P, e * h % P)


def neg(p: Point) -> Point:
    x, y, z, t = p
    return (-x % P, y, z, -t % P)


def mul(k: int, p: Point) -> Point:
    """[k]P for k >= 0 (double-and-add; test code, not constant time)."""
    if k < 0:
        return mul(-k, neg(p))
    q = IDENTITY
    while k:
        if k & 1:
            q = add(q, p)
        p = add(p, p)
        k >>= 1
    return q


def affine(p: Point) -> tuple[int, int]:
    x, y, z, _ = p
    zi = _inv(z)
    return (x * zi % P, y * zi % P)


def eq(p1: Point, p2: Point) -> bool:
    x1, y1, z1, _ = p1
    x2, y2, z2, _ = p2
    return (x1 * z2 - x2 * z1) % P == 0 and (y1 * z2 - y2 * z1) % P == 0


def is_identity(p: Point) -> bool:
    return eq(p, IDENTITY)


def order_of_small(p: Point) -> Optional[int]:
    """The order of ``p`` when it divides 8, else None."""
    q = p
    for n in (1, 2, 4, 8):
        if is_identity(q if n == 1 else mul(n, p)):
            return n
    return None


def encode(p: Point) -> bytes:
    x, y = affine(p)
    return (y | ((x & 1) << 255)).to_bytes(32, "little")


def encode_raw(y: int, sign: int) -> bytes:
    """The 32-byte encoding of a y (any value below 2^255, canonical or not) and a sign bit."""
    assert 0 <= y < 2**255 and sign in (0, 1)
    return (y | (sign << 255)).to_bytes(32, "little")


@dataclass(frozen=True)
class Decoded:
    point: Point
    canonical: bool  # y < p, and not x = 0 with the sign bit set


def decode(b: bytes) -> Optional[Decoded]:
    """Permissive decoding (as a lenient verifier would): y reduced mod p, the sign bit
    ignored when x = 0. None when y names no curve point."""
    if len(b) != 32:
        return None
    n = int.from_bytes(b, "little")
    sign = n >> 255
    y_raw = n & (2**255 - 1)
    y = y_raw % P
    x = x_from_y(y)
    if x is None:
        return None
    canonical = y_raw < P
    if x == 0:
        if sign:
            canonical = False
    elif (x & 1) != sign:
        x = P - x
    return Decoded(from_affine(x, y), canonical)


# Base point: y = 4/5, x even.
_BY = 4 * _inv(5) % P
B: Point = from_affine(x_from_y(_BY), _BY)  # type: ignore[arg-type]


def _torsion_generator() -> Point:
    """A point of order exactly 8: [L]Q for the first curve point Q (by y = 2, 3, ...) whose
    [L]Q has order 8."""
    y = 2
    while True:
        x = x_from_y(y)
        if x is not None:
            t = mul(L, from_affine(x, y))
            if order_of_small(t) == 8:
                return t
        y += 1


T8 = _torsion_generator()
# The eight points of small order, TORSION[i] = [i]T8 (TORSION[0] the identity,
# TORSION[4] = (0, -1) of order 2, TORSION[2] and TORSION[6] of order 4).
TORSION: list[Point] = [mul(i, T8) for i in range(8)]


def torsion_of_order(n: int) -> list[Point]:
    return [t for t in TORSION if order_of_small(t) == n]


# --------------------------------------------------------------------------- signing


def sha512_int(*parts: bytes) -> int:
    h = hashlib.sha512()
    for part in parts:
        h.update(part)
    return int.from_bytes(h.digest(), "little")


def challenge(r_enc: bytes, a_enc: bytes, msg: bytes) -> int:
    return sha512_int(r_enc, a_enc, msg) % L


def secret_expand(seed: bytes) -> tuple[int, bytes]:
    h = hashlib.sha512(seed).digest()
    a = int.from_bytes(h[:32], "little")
    a &= (1 << 254) - 8
    a |= 1 << 254
    return a, h[32:]


def public_key(seed: bytes) -> bytes:
    a, _ = secret_expand(seed)
    return encode(mul(a, B))


def sign(seed: bytes, msg: bytes) -> bytes:
    """RFC 8032 Ed25519 (checked against `cryptography` by the tests)."""
    a, prefix = secret_expand(seed)
    a_enc = encode(mul(a, B))
    r = sha512_int(prefix, msg) % L
    r_enc = encode(mul(r, B))
    s = (r + challenge(r_enc, a_enc, msg) * a) % L
    return r_enc + s.to_bytes(32, "little")


def derive_scalar(*labels: str) -> int:
    return sha512_int(b"concordia-rs verdict craft\x00", *[x.encode() + b"\x00" for x in labels]) % L


# --------------------------------------------------------------------------- equations


@dataclass(frozen=True)
class Equations:
    """What the verification equations give for (A, R, S) over a message, computed with
    permissive decoding; None where a point does not decode at all."""

    a_decodes: bool
    r_decodes: bool
    a_canonical: bool
    r_canonical: bool
    a_small_order: bool
    r_small_order: bool
    a_mixed_order: bool  # neither small order nor in the prime-order subgroup
    r_mixed_order: bool
    s_canonical: bool  # S < L
    cofactorless: bool  # [S]B - [k]A == R as points (S taken as is)
    cofactorless_bytes: bool  # encode([S]B - [k]A) == R bytes (OpenSSL's check)
    cofactored: bool  # [8]([S]B - [k]A - R) == identity


def _in_prime_subgroup(p: Point) -> bool:
    return is_identity(mul(L, p))


def equations(a_enc: bytes, sig: bytes, msg: bytes) -> Equations:
    r_enc, s_bytes = sig[:32], sig[32:]
    s = int.from_bytes(s_bytes, "little")
    da, dr = decode(a_enc), decode(r_enc)
    if da is None or dr is None:
        return Equations(da is not None, dr is not None, bool(da and da.canonical), bool(dr and dr.canonical),
                         False, False, False, False, s < L, False, False, False)
    k = challenge(r_enc, a_enc, msg)
    lhs = add(mul(s, B), neg(mul(k, da.point)))
    a_small = order_of_small(da.point) is not None
    r_small = order_of_small(dr.point) is not None
    return Equations(
        a_decodes=True,
        r_decodes=True,
        a_canonical=da.canonical,
        r_canonical=dr.canonical,
        a_small_order=a_small,
        r_small_order=r_small,
        a_mixed_order=not a_small and not _in_prime_subgroup(da.point),
        r_mixed_order=not r_small and not _in_prime_subgroup(dr.point),
        s_canonical=s < L,
        cofactorless=eq(lhs, dr.point),
        cofactorless_bytes=encode(lhs) == r_enc,
        cofactored=is_identity(mul(8, add(lhs, neg(dr.point)))),
    )


# --------------------------------------------------------------------------- the cases


@dataclass(frozen=True)
class Case:
    name: str  # unique, e.g. "mixed_A.order8.cofactorless"
    cls: str  # the divergence class (one row of the ADR's table)
    description: str
    public_key: bytes  # 32 bytes, as crafted (possibly non-canonical or small order)
    signature: bytes  # 64 bytes
    expect: dict = field(default_factory=dict)  # equation flags the construction promises


def _sig(r_enc: bytes, s: int) -> bytes:
    assert 0 <= s < 2**256
    return r_enc + s.to_bytes(32, "little")


def _torsion_label(t: Point) -> str:
    return f"order{order_of_small(t)}"


# The non-canonical encodings of points of small order (the only points whose y can be
# written as y + p < 2^255 and still be signed for): (label, bytes, the point).
def noncanonical_small_encodings() -> list[tuple[str, bytes, Point]]:
    out = []
    ident = from_affine(0, 1)
    minus_one = from_affine(0, P - 1)
    i4 = from_affine(SQRT_M1 if SQRT_M1 % 2 == 0 else P - SQRT_M1, 0)
    out.append(("identity_sign_bit", encode_raw(1, 1), ident))  # x = 0 with the sign bit
    out.append(("identity_y_plus_p", encode_raw(1 + P, 0), ident))  # y = p + 1
    out.append(("identity_y_plus_p_sign_bit", encode_raw(1 + P, 1), ident))
    out.append(("order2_sign_bit", encode_raw(P - 1, 1), minus_one))  # (0, -1) with the sign bit
    out.append(("order4_y_eq_p", encode_raw(P, 0), i4))  # y = p, i.e. y = 0
    out.append(("order4_y_eq_p_sign_bit", encode_raw(P, 1), neg(i4)))
    return out


def _grind_small_a(label: str, a_enc: bytes, a_pt: Point, msg: bytes, want_cofactorless: bool) -> bytes:
    """R = rB, S = r: [S]B - [k]A = R - [k]A, so the cofactored equation always holds and
    the cofactorless one exactly when [k]A is the identity. Grind r for the wanted one."""
    for i in range(4096):
        r = derive_scalar("small-A", label, str(want_cofactorless), str(i))
        r_enc = encode(mul(r, B))
        k = challenge(r_enc, a_enc, msg)
        if is_identity(mul(k, a_pt)) == want_cofactorless:
            return _sig(r_enc, r)
    raise RuntimeError(f"no r found for {label}")


def craft_cases(msg: bytes, seed: bytes) -> list[Case]:
    """Every crafted case over ``msg``; ``seed`` is the honest signer's Ed25519 seed."""
    cases: list[Case] = []
    a, _ = secret_expand(seed)
    A = mul(a, B)
    a_enc = encode(A)

    # ---- honest
    cases.append(Case("valid.honest", "valid", "RFC 8032 signature by the honest key",
                      a_enc, sign(seed, msg), {"cofactorless_bytes": True}))
    seed2 = hashlib.sha256(b"second honest signer" + seed).digest()
    cases.append(Case("valid.honest_second_key", "valid", "RFC 8032 signature by a second honest key",
                      public_key(seed2), sign(seed2, msg), {"cofactorless_bytes": True}))

    # ---- small-order A, R = rB, S = r
    for t in TORSION:
        lab = _torsion_label(t)
        t_enc = encode(t)
        idx = TORSION.index(t)
        variants = [True] if order_of_small(t) == 1 else [True, False]
        for want in variants:
            name = f"small_A.{lab}.T{idx}.{'cofactorless' if want else 'cofactored_only'}"
            cls = "small-order A, cofactorless holds" if want else "small-order A, cofactored only"
            cases.append(Case(name, cls, f"A = [{idx}]T8 ({lab}), R = rB, S = r",
                              t_enc, _grind_small_a(name, t_enc, t, msg, want),
                              {"a_small_order": True, "cofactorless": want, "cofactored": True}))

    # ---- small-order A and small-order R, S = 0 (speccheck 0 and 1; identity-key forgery)
    found = {True: 0, False: 0}
    for ia in range(8):
        for ir in range(8):
            t_a, t_r = TORSION[ia], TORSION[ir]
            ta_enc, tr_enc = encode(t_a), encode(t_r)
            k = challenge(tr_enc, ta_enc, msg)
            holds = eq(neg(mul(k, t_a)), t_r)
            if found[holds] >= 3:
                continue
            found[holds] += 1
            name = f"small_A_small_R.S0.A{ia}.R{ir}.{'cofactorless' if holds else 'cofactored_only'}"
            cls = ("small-order A and R, S = 0, cofactorless holds" if holds
                   else "small-order A and R, S = 0, cofactored only")
            cases.append(Case(name, cls, f"A = [{ia}]T8, R = [{ir}]T8, S = 0", ta_enc, _sig(tr_enc, 0),
                              {"a_small_order": True, "r_small_order": True, "cofactorless": holds,
                               "cofactored": True}))

    # ---- small-order R under the honest key: S = k a
    for t in TORSION:
        idx = TORSION.index(t)
        t_enc = encode(t)
        k = challenge(t_enc, a_enc, msg)
        holds = idx == 0  # [S]B - [k]A = O: equals R only for the identity
        name = f"small_R.{_torsion_label(t)}.T{idx}.{'cofactorless' if holds else 'cofactored_only'}"
        cls = "small-order R, cofactorless holds" if holds else "small-order R, cofactored only"
        cases.append(Case(name, cls, f"honest A, R = [{idx}]T8, S = k a", a_enc, _sig(t_enc, k * a % L),
                          {"r_small_order": True, "cofactorless": holds, "cofactored": True}))

    # ---- mixed-order A = aB + T, R = rB, S = r + k a: [S]B - [k]A = R - [k]T
    for idx in (1, 2, 4):  # orders 8, 4, 2
        t = TORSION[idx]
        am = add(A, t)
        am_enc = encode(am)
        for want in (True, False):
            for i in range(4096):
                r = derive_scalar("mixed-A", str(idx), str(want), str(i))
                r_enc = encode(mul(r, B))
                k = challenge(r_enc, am_enc, msg)
                if is_identity(mul(k, t)) == want:
                    break
            else:
                raise RuntimeError("mixed A: no r")
            name = f"mixed_A.{_torsion_label(t)}.{'cofactorless' if want else 'cofactored_only'}"
            cls = "mixed-order A, cofactorless holds" if want else "mixed-order A, cofactored only"
            cases.append(Case(name, cls, f"A = aB + [{idx}]T8, R = rB, S = r + k a", am_enc,
                              _sig(r_enc, (r + k * a) % L),
                              {"a_mixed_order": True, "cofactorless": want, "cofactored": True}))

    # ---- mixed-order R = rB + T under the honest key (cofactored only)
    for idx in (1, 2, 4):
        t = TORSION[idx]
        r = derive_scalar("mixed-R", str(idx))
        r_enc = encode(add(mul(r, B), t))
        k = challenge(r_enc, a_enc, msg)
        name = f"mixed_R.{_torsion_label(t)}.cofactored_only"
        cases.append(Case(name, "R = rB + T (mixed-order R), cofactored only",
                          f"honest A, R = rB + [{idx}]T8, S = r + k a", a_enc, _sig(r_enc, (r + k * a) % L),
                          {"r_mixed_order": True, "cofactorless": False, "cofactored": True}))

    # ---- mixed A and mixed R with the cofactorless equation holding: R = rB + T2 with
    # T2 = -[k]T1 (grind r and T2 together)
    for idx in (1, 2):
        t1 = TORSION[idx]
        am = add(A, t1)
        am_enc = encode(am)
        hit = None
        for i in range(4096):
            r = derive_scalar("mixed-AR", str(idx), str(i))
            rb = mul(r, B)
            for j in range(1, 8):  # a mixed R: T2 not the identity
                r_enc = encode(add(rb, TORSION[j]))
                k = challenge(r_enc, am_enc, msg)
                if eq(neg(mul(k, t1)), TORSION[j]):
                    hit = (r, r_enc, k, j)
                    break
            if hit:
                break
        assert hit is not None
        r, r_enc, k, j = hit
        name = f"mixed_A_mixed_R.{_torsion_label(t1)}.cofactorless"
        cases.append(Case(name, "mixed-order A and R, cofactorless holds",
                          f"A = aB + [{idx}]T8, R = rB + [{j}]T8 = rB - [k][{idx}]T8, S = r + k a", am_enc,
                          _sig(r_enc, (r + k * a) % L),
                          {"a_mixed_order": True, "r_mixed_order": True, "cofactorless": True, "cofactored": True}))

    # ---- S >= L (malleability): the honest signature with S + nL
    honest = sign(seed, msg)
    s0 = int.from_bytes(honest[32:], "little")
    for n in (1, 2, 8, 15):
        s = s0 + n * L
        if s >= 2**256:
            continue
        cls = "S >= L (S + 8L, top bit set)" if n == 8 else ("S >= L (S + L)" if n == 1 else "S >= L")
        cases.append(Case(f"s_ge_L.S_plus_{n}L", cls, f"honest signature with S + {n}L", a_enc,
                          _sig(honest[:32], s), {"s_canonical": False, "cofactorless": True}))
    # S = L exactly would need R = -[k]A (unknowable); S = L + S0 is the speccheck "S > L".

    # ---- non-canonical A encodings (small-order points written with y >= p or with the sign
    # bit on x = 0): R = rB, S = r, k over the non-canonical bytes
    for label, enc, pt in noncanonical_small_encodings():
        variants = [True] if is_identity(pt) else [True, False]
        for want in variants:
            name = f"noncanonical_A.{label}.{'cofactorless' if want else 'cofactored_only'}"
            cls = ("non-canonical A (identity with sign bit)" if label == "identity_sign_bit"
                   else "non-canonical A (y >= p or x = 0 with sign bit)")
            cases.append(Case(name, cls, f"A encoded as {label}, R = rB, S = r", enc,
                              _grind_small_a(name, enc, pt, msg, want),
                              {"a_canonical": False, "a_small_order": True, "cofactorless": want,
                               "cofactored": True}))

    # ---- non-canonical R encodings under the honest key: S = k a, k over the R bytes
    for label, enc, pt in noncanonical_small_encodings():
        k = challenge(enc, a_enc, msg)
        holds = is_identity(pt)
        name = f"noncanonical_R.{label}.{'cofactorless_points' if holds else 'cofactored_only'}"
        cls = ("non-canonical R (identity with sign bit)" if label == "identity_sign_bit"
               else "non-canonical R (y >= p or x = 0 with sign bit)")
        cases.append(Case(name, cls, f"honest A, R encoded as {label}, S = k a", a_enc, _sig(enc, k * a % L),
                          {"r_canonical": False, "r_small_order": True, "cofactorless": holds,
                           "cofactorless_bytes": False, "cofactored": True}))

    # ---- the honest signature under a non-canonical spelling of a canonical key is
    # impossible (a prime-order point's y is never below 19), so A's non-canonical cases are
    # all small order; likewise R's.
    names = [c.name for c in cases]
    assert len(names) == len(set(names)), "duplicate case names"
    return cases


def iter_check(cases: list[Case], msg: bytes) -> Iterator[tuple[Case, Equations, list[str]]]:
    """Each case with its computed equations and the promises it breaks (empty when the
    construction is what its label says)."""
    for c in cases:
        e = equations(c.public_key, c.signature, msg)
        bad = [f"{k}: promised {v}, computed {getattr(e, k)}" for k, v in c.expect.items() if getattr(e, k) != v]
        yield c, e, bad
