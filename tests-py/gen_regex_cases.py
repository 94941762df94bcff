"""Ground truth for concordia_core's JSON Schema `pattern` engine: Python 3.11 re.search.

Writes core/tests/data/unit/re_search_cases.jsonl, one JSON array per line:
  ["nd", [zero code points of every Unicode Nd run]]            (first line)
  [pattern, null, "error"]                                      (re.compile raises)
  [pattern, text, true|false]                                   (re.search result)
Run with Python 3.11: /tmp/refvenv/bin/python tests-py/gen_regex_cases.py
"""

import json
import re
import sys
import unicodedata
from pathlib import Path

assert sys.version_info[:2] == (3, 11)

ROOT = Path(__file__).resolve().parent.parent
SCHEMAS = ROOT / "conformance" / "vectors" / "schemas"


def schema_patterns():
    found = set()

    def walk(v):
        if isinstance(v, dict):
            for k, x in v.items():
                if k == "pattern" and isinstance(x, str):
                    found.add(x)
                walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)

    for p in SCHEMAS.glob("*.json"):
        walk(json.loads(p.read_text(encoding="utf-8")))
    return sorted(found)


PATTERNS = schema_patterns() + [
    "", "a", "abc", "^abc$", "a|b|c", "^(a|bc|)$", "(?:ab)+", "^(?:ab)+$", "a*", "^a*$", "^a+$", "^a?$",
    "^a{3}$", "^a{2,3}$", "^a{2,}$", "^a{,2}$", "^a{,}$", "^a{0}$", "^a{0}b$", "a{", "a{x}", "^a{1,x}$", "{",
    "x{}", "a}", "]", "^[]a]$", "^[^]a]$", "^[a-]$", "^[-a]$", "[a--z]", "^[\\d-]$", "[\\d-z]", "^[\\]]$",
    "^[\\\\]$", "[", "[a", "(", ")", "a)", "(a", "*", "+a", "?", "a**", "a*?", "^a*?$", "a+?b", "a??", "a{2}?",
    "a{2}{3}", "a*+", "a{3,2}", "^\\d+$", "^\\D+$", "^\\s$", "^\\S+$", "^\\w+$", "^\\W$", "\\bfoo\\b", "\\Bfoo",
    "^\\Afoo\\Z$", "foo\\Z", "foo$", "^$", "$", "^", ".", "^.$", "^..$", "a.c", "\\.", "^\\x41$", "^\\u00e9$",
    "^\\U0001F600$", "\\x4", "\\q", "\\1", "(a)\\1", "\\0", "^\\t\\n$", "(?=a)", "(?!a)", "(?<=a)b", "(?i)a",
    "(?P<n>a)b", "(?P<1>a)", "(?P=n)", "(?#c)", "(?>a)", "[[:alpha:]]", "^[a-f0-9]{64}$", "^[a-zA-Z_][a-zA-Z0-9_]*$",
    "^(\\d{1,3}\\.){3}\\d{1,3}$", "^((a|b)*c)+$", "(?:a*)*", "^(a|a)*$", "^\\p{L}$", "\\é", "^[é-ë]+$", "^\\-$",
    "^a{256}$", "^a{257}$", "a{1000000}", "^(((((((((((((((((a)))))))))))))))))$",
]

TEXTS = [
    "", "a", "aa", "aaa", "aaaa", "b", "ab", "abab", "abc", "bc", "c", "x", "ac", "a\n", "\n", "a\nb", "foo", " foo ",
    "foobar", "afoo", "foo\n", "1", "123", "12a", "\u0663\u0664", "\U0001D7CE", "\u00b2", " ", "\t", "\u00a0",
    "\u2003", "\u001c", "\u200b", "_", "\u00e9", "\u00e9\u00ea", "\u0345", "\u00bd", "-", "]", "\\", "{", "a{", "}",
    "A", "\U0001F600", "sha256:" + "a" * 64, "sha256:" + "A" * 64, "sha256:" + "a" * 63, "sha256:" + "a" * 64 + "\n",
    "urn:concordia:predicate:x", "urn:concordia:predicate:", "urn:a2cn:x", "did:key:z", "1.2.3", "0.5.1", "0.10.2",
    "0.4.1", "1.02.3", "2026-05-10T", "2026-05-10T14:25:00Z", "2026-05-10T14:25:00Z\n", "bundle_abc123", "bundle_",
    "100-500_USD", "1000000+_EUR", "10000-50000_usd", "a.b-c_d", "a..b", "x" * 300, "a" * 256, "a" * 257,
    "192.168.0.1", "ccc", "abcabc", "aab",
]


def main():
    out = ROOT / "core" / "tests" / "data" / "unit" / "re_search_cases.jsonl"
    zeros = []
    prev = None
    for c in range(sys.maxunicode + 1):
        if unicodedata.category(chr(c)) == "Nd":
            if prev is None or c != prev + 1:
                zeros.append(c)
            prev = c
    lines = [json.dumps(["nd", zeros])]
    n = 0
    for p in PATTERNS:
        try:
            rx = re.compile(p)
        except (re.error, OverflowError):
            lines.append(json.dumps([p, None, "error"]))
            continue
        for t in TEXTS:
            lines.append(json.dumps([p, t, rx.search(t) is not None]))
            n += 1
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"wrote {n} search cases for {len(PATTERNS)} patterns to {out}")


if __name__ == "__main__":
    main()
