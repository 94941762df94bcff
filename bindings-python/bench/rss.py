"""Peak memory of the Python surface on large inputs (issue 15): one subprocess per run.

Each case runs in a fresh interpreter; the figure is that process's peak resident set
size as the kernel accounts it (`os.wait4`'s `ru_maxrss`), with its wall time and exit
status (and the last line it wrote to stderr, for inputs that are refused). Cases:

    interpreter             python -c "import concordia_rs" (the floor)
    json.load               Python's own parse of FILE (for comparison)
    canonical_json          concordia_rs.canonical_json(json.load(FILE)), written to stdout
    verify_transcript       concordia_rs.verify_transcript(FILE's bytes, KEYS)
    verify_transcript_file  concordia_rs.verify_transcript_file(FILE, KEYS): one message
                            at a time (a top-level array read as a stream)

    python bench/rss.py [--runs N] CASE FILE [KEYS]

KEYS is a JSON object of agent ids to base64url public keys. Output of the case goes to
/dev/null. Not a test: it prints figures for BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

LOAD_KEYS = "keys = json.load(open(sys.argv[2]))"
CASES = {
    "interpreter": "import concordia_rs",
    "json.load": "import json, sys\njson.load(open(sys.argv[1], 'rb'))",
    "canonical_json": "import json, sys, concordia_rs\n"
    "sys.stdout.buffer.write(concordia_rs.canonical_json(json.load(open(sys.argv[1], 'rb'))))",
    "verify_transcript": f"import json, sys, concordia_rs\n{LOAD_KEYS}\n"
    "print(concordia_rs.verify_transcript(open(sys.argv[1], 'rb').read(), keys))",
    "verify_transcript_file": f"import json, sys, concordia_rs\n{LOAD_KEYS}\n"
    "print(concordia_rs.verify_transcript_file(sys.argv[1], keys))",
}


def run_once(code: str, args: list[str]) -> tuple[float, int, int, str]:
    """Wall seconds, peak RSS in KiB, exit status and the last stderr line of one run."""
    start = time.perf_counter()
    with open(os.devnull, "wb") as null:
        proc = subprocess.Popen(
            [sys.executable, "-c", code, *args], stdout=null, stderr=subprocess.PIPE
        )
        assert proc.stderr is not None
        err = proc.stderr.read()
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - start
    last = err.decode(errors="replace").strip().splitlines()[-1:] or [""]
    return wall, usage.ru_maxrss, proc.returncode, last[0]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("case", choices=sorted(CASES))
    p.add_argument("args", nargs="*", help="FILE [KEYS]")
    a = p.parse_args()
    rows = [run_once(CASES[a.case], a.args) for _ in range(a.runs)]
    peaks = sorted(r[1] for r in rows)
    walls = sorted(r[0] for r in rows)
    size = os.path.getsize(a.args[0]) if a.args else 0
    print(
        f"{a.case} {' '.join(a.args)} ({size} bytes): peak RSS {peaks[0] / 1024:.1f} to "
        f"{peaks[-1] / 1024:.1f} MiB, wall {walls[0]:.2f} to {walls[-1]:.2f} s, "
        f"exit {sorted({r[2] for r in rows})}"
    )
    for r in rows:
        if r[2] != 0:
            print(f"  stderr: {r[3]}")
            break


if __name__ == "__main__":
    main()
