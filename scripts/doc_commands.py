#!/usr/bin/env python3
"""Runs the commands the documentation shows and compares their output with
the page, so that a page cannot drift from the code.

In a Markdown file, a fenced block whose info string is `console` holds
commands and their output:

    ```console
    $ build/bin/hlo-opt docs/tutorial/examples/softmax.hlo --stats
    ...the lines the command prints (standard output, then standard error)
    ```

Each line starting with "$ " is a command, run with bash from the
repository root; the lines up to the next command are what it prints. A
line "..." stands for any number of lines (none included). A command whose
exit status is not 0 must say so on the line after its output:
"[exit status 1]". Blocks of other kinds are not run.

Usage: doc_commands.py FILE.md|DIR ...   (prints one line per command and,
last, "docs: N passed, N failed, N skipped"; exit status 1 on a failure)
"""
import functools
import pathlib
import re
import subprocess
import sys

FENCE = re.compile(r"^```(\S*)\s*$")
EXIT = re.compile(r"^\[exit status (\d+)\]$")


def blocks(path):
    """(line number, [lines]) of each console block of `path`."""
    inside, kind, start, lines = False, "", 0, []
    for number, line in enumerate(path.read_text().splitlines(), 1):
        fence = FENCE.match(line)
        if fence and not inside:
            inside, kind, start, lines = True, fence.group(1), number, []
        elif line.startswith("```") and inside:
            inside = False
            if kind == "console":
                yield start, lines
        elif inside:
            lines.append(line)


def commands(lines):
    """(command, expected lines, expected exit status) of a block."""
    current = None
    for line in lines:
        if line.startswith("$ "):
            if current:
                yield current
            current = [line[2:], [], 0]
        elif current is not None:
            status = EXIT.match(line)
            if status:
                current[2] = int(status.group(1))
            else:
                current[1].append(line)
    if current:
        yield current


def matches(expected, actual):
    """Whether `actual` lines fit `expected`, where "..." takes any run of lines."""

    @functools.lru_cache(maxsize=None)
    def fits(e, a):  # expected[e:] against actual[a:]
        if e == len(expected):
            return a == len(actual)
        if expected[e] == "...":
            return any(fits(e + 1, k) for k in range(a, len(actual) + 1))
        return a < len(actual) and actual[a] == expected[e] and fits(e + 1, a + 1)

    return fits(0, 0)


def run(command, root):
    done = subprocess.run(["bash", "-c", command], cwd=root, capture_output=True, text=True, timeout=300)
    lines = (done.stdout + done.stderr).splitlines()
    return [l.rstrip() for l in lines], done.returncode


def main(argv):
    root = pathlib.Path(__file__).resolve().parent.parent
    files = []
    for arg in argv[1:]:
        p = pathlib.Path(arg)
        files += sorted(p.rglob("*.md")) if p.is_dir() else [p]
    passed = failed = 0
    for path in files:
        for start, lines in blocks(path):
            for command, expected, status in commands(lines):
                actual, code = run(command, root)
                where = f"{path}:{start}"
                if code == status and matches([l.rstrip() for l in expected], actual):
                    passed += 1
                    print(f"ok   {where}: $ {command}")
                    continue
                failed += 1
                print(f"FAIL {where}: $ {command}")
                print(f"  exit status {code}, the page says {status}; it printed:")
                for line in actual:
                    print("  | " + line)
    print(f"docs: {passed} passed, {failed} failed, 0 skipped")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
