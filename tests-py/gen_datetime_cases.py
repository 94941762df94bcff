"""Ground truth for concordia_core::time: what Python 3.11 decides for timestamp texts.

Writes core/tests/data/unit/fromisoformat_cases.jsonl, one JSON array per line:
  [text, outcome, epoch_micros]
where outcome is "aware" (the contract's date-time assertion holds; epoch_micros is the
UTC instant), "naive" (parses, but carries no offset; epoch_micros reads it as UTC) or
"error" (fromisoformat raises; epoch_micros is null). The rule is the runner's:
datetime.fromisoformat(text.replace("Z", "+00:00")).

Run with Python 3.11 (the reference runner's version):
  /tmp/refvenv/bin/python tests-py/gen_datetime_cases.py
"""

import json
import random
import sys
from datetime import datetime, timezone
from pathlib import Path

assert sys.version_info[:2] == (3, 11), "ground truth must come from Python 3.11"

EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)

CURATED = [
    "2026-05-10T14:25:00Z", "2026-05-10T14:25:00+00:00", "2026-05-10 14:25:00+00:00",
    "2026-05-10T14:25:00", "2026-05-10", "2026-05-10T14:25Z", "2026-05-10T14Z",
    "2026-05-10T14:25:00.1Z", "2026-05-10T14:25:00.123456Z", "2026-05-10T14:25:00.1234567Z",
    "2026-05-10T14:25:00.123456789012345678901234567890Z", "2026-05-10T14:25:00,5Z",
    "2026-05-10T14:25:00+0530", "2026-05-10T14:25:00+05", "2026-05-10T14:25:00+05:30:15",
    "2026-05-10T14:25:00+05:30:15.123456", "2026-05-10T14:25:00+24:00", "2026-05-10T14:25:00+23:59",
    "2026-05-10T14:25:00-23:59:59.999999", "2026-05-10T14:25:00+23:59:59.9999999",
    "2026-05-10T24:00:00Z", "2026-05-10T14:60:00Z", "2026-05-10T14:25:60Z", "2026-02-29T00:00:00Z",
    "2024-02-29T00:00:00Z", "1900-02-29T00:00:00Z", "2000-02-29T00:00:00Z", "20260510T142500Z",
    "2026-W19-7T00:00:00Z", "2026W197T00:00:00Z", "2026-W19T00:00:00Z", "2026W19T00:00:00Z",
    "2026-W53-1T00:00:00Z", "2020-W53-1T00:00:00Z", "2015-W53-7T00:00:00Z", "2026-W00-1T00:00:00Z",
    "2026-W01-0T00:00:00Z", "2026-W01-8T00:00:00Z", "0000-W52-7T00:00:00Z", "0000-W53-7T00:00:00Z",
    "0001-W01-1T00:00:00Z", "9999-W52-5T00:00:00Z", "9999-W52-6T00:00:00Z", "9999-W52-7T00:00:00Z",
    "2026-130T00:00:00Z", "2026-05-10t14:25:00Z", "2026-05-10T14:25:00z", "2026-05-10T14:25:00ZZ",
    "2026-05-10T14:25:00-00:00", "0001-01-01T00:00:00Z", "0000-01-01T00:00:00Z",
    "9999-12-31T23:59:59-01:00", "9999-12-31T23:59:59.999999Z", "0001-01-01T00:00:00+01:00",
    "2026-05-10T14:25:00 +00:00", "2026-05-10T14:25:00X+00:00", "2026-05-10T14:25:00.Z",
    "2026-05-10T14:25:00.+01:00", "2026-05-10T1425Z", "2026-05-10T142500Z", "2026-05-10T142500123Z",
    "2026-05-10T14:25:00:123Z", "2026-05-10T14:25:00.123+0530", "\u0662\u0660\u0662\u0666-05-10T14:25:00Z",
    "2026-05-10X14:25:00Z", "2026-05-10\u00e914:25:00Z", "2026-05-10\u20ac14:25:00Z",
    "2026-05-10\U0001F60014:25:00Z", "2026-05-10T14:25:00+05:3", "2026-05-10T14:25:00Z+00:00",
    "2026-05-10T14:25:00+00:00:00.5", "2026-05-10T14:25+01", "2026-05-10T14+01:00",
    "2026-05-10T14:25:00.000000001Z", "2026-0510T14:25:00Z", "202605-10", "2026-05-10T14:2500Z",
    "2026-05-10T14:25:0Z", "2026-05-10T", "2026-05-10TZ", " 2026-05-10T14:25:00Z",
    "2026-05-10T14:25:00Z ", "2026-05-10T14:25:00+00:99", "2026-05-10T14:25:00+00:00:99",
    "2026-05-10T14:25:00+99", "2026-05-10T14:25:00+1", "2026-05-10T14:25:00+123",
    "2026-05-10T14:25:00+12345", "2026-05-10T14:25:00+1234567", "2026-05-10T14:25:00+123456.7",
    "2026-05-10T14:25:00+12:34:56.", "2026-05-10T14:25:00\u0000+01:00",
    "2026-05-10T14:25:00+01:00\u0000garbage", "2026-05-10\u0000", "2026-05", "2026-5-10",
    "2026-05-1", "2026-05-10 ", "2026-05-10TT14:25:00Z", "2026-05-10T14:25:00-", "2026-05-10T14:25:00+",
    "2026-05-10T-01:00", "2026-05-10T14-01:00", "2026W01", "2026W011", "2026-W01", "2026-W01-",
    "2026-W011", "2026-W01-1", "2026-W01-10000", "2026-W01-1T12", "2026W0112", "2026W01123",
    "2026W011234", "2026-W0112:00", "2026-W01-112:00", "1234567", "12345678", "123456789",
    "2026-05-10T14:25:00.123456+01:00", "2026-05-10T14:25:00,123456-01:30",
    "2026-12-31T23:59:59-23:59", "1970-01-01T00:00:00Z", "1969-12-31T23:59:59.999999Z",
]

ALPHABET = "0123456789-:+.,TZWz X\u00e9\u0000"


def decide(text):
    try:
        d = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return [text, "error", None]
    aware = d.tzinfo is not None
    if not aware:
        d = d.replace(tzinfo=timezone.utc)
    delta = d - EPOCH
    micros = (delta.days * 86400 + delta.seconds) * 1_000_000 + delta.microseconds
    return [text, "aware" if aware else "naive", micros]


def mutate(rng, text):
    chars = list(text)
    for _ in range(rng.randint(1, 3)):
        op = rng.randrange(3)
        i = rng.randrange(len(chars) + 1)
        if op == 0 and chars:
            del chars[min(i, len(chars) - 1)]
        elif op == 1:
            chars.insert(i, rng.choice(ALPHABET))
        elif chars:
            chars[min(i, len(chars) - 1)] = rng.choice(ALPHABET)
    return "".join(chars)


def main():
    rng = random.Random(20260510)
    cases = list(CURATED)
    seeds = [c for c in CURATED if decide(c)[1] != "error"]
    for _ in range(6000):
        cases.append(mutate(rng, rng.choice(seeds)))
    for _ in range(1500):
        y, mo, d = rng.randint(1, 9999), rng.randint(1, 12), rng.randint(1, 31)
        h, mi, s = rng.randint(0, 24), rng.randint(0, 60), rng.randint(0, 60)
        frac = "" if rng.random() < 0.5 else "." + "".join(rng.choice("0123456789") for _ in range(rng.randint(0, 9)))
        tz = rng.choice(["Z", "", f"{rng.choice('+-')}{rng.randint(0, 24):02d}:{rng.randint(0, 59):02d}"])
        cases.append(f"{y:04d}-{mo:02d}-{d:02d}T{h:02d}:{mi:02d}:{s:02d}{frac}{tz}")
    seen = set()
    out = Path(__file__).resolve().parent.parent / "core" / "tests" / "data" / "unit" / "fromisoformat_cases.jsonl"
    with out.open("w", encoding="utf-8") as f:
        for c in cases:
            if c in seen:
                continue
            seen.add(c)
            f.write(json.dumps(decide(c), ensure_ascii=True) + "\n")
    print(f"wrote {len(seen)} cases to {out}")


if __name__ == "__main__":
    main()
