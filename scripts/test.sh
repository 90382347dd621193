#!/usr/bin/env bash
# test.sh - the test command: install dependencies, build, install, check
# the layering of the C sources (scripts/check_layers.py) and the machine
# code of the build (scripts/check_build.py), start a
# throwaway cluster with nvm_am preloaded, and run every test: pg_regress
# (sql/, expected/), isolation specs (specs/), pgTAP (test/pgtap/, via
# pg_prove), the heap-vs-nvm_am differential scripts (test/diff/) and Perl
# TAP tests (t/, PostgreSQL::Test::Cluster).  Prints
# "N passed, M failed" last; exits non-zero on any failure.
# With an option it runs only some tests, without installing or building;
# see usage below (bash scripts/test.sh --help).
set -uo pipefail
cd "$(dirname "$0")/.."
SRC=$(pwd)

usage() {
    cat <<'USAGE'
usage: bash scripts/test.sh                    every test, as CI runs them (installs
                                                 packages, builds, installs first)
       bash scripts/test.sh --regress NAME...    pg_regress tests sql/NAME.sql (in
                                                 the suite's order)
       bash scripts/test.sh --isolation NAME...  isolation specs specs/NAME.spec
       bash scripts/test.sh --tap FILE...        Perl TAP files, e.g. t/001_pool_errors.pl
       bash scripts/test.sh --layers             the layering check only
       bash scripts/test.sh --help

The single-test options neither install packages nor build: run `make install`
(or scripts/setup.sh) first.  --regress and --isolation test the running server
named by PGHOST, PGPORT and PGUSER (it must have shared_preload_libraries =
'nvm_am'); --tap files start their own clusters, NVM_TAP_JOBS (default 2) at
a time, in the order given.  They run in a copy of the tree, NVM_TEST_ONE_DIR
(default /tmp/nvm_am_test_one; further TAP jobs in NVM_TEST_ONE_DIR_tap1, ...),
as user postgres when started by root.  PGOPTIONS is passed on (e.g. '-c nvm_am.read_mode=copy').
A failing test prints its diff; the exit code is then non-zero.  Examples:
    PGHOST=/tmp/nvm_am_dev PGPORT=5433 PGUSER=postgres \
        bash scripts/test.sh --regress nvm_basic nvm_hot
    bash scripts/test.sh --isolation nvm_row_locks
    bash scripts/test.sh --tap t/001_pool_errors.pl 007
The same from make: make check-layers, make installcheck-regress TESTS='...',
make installcheck-isolation TESTS='...', make installcheck-tap TESTS='...'.
USAGE
}

mode=all
case "${1:-}" in
    "") ;;
    --regress|--isolation|--tap)
        mode=${1#--}; shift
        [ $# -gt 0 ] || { echo "test.sh: --$mode needs at least one test" >&2; usage >&2; exit 2; } ;;
    --layers)
        mode=layers; shift ;;
    -h|--help)
        usage; exit 0 ;;
    *)
        echo "test.sh: unknown option '$1'" >&2; usage >&2; exit 2 ;;
esac
[ "$mode" != layers ] || [ $# -eq 0 ] || { echo "test.sh: --layers takes no arguments" >&2; exit 2; }

if [ "$mode" = all ]; then
    # the work copy is wiped first: never under another run's live server
    pidfile=${NVM_TEST_DIR:-/tmp/nvm_am_test}/data/postmaster.pid
    if [ -f "$pidfile" ] && kill -0 "$(head -1 "$pidfile")" 2>/dev/null; then
        echo "test.sh: a server runs in ${pidfile%/data/postmaster.pid} (another test run?); stop it, or set NVM_TEST_DIR and NVM_TEST_PORT for this run" >&2
        echo "0 passed, 1 failed"; exit 1
    fi
    if [ -n "${NVM_TEST_PREBUILT:-}" ]; then
        # scripts/coverage.sh: the installed build is the one to test
        echo "== NVM_TEST_PREBUILT: testing the installed nvm_am.so as it is (no install, no build)"
    else
        bash scripts/setup.sh --assert || { echo "0 passed, 1 failed"; exit 1; }
    fi
fi
. scripts/cluster.sh

passed=0
failed=0
DIFF_LINES=200

# count_results FILE [SECONDS] - add the per-test verdicts of a pg_regress
# log (and say how long the suite took)
count_results() {
    local ok bad
    ok=$(grep -Ec ' \.\.\. ok( |$)' "$1")
    bad=$(grep -Ec ' \.\.\. (FAILED|failed)' "$1")
    passed=$((passed + ok))
    failed=$((failed + bad))
    echo "   -> $ok passed, $bad failed${2:+ ($2 s)}"
}

# count_rc NAME RC [SECONDS] - one test file's verdict from its exit code
# (and how long it took)
count_rc() {
    local took=${3:+ ($3 s)}
    if [ "$2" -eq 0 ]; then
        passed=$((passed + 1)); echo "   $1 ... ok$took"
    else
        failed=$((failed + 1)); echo "   $1 ... FAILED$took"
    fi
}

# run_suite NAME LOG DIFFS CMD - run a pg_regress-style suite, count its
# per-test verdicts, and count a failure of the runner itself
run_suite() {
    local name=$1 log=$2 diffs=$3 rc start=$SECONDS
    echo "== $name"
    as_pg "$4" >"$log" 2>&1
    rc=$?
    cat "$log"
    count_results "$log" $((SECONDS - start))
    [ $rc -eq 0 ] || grep -q ' \.\.\. FAILED' "$log" || { failed=$((failed + 1)); echo "   $name runner itself failed"; }
    [ $rc -eq 0 ] || { [ -f "$diffs" ] && head -"$DIFF_LINES" "$diffs"; }
}

# run_tap FILE... - run Perl TAP files (each starts its own clusters),
# NVM_TAP_JOBS at a time (default 2: most of them wait for servers to start,
# stop and recover), each job in a work copy of its own ("make installcheck"
# empties tmp_check first), the current directory being the first, in the
# order given.  Verdicts are printed as the files finish, with their times.
run_tap() {
    local f rc small= jobs=${NVM_TAP_JOBS:-2} k done_pid
    local -a dirs=() busy=() names=()
    [[ $jobs =~ ^[1-9][0-9]*$ ]] || { echo "test.sh: NVM_TAP_JOBS must be a positive number" >&2; jobs=1; }
    [ "$jobs" -le $# ] || jobs=$#
    # a small file system (96 MB) for the tests of a full one (t/014): tmpfs, which
    # only root can mount; a test without it skips that case and says so
    if [ "$(id -u)" -eq 0 ]; then
        small=$(mktemp -d /tmp/nvm_am_small_fs.XXXXXX)
        if mount -t tmpfs -o size=96m,mode=0777 tmpfs "$small" 2>/dev/null; then
            chmod 0755 "$small"; chown postgres: "$small"
        else
            rmdir "$small"; small=
        fi
    fi
    dirs[0]=$(pwd)
    for ((k = 1; k < jobs; k++)); do
        dirs[k]="${dirs[0]}_tap$k"
        (cd "$SRC" && make_workdir "${dirs[k]}")
    done
    # the jobs reserve ports in one place, so two never take the same
    as_pg "mkdir -p '${dirs[0]}/tap_ports'"

    # tap_finish PID - the verdict of the job that was PID
    tap_finish() {
        local k
        for ((k = 0; k < jobs; k++)); do
            [ "${busy[k]:-}" = "$1" ] || continue
            rc=$(cat "${dirs[k]}/tap.rc" 2>/dev/null || echo 1)
            [ "$rc" -eq 0 ] || { cat "${dirs[k]}/tap.log"; tail -n 60 "${dirs[k]}"/tmp_check/log/*.log 2>/dev/null; }
            count_rc "${names[k]}" "$rc" "$(cat "${dirs[k]}/tap.secs" 2>/dev/null)"
            busy[k]=
        done
    }
    # tap_wait_one - wait for one running job to end and take its verdict;
    # false when none runs
    tap_wait_one() {
        local -a running
        mapfile -t running < <(printf '%s\n' "${busy[@]}" | grep .)
        [ ${#running[@]} -gt 0 ] || return 1
        wait -n -p done_pid "${running[@]}"
        tap_finish "$done_pid"
    }
    # tap_wait_all - wait for every job, taking their verdicts as they end
    tap_wait_all() { while tap_wait_one; do :; done; }

    for f in "$@"; do
        # a free job, waiting for one to finish if all are busy
        while :; do
            for ((k = 0; k < jobs; k++)); do [ -n "${busy[k]:-}" ] || break; done
            [ "$k" -lt "$jobs" ] && break
            tap_wait_one
        done
        names[k]=$f
        # the crash simulation's length and the tests' random seed, if set;
        # the job notes its own time (its end may be seen later)
        (cd "${dirs[k]}" && rm -f tap.rc tap.secs && start=$SECONDS &&
            as_pg "PG_TEST_PORT_DIR='${dirs[0]}/tap_ports' NVM_SMALL_FS='$small' NVM_CRASH_POINTS='${NVM_CRASH_POINTS:-}' NVM_TAP_SEED='${NVM_TAP_SEED:-}' make -s installcheck REGRESS= ISOLATION= PROVE_TESTS='$f' PGHOST= PGPORT=" >tap.log 2>&1
            echo $? >tap.rc; echo $((SECONDS - start)) >tap.secs) &
        busy[k]=$!
    done
    tap_wait_all
    [ -z "$small" ] || { umount "$small"; rmdir "$small"; }
    for ((k = 1; k < jobs; k++)); do rm -rf "${dirs[k]}"; done
}

# check_script NAME SCRIPT - run a Python check of the sources or the
# build (no server needed); one verdict
check_script() {
    local out rc
    echo "== $1 ($2)"
    out=$(python3 "$2" 2>&1)
    rc=$?
    echo "$out" | sed 's/^/   /'
    count_rc "$1" $rc
}

# check_layers - the layering of the C sources
check_layers() { check_script layering scripts/check_layers.py; }

# check_build - the machine code of the installed nvm_am.so (what a
# functional test cannot see: that the scans prefetch); not in a prebuilt
# run, whose build is made for something else (coverage)
check_build() {
    [ -z "${NVM_TEST_PREBUILT:-}" ] || return 0
    check_script build scripts/check_build.py
}

# summary - the last line, and the exit code
summary() {
    echo
    echo "$passed passed, $failed failed"
    [ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
}

# ---- single tests: --layers, --regress, --isolation, --tap ----
if [ "$mode" = layers ]; then
    check_layers
    summary
    exit
fi

# tap_file ARG - the t/*.pl file that ARG names: t/001_x.pl, 001_x.pl,
# 001_x or a unique prefix such as 001
tap_file() {
    local t=${1#./} m
    case $t in /*) t=$(realpath --relative-to=. "$t") ;; esac
    t=${t#t/}
    for m in "t/$t" "t/$t.pl"; do
        case $m in *.pl) [ -f "$m" ] && { echo "$m"; return 0; } ;; esac
    done
    m=$(compgen -G "t/$t*.pl")
    [ -n "$m" ] && [ "$(echo "$m" | wc -l)" -eq 1 ] && { echo "$m"; return 0; }
    return 1
}

# server_check - the server of PGHOST/PGPORT/PGUSER answers, with nvm_am
# preloaded
server_check() {
    local spl
    echo "== server: PGHOST=${PGHOST:-(default)} PGPORT=${PGPORT:-(default)} PGUSER=${PGUSER:-(default)}"
    spl=$(as_pg "psql -X -A -t -q -d postgres -c 'SHOW shared_preload_libraries'" 2>&1) ||
        { echo "test.sh: cannot query the server: $spl"; echo "   start a cluster with shared_preload_libraries = 'nvm_am' and name it by PGHOST, PGPORT and PGUSER"; return 1; }
    case ",${spl// /}," in
        *,nvm_am,*) return 0 ;;
    esac
    echo "test.sh: the server does not preload nvm_am (shared_preload_libraries = '$spl')"
    return 1
}

if [ "$mode" != all ]; then
    names=()
    for t in "$@"; do
        case $mode in
            regress) n=${t#sql/}; n=${n%.sql}; f=sql/$n.sql; list=$(cd sql && ls *.sql | sed 's/\.sql$//') ;;
            isolation) n=${t#specs/}; n=${n%.spec}; f=specs/$n.spec; list=$(cd specs && ls *.spec | sed 's/\.spec$//') ;;
            tap) n=$(tap_file "$t") || n=; f=$n; list=$(ls t/*.pl) ;;
        esac
        if [ -z "$n" ] || [[ ! $n =~ ^[A-Za-z0-9_./-]+$ ]] || [ ! -f "$f" ]; then
            echo "test.sh: no $mode test '$t'; there are:" >&2
            echo "$list" | sed 's/^/    /' >&2
            exit 2
        fi
        names+=("$n")
    done

    WORK=${NVM_TEST_ONE_DIR:-/tmp/nvm_am_test_one}
    # the work copy is wiped first: never where a server runs
    if [ -e "$WORK/data/postmaster.pid" ] ||
        { [ -n "${PGHOST:-}" ] && [ "$(realpath -m "$PGHOST")" = "$(realpath -m "$WORK")" ]; }; then
        echo "test.sh: a server runs in $WORK; set NVM_TEST_ONE_DIR to another directory" >&2
        exit 2
    fi
    make_workdir "$WORK"
    cd "$WORK"
    DIFF_LINES=1000000
    # as_pg forwards PGHOST, PGPORT and PGUSER; PGOPTIONS too, from here
    opts=
    [ -z "${PGOPTIONS:-}" ] || opts="PGOPTIONS=$(printf %q "$PGOPTIONS") "
    case $mode in
        regress)
            # in the suite's order (the Makefile sorts REGRESS).  The tests
            # after the first expect the extension to exist already: create
            # it first unless the first test here is the suite's first
            mapfile -t names < <(printf '%s\n' "${names[@]}" | LC_ALL=C sort -u)
            grep -q 'NOTICE:  extension "nvm_am" already exists, skipping' "expected/${names[0]}.out" 2>/dev/null &&
                opts="${opts}EXTRA_REGRESS_OPTS=--load-extension=nvm_am "
            server_check || { failed=$((failed + 1)); summary; exit; }
            run_suite "pg_regress: ${names[*]}" "$WORK/regress.log" regression.diffs \
                "${opts}make -s installcheck REGRESS='${names[*]}' ISOLATION= TAP_TESTS=" ;;
        isolation)
            server_check || { failed=$((failed + 1)); summary; exit; }
            run_suite "isolation: ${names[*]}" "$WORK/isolation.log" output_iso/regression.diffs \
                "${opts}make -s installcheck REGRESS= ISOLATION='${names[*]}' TAP_TESTS=" ;;
        tap)
            echo "== Perl TAP: ${names[*]}"
            run_tap "${names[@]}" ;;
    esac
    summary
    exit
fi

# ---- everything ----

WORK=${NVM_TEST_DIR:-/tmp/nvm_am_test}
POOL=/dev/shm/nvm_am_test_$$.pool
PORT=${NVM_TEST_PORT:-54329}
make_workdir "$WORK"
trap 'cluster_stop "$WORK" "$POOL"' EXIT

t_build=$SECONDS
check_layers
check_build

echo "== starting throwaway cluster (pool $POOL)"
cluster_start "$WORK" "$PORT" "$POOL" || { echo "$passed passed, $((failed + 1)) failed"; exit 1; }

cd "$WORK"

run_suite "pg_regress" "$WORK/regress.log" regression.diffs \
    "make -s installcheck ISOLATION= TAP_TESTS= PGHOST='$PGHOST' PGPORT=$PORT"
run_suite "isolation" "$WORK/isolation.log" output_iso/regression.diffs \
    "make -s installcheck REGRESS= TAP_TESTS= PGHOST='$PGHOST' PGPORT=$PORT"

echo "== pgTAP"
as_pg "psql -q -X -d postgres -c 'DROP DATABASE IF EXISTS nvm_am_tap' -c 'CREATE DATABASE nvm_am_tap' && psql -q -X -d nvm_am_tap -c 'CREATE EXTENSION pgtap' -c 'CREATE EXTENSION nvm_am'" ||
    { failed=$((failed + 1)); echo "   pgTAP database set-up failed"; }
for f in test/pgtap/*.sql; do
    [ -e "$f" ] || continue
    start=$SECONDS
    as_pg "pg_prove -h '$PGHOST' -p $PORT -U postgres -d nvm_am_tap '$f'" >"$WORK/pgtap.log" 2>&1
    rc=$?
    [ $rc -eq 0 ] || cat "$WORK/pgtap.log"
    count_rc "$f" $rc $((SECONDS - start))
done

run_suite "differential: the same SQL on heap and on nvm_am (test/diff/)" \
    "$WORK/diff.log" /dev/null "/usr/bin/python3 test/diff/run_diff.py"
# random isolation specs, each run on heap and on nvm_am: every result,
# wait and error must be the same (scripts/isolation_fuzz.py)
FUZZ="ISOLATION_FUZZ_DIR='$WORK/isolation_fuzz'"
run_suite "concurrency differential: random isolation specs, seeds 1-40" \
    "$WORK/isofuzz.log" /dev/null "$FUZZ /usr/bin/python3 scripts/isolation_fuzz.py 1 40"
# random transactions on a heap and an nvm_am table with the same xids, then
# VACUUM: every tuple header must be heap's (scripts/page_fuzz.py)
run_suite "header differential: random transactions and VACUUM, seeds 1-60" \
    "$WORK/pagefuzz.log" /dev/null "/usr/bin/python3 scripts/page_fuzz.py 1 60"

# the same again with nvm_am.read_mode = copy: every page read through a
# local copy instead of straight from the pool must give the same results
COPY="PGOPTIONS='-c nvm_am.read_mode=copy'"
run_suite "pg_regress, read_mode = copy" "$WORK/regress_copy.log" regression.diffs \
    "$COPY make -s installcheck ISOLATION= TAP_TESTS= PGHOST='$PGHOST' PGPORT=$PORT"
run_suite "isolation, read_mode = copy" "$WORK/isolation_copy.log" output_iso/regression.diffs \
    "$COPY make -s installcheck REGRESS= TAP_TESTS= PGHOST='$PGHOST' PGPORT=$PORT"
run_suite "differential, read_mode = copy" \
    "$WORK/diff_copy.log" /dev/null "$COPY /usr/bin/python3 test/diff/run_diff.py"
run_suite "concurrency differential, read_mode = copy: seeds 41-70" \
    "$WORK/isofuzz_copy.log" /dev/null "$COPY $FUZZ /usr/bin/python3 scripts/isolation_fuzz.py 41 70"
run_suite "header differential, read_mode = copy: seeds 61-90" \
    "$WORK/pagefuzz_copy.log" /dev/null "$COPY /usr/bin/python3 scripts/page_fuzz.py 61 90"

# and with nvm_am.wal_log = on: every change also written to WAL (and
# replayed by the crash recovery of the TAP tests below) must give the same
# results
echo "== restarting the cluster with nvm_am.wal_log = on"
if as_pg "echo \"nvm_am.wal_log = on\" >> '$WORK/data/postgresql.conf'" && cluster_restart "$WORK"; then
    run_suite "pg_regress, nvm_am.wal_log = on" "$WORK/regress_wal.log" regression.diffs \
        "make -s installcheck ISOLATION= TAP_TESTS= PGHOST='$PGHOST' PGPORT=$PORT"
    run_suite "isolation, nvm_am.wal_log = on" "$WORK/isolation_wal.log" output_iso/regression.diffs \
        "make -s installcheck REGRESS= TAP_TESTS= PGHOST='$PGHOST' PGPORT=$PORT"
    run_suite "concurrency differential, nvm_am.wal_log = on: seeds 71-100" \
        "$WORK/isofuzz_wal.log" /dev/null "$FUZZ /usr/bin/python3 scripts/isolation_fuzz.py 71 100"
    run_suite "header differential, nvm_am.wal_log = on: seeds 91-120" \
        "$WORK/pagefuzz_wal.log" /dev/null "/usr/bin/python3 scripts/page_fuzz.py 91 120"
else
    failed=$((failed + 1)); echo "   restart with nvm_am.wal_log = on failed"
fi

cluster_stop "$WORK" "$POOL"
trap - EXIT

# PostgreSQL's own regression and isolation suites, on heap and with nvm_am
# as the default table access method: every test that passes on heap must
# pass on nvm_am (test/pgsuite/run_pgsuite.py says how and what may differ)
t_own=$SECONDS
echo "== PostgreSQL's own suites on heap and on nvm_am (test/pgsuite/)"
/usr/bin/python3 test/pgsuite/run_pgsuite.py "$WORK/pgsuite" >"$WORK/pgsuite.log" 2>&1
grep -v '^NOTICE' "$WORK/pgsuite.log"
line=$(grep -E '^pgsuite: [0-9]+ passed, [0-9]+ failed$' "$WORK/pgsuite.log" | tail -1)
if [ -n "$line" ]; then
    line=${line#pgsuite: }
    passed=$((passed + ${line%% passed*}))
    line=${line#*, }
    failed=$((failed + ${line%% failed}))
else
    failed=$((failed + 1)); echo "   test/pgsuite/run_pgsuite.py itself failed"
fi

t_pg=$SECONDS
echo "== Perl TAP (restarts, crashes, bad pools)"
# the longest files first (t/038 alone took 72 s here, beside the others
# 120 s; t/044 waits two minutes for old_snapshot_threshold), so that the
# short ones fill the other job beside them
TAP_FIRST=" t/038_large_relation.pl t/044_old_snapshot.pl t/005_crash_transfers.pl t/004_hot_stress.pl t/008_crash_sim.pl "
run_tap $(for f in $TAP_FIRST; do [ -f "$f" ] && echo "$f"; done
          for f in t/*.pl; do [[ $TAP_FIRST == *" $f "* ]] || echo "$f"; done)
echo "== times: install and build $t_build s, nvm_am's suites $((t_own - t_build)) s, PostgreSQL's suites $((t_pg - t_own)) s, Perl TAP $((SECONDS - t_pg)) s"

summary
