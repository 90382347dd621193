#!/usr/bin/env python3
"""Differential test: run each test/diff/*.sql script once in a database
whose default_table_access_method is heap and once in one where it is
nvm_am, and compare the outputs.  Rows of a query without ORDER BY are
compared as a multiset; everything else must match exactly, apart from the
access method's name.

Usage: run_diff.py [script.sql ...]   (PGHOST/PGPORT/PGUSER from the
environment; the server must have nvm_am preloaded)
Prints one "name ... ok|FAILED" line per script and the diff of failures;
exits non-zero when any script differs.
"""
import difflib
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
# a command tag printed after a statement, such as "INSERT 0 3" or "COMMIT"
TAG = re.compile(r"^[A-Z]+( [A-Z]+)*( \d+)*$")


def psql(db, *args, stdin=None):
    return subprocess.run(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=0", "-d", db, *args],
                          input=stdin, capture_output=True, text=True)


def setup_db(db, am):
    psql("postgres", "-c", f"DROP DATABASE IF EXISTS {db}")
    r = psql("postgres", "-c", f"CREATE DATABASE {db}")
    if r.returncode != 0:
        sys.exit(f"cannot create {db}: {r.stderr}")
    psql(db, "-c", "CREATE EXTENSION nvm_am")
    psql("postgres", "-c", f"ALTER DATABASE {db} SET default_table_access_method = {am}")


def run_script(db, path):
    # -a echoes each statement before its result; stderr merged in order
    r = subprocess.run(["psql", "-X", "-a", "-v", "ON_ERROR_STOP=0", "-d", db, "-f", path],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       env=dict(os.environ, PGOPTIONS="-c client_min_messages=warning"))
    return r.stdout


def normalise(text):
    """Sort the rows of result tables of statements without ORDER BY."""
    out = []
    lines = text.splitlines()
    stmt = []
    i = 0
    while i < len(lines):
        line = lines[i]
        # a result table: header, separator line of dashes, rows, (N rows)
        if (i + 1 < len(lines) and re.match(r"^-+(\+-+)*$", lines[i + 1])
                and not line.startswith("--")):
            j = i + 2
            rows = []
            while j < len(lines) and not re.match(r"^\(\d+ rows?\)$", lines[j]):
                rows.append(lines[j])
                j += 1
            ordered = re.search(r"\border\s+by\b", " ".join(stmt), re.I)
            out.append(line)
            out.append(lines[i + 1])
            out.extend(rows if ordered else sorted(rows))
            if j < len(lines):
                out.append(lines[j])
            stmt = []
            i = j + 1
            continue
        out.append(line)
        if TAG.match(line) or re.match(r"^(ERROR|psql):", line):
            stmt = []           # the statement before is complete
        else:
            stmt.append(line)
        i += 1
    text = "\n".join(out)
    return re.sub(r"\b(heap|nvm_am)\b", "<AM>", text)


def main():
    scripts = sys.argv[1:] or sorted(
        os.path.join(HERE, f) for f in os.listdir(HERE) if f.endswith(".sql"))
    failed = 0
    for path in scripts:
        name = os.path.basename(path)[:-4]
        outs = {}
        problems = []
        for am in ("heap", "nvm_am"):
            db = f"diff_{am}"
            setup_db(db, am)
            raw = run_script(db, path)
            outs[am] = normalise(raw)
            # the run must have happened, on tables of the right kind
            if "psql: error" in raw or not re.search(r"^\(\d+ rows?\)$", raw, re.M):
                problems.append(f"{am}: no query results (psql failed?)")
            used = psql(db, "-At", "-c",
                        "SELECT count(*) FROM pg_class c JOIN pg_am a ON a.oid = c.relam "
                        "WHERE c.relnamespace = 'public'::regnamespace AND a.amname = '%s'" % am)
            if used.stdout.strip() in ("", "0"):
                problems.append(f"{am}: no table of the script uses {am}")
        if problems:
            failed += 1
            print(f"test {name:<28} ... FAILED")
            print("\n".join(problems))
        elif outs["heap"] == outs["nvm_am"]:
            print(f"test {name:<28} ... ok")
        else:
            failed += 1
            print(f"test {name:<28} ... FAILED")
            sys.stdout.writelines(difflib.unified_diff(
                outs["heap"].splitlines(True), outs["nvm_am"].splitlines(True),
                "heap", "nvm_am", n=2))
            print()
    for am in ("heap", "nvm_am"):
        psql("postgres", "-c", f"DROP DATABASE IF EXISTS diff_{am}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
