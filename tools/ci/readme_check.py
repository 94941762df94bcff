#!/usr/bin/env python3
"""Runs the command blocks of README.md and compares what they print with what it shows.

Convention (README.md, "Command line"): a fenced code block whose first line starts with
`$ ` is a transcript. Each `$ ` line is a shell command (bash, run from a scratch directory
that holds a copy of examples/ and nothing else of the repository, with the release
`concordia` first on PATH); the lines after it, up to the next `$ ` line or the end of the
block, are what it prints on stdout and stderr together (a command line that ends in `\`
goes on on the next line, as in the shell). In the shown output:

* `…` stands for any text within one line (hashes of random keys, timestamps, ids);
* a line that is only `…` stands for any number of lines, none included;
* trailing whitespace and trailing empty lines are ignored.

A command must exit 0 unless its shown output has a line starting with `concordia: ` (an
error shown on purpose); `echo $?` on the next line sees the previous command's status.
The blocks of one README share one scratch directory, in order, so a later block can read
what an earlier one wrote. Fenced blocks that do not start with `$ ` are not run.

    tools/ci/readme_check.py [README.md] [--bin DIR]

Exit 0 when every block matches, 1 with a report naming the README line otherwise.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile

MARK = "@@readme-check-status@@"


def blocks(text):
    """(line number of the first `$ ` line, lines) of every transcript block."""
    lines = text.split("\n")
    out, i = [], 0
    while i < len(lines):
        if lines[i].startswith("```"):
            j = i + 1
            while j < len(lines) and not lines[j].startswith("```"):
                j += 1
            body = lines[i + 1 : j]
            if body and body[0].startswith("$ "):
                out.append((i + 2, body))
            i = j + 1
        else:
            i += 1
    return out


def steps(start, body):
    """(line number, command, shown output lines) of each `$ ` line of a block."""
    out, continued = [], False
    for n, line in enumerate(body):
        if continued:
            out[-1] = (out[-1][0], out[-1][1] + "\n" + line, out[-1][2])
        elif line.startswith("$ "):
            out.append((start + n, line[2:], []))
        else:
            out[-1][2].append(line)
        continued = (continued or line.startswith("$ ")) and line.endswith("\\")
    return out


def pattern(shown):
    """The regular expression a command's whole output must match."""
    parts = []
    for line in shown:
        line = line.rstrip()
        if line == "…":
            parts.append("(?:[^\\n]*\\n)*?")
        else:
            parts.append("[^\\n]*".join(re.escape(p) for p in line.split("…")) + "\\n")
    return re.compile("".join(parts) + "\\Z")


def normalize(text):
    lines = [l.rstrip() for l in text.split("\n")]
    while lines and lines[-1] == "":
        lines.pop()
    return "".join(l + "\n" for l in lines)


def run_block(start, body, cwd, env):
    """Runs one block in one bash process; returns a list of failure reports."""
    script = ["exec 2>&1", "__s=0"]
    for _, cmd, _ in steps(start, body):
        # `(exit $__s)` gives the command the previous status, for `echo $?`.
        script.append(f"(exit $__s); {cmd}\n__s=$?; printf '\\n{MARK} %s\\n' $__s")
    proc = subprocess.run(
        ["bash", "-c", "\n".join(script)], cwd=cwd, env=env, stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE, timeout=600,
    )
    text = proc.stdout.decode("utf-8", "replace")
    chunks = re.split(f"\\n?{re.escape(MARK)} (\\d+)\\n", text)
    failures = []
    for k, (line, cmd, shown) in enumerate(steps(start, body)):
        if 2 * k + 1 >= len(chunks):
            failures.append(f"README.md:{line}: `{cmd}` did not run (the block stopped before it)")
            break
        got, status = normalize(chunks[2 * k]), int(chunks[2 * k + 1])
        if not pattern(shown).match(got):
            want = "".join(l.rstrip() + "\n" for l in shown)
            failures.append(f"README.md:{line}: `{cmd}` printed\n{got or '(nothing)'}\n  but the README shows\n{want or '(nothing)'}")
        elif status != 0 and not any(l.startswith("concordia: ") for l in shown):
            failures.append(f"README.md:{line}: `{cmd}` exited {status}")
    return failures


def main(argv):
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    readme, bindir = os.path.join(root, "README.md"), os.path.join(root, "target", "release")
    args = list(argv)
    if "--bin" in args:
        i = args.index("--bin")
        bindir = os.path.abspath(args[i + 1])
        del args[i : i + 2]
    if args:
        readme = args[0]
    if not os.access(os.path.join(bindir, "concordia"), os.X_OK):
        print(f"readme check: no {bindir}/concordia (cargo build --release --locked -p concordia-cli)")
        return 2
    found = blocks(open(readme, encoding="utf-8").read())
    if not found:
        print(f"readme check: no transcript block (a fence whose first line starts with `$ `) in {readme}")
        return 1
    env = dict(os.environ, PATH=bindir + os.pathsep + os.environ.get("PATH", ""), LC_ALL="C.UTF-8")
    with tempfile.TemporaryDirectory(prefix="readme-check-") as scratch:
        shutil.copytree(os.path.join(root, "examples"), os.path.join(scratch, "examples"))
        failures, commands = [], 0
        for start, body in found:
            commands += len(steps(start, body))
            failures += run_block(start, body, scratch, env)
    for f in failures:
        print(f)
    print(f"readme check: {len(found)} blocks, {commands} commands, {len(failures)} mismatches")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
