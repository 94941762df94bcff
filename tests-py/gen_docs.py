#!/usr/bin/env python3
"""Deterministic generator of JSON Lines for differential JCS (RFC 8785) tests.

Every document is emitted as raw text (bytes) by our own writer rather than by
``json.dumps``, so the corpus exercises input spellings that a canonicalizer
must normalise: insignificant whitespace, every escape form (``\\/``, ``\\uXXXX``
in either hex case, surrogate-pair escapes), raw non-BMP UTF-8, long or
exponent-heavy number literals, keys whose UTF-16 order differs from their code
point order.

About 2 % of the lines are deliberately invalid or sit on an edge that
concordia-rs rejects by design (duplicate names, lone surrogates, integers
beyond 2^53-1, negative zero, NaN, overflow, bad UTF-8, BOM, trailing bytes,
syntax errors). The harness classifies every line itself; the generator only
makes sure such lines are present.

No line contains a raw ``\\n``: insignificant whitespace is drawn from
space, tab and CR, and U+000A inside strings is always escaped.

Usage: gen_docs.py [--count N] [--seed S] [-o FILE]   (defaults 20000, 8785, stdout)
"""

from __future__ import annotations

import argparse
import math
import random
import struct
import sys
from decimal import Decimal

DEFAULT_COUNT = 20_000
DEFAULT_SEED = 8785
INVALID_FRACTION = 0.02
MAX_DEPTH = 6
MAX_SAFE = 2**53 - 1

# Code points that stress string handling and key ordering.
_SPECIAL_CHARS = (
    [chr(c) for c in range(0x00, 0x20)]
    + ['"', "\\", "/", "\x7f", "\x80", "\x9f", "\xa0", "\xff", "\u2028", "\u2029",
       "\u20ac", "\ufb33", "\ufeff", "\ufffd", "\uffff", "\ue000", "\uf8ff", "\u00f6",
       "\u0100", "\u07ff", "\u0800", "\ud7ff",
       "\U00010000", "\U0001f600", "\U0001f602", "\U0010ffff", "\U000e0001", "\U0001d11e"]
)

# Keys chosen so that UTF-16 code-unit order and code-point order disagree
# (U+E000..U+FFFF sort after the surrogates D800..DFFF that encode U+10000+),
# plus prefixes, case, the empty key and JS-object oddities.
_TRICKY_KEYS = [
    "", "a", "A", "aa", "ab", "b", "B", "a\x00", "a\x01", "\x00", "\x1f", " ", "~", "\x7f",
    "1", "10", "2", "-1", "01", "1.0", "__proto__", "constructor", "toString",
    "\u00e9", "e\u0301", "\u00f6", "\u20ac", "\ufb33", "\ud7ff", "\ue000", "\uf8ff",
    "\uff61", "\uffff", "\ufffd", "\U00010000", "\U0001f600", "\U0001f602", "\U0010ffff",
    "\U0001f600a", "\ue000a", "\u2028", "\u2029", "</script>", "\"", "\\", "/",
]


class Gen:
    """One seeded stream of documents."""

    def __init__(self, seed: int) -> None:
        self.r = random.Random(seed)

    # -- whitespace -------------------------------------------------------

    def ws(self) -> str:
        r = self.r
        x = r.random()
        if x < 0.80:
            return ""
        if x < 0.93:
            return " "
        return "".join(r.choice(" \t\r") for _ in range(r.randint(1, 4)))

    # -- strings ----------------------------------------------------------

    def rand_char(self) -> str:
        r = self.r
        x = r.random()
        if x < 0.45:
            return chr(r.randint(0x20, 0x7E))
        if x < 0.60:
            return r.choice(_SPECIAL_CHARS)
        if x < 0.75:
            # BMP outside the surrogate range
            c = r.randint(0x80, 0xFFFF)
            while 0xD800 <= c <= 0xDFFF:
                c = r.randint(0x80, 0xFFFF)
            return chr(c)
        if x < 0.90:
            return chr(r.randint(0x10000, 0x10FFFF))
        return chr(r.choice([0x1F600, 0x1F602, 0x1F4A9, 0x1F680, 0x10000, 0x10FFFF]))

    def rand_text(self, max_len: int = 12) -> str:
        return "".join(self.rand_char() for _ in range(self.r.randint(0, max_len)))

    def esc_u(self, cp: int) -> str:
        s = "\\u%04x" % cp
        return s.upper().replace("\\U", "\\u") if self.r.random() < 0.3 else s

    def encode_char(self, ch: str) -> str:
        """Spell one code point as JSON string content, choosing among the
        legal spellings at random."""
        r = self.r
        cp = ord(ch)
        short = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n",
                 "\r": "\\r", "\t": "\\t", "/": "\\/"}
        if ch in short and (ch != "/" or r.random() < 0.5):
            if r.random() < 0.8:
                return short[ch]
            return self.esc_u(cp)
        if cp < 0x20:
            return self.esc_u(cp)
        if cp >= 0x10000:
            if r.random() < 0.35:
                v = cp - 0x10000
                return self.esc_u(0xD800 + (v >> 10)) + self.esc_u(0xDC00 + (v & 0x3FF))
            return ch
        if cp >= 0x7F and r.random() < 0.25:
            return self.esc_u(cp)
        if r.random() < 0.03:
            return self.esc_u(cp)
        return ch

    def string_lit(self, text: str) -> str:
        return '"' + "".join(self.encode_char(c) for c in text) + '"'

    def rand_key(self) -> str:
        r = self.r
        x = r.random()
        if x < 0.35:
            return r.choice(_TRICKY_KEYS)
        if x < 0.55:
            return r.choice(_TRICKY_KEYS) + r.choice(_TRICKY_KEYS)
        if x < 0.75:
            return "".join(chr(r.randint(0x61, 0x7A)) for _ in range(r.randint(1, 8)))
        return self.rand_text(8)

    # -- numbers ----------------------------------------------------------

    def rand_int_value(self) -> int:
        r = self.r
        x = r.random()
        if x < 0.1:
            v = r.choice([0, 1, 2**31 - 1, 2**31, 2**32, MAX_SAFE, MAX_SAFE - 1, 10**15, 10**15 + 1])
        else:
            v = r.randint(0, 10 ** r.randint(1, 16))
        v = min(v, MAX_SAFE)
        if v != 0 and r.random() < 0.4:
            v = -v
        return v

    def rand_double(self) -> float:
        """A finite double: random bits, subnormals, boundaries, decimal-ish."""
        r = self.r
        x = r.random()
        if x < 0.35:
            while True:
                f = struct.unpack("<d", struct.pack("<Q", r.getrandbits(64)))[0]
                if math.isfinite(f):
                    return f
        if x < 0.45:  # subnormal
            f = struct.unpack("<d", struct.pack("<Q", r.randint(1, 2**52 - 1)))[0]
            return -f if r.random() < 0.3 else f
        if x < 0.60:
            return r.choice([
                5e-324, 1e-323, 2.2250738585072014e-308, 2.225073858507201e-308,
                1.7976931348623157e308, 1.7976931348623155e308, 8.98846567431158e307,
                1e21, 1e20, 9.999999999999999e20, 1.0000000000000001e21, 123456789012345680000.0,
                1e-6, 1e-7, 9.999999999999999e-7, 1.0000000000000002e-6, 5e-7, 1.5e-7, 0.000001,
                1.0, 2.0, 0.5, 0.1, 0.2, 0.30000000000000004, 100.0, 1e15, 1e16, 1e17,
                9007199254740992.0, 9007199254740994.0, 18446744073709551616.0,
                4.35, 0.7, 333333333.3333333, 1e23, 8.41e21, 5e-324 * 3, 1e-300, 1e300,
                2.0**-1074, 2.0**1023, 1 / 3, 2 / 3, math.pi, math.e, 4.294967296e9,
                295147905179352830000.0, 1e22, 1e-5, 0.0, 1e-10, 1.7e-7, 9.5e20,
            ]) * (-1 if r.random() < 0.3 else 1) or 0.0
        if x < 0.75:  # powers of ten and near them
            k = r.randint(-323, 308)
            f = float(f"1e{k}")
            if r.random() < 0.5:
                f = math.nextafter(f, math.inf if r.random() < 0.5 else 0.0)
            return f if r.random() < 0.7 else -f
        if x < 0.85:  # around the 1e21 / 1e-7 formatting thresholds
            base = r.choice([1e21, 1e-7, 1e-6, 1e20])
            f = base * r.uniform(0.5, 2.0)
            return f
        # short decimals
        return float(f"{r.randint(1, 99999)}e{r.randint(-30, 30)}")

    def float_lit(self, f: float) -> str:
        """Spell a double as a JSON number with a fraction or exponent."""
        r = self.r
        x = r.random()
        if x < 0.5:
            s = repr(f)
        elif x < 0.65:
            s = "%.17e" % f
        elif x < 0.75:
            s = "%.*g" % (r.randint(17, 25), f)
        elif x < 0.80 and abs(f) > 1e-30 and abs(f) < 1e30:
            s = str(Decimal(f))  # exact value, possibly very long
        elif x < 0.90:
            # shortest digits, then move the decimal point around with an
            # explicit exponent: 1.5 -> 15e-1 / 0.15E+1 / 150e-2
            m, _, e = ("%.17e" % f).partition("e")
            digits = m.replace("-", "").replace(".", "").rstrip("0") or "0"
            exp = int(e) - (len(digits) - 1)
            shift = r.randint(-3, 3) if digits != "0" else 0
            if shift > 0:
                digits += "0" * shift
                exp -= shift
            sign = "-" if f < 0 else ""
            s = f"{sign}{digits}{r.choice('eE')}{r.choice(['', '+']) if exp >= 0 else ''}{exp}"
        else:
            s = repr(f).replace("e", r.choice(["e", "E"]))
        if s in ("inf", "-inf", "nan"):
            s = repr(1.0)
        if "." not in s and "e" not in s and "E" not in s:
            s += ".0"
        # JSON forbids "1." and ".5" and leading zeros, and Python's %e may
        # write "e+05": all legal except none of these occur.
        return s

    def long_decimal(self) -> str:
        """Decimal literals with more than 17 significant digits (correct
        rounding of the parser is needed)."""
        r = self.r
        digits = str(r.randint(1, 9)) + "".join(r.choice("0123456789") for _ in range(r.randint(17, 40)))
        point = r.randint(1, len(digits))
        s = digits[:point] + "." + (digits[point:] or "0")
        if r.random() < 0.5:
            s += "e" + str(r.randint(-300, 280))
        return ("-" if r.random() < 0.3 else "") + s

    def number_lit(self) -> str:
        r = self.r
        x = r.random()
        if x < 0.35:
            return str(self.rand_int_value())
        if x < 0.45:
            return self.long_decimal()
        f = self.rand_double()
        if f == 0.0:
            f = 0.0  # positive zero in the valid corpus
        return self.float_lit(f)

    # -- values -----------------------------------------------------------

    def value(self, depth: int) -> str:
        r = self.r
        x = r.random()
        # Mostly shallow documents, with a tail that reaches MAX_DEPTH.
        container_p = (0.9, 0.45, 0.3, 0.3, 0.3, 0.3)[depth] if depth < MAX_DEPTH else 0.0
        if x < container_p:
            return self.obj(depth + 1) if r.random() < 0.55 else self.arr(depth + 1)
        y = r.random()
        if y < 0.40:
            return self.string_lit(self.rand_text())
        if y < 0.85:
            return self.number_lit()
        return r.choice(["true", "false", "null"])

    def arr(self, depth: int) -> str:
        n = self.r.choice([0, 1, 1, 2, 2, 3, 5])
        items = [self.ws() + self.value(depth) + self.ws() for _ in range(n)]
        return "[" + (",".join(items) if items else self.ws()) + "]"

    def obj(self, depth: int) -> str:
        r = self.r
        n = r.choice([0, 1, 2, 2, 3, 4, 6])
        seen: set[str] = set()
        members = []
        for _ in range(n):
            k = self.rand_key()
            if k in seen:
                continue
            seen.add(k)
            members.append(self.ws() + self.string_lit(k) + self.ws() + ":" + self.ws()
                           + self.value(depth) + self.ws())
        return "{" + (",".join(members) if members else self.ws()) + "}"

    def document(self) -> bytes:
        return (self.ws() + self.value(0) + self.ws()).encode("utf-8")

    # -- deliberately invalid / edge lines --------------------------------

    def invalid(self) -> bytes:
        r = self.r
        wrap = r.choice(["{0}", '{{"k":{0}}}', "[1,{0}]", '{{"a":[{{"b":{0}}}]}}'])
        kind = r.randrange(12)
        if kind == 0:  # duplicate names, raw or after unescaping
            a, b = r.choice([('"a"', '"a"'), ('"a"', '"\\u0061"'), ('"\\/"', '"/"'),
                             ('"\U0001f600"', '"\\ud83d\\ude00"'), ('""', '""'),
                             ('"\\n"', '"\\u000A"')])
            return wrap.format("{%s:1,%s:2}" % (a, b)).encode("utf-8")
        if kind == 1:  # lone surrogate escapes
            s = r.choice(['"\\ud800"', '"\\udc00"', '"x\\ud83dy"', '"\\ud800\\ud800"',
                          '"\\ude00\\ud83d"', '"\\uDBFF"', '"\\ud83d\\u0041"'])
            if r.random() < 0.4:
                return wrap.format("{%s:0}" % s).encode("utf-8")
            return wrap.format(s).encode("utf-8")
        if kind == 2:  # integer literals beyond 2^53-1
            v = r.choice([2**53 + 1, 2**53 + 3, 10**20 + 1, 123456789012345678000, 2**63, 2**64, 10**21, 10**30, 10**400,
                          123456789012345678901234567890])
            if r.random() < 0.3:
                # already the ECMAScript form of their double: accepted
                v = r.choice([2**53, 2**54, 10**20, 123456789012345680000, 295147905179352830000,
                              18014398509481984, 999999999999999900000])
            return wrap.format(("-" if r.random() < 0.4 else "") + str(v)).encode("utf-8")
        if kind == 3:  # negative zero
            return wrap.format(r.choice(["-0", "-0.0", "-0e0", "-0E+5", "-1e-400",
                                         "-0.000", "-2e-324"])).encode("utf-8")
        if kind == 4:  # NaN / Infinity (Python's json accepts these)
            return wrap.format(r.choice(["NaN", "Infinity", "-Infinity"])).encode("utf-8")
        if kind == 5:  # overflow
            return wrap.format(r.choice(["1e400", "-1e400", "1.8e308", "1e309",
                                         "179769313486231580793728971405303415079934132710037826936173778980444968292764750946649017977587207096330286416692887910946555547851940402630657488671505820681908902000708383676273854845817711531764475730270069855571366959622842914819860834936475292719074168444365510704342711559699508093042880177904174497792.0"
                                         ])).encode("utf-8")
        if kind == 6:  # invalid UTF-8
            bad = r.choice([b"\xff", b"\xc0\xaf", b"\xe2\x82", b"\xed\xa0\x80", b"\xf4\x90\x80\x80",
                            b"\x80", b"\xf8\x88\x80\x80\x80", b"\xe0\x80\xaf"])
            return wrap.format('"a{}b"').encode("utf-8").replace(b"{}", bad)
        if kind == 7:  # byte order mark
            return b"\xef\xbb\xbf" + self.document()
        if kind == 8:  # trailing bytes
            return self.document() + r.choice([b" x", b"1", b"]", b"}", b" {}", b",", b"\x00"])
        if kind == 9:  # syntax errors
            return r.choice([b"[1,]", b"{\"a\":1,}", b"{'a':1}", b"01", b".5", b"+1", b"1.",
                             b"1e", b"-", b"\"\x01\"", b"\"\t\"", b"\"\\x\"", b"\"\\u12\"",
                             b"[", b"{", b"\"abc", b"tru", b"nul", b"{\"a\" 1}", b"{1:2}",
                             b"[1 2]", b"", b"   ", b"\xc2\xa0[]", b"\x0c[]", b"\"\\U0041\""])
        if kind == 10:  # just-valid edges we accept (sanity: must not be rejected)
            return r.choice([b"0", b"-1", b"1e-400", b"0.0", b"0e0", b"9007199254740991",
                             b"-9007199254740991", b"9007199254740992.0", b"1e21", b"[]", b"{}",
                             b"\"\"", b"\"\\u0000\"", b"\"\\ud83d\\ude00\"", b"\" \t\r[]\"",
                             b"1E400".replace(b"400", b"308"), b"\"\\uD83D\\uDE00\"",
                             b"[\"\\u2028\\u2029\"]", b"{\"\\ud800\\udc00\":1,\"\\ue000\":2}"])
        # kind 11: deep-ish but valid nesting
        d = r.randint(7, 20)
        return ("[" * d + "1" + "]" * d).encode("utf-8")


def generate(count: int = DEFAULT_COUNT, seed: int = DEFAULT_SEED) -> list[bytes]:
    """Return ``count`` JSON-text lines (without newlines), reproducibly."""
    g = Gen(seed)
    lines = []
    for _ in range(count):
        if g.r.random() < INVALID_FRACTION:
            line = g.invalid()
        else:
            line = g.document()
        assert b"\n" not in line
        lines.append(line)
    return lines


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--count", type=int, default=DEFAULT_COUNT)
    p.add_argument("--seed", type=int, default=DEFAULT_SEED)
    p.add_argument("-o", "--output", help="output file (default: stdout)")
    a = p.parse_args(argv)
    data = b"".join(line + b"\n" for line in generate(a.count, a.seed))
    if a.output:
        with open(a.output, "wb") as f:
            f.write(data)
    else:
        sys.stdout.buffer.write(data)
    return 0


if __name__ == "__main__":
    sys.exit(main())
