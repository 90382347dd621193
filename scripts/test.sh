#!/usr/bin/env bash
# test.sh - the test command: install dependencies, build, install, start a
# throwaway cluster with nvm_am preloaded, and run every test: pg_regress
# (sql/, expected/), isolation specs (specs/), pgTAP (test/pgtap/, via
# pg_prove), the heap-vs-nvm_am differential scripts (test/diff/) and Perl
# TAP tests (t/, PostgreSQL::Test::Cluster).  Prints
# "N passed, M failed" last; exits non-zero on any failure.
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --assert || { echo "0 passed, 1 failed"; exit 1; }
. scripts/cluster.sh

WORK=${NVM_TEST_DIR:-/tmp/nvm_am_test}
POOL=/dev/shm/nvm_am_test_$$.pool
PORT=${NVM_TEST_PORT:-54329}
make_workdir "$WORK"
passed=0
failed=0
trap 'cluster_stop "$WORK" "$POOL"' EXIT

# count_results FILE - add the per-test verdicts of a pg_regress log
count_results() {
    local ok bad
    ok=$(grep -Ec ' \.\.\. ok( |$)' "$1")
    bad=$(grep -Ec ' \.\.\. (FAILED|failed)' "$1")
    passed=$((passed + ok))
    failed=$((failed + bad))
    echo "   -> $ok passed, $bad failed"
}

# count_rc NAME RC - one test file's verdict from its exit code
count_rc() {
    if [ "$2" -eq 0 ]; then
        passed=$((passed + 1)); echo "   $1 ... ok"
    else
        failed=$((failed + 1)); echo "   $1 ... FAILED"
    fi
}

echo "== starting throwaway cluster (pool $POOL)"
cluster_start "$WORK" "$PORT" "$POOL" || { echo "0 passed, 1 failed"; exit 1; }

cd "$WORK"
# run_suite NAME LOG DIFFS CMD - run a pg_regress-style suite, count its
# per-test verdicts, and count a failure of the runner itself
run_suite() {
    local name=$1 log=$2 diffs=$3 rc
    echo "== $name"
    as_pg "$4" >"$log" 2>&1
    rc=$?
    cat "$log"
    count_results "$log"
    [ $rc -eq 0 ] || grep -q ' \.\.\. FAILED' "$log" || { failed=$((failed + 1)); echo "   $name runner itself failed"; }
    [ $rc -eq 0 ] || { [ -f "$diffs" ] && head -200 "$diffs"; }
}

run_suite "pg_regress" "$WORK/regress.log" regression.diffs \
    "make -s installcheck ISOLATION= TAP_TESTS= PGHOST='$PGHOST' PGPORT=$PORT"
run_suite "isolation" "$WORK/isolation.log" output_iso/regression.diffs \
    "make -s installcheck REGRESS= TAP_TESTS= PGHOST='$PGHOST' PGPORT=$PORT"

echo "== pgTAP"
as_pg "psql -q -X -d postgres -c 'DROP DATABASE IF EXISTS nvm_am_tap' -c 'CREATE DATABASE nvm_am_tap' && psql -q -X -d nvm_am_tap -c 'CREATE EXTENSION pgtap' -c 'CREATE EXTENSION nvm_am'" ||
    { failed=$((failed + 1)); echo "   pgTAP database set-up failed"; }
for f in test/pgtap/*.sql; do
    [ -e "$f" ] || continue
    as_pg "pg_prove -h '$PGHOST' -p $PORT -U postgres -d nvm_am_tap '$f'" >"$WORK/pgtap.log" 2>&1
    rc=$?
    [ $rc -eq 0 ] || cat "$WORK/pgtap.log"
    count_rc "$f" $rc
done

run_suite "differential: the same SQL on heap and on nvm_am (test/diff/)" \
    "$WORK/diff.log" /dev/null "/usr/bin/python3 test/diff/run_diff.py"

# the same again with nvm_am.read_mode = copy: every page read through a
# local copy instead of straight from the pool must give the same results
COPY="PGOPTIONS='-c nvm_am.read_mode=copy'"
run_suite "pg_regress, read_mode = copy" "$WORK/regress_copy.log" regression.diffs \
    "$COPY make -s installcheck ISOLATION= TAP_TESTS= PGHOST='$PGHOST' PGPORT=$PORT"
run_suite "isolation, read_mode = copy" "$WORK/isolation_copy.log" output_iso/regression.diffs \
    "$COPY make -s installcheck REGRESS= TAP_TESTS= PGHOST='$PGHOST' PGPORT=$PORT"
run_suite "differential, read_mode = copy" \
    "$WORK/diff_copy.log" /dev/null "$COPY /usr/bin/python3 test/diff/run_diff.py"

cluster_stop "$WORK" "$POOL"
trap - EXIT

echo "== Perl TAP (restarts, crashes, bad pools)"
for f in t/*.pl; do
    [ -e "$f" ] || continue
    as_pg "make -s installcheck REGRESS= ISOLATION= PROVE_TESTS='$f' PGHOST= PGPORT=" >"$WORK/tap.log" 2>&1
    rc=$?
    [ $rc -eq 0 ] || { cat "$WORK/tap.log"; tail -n 60 "$WORK"/tmp_check/log/*.log 2>/dev/null; }
    count_rc "$f" $rc
done

echo
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
