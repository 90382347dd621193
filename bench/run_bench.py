#!/usr/bin/env python3
"""run_bench.py - the side-by-side benchmark of nvm_am against stock heap.

Storage set-ups (each on its own PostgreSQL cluster, see "Method"):

  heap            heap, data directory on tmpfs (/dev/shm): the reference
  heap-disk       heap, data directory on disk (/var/tmp)
  nvm_am          nvm_am, pool on /dev/shm (PMEM_IS_PMEM_FORCE=1), default
                  nvm_am.ipl_log_size, read_mode = redirect
  nvm_am-copy     the same cluster and tables, read_mode = copy
  nvm_am-ipl-off  nvm_am with nvm_am.ipl_log_size = 0 (every change writes
                  its whole page)
  nvm_am-wal      nvm_am with nvm_am.wal_log = on (every change also in WAL,
                  commits through WAL): the tpcb rows only

All clusters: the same shared_buffers (128MB), synchronous_commit = on,
fsync = on, autovacuum off, max_wal_size = 4GB, no parallel query.

Workloads
  tpcb        pgbench TPC-B, -M prepared, 1/2/4 clients (-j = clients)
  insert      single-row INSERT per transaction, and 100-row batches,
              2 clients, table without index
  ycsb        YCSB-like A (50% read / 50% update) and B (95/5), uniform and
              zipfian keys (random_zipfian), by primary key, 2 clients
  contention  TPC-B and YCSB-A (uniform) with 8 and 16 clients,
              -j = min(clients, cores) (2 on a 2-core machine); heap and
              nvm_am only
  tpch        TPC-H-like Q1 and Q6 over a generated lineitem table, cold
              (first run after a restart) and warm (median of the next runs);
              the load of the table is the "load" row (CREATE TABLE AS),
              and a COPY of its rows into a table made before is a
              second "load" row
  crash       time from SIGKILL of the postmaster (during a TPC-B run) to
              the first answered query, at two data sizes

Method (why the ratios can be trusted on a noisy, shared machine)

  * All clusters run at the same time: "tmpfs" (databases for heap and
    nvm_am; serves heap, nvm_am and nvm_am-copy), "disk" (heap-disk) and
    "ipl-off" (nvm_am-ipl-off) and "wal" (nvm_am-wal), each with its own
    port, work directory and pool file.  Only one run executes at any moment; the idle clusters
    only sleep (checkpoint_timeout is 30 min and max_wal_size 4GB, and every
    run starts and ends with a CHECKPOINT of its own cluster, so normally no
    checkpoint falls inside a run).  Bytes are read once the checkpointer
    has published the statistics of that CHECKPOINT and the run's backends
    have exited (polled, instead of a fixed sleep).
  * Every pgbench row (tpcb, insert, ycsb, contention) is measured in
    rounds: each round runs every set-up once, one after the other, and the
    order is rotated by one set-up per round, so slow drifts of the machine
    (other tenants, thermal, the growth of a table) fall on all set-ups
    alike.  At least 3 rounds (--runs, full and --quick).  Reported: the
    median tps and the spread (min-max) of the runs; ratio = median(set-up)
    / median(heap), and the ratio's range = min(set-up) / max(heap) ..
    max(set-up) / min(heap).  A ratio whose range includes 1.0 is printed
    with a "~" prefix (and ratio_overlaps_1 in the CSV): those runs do not
    separate the set-up from heap.  Bytes per transaction: the sums over
    all runs of a row divided by the transactions; p50/p99: medians of the
    runs' percentiles.
  * State between rounds: insert recreates its table before every run and
    drops it after (frees the pool); tpcb keeps its pgbench tables (made
    once by pgbench -i per database) across rounds, and ycsb keeps
    usertable: pgbench_history and the dead tuples grow during a row,
    alike for every set-up because of the alternation (nvm_am and
    nvm_am-copy share one set of tables).  Each workload drops its tables
    at its end.
  * Pool size: nvm_am.pool_size of each cluster is computed from the
    workload (pool_mb(): the largest of one 100-row insert run, the tpcb
    tables with their growth over all runs, the largest crash scale,
    lineitem), with 25 % margin: 1.5 GB for the full run and 512 MB for
    --quick on the tmpfs cluster (8.5 kB per page: 8 kB, and a 4 kB
    in-page log area for one frame in 8), 1.5 GB / 512 MB on the ipl-off
    cluster (8 kB per page), 128 MB
    on the disk cluster (no nvm_am tables).  The 100-row insert runs a fixed
    number of transactions (insert_batch_txns: about the run's duration
    here, at most 4.4M rows), not a time, so that a faster machine cannot
    insert more than the pool holds.  The pools live on /dev/shm and are
    allocated with posix_fallocate, so they cost that much RAM (about 4 GB
    in the full run, with the tmpfs data directories); the free space of
    /dev/shm is checked first (a note under PROBLEMS when short).  Before
    every nvm_am run frames_free / frames_total of nvm_am_pool_info() is
    checked against the largest growth an earlier run of the same row
    showed (noted under PROBLEMS when it may not fit).
  * Space: after each load (pgbench -i tables, usertable, lineitem) the
    pool bytes the nvm_am tables took (delta of nvm_am_pool_info().used_bytes
    across the load: data frames with their log areas, page-table frames,
    directory) divided by pg_relation_size of the heap tables holding the
    same rows (main fork only: no indexes, FSM or visibility map).  Indexes
    are btrees outside the pool in both cases.
  * Machine: cores, CPU model, kernel, and the cost of making 64 bytes
    durable (bench/persist_cost.c, libpmem: pmem_persist, flush + drain,
    msync) on /dev/shm with PMEM_IS_PMEM_FORCE=1 and on /var/tmp, printed
    above the table.
  * The installed nvm_am.so is checked before every run: if it was
    replaced during the benchmark, that is noted under PROBLEMS.

Reported per workload and set-up: throughput or time, ratio to heap with
its range, bytes written to durable media per unit (WAL + pool bytes + 8 kB
page writes counted after a final CHECKPOINT), commit latency p50/p99
(pgbench --log), peak memory (proportional set size of all server
processes, the pool file's size beside it), space after load.  Results:
bench/results/results.csv (one row per workload, variant and set-up; tps is
the median, with tps_median, tps_min, tps_max, runs, ratio_min, ratio_max,
ratio_overlaps_1, and the space rows), runs.csv (every single run),
table.txt, throughput.png (median, bars min-max), bytes_per_txn.png,
latency.png.  Without matplotlib the plots are skipped with a note.

Durations: full 8 s per run (--quick: 2 s), 3 rounds; the full run takes
about 35 minutes on 2 cores, --quick about 7.5 minutes (plus the build
in scripts/bench.sh).  The exit status is non-zero if any run failed (hung,
errored, was killed) or a workload stopped; failures are listed under
PROBLEMS:.  tpch, load and crash rows are alternated in rounds too: 3
loads per store, 3 restarts per set-up for the cold queries (warm: the 3
runs after each, --quick 2), 3 crashes per set-up and data size, each after
a CHECKPOINT.

Run as root (servers and clients run as user "postgres") or as the owner.
Only the Python standard library and matplotlib (Agg) are used.
"""
import argparse
import contextlib
import io
import csv
import glob
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS = os.path.join(ROOT, "bench", "results")
PGBIN = "/usr/lib/postgresql/15/bin"
WORK = "/dev/shm/nvm_bench"
POOL = "/dev/shm/nvm_bench.pool"
PORT = 56432
BLCKSZ = 8192
DBS = {"heap": "bench_heap", "nvm_am": "bench_nvm"}
AMS = ("heap", "nvm_am")

FULL = dict(scale=10, duration=8, clients=(1, 2, 4), ycsb_rows=200_000,
            lineitem=1_500_000, scan_runs=3, crash_scales=(10, 60), batch_rows=100,
            contention_clients=(8, 16), contention_duration=8, runs=3, mode_pairs=15)
QUICK = dict(scale=2, duration=2, clients=(2,), ycsb_rows=50_000,
             lineitem=200_000, scan_runs=2, crash_scales=(2, 6), batch_rows=100,
             contention_clients=(8, 16), contention_duration=2, runs=3, mode_pairs=5)
CLIENTS = (1, 2)
DISK_WORK = "/var/tmp/nvm_bench_disk"
HANG_GRACE = 20          # seconds past -T before a pgbench run counts as hung

EXTRA_CONF = """shared_buffers = 128MB
nvm_am.pool_size = '2048MB'
max_wal_size = 4GB
checkpoint_timeout = 30min
autovacuum = off
log_checkpoints = on
"""

IS_ROOT = os.geteuid() == 0
ENV = dict(os.environ)
ENV.update(PATH=PGBIN + ":" + ENV.get("PATH", "/usr/bin:/bin"),
           PMEM_IS_PMEM_FORCE="1", PGHOST=WORK, PGPORT=str(PORT),
           PGUSER="postgres", PGAPPNAME="nvm_bench")
ENV.pop("PGOPTIONS", None)
ENV.pop("PGDATABASE", None)
if IS_ROOT:
    ENV["HOME"] = "/var/lib/postgresql"

NOTES = []               # problems seen during the run, printed at the end
FAILED = []              # workloads that stopped with an exception
INFO = []                # remarks printed below the table (not problems)


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def note(msg):
    NOTES.append(msg)
    log("!! " + msg)


# ----------------------------------------------------------------------
# running commands
# ----------------------------------------------------------------------

def popen_pg(args, env=None, **kw):
    """Start a command as postgres (when root) in the work directory."""
    extra = dict(user="postgres", group="postgres", extra_groups=[]) if IS_ROOT else {}
    return subprocess.Popen(args, cwd=WORK if os.path.isdir(WORK) else "/",
                            env=env or ENV, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, **extra, **kw)


def run_pg(args, env=None, timeout=600, check=True):
    p = popen_pg(args, env=env)
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
        raise RuntimeError("timed out after %ss: %s\n%s" % (timeout, " ".join(args), err))
    if check and p.returncode != 0:
        raise RuntimeError("command failed (%d): %s\n%s%s" % (p.returncode, " ".join(args), out, err))
    return out, err, p.returncode


def psql(db, sql, timeout=600):
    """Run SQL, return rows as lists of strings (unaligned, tab separated)."""
    out, _, _ = run_pg([PGBIN + "/psql", "-X", "-q", "-A", "-t", "-F", "\t",
                        "-v", "ON_ERROR_STOP=1", "-d", db, "-c", sql], timeout=timeout)
    return [line.split("\t") for line in out.splitlines() if line != ""]


def cluster_helper(func, *args):
    """Call a function of scripts/cluster.sh (cluster_start, cluster_stop)."""
    cmd = '. scripts/cluster.sh && %s "$@"' % func
    r = subprocess.run(["bash", "-c", cmd, "bench"] + list(args), cwd=ROOT,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        raise RuntimeError("%s failed:\n%s" % (func, r.stdout))
    return r.stdout


# ----------------------------------------------------------------------
# cluster lifecycle: the helpers act on the "current" cluster (WORK, PORT,
# POOL, ENV's PGHOST/PGPORT); use_cluster() switches between the clusters
# that run side by side
# ----------------------------------------------------------------------

def set_work(path):
    """Point the helpers at the cluster in path."""
    global WORK
    WORK = path
    ENV["PGHOST"] = path


def start_cluster(extra_conf="", ams=AMS):
    stop_cluster(quiet=True)
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    if IS_ROOT:
        shutil.chown(WORK, "postgres", "postgres")
    os.makedirs(os.path.join(WORK, "logs"))
    if IS_ROOT:
        shutil.chown(os.path.join(WORK, "logs"), "postgres", "postgres")
    log("== starting cluster in %s (port %d, pool %s)" % (WORK, PORT, POOL))
    cluster_helper("cluster_start", WORK, str(PORT), POOL, EXTRA_CONF + extra_conf)
    for am in ams:
        db = DBS[am]
        psql("postgres", "CREATE DATABASE %s" % db)
        psql(db, "CREATE EXTENSION nvm_am")
        psql(db, "ALTER DATABASE %s SET default_table_access_method = %s" % (db, am))
        psql(db, "ALTER DATABASE %s SET max_parallel_workers_per_gather = 0" % db)
    info = psql(DBS[ams[0]], "SELECT path, size, is_pmem, emulated FROM nvm_am.nvm_am_pool_info()")
    log("   pool: %s" % (info,))


def stop_cluster(quiet=False):
    if os.path.exists(os.path.join(WORK, "data", "postmaster.pid")) or not quiet:
        if not quiet:
            log("== stopping cluster in %s, removing pool" % WORK)
        try:
            cluster_helper("cluster_stop", WORK, POOL)
        except Exception as e:  # keep cleaning up
            log("cluster_stop: %s" % e)
    if os.path.exists(POOL):
        os.unlink(POOL)


def save_server_log(name="server.log"):
    src = os.path.join(WORK, "server.log")
    if os.path.exists(src):
        dst = os.path.join(RESULTS, "tmp")
        os.makedirs(dst, exist_ok=True)
        shutil.copy(src, os.path.join(dst, name))


# ----------------------------------------------------------------------
# measuring bytes written
# ----------------------------------------------------------------------

COUNTERS_SQL = """SELECT (SELECT wal_bytes FROM pg_stat_wal)::bigint,
  (SELECT buffers_checkpoint + buffers_clean + buffers_backend FROM pg_stat_bgwriter),
  (SELECT value FROM nvm_am.nvm_am_stats WHERE name = 'pmem_bytes_written'),
  (SELECT checkpoints_req FROM pg_stat_bgwriter),
  (SELECT count(*) FROM pg_stat_activity WHERE application_name = 'pgbench'),
  (SELECT coalesce(sum(seq_scan), 0) FROM pg_stat_user_tables
    WHERE relname IN ('pgbench_branches', 'pgbench_tellers')),
  (SELECT coalesce(sum(idx_scan), 0) FROM pg_stat_user_tables
    WHERE relname IN ('pgbench_branches', 'pgbench_tellers'))"""


def counters(db):
    w, b, p, c, n, sq, ix = psql(db, COUNTERS_SQL)[0]
    return dict(wal=int(w), pages=int(b) * BLCKSZ, pmem=int(p), ckpt=int(c), pgbench=int(n),
                seq=int(sq), idx=int(ix))


def checkpoint(db):
    """CHECKPOINT, and wait until the checkpointer has reported it (it
    publishes its statistics just after CHECKPOINT returns); first wait
    until the backends of a pgbench run have exited (they report their
    WAL and buffer statistics when they exit).  Returns the counters."""
    t0 = time.monotonic()
    c0 = counters(db)
    while c0["pgbench"] and time.monotonic() - t0 < 10:
        time.sleep(0.02)
        c0 = counters(db)
    psql(db, "CHECKPOINT")
    while True:
        c = counters(db)
        if c["ckpt"] > c0["ckpt"] or time.monotonic() - t0 > 10:
            return c
        time.sleep(0.02)


def begin_measure(db):
    """CHECKPOINT so earlier dirty pages are not charged to this run."""
    checkpoint(db)
    psql(db, "SELECT pg_stat_reset_shared('wal')")
    return counters(db)


def end_measure(db, start):
    end = checkpoint(db)
    return {k: end[k] - start[k] for k in ("wal", "pages", "pmem", "seq", "idx")}


# ----------------------------------------------------------------------
# pgbench
# ----------------------------------------------------------------------

def am_env(am):
    env = dict(ENV)
    env["PGOPTIONS"] = "-c default_table_access_method=%s" % am
    return env


def check_am(db, am, tables):
    rows = psql(db, "SELECT c.relname, a.amname FROM pg_class c JOIN pg_am a ON a.oid = c.relam "
                    "WHERE c.relname IN (%s)" % ",".join("'%s'" % t for t in tables))
    got = {r[0]: r[1] for r in rows}
    for t in tables:
        if got.get(t) != am:
            raise RuntimeError("table %s in %s has access method %s, expected %s"
                               % (t, db, got.get(t), am))


def percentile(sorted_vals, q):
    if not sorted_vals:
        return None
    k = min(len(sorted_vals) - 1, max(0, int(round(q / 100.0 * (len(sorted_vals) - 1)))))
    return sorted_vals[k]


def read_latencies(prefix):
    """Per-transaction latencies (ms) and end times (s) from pgbench --log
    files (client txno latency_us script epoch_s epoch_us), then delete them."""
    lat, ends = [], []
    for f in glob.glob(prefix + ".*"):
        with open(f) as fh:
            for line in fh:
                parts = line.split()
                if len(parts) >= 6 and parts[2].isdigit():
                    lat.append(int(parts[2]) / 1000.0)
                    ends.append(int(parts[4]) + int(parts[5]) / 1e6)
        os.unlink(f)
    lat.sort()
    ends.sort()
    return lat, ends


def quarter_tps(ends):
    """Throughput in the first and the last quarter of the run."""
    if len(ends) < 8:
        return None, None
    t0, t1 = ends[0], ends[-1]
    q = (t1 - t0) / 4.0
    if q <= 0:
        return None, None
    first = sum(1 for t in ends if t < t0 + q)
    last = sum(1 for t in ends if t >= t1 - q)
    return first / q, last / q


def cancel_stuck(db):
    """Describe and cancel the backends of a hung pgbench run."""
    rows = psql(db, "SELECT pid, state, coalesce(wait_event_type,'-'), coalesce(wait_event,'-'), "
                    "left(query, 80) FROM pg_stat_activity WHERE datname = '%s' "
                    "AND application_name = 'pgbench' AND pid <> pg_backend_pid()" % db)
    desc = "; ".join("pid %s %s wait=%s/%s: %s" % tuple(r) for r in rows)
    psql(db, "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE datname = '%s' "
             "AND application_name = 'pgbench' AND pid <> pg_backend_pid()" % db)
    return desc


def pgbench_run(db, am, name, clients, duration, script=None, env=None, threads=None,
                txns=None):
    """pgbench_once, run once more if something outside killed pgbench."""
    res = pgbench_once(db, am, name, clients, duration, script, env, threads, txns)
    if res["status"] == "killed":
        note("%s %s %d clients: running it once more" % (name, am, clients))
        res = pgbench_once(db, am, name, clients, duration, script, env, threads, txns)
    return res


def pgbench_once(db, am, name, clients, duration, script=None, env=None, threads=None,
                 txns=None):
    """Run pgbench with a watchdog. Returns a result dict (status ok/hang/error/killed).
    With txns, pgbench runs that many transactions (split among the clients)
    instead of duration seconds: for runs whose data must fit the pool; the
    watchdog then allows six times duration."""
    prefix = os.path.join(WORK, "logs", "%s_%s_c%d" % (name.replace(" ", "_"), am, clients))
    limit = ["-t", str(max(1, txns // clients))] if txns else ["-T", str(duration)]
    args = [PGBIN + "/pgbench", "-n", "-M", "prepared", "-c", str(clients),
            "-j", str(threads or clients)] + limit + ["-l", "--log-prefix=" + prefix]
    if script:
        args += ["-f", script]
    args.append(db)
    env = dict(env or am_env(am))
    env["PGAPPNAME"] = "pgbench"
    start = begin_measure(db)
    t0 = time.monotonic()
    p = popen_pg(args, env=env)
    status = "ok"
    detail = ""
    try:
        out, err = p.communicate(timeout=(6 * duration if txns else duration) + HANG_GRACE)
    except subprocess.TimeoutExpired:
        status = "hang"
        detail = cancel_stuck(db)
        try:
            out, err = p.communicate(timeout=15)
        except subprocess.TimeoutExpired:
            p.kill()
            out, err = p.communicate()
    elapsed = time.monotonic() - t0
    if status == "ok" and p.returncode < 0:
        status = "killed"
        detail = "pgbench was killed by signal %d, not by this script" % -p.returncode
    elif status == "ok" and (p.returncode != 0 or "aborted" in out + err):
        status = "error"
        detail = (err.strip().splitlines() or ["rc %d" % p.returncode])[-1]
    delta = end_measure(db, start)
    res = dict(status=status, detail=detail, elapsed_s=elapsed)
    m = re.search(r"number of transactions actually processed: (\d+)", out)
    res["txns"] = int(m.group(1)) if m else 0
    m = re.search(r"tps = ([\d.]+) \(without initial connection time\)", out)
    res["tps"] = float(m.group(1)) if m else None
    m = re.search(r"latency average = ([\d.]+) ms", out)
    res["lat_avg_ms"] = float(m.group(1)) if m else None
    lat, ends = read_latencies(prefix)
    res["lat_p50_ms"] = percentile(lat, 50)
    res["lat_p99_ms"] = percentile(lat, 99)
    res["tps_q1"], res["tps_q4"] = quarter_tps(ends)
    res.update(wal_bytes=delta["wal"], pmem_bytes=delta["pmem"], page_bytes=delta["pages"])
    # TPC-B's plans: the generic plans of its UPDATEs of branches and tellers
    # read them by sequential scan while they are small and by index once
    # they have grown, and how far they grow depends on the engine's pruning
    # (the share of sequential scans is printed under the table)
    res.update(seq_scans=delta["seq"], idx_scans=delta["idx"])
    if status != "ok":
        note("%s %s %d clients: %s after %.0f s (-T %d). %s" % (name, am, clients, status.upper(),
                                                               elapsed, duration, detail))
        if status == "hang":
            note("   pgbench output: " + " | ".join((out + err).strip().splitlines()[-3:]))
        res["tps"] = None
    return res


# ----------------------------------------------------------------------
# storage set-ups and their clusters
# ----------------------------------------------------------------------

# name -> (cluster, access method, extra PGOPTIONS)
SETUPS = {
    "heap": ("tmpfs", "heap", ""),
    "heap-disk": ("disk", "heap", ""),
    "nvm_am": ("tmpfs", "nvm_am", ""),
    "nvm_am-copy": ("tmpfs", "nvm_am", "-c nvm_am.read_mode=copy"),
    "nvm_am-ipl-off": ("ipl-off", "nvm_am", ""),
    "nvm_am-wal": ("wal", "nvm_am", ""),
}
# set-ups that run only some workloads (the others run every workload)
SETUP_WORKLOADS = {"nvm_am-wal": ("tpcb",)}
# cluster -> (work directory, port, pool file, extra configuration,
#             access methods (databases), in-page log bytes per frame or
#             None when the cluster holds no nvm_am tables)
CLUSTERS = {
    "tmpfs": (WORK, PORT, POOL, "", ("heap", "nvm_am"), 4096),
    "disk": (DISK_WORK, PORT + 1, "/dev/shm/nvm_bench_disk.pool", "", ("heap",), None),
    "ipl-off": ("/dev/shm/nvm_bench_ipl_off", PORT + 2, "/dev/shm/nvm_bench_ipl_off.pool",
                "nvm_am.ipl_log_size = 0\n", ("nvm_am",), 0),
    "wal": ("/dev/shm/nvm_bench_wal", PORT + 3, "/dev/shm/nvm_bench_wal.pool",
            "nvm_am.wal_log = on\n", ("nvm_am",), 4096),
}
POOL_MB = {}             # cluster -> nvm_am.pool_size given (MB)
FRAME_BYTES = {}         # cluster -> pool bytes per frame (its page, its share of log areas)
LOG_FRAME_SHARE = 8      # one frame in 8 has an in-page log area (NVM_LOG_FRAME_SHARE)

# Bounds for sizing the pools (pool_mb)
INSERT_ROWS_PER_S_NOMINAL = 700_000 # 100-row batches, 2 clients, on this machine
INSERT_BATCH_PAGES = 80_000         # at most 4.4M rows (640 MB of heap) per batch run
INSERT_ROWS_PER_PAGE = 55           # ins_t: 24 B header + 8 + 4 + 101 B, aligned, + line pointer
ACCOUNT_PAGES_PER_SCALE = 1640      # pgbench_accounts: 100,000 rows of 61 per page
TPCB_TPS_MAX = 20000                # per run, about twice the fastest seen
TPCB_PAGES_PER_TXN = 0.025          # a history row (1/160 page) + a new account version (1/60)
LINEITEM_ROWS_PER_PAGE = 75         # 1.5M rows in 156 MB


def insert_batch_txns(cfg):
    """Transactions of one 100-row insert run: what this 2-core machine
    runs in about the run's duration (INSERT_ROWS_PER_S_NOMINAL), capped so
    that the rows take at most INSERT_BATCH_PAGES pages, which the pool is
    sized for.  A fixed count rather than a time: a faster machine cannot
    insert more than the pool holds."""
    rows = min(INSERT_ROWS_PER_S_NOMINAL * cfg["duration"],
               INSERT_BATCH_PAGES * INSERT_ROWS_PER_PAGE)
    return max(2, int(rows // cfg["batch_rows"]))


def pool_mb(cfg, ipl, runs):
    """nvm_am.pool_size (MB) for a cluster whose frames hold ipl bytes of
    in-page log: the largest amount of data in the pool at any time, with
    25 % margin, plus 256 MB for metadata.  Workloads drop their tables at
    their end, insert after every run, so only one workload's data counts."""
    frame = BLCKSZ + ipl / LOG_FRAME_SHARE
    pages = max(
        # one 100-row insert run (a fixed number of transactions)
        insert_batch_txns(cfg) * cfg["batch_rows"] / INSERT_ROWS_PER_PAGE,
        # the tpcb tables (shared by nvm_am and nvm_am-copy) and their growth
        ACCOUNT_PAGES_PER_SCALE * cfg["scale"]
        + 2 * runs * len(cfg["clients"]) * cfg["duration"] * TPCB_TPS_MAX * TPCB_PAGES_PER_TXN,
        # the contention tables and their growth
        ACCOUNT_PAGES_PER_SCALE * cfg["scale"]
        + runs * len(cfg["contention_clients"]) * cfg["contention_duration"] * TPCB_TPS_MAX
        * TPCB_PAGES_PER_TXN,
        # the largest crash scale, with the TPC-B run before the kill
        ACCOUNT_PAGES_PER_SCALE * max(cfg["crash_scales"]) * 1.2,
        cfg["lineitem"] / LINEITEM_ROWS_PER_PAGE)
    mb = pages * frame * 1.25 / 2 ** 20 + 256
    return max(512, int(-(-mb // 256) * 256))


LIBRARY = os.path.join(PGBIN.rsplit("/", 1)[0], "lib", "nvm_am.so")
LIBRARY_STAT = []        # (inode, mtime, size) of the library at the start


def library_id():
    try:
        st = os.stat(LIBRARY)
        return (st.st_ino, st.st_mtime_ns, st.st_size)
    except OSError:
        return None


def check_library():
    """Note once if nvm_am.so was replaced since the start: the figures
    would mix two builds (and running servers may crash on the new file)."""
    if not LIBRARY_STAT:
        LIBRARY_STAT.append(library_id())
    elif LIBRARY_STAT[0] is not None and library_id() != LIBRARY_STAT[0]:
        note("%s was replaced during the benchmark: servers (re)started after this point "
             "(tpch cold runs, crash) run another build" % LIBRARY)
        LIBRARY_STAT[0] = None


def use_cluster(name):
    """Make the cluster name the current one for the helpers."""
    global PORT, POOL
    work, port, pool, _, _, _ = CLUSTERS[name]
    set_work(work)
    PORT = port
    POOL = pool
    ENV["PGPORT"] = str(port)


def use_setup(setup):
    use_cluster(SETUPS[setup][0])


def target_env(setup):
    cluster, am, opts = SETUPS[setup]
    work, port = CLUSTERS[cluster][:2]
    env = dict(ENV)
    env.update(PGHOST=work, PGPORT=str(port))
    env["PGOPTIONS"] = ("-c default_table_access_method=%s %s" % (am, opts)).strip()
    return env


def setup_psql(setup, sql, timeout=600):
    use_setup(setup)
    _, am, _ = SETUPS[setup]
    out, _, _ = run_pg([PGBIN + "/psql", "-X", "-q", "-A", "-t", "-F", "\t",
                        "-v", "ON_ERROR_STOP=1", "-d", DBS[am], "-c", sql],
                       env=target_env(setup), timeout=timeout)
    return [line.split("\t") for line in out.splitlines() if line != ""]


def stores(setups):
    """The distinct sets of tables behind setups: (cluster, am) -> the
    first of setups that uses them (nvm_am and nvm_am-copy share one)."""
    out = {}
    for s in setups:
        out.setdefault(SETUPS[s][:2], s)
    return out


def pool_info(setup):
    """frames_free, frames_total, free_bytes, used_bytes of the pool of
    setup's cluster; None for heap set-ups."""
    if SETUPS[setup][1] != "nvm_am":
        return None
    r = setup_psql(setup, "SELECT frames_free, frames_total, free_bytes, used_bytes "
                          "FROM nvm_am.nvm_am_pool_info()")[0]
    return dict(free=int(r[0]), total=int(r[1]), free_bytes=int(r[2]), used=int(r[3]))


NEED = {}                # (cluster, workload, variant) -> largest pool growth of a run (bytes)


def check_pool(setup, workload, variant):
    """Before an nvm_am run: note when the free frames may not hold what an
    earlier run of the same row took, or fall under 10 % of the pool."""
    p = pool_info(setup)
    if p is None:
        return None
    free = p["free_bytes"]
    need = NEED.get((SETUPS[setup][0], workload, variant), 0)
    if free < 1.25 * need or p["free"] < 0.10 * p["total"]:
        note("%s %s %s: pool low before the run: %d of %d frames free (%d MB; an earlier run "
             "took %d MB)" % (workload, variant, setup, p["free"], p["total"], free >> 20,
                              need >> 20))
    return p


# ----------------------------------------------------------------------
# memory
# ----------------------------------------------------------------------

PEAK = {}                # setup -> peak PSS of the server processes (bytes)


def server_pids():
    pidfile = os.path.join(WORK, "data", "postmaster.pid")
    try:
        with open(pidfile) as f:
            pm = int(f.readline())
    except (OSError, ValueError):
        return []
    pids = [pm]
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open("/proc/%s/stat" % d) as f:
                    if int(f.read().rsplit(")", 1)[1].split()[1]) == pm:
                        pids.append(int(d))
            except (OSError, IndexError, ValueError):
                pass
    return pids


def sample_memory(setup):
    """Sum of the proportional set sizes of the server's processes: shared
    memory and the pool mapping are split among the processes using them."""
    use_setup(setup)
    total = 0
    for pid in server_pids():
        try:
            with open("/proc/%d/smaps_rollup" % pid) as f:
                for line in f:
                    if line.startswith("Pss:"):
                        total += int(line.split()[1]) * 1024
        except OSError:
            pass
    PEAK[setup] = max(PEAK.get(setup, 0), total)
    return total


# ----------------------------------------------------------------------
# rows, rounds and space
# ----------------------------------------------------------------------

RUNS = []                # every single pgbench run (runs.csv)
SPACE = []               # space rows


def per_unit(res, units):
    if not units or res.get("wal_bytes") is None:
        return dict(bytes_per_txn=None, wal_per_txn=None, pmem_per_txn=None, pages_per_txn=None)
    return dict(bytes_per_txn=(res["wal_bytes"] + res["pmem_bytes"] + res["page_bytes"]) / units,
                wal_per_txn=res["wal_bytes"] / units, pmem_per_txn=res["pmem_bytes"] / units,
                pages_per_txn=res["page_bytes"] / units)


def add_row(rows, setup, workload, variant, res, unit="txn", units=None):
    res = dict(res)
    res.update(workload=workload, variant=variant, setup=setup, am=SETUPS[setup][1], unit=unit)
    res.update(per_unit(res, units if units is not None else res.get("txns")))
    res["pss_bytes"] = sample_memory(setup)
    res.setdefault("runs", 1)
    res.setdefault("runs_total", 1)
    rows.append(res)
    log("   %-15s %-28s %s" % (setup, variant, summary(res)))


def seq_share(results):
    """The share of the scans of TPC-B's branches and tellers in results
    (pgbench runs) that were sequential, or None when they made none."""
    seq = sum(r.get("seq_scans") or 0 for r in results)
    total = seq + sum(r.get("idx_scans") or 0 for r in results)
    return seq / total if total else None


def aggregate(results):
    """One row from the runs of a set-up: median / min / max tps of the
    runs that succeeded, bytes summed over them, latency percentiles as
    medians of the runs'."""
    ok = [r for r in results if r["status"] == "ok" and r.get("tps") is not None]
    bad = [r for r in results if r not in ok]
    agg = dict(status=bad[0]["status"] if bad else "ok",
               detail="; ".join(r["detail"] for r in bad if r.get("detail")),
               runs=len(ok), runs_total=len(results))
    tps = [r["tps"] for r in ok]
    agg["samples"] = tps
    agg["tps"] = statistics.median(tps) if tps else None
    agg["tps_median"] = agg["tps"]
    agg["tps_min"] = min(tps) if tps else None
    agg["tps_max"] = max(tps) if tps else None
    agg["txns"] = sum(r["txns"] for r in ok)
    for k in ("wal_bytes", "pmem_bytes", "page_bytes"):
        agg[k] = sum(r[k] for r in ok) if ok else None
    agg["seq_share"] = seq_share(ok)
    for k in ("lat_avg_ms", "lat_p50_ms", "lat_p99_ms", "tps_q1", "tps_q4", "pool_growth"):
        vals = [r[k] for r in ok if r.get(k) is not None]
        agg[k] = statistics.median(vals) if vals else None
    return agg


def rotation(items, rnd):
    """items in round rnd's order: shifted by one item each round, so that
    no item always runs first or last."""
    k = rnd % len(items)
    return items[k:] + items[:k]


def rounds(cfg, rows, setups, workload, variant, run_one, prepare=None, cleanup=None):
    """Run every set-up once per round, cfg["runs"] rounds, the order
    rotated by one set-up each round; one aggregated row per set-up."""
    per = {s: [] for s in setups}
    for rnd in range(cfg["runs"]):
        for pos, s in enumerate(rotation(setups, rnd)):
            use_setup(s)
            check_library()
            if prepare:
                prepare(s)
            before = check_pool(s, workload, variant)
            res = run_one(s)
            if before is not None:
                after = pool_info(s)
                growth = (after["used"] - before["used"])
                res["pool_growth"] = growth
                key = (SETUPS[s][0], workload, variant)
                NEED[key] = max(NEED.get(key, 0), growth)
                res["pool_free_before"] = before["free_bytes"]
            if cleanup:
                cleanup(s)
            sample_memory(s)
            per[s].append(res)
            rec = dict(res, workload=workload, variant=variant, setup=s, round=rnd + 1,
                       position=pos + 1)
            rec.update(per_unit(res, res.get("txns")))
            RUNS.append(rec)
            share = seq_share([res])
            log("   round %d/%d %-15s tps %s%s"
                % (rnd + 1, cfg["runs"], s, fmt(res.get("tps"), ".0f"),
                   ", branches/tellers by seq scan %.0f %%" % (100 * share)
                   if share is not None else ""))
    for s in setups:
        add_row(rows, s, workload, variant, aggregate(per[s]))


def load_with_space(setup, label, tables, load):
    """Run load() (which makes tables for setup) and record the space the
    tables take: heap, pg_relation_size (main fork) summed; nvm_am, the
    growth of the pool's used_bytes across the load."""
    before = pool_info(setup)
    load()
    _, am, _ = SETUPS[setup]
    use_setup(setup)
    heap_size = int(psql(DBS[am], "SELECT sum(pg_relation_size(c))::bigint FROM unnest("
                                  "ARRAY[%s]::regclass[]) c" % ",".join("'%s'" % t for t in tables))[0][0])
    rec = dict(workload="space", variant=label, setup=setup, am=am, status="ok",
               rel_bytes=heap_size, runs=1, runs_total=1)
    if before is not None:
        rec["pool_bytes"] = pool_info(setup)["used"] - before["used"]
    SPACE.append(rec)


def finish_space():
    """Space ratios: an nvm_am store's pool bytes / heap's relation size
    for the same tables (heap on tmpfs, else heap on disk)."""
    for r in SPACE:
        ref = [h for h in SPACE if h["variant"] == r["variant"] and h["am"] == "heap"]
        ref.sort(key=lambda h: h["setup"] != "heap")
        r["heap_bytes"] = ref[0]["rel_bytes"] if ref else None
        r["ratio_space"] = (r["pool_bytes"] / r["heap_bytes"]
                            if r.get("pool_bytes") is not None and r["heap_bytes"] else None)


def write_script(name, text):
    path = os.path.join(WORK, name)
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, 0o644)
    return path


# ----------------------------------------------------------------------
# workloads: each runs for every chosen set-up, the clusters side by side
# ----------------------------------------------------------------------

PGBENCH_TABLES = ["pgbench_accounts", "pgbench_branches", "pgbench_tellers", "pgbench_history"]
DROP_PGBENCH = "DROP TABLE IF EXISTS " + ", ".join(PGBENCH_TABLES)


def pgbench_init(setup, scale, label=None):
    """pgbench -i in setup's database (with the space it takes when label)."""
    _, am, _ = SETUPS[setup]

    def load():
        setup_psql(setup, DROP_PGBENCH)
        run_pg([PGBIN + "/pgbench", "-i", "-q", "-s", str(scale), DBS[am]], env=target_env(setup),
               timeout=3600)
    if label:
        load_with_space(setup, label, PGBENCH_TABLES, load)
    else:
        load()
    use_setup(setup)
    check_am(DBS[am], am, PGBENCH_TABLES)


def threads_for(clients):
    return min(clients, os.cpu_count() or 1)


def tpcb(cfg, setups, rows):
    label = "pgbench -i -s %d (4 tables)" % cfg["scale"]
    for s in stores(setups).values():
        log("== tpcb: pgbench -i -s %d, %s" % (cfg["scale"], s))
        pgbench_init(s, cfg["scale"], label)
    for clients in cfg["clients"]:
        variant = "scale %d, %d client%s" % (cfg["scale"], clients, "s" if clients > 1 else "")
        log("== tpcb %s, %d s per run" % (variant, cfg["duration"]))

        def run_one(s, clients=clients):
            _, am, _ = SETUPS[s]
            return pgbench_run(DBS[am], am, "tpcb_" + s, clients, cfg["duration"], env=target_env(s))
        rounds(cfg, rows, setups, "tpcb", variant, run_one)
    for s in stores(setups).values():
        setup_psql(s, DROP_PGBENCH)


INSERT_SCRIPT = """\\set id random(1, 1000000000)
INSERT INTO ins_t (id, v, pad) VALUES (:id, :id %% 1000, repeat('x', 100));
"""
BATCH_SCRIPT = """\\set id random(1, 1000000000)
INSERT INTO ins_t (id, v, pad) SELECT :id + g, g, repeat('x', 100) FROM generate_series(1, %d) g;
"""


def insert(cfg, setups, rows):
    for variant, text, per in (("1 row/txn, 2 clients", INSERT_SCRIPT % (), 1),
                               ("%d rows/txn, 2 clients" % cfg["batch_rows"],
                                BATCH_SCRIPT % cfg["batch_rows"], cfg["batch_rows"])):
        log("== insert %s, %d s per run" % (variant, cfg["duration"]))

        def prepare(s):
            _, am, _ = SETUPS[s]
            setup_psql(s, "DROP TABLE IF EXISTS ins_t; "
                          "CREATE TABLE ins_t (id bigint, v int, pad text)")
            check_am(DBS[am], am, ["ins_t"])

        def run_one(s, text=text, per=per, variant=variant):
            _, am, _ = SETUPS[s]
            script = write_script("insert.sql", text)
            # the batches run a fixed number of transactions, so that their
            # rows fit the pool on any machine (insert_batch_txns)
            res = pgbench_run(DBS[am], am, "insert_" + s, 2, cfg["duration"], script=script,
                              env=target_env(s),
                              txns=insert_batch_txns(cfg) if per > 1 else None)
            n = int(psql(DBS[am], "SELECT count(*) FROM ins_t", timeout=1200)[0][0])
            if res["status"] == "ok" and n != res["txns"] * per:
                note("insert %s %s: table has %d rows, pgbench reported %d transactions"
                     % (s, variant, n, res["txns"]))
            return res

        def cleanup(s):
            setup_psql(s, "DROP TABLE ins_t")
        rounds(cfg, rows, setups, "insert", variant, run_one, prepare, cleanup)


YCSB = """\\set k {dist}
\\set r random(1, 100)
\\if :r <= {reads}
SELECT field0 FROM usertable WHERE ycsb_key = :k;
\\else
UPDATE usertable SET field0 = md5(:r::text || :k::text) WHERE ycsb_key = :k;
\\endif
"""


def ycsb_load(setup, n, label=None):
    _, am, _ = SETUPS[setup]

    def load():
        setup_psql(setup, "DROP TABLE IF EXISTS usertable; CREATE TABLE usertable "
                          "(ycsb_key int PRIMARY KEY, field0 text, field1 text)")
        setup_psql(setup, "INSERT INTO usertable SELECT g, md5(g::text), md5((-g)::text) "
                          "FROM generate_series(1, %d) g" % n, timeout=1800)
        setup_psql(setup, "VACUUM ANALYZE usertable", timeout=1800)
    if label:
        load_with_space(setup, label, ["usertable"], load)
    else:
        load()
    use_setup(setup)
    check_am(DBS[am], am, ["usertable"])


def ycsb_rounds(cfg, rows, setups, workload, variant, script_text, clients, duration):
    def run_one(s):
        _, am, _ = SETUPS[s]
        script = write_script("ycsb.sql", script_text)
        return pgbench_run(DBS[am], am, "ycsb_" + s, clients, duration, script=script,
                           env=target_env(s), threads=threads_for(clients))
    rounds(cfg, rows, setups, workload, variant, run_one)


def ycsb(cfg, setups, rows):
    n = cfg["ycsb_rows"]
    for s in stores(setups).values():
        log("== ycsb: usertable, %d rows, %s" % (n, s))
        ycsb_load(s, n, "usertable %dk rows" % (n // 1000))
    for mix, reads in (("A", 50), ("B", 95)):
        for dist, expr in (("uniform", "random(1, %d)" % n),
                           ("zipfian", "random_zipfian(1, %d, 1.1)" % n)):
            variant = "%s (%d/%d) %s" % (mix, reads, 100 - reads, dist)
            log("== ycsb %s, %d s per run" % (variant, cfg["duration"]))
            ycsb_rounds(cfg, rows, setups, "ycsb", variant,
                        YCSB.format(dist=expr, reads=reads), 2, cfg["duration"])
    for s in stores(setups).values():
        setup_psql(s, "DROP TABLE usertable")


CONTENTION_SETUPS = ("heap", "nvm_am")


def contention(cfg, setups, rows):
    """TPC-B and YCSB-A (uniform) with many clients: heap against nvm_am."""
    chosen = [s for s in setups if s in CONTENTION_SETUPS]
    if not chosen:
        return
    n = cfg["ycsb_rows"]
    d = cfg["contention_duration"]
    for s in chosen:
        log("== contention: pgbench -i -s %d and usertable %d rows, %s" % (cfg["scale"], n, s))
        pgbench_init(s, cfg["scale"])
        ycsb_load(s, n)
    for clients in cfg["contention_clients"]:
        variant = "tpcb scale %d, %d clients, -j %d" % (cfg["scale"], clients, threads_for(clients))
        log("== contention %s, %d s per run" % (variant, d))

        def run_one(s, clients=clients):
            _, am, _ = SETUPS[s]
            return pgbench_run(DBS[am], am, "cont_tpcb_" + s, clients, d, env=target_env(s),
                               threads=threads_for(clients))
        rounds(cfg, rows, chosen, "contention", variant, run_one)
    for clients in cfg["contention_clients"]:
        variant = "ycsb A (50/50) uniform, %d clients, -j %d" % (clients, threads_for(clients))
        log("== contention %s, %d s per run" % (variant, d))
        ycsb_rounds(cfg, rows, chosen, "contention", variant,
                    YCSB.format(dist="random(1, %d)" % n, reads=50), clients, d)
    for s in chosen:
        setup_psql(s, DROP_PGBENCH + "; DROP TABLE usertable")


Q1 = """SELECT l_returnflag, l_linestatus, sum(l_quantity), sum(l_extendedprice),
  sum(l_extendedprice * (1 - l_discount)), sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)),
  avg(l_quantity), avg(l_extendedprice), avg(l_discount), count(*)
FROM lineitem WHERE l_shipdate <= date '1998-12-01' - interval '90 day'
GROUP BY l_returnflag, l_linestatus ORDER BY l_returnflag, l_linestatus"""

Q6 = """SELECT sum(l_extendedprice * l_discount) FROM lineitem
WHERE l_shipdate >= date '1994-01-01' AND l_shipdate < date '1995-01-01'
  AND l_discount BETWEEN 0.05 AND 0.07 AND l_quantity < 24"""

LINEITEM = """CREATE TABLE lineitem AS
SELECT g AS l_orderkey, ((g % 7) + 1)::int AS l_linenumber,
       ((g * 7919) % 50 + 1)::numeric(15,2) AS l_quantity,
       ((g * 104729) % 100000 / 100.0 + 900)::numeric(15,2) AS l_extendedprice,
       ((g * 31) % 11 / 100.0)::numeric(15,2) AS l_discount,
       ((g * 17) % 9 / 100.0)::numeric(15,2) AS l_tax,
       substr('ANR', (g % 3 + 1)::int, 1)::char(1) AS l_returnflag,
       substr('FO', (g % 2 + 1)::int, 1)::char(1) AS l_linestatus,
       date '1992-01-01' + (g * 13 % 2500)::int AS l_shipdate,
       md5(g::text) AS l_comment
FROM generate_series(1::bigint, {n}) g"""

ANSWERS = {}


def timed_query(setup, sql, runs):
    """Run sql runs times in one session; the per-run times in ms and the
    user + system CPU seconds of the backend for each (/proc/<pid>/stat)."""
    _, am, _ = SETUPS[setup]
    hz = os.sysconf("SC_CLK_TCK")
    stat = os.path.join(WORK, "cpu_%d.txt")
    lines = ["SELECT pg_backend_pid() AS pid \\gset", "\\setenv BACKEND_PID :pid", "\\timing on"]
    for i in range(runs):
        lines.append("\\! cat /proc/$BACKEND_PID/stat > %s" % (stat % (2 * i)))
        lines.append(sql + ";")
        lines.append("\\! cat /proc/$BACKEND_PID/stat > %s" % (stat % (2 * i + 1)))
    path = write_script("query.sql", "\n".join(lines) + "\n")
    out, _, _ = run_pg([PGBIN + "/psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", DBS[am],
                        "-f", path], env=target_env(setup), timeout=3600)
    times = [float(x) for x in re.findall(r"Time: ([\d.]+) ms", out)][-runs:]
    cpu = []
    for i in range(runs):
        with open(stat % (2 * i)) as f:
            a = f.read().rsplit(")", 1)[1].split()
        with open(stat % (2 * i + 1)) as f:
            b = f.read().rsplit(")", 1)[1].split()
        cpu.append(((int(b[11]) - int(a[11])) / hz, (int(b[12]) - int(a[12])) / hz))
    body = "\n".join(x for x in out.splitlines() if not x.startswith("Time:"))
    return times, cpu, body


def add_load_row(rows, setup, variant, n, timings):
    """The "load" row of setup: the median of the runs' times (timings:
    dicts of elapsed seconds and measured bytes, delta), n rows a run."""
    ts = [t["elapsed"] for t in timings]
    med = statistics.median(ts)
    res = dict(status="ok", detail="", txns=n * len(ts), time_s=med, tps=n / med,
               samples=ts, runs=len(ts), runs_total=len(ts),
               wal_bytes=sum(t["delta"]["wal"] for t in timings),
               pmem_bytes=sum(t["delta"]["pmem"] for t in timings),
               page_bytes=sum(t["delta"]["pages"] for t in timings))
    add_row(rows, setup, "load", variant, res, unit="row")


def copy_load(cfg, owners, rows, n):
    """COPY of lineitem's rows (written to a file once, from the first
    store) into an empty table made in an earlier transaction: a
    multi-insert that is not the load of new storage.  cfg["runs"] rounds,
    stores alternated; the "load ... COPY" row: median time."""
    variant = "COPY %dk rows into a table" % (n // 1000)
    cfile = "/dev/shm/nvm_bench_lineitem.copy"
    setup_psql(owners[0], "COPY lineitem TO '%s'" % cfile, timeout=3600)
    times = {s: [] for s in owners}
    try:
        for rnd in range(cfg["runs"]):
            for setup in rotation(owners, rnd):
                _, am, _ = SETUPS[setup]
                db = DBS[am]
                setup_psql(setup, "DROP TABLE IF EXISTS lineitem_copy")
                setup_psql(setup, "CREATE TABLE lineitem_copy (LIKE lineitem)")
                use_setup(setup)
                check_am(db, am, ["lineitem_copy"])
                start = begin_measure(db)
                t0 = time.monotonic()
                setup_psql(setup, "COPY lineitem_copy FROM '%s'" % cfile, timeout=3600)
                elapsed = time.monotonic() - t0
                use_setup(setup)
                delta = end_measure(db, start)
                setup_psql(setup, "DROP TABLE lineitem_copy")
                times[setup].append(dict(elapsed=elapsed, delta=delta))
                log("   COPY %d/%d %-15s %.3f s" % (rnd + 1, cfg["runs"], setup, elapsed))
    finally:
        if os.path.exists(cfile):
            os.unlink(cfile)
    for setup in owners:
        add_load_row(rows, setup, variant, n, times[setup])


def read_modes_paired(cfg, setups):
    """The two read modes of nvm_am (redirect and copy) on Q1 and Q6, in one
    session of the nvm_am set-up: cfg["mode_pairs"] pairs of runs, the
    setting changed before each run and the order of a pair alternated.
    The TPC-H rows compare rounds minutes apart, in which this kind of
    machine can run at different speeds (times moved by a factor of two
    between rounds); the runs of a pair are a second or two apart.  Adds a
    line to INFO per query and writes read_modes.csv: the median of the
    pairs' ratios (redirect time / copy time), how many pairs redirect won,
    and each mode's median time."""
    if "nvm_am" not in setups or "nvm_am-copy" not in setups:
        return
    setup = "nvm_am"
    _, am, _ = SETUPS[setup]
    pairs = cfg["mode_pairs"]
    found = []
    for qname, q in (("Q1", Q1), ("Q6", Q6)):
        lines = [q + ";", "\\timing on"]
        order = []
        for i in range(pairs):
            for mode in (("redirect", "copy") if i % 2 == 0 else ("copy", "redirect")):
                lines += ["\\timing off", "SET nvm_am.read_mode = %s;" % mode, "\\timing on",
                          q + ";"]
                order.append(mode)
        path = write_script("modes.sql", "\n".join(lines) + "\n")
        use_setup(setup)
        out, _, _ = run_pg([PGBIN + "/psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", DBS[am],
                            "-f", path], env=target_env(setup), timeout=3600)
        times = [float(x) for x in re.findall(r"Time: ([\d.]+) ms", out)]
        times = times[-len(order):]
        got = {"redirect": [], "copy": []}
        for mode, t in zip(order, times):
            got[mode].append(t)
        ratios = [r / c for r, c in zip(got["redirect"], got["copy"])]
        med = statistics.median(ratios)
        won = sum(1 for x in ratios if x < 1)
        found.append(dict(query=qname, pairs=pairs, ratio_median=round(med, 3),
                          ratio_min=round(min(ratios), 3), ratio_max=round(max(ratios), 3),
                          redirect_won=won, redirect_ms=round(statistics.median(got["redirect"]), 1),
                          copy_ms=round(statistics.median(got["copy"]), 1)))
        INFO.append("read modes, %s warm, one session, %d pairs (setting changed before each run): "
                    "redirect / copy time median %.3f (pairs %.2f-%.2f), redirect faster in %d of "
                    "%d; medians redirect %.1f ms, copy %.1f ms"
                    % (qname, pairs, med, min(ratios), max(ratios), won, pairs,
                       statistics.median(got["redirect"]), statistics.median(got["copy"])))
        log("   read modes %s: redirect/copy %.3f, redirect faster in %d/%d" % (qname, med, won, pairs))
    write_csv(found, os.path.join(RESULTS, "read_modes.csv"), list(found[0].keys()))


def tpch(cfg, setups, rows):
    """Load lineitem into every store cfg["runs"] times, stores alternated
    (the "load" row: median time; the space: the first load), then
    cfg["runs"] rounds of Q1 and Q6, set-ups alternated, each query on a
    cluster restarted just before it: cold = its first run, warm = the
    next scan_runs; the rows give medians over all rounds."""
    n = cfg["lineitem"]
    variant = "lineitem %dk rows" % (n // 1000)
    owners = list(stores(setups).values())
    loads = {s: [] for s in owners}
    for rnd in range(cfg["runs"]):
        for setup in rotation(owners, rnd):
            _, am, _ = SETUPS[setup]
            db = DBS[am]
            log("== lineitem, %d rows, %s: load %d/%d" % (n, setup, rnd + 1, cfg["runs"]))
            use_setup(setup)
            setup_psql(setup, "DROP TABLE IF EXISTS lineitem")
            timing = {}

            def load(setup=setup, db=db, timing=timing):
                start = begin_measure(db)
                t0 = time.monotonic()
                setup_psql(setup, LINEITEM.replace("{n}", str(n)), timeout=3600)
                timing["elapsed"] = time.monotonic() - t0
                setup_psql(setup, "VACUUM ANALYZE lineitem", timeout=3600)
                use_setup(setup)
                timing["delta"] = end_measure(db, start)
            if rnd == 0:
                load_with_space(setup, variant, ["lineitem"], load)
            else:
                load()
            check_am(db, am, ["lineitem"])
            loads[setup].append(timing)
            log("   load %d/%d %-15s %.3f s" % (rnd + 1, cfg["runs"], setup, timing["elapsed"]))
    for setup in owners:
        add_load_row(rows, setup, variant, n, loads[setup])
    copy_load(cfg, owners, rows, n)

    sizes = {}
    per = {}
    for rnd in range(cfg["runs"]):
        for setup in rotation(setups, rnd):
            _, am, _ = SETUPS[setup]
            use_setup(setup)
            sizes.setdefault(setup, int(psql(DBS[am], "SELECT pg_relation_size('lineitem')")[0][0]))
            for qname, q in (("Q1", Q1), ("Q6", Q6)):
                use_setup(setup)
                cluster_helper("cluster_restart", WORK)        # cold: empty caches
                times, cpu, body = timed_query(setup, q, cfg["scan_runs"] + 1)
                if ANSWERS.setdefault(qname, body) != body:
                    note("%s on %s returned another answer than on heap" % (qname, setup))
                for temp, ts, cs in (("cold", times[:1], cpu[:1]), ("warm", times[1:], cpu[1:])):
                    got = per.setdefault((setup, qname, temp), ([], []))
                    got[0].extend(ts)
                    got[1].extend(cs)
                log("   round %d/%d %-15s %s cold %.1f ms, warm %s ms"
                    % (rnd + 1, cfg["runs"], setup, qname, times[0],
                       " ".join("%.1f" % t for t in times[1:])))
    for setup in setups:
        for qname in ("Q1", "Q6"):
            for temp in ("cold", "warm"):
                ts, cs = per[(setup, qname, temp)]
                med = statistics.median(ts)
                res = dict(status="ok", detail="", txns=len(ts), time_s=med / 1000.0,
                           tps=1000.0 / med, lat_p50_ms=med, lat_avg_ms=statistics.mean(ts),
                           cpu_user_s=statistics.median(c[0] for c in cs),
                           cpu_sys_s=statistics.median(c[1] for c in cs),
                           wal_bytes=0, pmem_bytes=0, page_bytes=0,
                           samples=[t / 1000.0 for t in ts], runs=len(ts), runs_total=len(ts))
                add_row(rows, setup, "tpch", "%s %s, %d MB" % (qname, temp, sizes[setup] >> 20),
                        res, unit="query", units=0)
    read_modes_paired(cfg, setups)
    for setup in owners:
        setup_psql(setup, "DROP TABLE lineitem")


def crash_during_pgbench(db, env, run_s, clients=2):
    """Run pgbench TPC-B for run_s seconds, SIGKILL the postmaster and its
    children, start the server again and wait until a query on
    pgbench_branches is answered.  Returns (answered, seconds from the
    SIGKILL to the answer, seconds of it spent waiting for the killed
    processes to be reaped)."""
    load = popen_pg([PGBIN + "/pgbench", "-n", "-c", str(clients), "-T", str(run_s + 30), db],
                    env=env)
    time.sleep(run_s)
    pids = server_pids()
    t0 = time.monotonic()
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    load.communicate()
    # a killed postmaster lingers as a zombie until PID 1 reaps it, and
    # a new one refuses to start while the old PID exists
    while any(os.path.exists("/proc/%d" % p) for p in pids) and time.monotonic() - t0 < 60:
        time.sleep(0.01)
    t_gone = time.monotonic()
    run_pg([PGBIN + "/pg_ctl", "-D", os.path.join(WORK, "data"), "-l",
            os.path.join(WORK, "server.log"), "-t", "600", "start"], timeout=900)
    ok = False
    while time.monotonic() - t0 < 600:
        _, _, rc = run_pg([PGBIN + "/psql", "-X", "-q", "-d", db, "-c",
                           "SELECT count(*) FROM pgbench_branches"], check=False)
        if rc == 0:
            ok = True
            break
        time.sleep(0.02)
    return ok, time.monotonic() - t0, t_gone - t0


def crash(cfg, setups, rows):
    """SIGKILL the postmaster and its children during a TPC-B run; time
    until the first query on the benchmark tables is answered again.  Per
    data size: pgbench -i in every set-up, then cfg["runs"] rounds, set-ups
    alternated, each a CHECKPOINT (recovery then replays the run, not the
    load: heap's WAL of the load would otherwise be replayed too), a 3 s
    TPC-B run and the kill."""
    crashers = [s for s in setups if not s.endswith("-copy")]   # -copy: nvm_am's storage
    for scale in cfg["crash_scales"]:
        sizes = {}
        for setup in crashers:
            _, am, _ = SETUPS[setup]
            log("== crash, scale %d, %s: pgbench -i" % (scale, setup))
            pgbench_init(setup, scale)
            use_setup(setup)
            sizes[setup] = int(psql(DBS[am], "SELECT pg_total_relation_size('pgbench_accounts')")[0][0])
        per = {s: [] for s in crashers}
        for rnd in range(cfg["runs"]):
            for setup in rotation(crashers, rnd):
                _, am, _ = SETUPS[setup]
                db = DBS[am]
                use_setup(setup)
                checkpoint(db)
                env = target_env(setup)
                env["PGAPPNAME"] = "pgbench"
                ok, elapsed, gone_s = crash_during_pgbench(db, env, 3)
                if not ok:
                    note("crash %s scale %d: no answer within 600 s" % (setup, scale))
                per[setup].append((ok, elapsed, gone_s))
                log("   round %d/%d %-15s scale %d: %s %.3f s (%.3f s reaping)"
                    % (rnd + 1, cfg["runs"], setup, scale, "answered after" if ok else "no answer",
                       elapsed, gone_s))
        for setup in crashers:
            done = [p for p in per[setup] if p[0]]
            times = [p[1] for p in done]
            res = dict(status="ok" if len(done) == len(per[setup]) else "error",
                       detail=("median %.3f s of it waiting for the killed processes to be reaped"
                               % statistics.median(p[2] for p in done)) if done else "",
                       txns=len(done), time_s=statistics.median(times) if times else None,
                       restart_s=statistics.median(p[1] - p[2] for p in done) if done else None,
                       tps=None, wal_bytes=0, pmem_bytes=0, page_bytes=0, samples=times,
                       runs=len(done), runs_total=len(per[setup]))
            add_row(rows, setup, "crash", "scale %d (%d MB)" % (scale, sizes[setup] >> 20), res,
                    unit="restart", units=0)
        for setup in crashers:
            setup_psql(setup, DROP_PGBENCH)


WORKLOADS = (("tpcb", tpcb), ("insert", insert), ("ycsb", ycsb), ("contention", contention),
             ("tpch", tpch), ("crash", crash))


# ----------------------------------------------------------------------
# the machine
# ----------------------------------------------------------------------

def machine_info():
    model, flags = "?", []
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name") and model == "?":
                    model = line.split(":", 1)[1].strip()
                elif line.startswith("flags") and not flags:
                    fl = line.split(":", 1)[1].split()
                    flags = [x for x in ("clwb", "clflushopt", "clflush") if x in fl]
    except OSError:
        pass
    mem = 0
    try:
        with open("/proc/meminfo") as f:
            mem = int(f.readline().split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return dict(cores=os.cpu_count(), model=model, kernel=os.uname().release,
                mem_gib=mem / 2 ** 30, flush=" ".join(flags) or "?")


def persist_cost():
    """Compile bench/persist_cost.c and run it on /dev/shm (with
    PMEM_IS_PMEM_FORCE=1, like the pool) and on /var/tmp (without).
    Returns {place: {method: ns, "is_pmem": 0/1}} or None."""
    tmp = tempfile.mkdtemp(prefix="nvm_bench_pc.")
    exe = os.path.join(tmp, "persist_cost")
    try:
        r = subprocess.run(["gcc", "-O2", "-o", exe, os.path.join(ROOT, "bench", "persist_cost.c"),
                            "-lpmem"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if r.returncode != 0:
            note("persist_cost.c did not compile (libpmem-dev installed?): %s"
                 % r.stdout.strip().splitlines()[-1:])
            return None
        out = {}
        for place, path, force in (("/dev/shm", "/dev/shm/nvm_bench_persist_cost.%d" % os.getpid(), True),
                                   ("/var/tmp", "/var/tmp/nvm_bench_persist_cost.%d" % os.getpid(), False)):
            env = dict(os.environ)
            env.pop("PMEM_IS_PMEM_FORCE", None)
            if force:
                env["PMEM_IS_PMEM_FORCE"] = "1"
            r = subprocess.run([exe, path], env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, timeout=120)
            if r.returncode != 0:
                note("persist_cost on %s failed: %s" % (place, r.stdout.strip()))
                continue
            out[place] = {line.rsplit(" ", 1)[0]: float(line.rsplit(" ", 1)[1])
                          for line in r.stdout.splitlines() if " " in line}
        return out
    except (OSError, subprocess.SubprocessError) as e:
        note("persist_cost: %s" % e)
        return None
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def ns(v):
    return "%.0f ns" % v if v < 10000 else "%.0f us" % (v / 1000.0)


# ----------------------------------------------------------------------
# reporting
# ----------------------------------------------------------------------

def fmt(v, spec):
    return "-" if v is None else format(v, spec)


def mib(v):
    return None if v is None else v / 1048576.0


def summary(r):
    spread = ""
    if r.get("runs_total", 1) > 1 and r.get("tps_min") is not None:
        spread = " (%s-%s, %d/%d runs)" % (fmt(r["tps_min"], ".0f"), fmt(r["tps_max"], ".0f"),
                                          r["runs"], r["runs_total"])
    return "%s: tps %s%s, time %s s, p99 %s ms, bytes/%s %s" % (
        r["status"], fmt(r.get("tps"), ".1f"), spread, fmt(r.get("time_s"), ".3f"),
        fmt(r.get("lat_p99_ms"), ".3f"), r["unit"], fmt(r.get("bytes_per_txn"), ".0f"))


def ratio(a, b):
    if a is None or b is None or b == 0:
        return None
    return a / b


TIMED = ("load", "tpch", "crash")     # lower is better: time, not tps


def add_ratios(rows):
    """ratio_* = set-up / heap (medians); ratio_min / ratio_max: the range
    min(set-up)/max(heap) .. max(set-up)/min(heap) of the measured value
    (tps, or time for TIMED rows) when both have at least 2 samples."""
    heap = {(r["workload"], r["variant"]): r for r in rows if r["setup"] == "heap"}
    for r in rows:
        h = heap.get((r["workload"], r["variant"]))
        for k in ("tps", "time_s", "lat_p99_ms", "bytes_per_txn"):
            r["ratio_" + k] = ratio(r.get(k), h.get(k)) if h else None
        r["ratio_min"] = r["ratio_max"] = r["ratio_overlaps_1"] = None
        a, b = r.get("samples") or [], (h or {}).get("samples") or []
        if h is not None and r is not h and len(a) >= 2 and len(b) >= 2 and min(b) > 0:
            r["ratio_min"], r["ratio_max"] = min(a) / max(b), max(a) / min(b)
            r["ratio_overlaps_1"] = int(r["ratio_min"] <= 1.0 <= r["ratio_max"])


CSV_FIELDS = ["workload", "variant", "setup", "am", "status", "unit", "runs", "runs_total", "txns",
              "tps", "tps_median", "tps_min", "tps_max", "time_s", "restart_s",
              "lat_avg_ms", "lat_p50_ms", "lat_p99_ms", "cpu_user_s", "cpu_sys_s",
              "bytes_per_txn", "wal_per_txn", "pmem_per_txn", "pages_per_txn", "pss_bytes",
              "ratio_tps", "ratio_time_s", "ratio_min", "ratio_max", "ratio_overlaps_1",
              "ratio_lat_p99_ms", "ratio_bytes_per_txn", "pool_growth",
              "rel_bytes", "pool_bytes", "heap_bytes", "ratio_space", "seq_share", "detail"]
RUN_FIELDS = ["workload", "variant", "setup", "round", "position", "status", "tps", "txns",
              "elapsed_s", "lat_avg_ms", "lat_p50_ms", "lat_p99_ms", "tps_q1", "tps_q4",
              "bytes_per_txn", "wal_per_txn", "pmem_per_txn", "pages_per_txn",
              "pool_free_before", "pool_growth", "seq_scans", "idx_scans", "detail"]


def write_csv(rows, path, fields=CSV_FIELDS):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore")
        w.writeheader()
        for r in rows:
            w.writerow({k: (("%.6g" % v) if isinstance(v, float) else v)
                        for k, v in r.items() if k in fields})


def ratio_cell(r, key):
    if r["setup"] == "heap":
        return "1"
    v = r.get(key)
    if v is None:
        return "-"
    return ("~" if r.get("ratio_overlaps_1") else "") + format(v, ".2f")


def plan_lines(rows):
    """One line per TPC-B row: each set-up's share of sequential scans of
    branches and tellers, marked * when a set-up's share differs from
    heap's by more than a quarter."""
    lines = []
    for wl, variant in dict.fromkeys((r["workload"], r["variant"]) for r in rows):
        got = [(r["setup"], r["seq_share"]) for r in rows
               if (r["workload"], r["variant"]) == (wl, variant) and r.get("seq_share") is not None]
        if not got:
            continue
        heap = dict(got).get("heap")
        differs = heap is not None and any(abs(v - heap) > 0.25 for _, v in got)
        lines.append("%s%s %s: %s" % ("* " if differs else "  ", wl, variant,
                                       ", ".join("%s %.0f %%" % (st, 100 * v) for st, v in got)))
    return lines


def print_table(rows, cfg, quick, pool_bytes, machine=None, persist=None):
    print()
    print("nvm_am against heap (%s run; ratio = set-up / heap on tmpfs; for load, tpch and "
          "crash the time, else tps)" % ("quick" if quick else "full"))
    if machine:
        print("machine: %s cores (os.cpu_count), %s, kernel %s, %.1f GiB RAM, flush instructions: %s"
              % (machine["cores"], machine["model"], machine["kernel"], machine["mem_gib"],
                 machine["flush"]))
    if persist:
        parts = []
        shm = persist.get("/dev/shm")
        if shm:
            parts.append("/dev/shm (the pools' file system, PMEM_IS_PMEM_FORCE=1, is_pmem %d): "
                         "pmem_persist %s, pmem_flush + pmem_drain %s"
                         % (shm.get("is_pmem", -1), ns(shm["persist"]), ns(shm["flush+drain"])))
        tmp = persist.get("/var/tmp")
        if tmp:
            parts.append("/var/tmp (disk, is_pmem %d): pmem_msync %s"
                         % (tmp.get("is_pmem", -1), ns(tmp["msync"])))
        print("cost of making 64 bytes durable (bench/persist_cost.c): " + "; ".join(parts))
    else:
        print("cost of making 64 bytes durable: not measured (see PROBLEMS)")
    print("What moves these ratios between machines: nvm_am commits by a 64-byte flush + drain "
          "into the pool, heap by a WAL write + fsync (nearly free on tmpfs), so the flush/drain "
          "cost of the pool's medium against the fsync cost of the WAL's decides the commit-bound "
          "rows; the core count decides how many backends contend on shared locks (2 cores: more "
          "clients than cores measure the scheduler as much as the engine).")
    print("method: pgbench rows: %d runs per set-up of %d s each (contention: %d s, -j = min(clients, "
          "cores)), set-ups alternated in rounds (order rotated each round), all clusters up at "
          "the same time; tps = median of the runs, tps min-max = their spread"
          % (cfg["runs"], cfg["duration"], cfg["contention_duration"]))
    print("ratio = median(set-up) / median(heap); range = min(set-up)/max(heap) .. max(set-up)/"
          "min(heap); \"~\" before a ratio: its range includes 1.0, the runs do not separate the "
          "set-up from heap; load, tpch and crash: %d rounds too, alternated (load: a load per "
          "round; tpch: a restart per round and query, cold = its first run, warm = the %d after it; "
          "crash: a CHECKPOINT, 3 s of TPC-B and the kill per round)"
          % (cfg["runs"], cfg["scan_runs"]))
    hdr = ("workload", "variant", "set-up", "runs", "tps", "tps min-max", "time s", "ratio",
           "ratio range", "bytes/unit", "WAL", "pool", "pages", "p50 ms", "p99 ms", "cpu u/s", "PSS MB")
    table = [hdr]
    for r in rows:
        timed = r["workload"] in TIMED
        has = r.get("runs", 0) > 0 and (r.get("tps") is not None or r.get("time_s") is not None)
        key = "ratio_time_s" if timed else "ratio_tps"
        cpu = ("%.2f/%.2f" % (r["cpu_user_s"], r["cpu_sys_s"])) if r.get("cpu_user_s") is not None else "-"
        runs = ("%d" % r["runs"]) if r["runs"] == r["runs_total"] else "%d/%d" % (r["runs"], r["runs_total"])
        table.append((r["workload"], r["variant"], r["setup"], runs,
                      fmt(r.get("tps"), ".0f") if has and not timed else "-",
                      "%.0f-%.0f" % (r["tps_min"], r["tps_max"])
                      if has and not timed and r.get("tps_min") is not None and r["runs_total"] > 1 else "-",
                      (fmt(r.get("time_s"), ".3f") + (" (%.2f)" % r["restart_s"] if r.get("restart_s") else ""))
                      if has and timed else "-",
                      ratio_cell(r, key),
                      "%.2f-%.2f" % (r["ratio_min"], r["ratio_max"]) if r.get("ratio_min") is not None else "-",
                      (fmt(r.get("bytes_per_txn"), ".0f") + "/" + r["unit"]) if has and r.get("bytes_per_txn") is not None else "-",
                      fmt(r.get("wal_per_txn"), ".0f"), fmt(r.get("pmem_per_txn"), ".0f"),
                      fmt(r.get("pages_per_txn"), ".0f"),
                      fmt(r.get("lat_p50_ms"), ".2f"), fmt(r.get("lat_p99_ms"), ".2f"), cpu,
                      fmt(r.get("pss_bytes", 0) / 1048576.0, ".0f")))
    widths = [max(len(str(row[i])) for row in table) for i in range(len(hdr))]
    for i, row in enumerate(table):
        print("  ".join(str(c).ljust(w) if j < 3 else str(c).rjust(w)
                        for j, (c, w) in enumerate(zip(row, widths))).rstrip())
        if i == 0:
            print("  ".join("-" * w for w in widths))
    plans = plan_lines(rows)
    if plans:
        print()
        print("TPC-B's plans: share of the scans of pgbench_branches and pgbench_tellers that were "
              "sequential (the generic plans of its UPDATEs scan them while they are small and use "
              "their indexes once they have grown; how far they grow depends on the engine's "
              "pruning, so rows marked * compare different plans as well as the engines):")
        for line in plans:
            print("  " + line)
    if SPACE:
        print()
        print("space after load: pool bytes the nvm_am tables took (delta of nvm_am_pool_info()."
              "used_bytes across the load: data frames, the log areas of log frames, page tables, "
              "directory) / pg_relation_size of the heap tables with the same rows (main fork "
              "only; indexes, FSM and VM not counted on either side); goal <= 1.15")
        sp = [("workload", "tables", "set-up", "heap MB", "pool MB", "space")]
        for r in SPACE:
            if r["am"] != "nvm_am":
                continue
            sp.append(("space", r["variant"], r["setup"], fmt(mib(r.get("heap_bytes")), ".1f"),
                       fmt(mib(r.get("pool_bytes")), ".1f"), fmt(r.get("ratio_space"), ".2f")))
        widths = [max(len(str(row[i])) for row in sp) for i in range(len(sp[0]))]
        for i, row in enumerate(sp):
            print("  ".join(str(c).ljust(w) if j < 3 else str(c).rjust(w)
                            for j, (c, w) in enumerate(zip(row, widths))).rstrip())
            if i == 0:
                print("  ".join("-" * w for w in widths))
    print()
    print("Peak memory (PSS of all server processes; shared memory and the mapped pool are "
          "shared out among the processes that touch them):")
    for setup in PEAK:
        cl = SETUPS[setup][0]
        print("  %-15s %6.0f MB%s" % (setup, PEAK[setup] / 1048576.0,
                                      ("   (pool file %d MB, cluster %s)" % (pool_bytes.get(cl, 0) >> 20, cl))
                                      if SETUPS[setup][1] == "nvm_am" else ""))
    print("bytes/unit = WAL + pool + 8 kB page writes (counted after a final CHECKPOINT), summed "
          "over the runs of a row; p50/p99: commit latency from pgbench --log, median of the runs;")
    print("tpch: median time per query, cpu u/s = user/system CPU seconds of the backend; "
          "crash: SIGKILL to first answered query")
    print("(in brackets: from the restart to the answer, without the wait for the killed "
          "processes to be reaped).")
    for i in INFO:
        print(i)
    if NOTES:
        print()
        print("PROBLEMS:")
        for n in NOTES:
            print("  " + n)


def plot(rows, outdir):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    setups = [s for s in SETUPS if any(r["setup"] == s for r in rows)]
    colors = {"heap": "#4477aa", "heap-disk": "#66ccee", "nvm_am": "#ee7733",
              "nvm_am-copy": "#ccbb44", "nvm_am-ipl-off": "#aa3377",
              "nvm_am-wal": "#228833"}
    workloads = [w for w, _ in WORKLOADS if any(r["workload"] == w for r in rows)]
    if any(r["workload"] == "load" for r in rows):
        workloads.insert(workloads.index("tpch") if "tpch" in workloads else len(workloads), "load")
    if not workloads:
        return

    def grouped(fname, title, value, ylabel, log_scale=False, spread=None):
        fig, axes = plt.subplots(1, len(workloads), figsize=(3.4 * len(workloads), 3.6))
        if len(workloads) == 1:
            axes = [axes]
        for ax, wl in zip(axes, workloads):
            variants = []
            for r in rows:
                if r["workload"] == wl and r["variant"] not in variants:
                    variants.append(r["variant"])
            width = 0.8 / max(1, len(setups))
            for i, s in enumerate(setups):
                vals, lo, hi = [], [], []
                for v in variants:
                    r = next((x for x in rows if x["workload"] == wl and x["variant"] == v
                              and x["setup"] == s), None)
                    val = value(r) if r and r.get("runs") and value(r) else 0
                    vals.append(val)
                    mn, mx = spread(r) if spread and r and val else (None, None)
                    lo.append(val - mn if mn is not None else 0)
                    hi.append(mx - val if mx is not None else 0)
                xs = [j + (i - (len(setups) - 1) / 2.0) * width for j in range(len(variants))]
                ax.bar(xs, vals, width, color=colors.get(s, "grey"), label=s,
                       yerr=[lo, hi] if spread else None, error_kw=dict(lw=0.6, capsize=1.5))
            ax.set_xticks(range(len(variants)))
            ax.set_xticklabels([v.replace(", ", "\n").replace(" (", "\n(") for v in variants],
                               fontsize=6)
            ax.set_title(wl, fontsize=9)
            ax.set_ylabel(ylabel(wl), fontsize=7)
            ax.tick_params(axis="y", labelsize=7)
            if log_scale:
                ax.set_yscale("log")
        axes[0].legend(fontsize=6)
        fig.suptitle(title, fontsize=9)
        fig.tight_layout()
        fig.savefig(os.path.join(outdir, fname), dpi=72)
        plt.close(fig)

    def tps_spread(r):
        if r["workload"] in TIMED:
            s = r.get("samples") or []
            return (min(s), max(s)) if len(s) > 1 else (None, None)
        return r.get("tps_min"), r.get("tps_max")

    grouped("throughput.png", "throughput (tps, median; bars: min-max of the runs), or time for "
            "load / tpch / crash (lower is better)",
            lambda r: r.get("time_s") if r["workload"] in TIMED else r.get("tps"),
            lambda wl: "seconds" if wl in TIMED else "transactions/s", spread=tps_spread)
    grouped("bytes_per_txn.png", "bytes written to durable media per unit (log scale)",
            lambda r: r.get("bytes_per_txn"), lambda wl: "bytes", log_scale=True)
    grouped("latency.png", "commit latency p99 (ms, median of the runs)", lambda r: r.get("lat_p99_ms"),
            lambda wl: "ms")


# ----------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="small scale, short runs (about 7.5 min)")
    ap.add_argument("--only", default=",".join(w for w, _ in WORKLOADS),
                    help="comma-separated subset of " + ",".join(w for w, _ in WORKLOADS))
    ap.add_argument("--setups", default=",".join(SETUPS),
                    help="comma-separated subset of " + ",".join(SETUPS))
    ap.add_argument("--runs", type=int, default=None,
                    help="runs per set-up of every pgbench row (default and minimum 3)")
    opts = ap.parse_args()
    cfg = dict(QUICK if opts.quick else FULL)
    if opts.runs is not None:
        if opts.runs < 3:
            ap.error("--runs: at least 3 runs per set-up")
        cfg["runs"] = opts.runs
    only = opts.only.split(",")
    unknown = [w for w in only if w not in dict(WORKLOADS)]
    if unknown:
        ap.error("unknown workload(s): %s" % ",".join(unknown))
    chosen = [s for s in SETUPS if s in opts.setups.split(",")]
    if not chosen:
        ap.error("no known set-up in --setups")
    os.makedirs(RESULTS, exist_ok=True)

    def on_signal(signum, frame):
        raise SystemExit("interrupted by signal %d" % signum)
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGHUP, on_signal)

    t0 = time.monotonic()
    check_library()
    machine = machine_info()
    persist = persist_cost()
    log("== machine: %s; persist cost: %s" % (machine, persist))
    rows = []
    pool_bytes = {}
    clusters = [c for c in CLUSTERS if any(SETUPS[s][0] == c for s in chosen)]
    for c in clusters:
        ipl = CLUSTERS[c][5]
        POOL_MB[c] = pool_mb(cfg, ipl, cfg["runs"]) if ipl is not None else 128
    shm_free = shutil.disk_usage("/dev/shm").free // 2 ** 20
    shm_need = sum(POOL_MB.values()) + 2048      # the pools, and data directories on tmpfs
    log("== /dev/shm: %d MB free, about %d MB needed (pools %s)" % (shm_free, shm_need, POOL_MB))
    if shm_free < shm_need:
        note("/dev/shm has %d MB free, the pools and tmpfs data directories need about %d MB: "
             "runs may fail for lack of space (a bigger /dev/shm: mount -o remount,size=...)"
             % (shm_free, shm_need))
    try:
        for c in clusters:
            _, _, _, conf, ams, ipl = CLUSTERS[c]
            use_cluster(c)
            start_cluster(conf + "nvm_am.pool_size = '%dMB'\n" % POOL_MB[c], ams=ams)
            info = psql(DBS[ams[0]], "SELECT size, (size - metadata_bytes) / frames_total "
                                     "FROM nvm_am.nvm_am_pool_info()")[0]
            pool_bytes[c] = int(info[0])
            FRAME_BYTES[c] = int(info[1])
            if ipl is not None and FRAME_BYTES[c] > BLCKSZ + ipl / LOG_FRAME_SHARE + 1:
                note("cluster %s: %d pool bytes per frame, the pool was sized for %d"
                     % (c, FRAME_BYTES[c], BLCKSZ + ipl / LOG_FRAME_SHARE))
        INFO.append("clusters (all running at once): " + "; ".join(
            "%s: %s, port %d, pool %s of %d MB" % (c, CLUSTERS[c][0], CLUSTERS[c][1], CLUSTERS[c][2],
                                                   pool_bytes[c] >> 20) for c in clusters))
        for name, func in WORKLOADS:
            if name not in only:
                continue
            t1 = time.monotonic()
            try:
                func(cfg, [s for s in chosen if name in SETUP_WORKLOADS.get(s, (name,))], rows)
            except Exception as e:  # keep the other workloads and the table
                FAILED.append(name)
                note("workload %s stopped: %s" % (name, str(e).strip().replace("\n", " | ")[:600]))
            log("== %s took %.0f s" % (name, time.monotonic() - t1))
        check_library()
    finally:
        for c in clusters:
            use_cluster(c)
            save_server_log("server-%s.log" % c)
            stop_cluster()
            shutil.rmtree(CLUSTERS[c][0], ignore_errors=True)
    order = [w for w, _ in WORKLOADS]
    order.insert(order.index("tpch"), "load")
    seen = {}            # variants in the order they were measured (8 before 16 clients)
    for r in rows:
        seen.setdefault((r["workload"], r["variant"]), len(seen))
    rows.sort(key=lambda r: (order.index(r["workload"]), seen[(r["workload"], r["variant"])],
                             list(SETUPS).index(r["setup"])))
    add_ratios(rows)
    finish_space()
    write_csv(rows + SPACE, os.path.join(RESULTS, "results.csv"))
    write_csv(RUNS, os.path.join(RESULTS, "runs.csv"), RUN_FIELDS)
    try:
        plot(rows, RESULTS)
    except ImportError as e:
        INFO.append("plots skipped: matplotlib is not installed (%s)" % e)
        log("!! plots skipped: %s" % e)
    elapsed = time.monotonic() - t0
    INFO.append("durations: %d s per pgbench run (contention %d s), %d runs per set-up; "
                "whole benchmark %.0f s" % (cfg["duration"], cfg["contention_duration"],
                                            cfg["runs"], elapsed))
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        print_table(rows, cfg, opts.quick, pool_bytes, machine, persist)
    sys.stdout.write(buf.getvalue())
    with open(os.path.join(RESULTS, "table.txt"), "w") as f:
        f.write(buf.getvalue().lstrip("\n"))
    log("== done in %.0f s; results in %s" % (elapsed, RESULTS))
    return 1 if FAILED or any(r["status"] != "ok" for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
