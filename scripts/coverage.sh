#!/usr/bin/env bash
# coverage.sh - which lines of nvm_am does the test suite run?  Builds
# nvm_am with gcov's counters (make NVM_COVERAGE=1, assertions on) in a
# copy of the tree, installs that build, runs every test of
# scripts/test.sh against it (NVM_TEST_PREBUILT=1), and prints the share
# of lines run per source file and the functions no test ran; then puts
# the ordinary build back (scripts/setup.sh --assert).  Run as root, like
# test.sh; about as long as test.sh.
#
# Processes that are killed (SIGKILL, immediate shutdowns, crash tests)
# write no counts, so what only they ran shows as not run; so does code of
# the postmaster.  A line "not run" is a place to look, not a verdict.
#
#   bash scripts/coverage.sh [WORKDIR]   (default /tmp/nvm_am_coverage)
set -uo pipefail
cd "$(dirname "$0")/.."
SRC=$(pwd)
WORK=${1:-/tmp/nvm_am_coverage}
PG_CONFIG=/usr/lib/postgresql/15/bin/pg_config

bash scripts/setup.sh --assert >/dev/null || { echo "coverage.sh: setup failed" >&2; exit 1; }
rm -rf "$WORK"
mkdir -p "$WORK"
rsync -a --exclude .git --exclude '*.o' --exclude '*.so' --exclude '*.bc' \
    --exclude '*.gcda' --exclude '*.gcno' ./ "$WORK/"
cd "$WORK"
make -s PG_CONFIG=$PG_CONFIG NVM_ASSERTS=1 NVM_COVERAGE=1 || exit 1
make -s install PG_CONFIG=$PG_CONFIG NVM_ASSERTS=1 NVM_COVERAGE=1 >/dev/null || exit 1
# every server process writes its counts here, as postgres
chmod -R a+rwX "$WORK"

echo "== the test suite against the coverage build (log: $WORK/test.log)"
CI=true NVM_TEST_PREBUILT=1 bash scripts/test.sh >"$WORK/test.log" 2>&1
rc=$?
tail -1 "$WORK/test.log"

echo "== lines run per file (gcov)"
gcov -f ./*.c >"$WORK/gcov.txt" 2>&1
python3 - "$WORK/gcov.txt" <<'PY'
import re, sys
files, funcs, cur = [], [], None
for line in open(sys.argv[1]):
    m = re.match(r"(File|Function) '(.+)'", line)
    if m:
        cur = m.groups()
        continue
    m = re.match(r"Lines executed:([\d.]+)% of (\d+)", line)
    if m and cur:
        pct, n = float(m.group(1)), int(m.group(2))
        if cur[0] == "File" and cur[1].endswith(".c") and "/" not in cur[1]:
            files.append((pct, n, cur[1]))
        elif cur[0] == "Function" and pct == 0.0:
            funcs.append(cur[1])
        cur = None
run = sum(p * n / 100 for p, n, _ in files)
total = sum(n for _, n, _ in files)
for pct, n, f in sorted(files):
    print("   %-18s %6.2f %% of %5d lines" % (f, pct, n))
print("   all: %.2f %% of %d lines" % (100 * run / max(total, 1), total))
print("   functions no test ran: " + (", ".join(sorted(set(funcs))) or "none"))
PY
echo "   (per-line counts: $WORK/*.c.gcov)"

cd "$SRC"
bash scripts/setup.sh --assert >/dev/null || { echo "coverage.sh: could not reinstall the ordinary build" >&2; exit 1; }
exit $rc
