#!/usr/bin/env python3
"""docs/requirements.md kept true: every walk check a row names exists, and no requirement is listed twice.

A row names its checks as `<script>.py::<check name>` in backquotes: the script must be in
tools/acceptance/ and must make a check of that name, read from its source (no server, no browser,
under a second). A check's name is the first argument of a `check(...)` call: a plain string, or an
f-string or %-string, which a row may quote as the source writes it (`width chosen ({chosen})`) or as
a run prints it (`width chosen (4)`). A row whose requirement is not done says so (`not done — issue
N`) or why it does not apply (`n/a (…)`); a done row names a check, or `none —` and why.

    python3 tools/acceptance/requirements_table.py          # check the table
    python3 tools/acceptance/requirements_table.py --list web_napkin.py   # the checks a script makes

It also breaks copies of the table on purpose (a check renamed, a script missing, a row twice) and
fails if it does not catch each. Prints the counts and `requirements table: N problems` last; exits 1
when there is any.
"""
import argparse
import ast
import collections
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TABLE = os.path.join(ROOT, "docs", "requirements.md")
COLUMNS = ["doc", "id", "requirement", "where it is done", "status", "walk check"]
STATUSES = {"done", "partly", "not done", "n/a"}
REFERENCE = re.compile(r"`([A-Za-z0-9_]+\.py)::([^`]+)`")


class Checks:
    """The checks one script makes: exact names, and patterns for the formatted ones."""

    def __init__(self, path):
        with open(path, encoding="utf-8") as handle:
            tree = ast.parse(handle.read(), path)
        self.exact = set()
        self.templates = set()  # the formatted names as the source writes them
        self.patterns = []  # …and as a run prints them
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and len(node.args) >= 2 and self._is_check(node.func):
                self._add(node.args[0])

    @staticmethod
    def _is_check(func):
        return (isinstance(func, ast.Name) and func.id == "check") or (isinstance(func, ast.Attribute) and func.attr == "check")

    def _add(self, name):
        if isinstance(name, ast.Constant) and isinstance(name.value, str):
            self.exact.add(name.value)
        elif isinstance(name, ast.JoinedStr):
            template, pattern = "", ""
            for part in name.values:
                if isinstance(part, ast.Constant):
                    template += part.value
                    pattern += re.escape(part.value)
                else:
                    template += "{" + ast.unparse(part.value) + "}"
                    pattern += ".+?"
            self.templates.add(template)
            self.patterns.append(re.compile(pattern, re.S))
        elif (isinstance(name, ast.BinOp) and isinstance(name.op, ast.Mod)
              and isinstance(name.left, ast.Constant) and isinstance(name.left.value, str)):
            text = name.left.value
            self.templates.add(text)
            pieces = re.split(r"%[-+ #0]*\d*(?:\.\d+)?[sdifgr]", text)
            self.patterns.append(re.compile(".+?".join(re.escape(piece) for piece in pieces), re.S))

    def names(self):
        return sorted(self.exact | self.templates)

    def has(self, name):
        return name in self.exact or name in self.templates or any(p.fullmatch(name) for p in self.patterns)


def rows(text):
    """The table's rows as (line number, cells); the header and separator rows left out."""
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.startswith("|"):
            continue
        # A `\|` inside a cell is a pipe of the text, not a column.
        cells = [cell.strip().replace("\\|", "|") for cell in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
        if [cell.lower() for cell in cells] == COLUMNS or all(set(cell) <= set("-: ") for cell in cells):
            continue
        found.append((number, cells))
    return found


def problems_in(text, scripts_dir=HERE):
    problems = []
    seen = {}
    counts = collections.Counter()
    scripts = {}
    table = rows(text)
    if not table:
        problems.append("no rows: the table is missing or its columns are not " + " | ".join(COLUMNS))
    for number, cells in table:
        if len(cells) != len(COLUMNS):
            problems.append(f"line {number}: {len(cells)} cells, not {len(COLUMNS)} ({' | '.join(COLUMNS)})")
            continue
        doc, requirement_id, _, where, status, walk = cells
        key = (doc, requirement_id)
        if not requirement_id:
            problems.append(f"line {number}: no requirement id")
        elif key in seen:
            problems.append(f"line {number}: {doc} {requirement_id} is listed twice (first on line {seen[key]})")
        else:
            seen[key] = number
        if status not in STATUSES:
            problems.append(f"line {number}: status '{status}' is not one of {sorted(STATUSES)}")
            continue
        references = REFERENCE.findall(walk)
        if status == "n/a":
            counts["n/a"] += 1
            if not walk.startswith("n/a ("):
                problems.append(f"line {number}: {requirement_id} does not apply, and its last cell should say why: n/a (…)")
        elif status == "not done":
            counts["not done"] += 1
            if not walk.startswith("not done —"):
                problems.append(f"line {number}: {requirement_id} is not done, and its last cell should say so: not done — issue N")
        else:
            counts[f"{status} with a walk check" if references else f"{status} without a walk check"] += 1
            if not where:
                problems.append(f"line {number}: {requirement_id} is {status} but the row does not say where")
            if not references and not walk.startswith("none —"):
                problems.append(f"line {number}: {requirement_id} is {status}: name its check as `script.py::check name`, or say none — why")
        for script, name in references:
            path = os.path.join(scripts_dir, script)
            if script not in scripts:
                scripts[script] = Checks(path) if os.path.exists(path) else None
            if scripts[script] is None:
                problems.append(f"line {number}: {requirement_id} names {script}, which is not in tools/acceptance/")
            elif not scripts[script].has(name):
                problems.append(f"line {number}: {requirement_id} names the check “{name}”, which {script} does not make")
    return problems, counts, len(seen)


def self_test(text):
    """The checker itself, on copies of the table broken on purpose: a check renamed, a script that is
    not there, a requirement twice. Answers what it failed to catch."""
    missed = []
    reference = REFERENCE.search(text)
    if not reference:
        return ["the table names no check to break"]
    script, name = reference.groups()
    broken = {
        "a check that does not exist": text.replace(f"`{script}::{name}`", f"`{script}::{name} (renamed)`", 1),
        "a script that does not exist": text.replace(f"`{script}::{name}`", f"`no_such_walk.py::{name}`", 1),
    }
    first_row = next((line for line in text.splitlines() if line.startswith("| ") and REFERENCE.search(line)), None)
    broken["a requirement twice"] = text.replace(first_row, first_row + "\n" + first_row, 1)
    for what, copy in broken.items():
        if not problems_in(copy)[0]:
            missed.append(f"the check passed a table with {what}")
    return missed


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--table", default=TABLE)
    parser.add_argument("--list", metavar="SCRIPT", help="print the checks a script makes, one a line, and stop")
    args = parser.parse_args()
    if args.list:
        for name in Checks(os.path.join(HERE, args.list)).names():
            print(name)
        return 0
    with open(args.table, encoding="utf-8") as handle:
        text = handle.read()
    problems, counts, total = problems_in(text)
    problems += self_test(text)
    for problem in problems:
        print("FAIL", problem)
    print(f"{total} requirements: " + ", ".join(f"{count} {what}" for what, count in sorted(counts.items())))
    print(f"requirements table: {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
