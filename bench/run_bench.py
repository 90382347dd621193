#!/usr/bin/env python3
"""run_bench.py - the side-by-side benchmark of nvm_am against stock heap.

Every figure is measured in the same run for each storage set-up, so the
ratios hold on a noisy machine:

  heap            heap, data directory on tmpfs (/dev/shm): the reference
  heap-disk       heap, data directory on disk (/var/tmp)
  nvm_am          nvm_am, pool on /dev/shm (PMEM_IS_PMEM_FORCE=1), default
                  nvm_am.ipl_log_size, read_mode = redirect
  nvm_am-copy     the same cluster and tables, read_mode = copy
  nvm_am-ipl-off  nvm_am with nvm_am.ipl_log_size = 0 (every change writes
                  its whole page)

All clusters: the same shared_buffers (128MB), synchronous_commit = on,
fsync = on, autovacuum off, no parallel query.

Workloads
  tpcb     pgbench TPC-B, -M prepared, several client counts
  insert   single-row INSERT per transaction, and 100-row batches
  ycsb     YCSB-like A (50% read / 50% update) and B (95/5), uniform and
           zipfian keys (random_zipfian), by primary key
  tpch     TPC-H-like Q1 and Q6 over a generated lineitem table, cold (first
           run after a restart) and warm (median of the next runs)
  crash    time from SIGKILL of the postmaster (during a TPC-B run) to the
           first answered query, at two data sizes

Reported per workload and set-up: throughput or time, ratio to heap, bytes
written to durable media per unit (WAL + pool bytes + 8 kB page writes
counted after a final CHECKPOINT), commit latency p50/p99 (pgbench --log),
peak memory (proportional set size of all server processes, the pool file's
size beside it).  Results: bench/results/results.csv, throughput.png,
bytes_per_txn.png, latency.png.

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

FULL = dict(scale=10, duration=15, clients=(1, 2, 4), ycsb_rows=200_000,
            lineitem=1_500_000, scan_runs=3, crash_scales=(10, 60), batch_rows=100)
QUICK = dict(scale=2, duration=3, clients=(2,), ycsb_rows=50_000,
             lineitem=200_000, scan_runs=2, crash_scales=(2, 6), batch_rows=100)
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
# cluster lifecycle
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
            log("== stopping cluster, removing pool")
        try:
            cluster_helper("cluster_stop", WORK, POOL)
        except Exception as e:  # keep cleaning up
            log("cluster_stop: %s" % e)
    if os.path.exists(POOL):
        os.unlink(POOL)


def save_server_log():
    src = os.path.join(WORK, "server.log")
    if os.path.exists(src):
        dst = os.path.join(RESULTS, "tmp")
        os.makedirs(dst, exist_ok=True)
        shutil.copy(src, os.path.join(dst, "server.log"))


# ----------------------------------------------------------------------
# measuring bytes written
# ----------------------------------------------------------------------

COUNTERS_SQL = """SELECT (SELECT wal_bytes FROM pg_stat_wal)::bigint,
  (SELECT buffers_checkpoint + buffers_clean + buffers_backend FROM pg_stat_bgwriter),
  (SELECT value FROM nvm_am.nvm_am_stats WHERE name = 'pmem_bytes_written')"""


def counters(db):
    w, b, p = psql(db, COUNTERS_SQL)[0]
    return dict(wal=int(w), pages=int(b) * BLCKSZ, pmem=int(p))


def begin_measure(db):
    """CHECKPOINT so earlier dirty pages are not charged to this run."""
    psql(db, "CHECKPOINT")
    time.sleep(1.0)  # the checkpointer reports its stats just after CHECKPOINT returns
    psql(db, "SELECT pg_stat_reset_shared('wal')")
    return counters(db)


def end_measure(db, start):
    psql(db, "CHECKPOINT")
    time.sleep(1.0)
    end = counters(db)
    return {k: end[k] - start[k] for k in start}


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


def pgbench_run(db, am, name, clients, duration, script=None, env=None):
    """pgbench_once, run once more if something outside killed pgbench."""
    res = pgbench_once(db, am, name, clients, duration, script, env)
    if res["status"] == "killed":
        note("%s %s %d clients: running it once more" % (name, am, clients))
        res = pgbench_once(db, am, name, clients, duration, script, env)
    return res


def pgbench_once(db, am, name, clients, duration, script=None, env=None):
    """Run pgbench with a watchdog. Returns a result dict (status ok/hang/error/killed)."""
    prefix = os.path.join(WORK, "logs", "%s_%s_c%d" % (name.replace(" ", "_"), am, clients))
    args = [PGBIN + "/pgbench", "-n", "-M", "prepared", "-c", str(clients), "-j", str(clients),
            "-T", str(duration), "-l", "--log-prefix=" + prefix]
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
        out, err = p.communicate(timeout=duration + HANG_GRACE)
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
    if status != "ok":
        note("%s %s %d clients: %s after %.0f s (-T %d). %s" % (name, am, clients, status.upper(),
                                                               elapsed, duration, detail))
        if status == "hang":
            note("   pgbench output: " + " | ".join((out + err).strip().splitlines()[-3:]))
        res["tps"] = None
    return res


# ----------------------------------------------------------------------
# storage set-ups
# ----------------------------------------------------------------------

# name -> (cluster, access method, extra PGOPTIONS)
SETUPS = {
    "heap": ("tmpfs", "heap", ""),
    "heap-disk": ("disk", "heap", ""),
    "nvm_am": ("tmpfs", "nvm_am", ""),
    "nvm_am-copy": ("tmpfs", "nvm_am", "-c nvm_am.read_mode=copy"),
    "nvm_am-ipl-off": ("ipl-off", "nvm_am", ""),
}
# cluster -> (work directory, extra configuration, access methods)
CLUSTERS = {
    "tmpfs": (WORK, "", ("heap", "nvm_am")),
    "disk": (DISK_WORK, "", ("heap",)),
    "ipl-off": (WORK, "nvm_am.ipl_log_size = 0\n", ("nvm_am",)),
}


def target_env(setup):
    _, am, opts = SETUPS[setup]
    env = dict(ENV)
    env["PGOPTIONS"] = ("-c default_table_access_method=%s %s" % (am, opts)).strip()
    return env


def setup_psql(setup, sql, timeout=600):
    _, am, _ = SETUPS[setup]
    out, _, _ = run_pg([PGBIN + "/psql", "-X", "-q", "-A", "-t", "-F", "\t",
                        "-v", "ON_ERROR_STOP=1", "-d", DBS[am], "-c", sql],
                       env=target_env(setup), timeout=timeout)
    return [line.split("\t") for line in out.splitlines() if line != ""]


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
# workloads: each runs for every set-up of the current cluster
# ----------------------------------------------------------------------

def per_unit(res, units):
    if not units or res.get("status") != "ok":
        return dict(bytes_per_txn=None, wal_per_txn=None, pmem_per_txn=None, pages_per_txn=None)
    return dict(bytes_per_txn=(res["wal_bytes"] + res["pmem_bytes"] + res["page_bytes"]) / units,
                wal_per_txn=res["wal_bytes"] / units, pmem_per_txn=res["pmem_bytes"] / units,
                pages_per_txn=res["page_bytes"] / units)


def add_row(rows, setup, workload, variant, res, unit="txn", units=None):
    res = dict(res)
    res.update(workload=workload, variant=variant, setup=setup, am=SETUPS[setup][1], unit=unit)
    res.update(per_unit(res, units if units is not None else res.get("txns")))
    res["pss_bytes"] = sample_memory(setup)
    rows.append(res)
    log("   %-15s %-28s %s" % (setup, variant, summary(res)))


def write_script(name, text):
    path = os.path.join(WORK, name)
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, 0o644)
    return path


def tpcb(cfg, setups, rows):
    for setup in setups:
        _, am, _ = SETUPS[setup]
        db = DBS[am]
        if setup.endswith("-copy"):
            pass                 # the tables of "nvm_am" serve, read another way
        run_pg([PGBIN + "/pgbench", "-i", "-q", "-s", str(cfg["scale"]), db], env=target_env(setup))
        check_am(db, am, ["pgbench_accounts", "pgbench_branches", "pgbench_tellers"])
        for clients in cfg["clients"]:
            log("== tpcb scale %d, %d client(s), %s" % (cfg["scale"], clients, setup))
            res = pgbench_run(db, am, "tpcb_" + setup, clients, cfg["duration"],
                              env=target_env(setup))
            add_row(rows, setup, "tpcb", "scale %d, %d client%s" % (
                cfg["scale"], clients, "s" if clients > 1 else ""), res)
        psql(db, "DROP TABLE pgbench_accounts, pgbench_branches, pgbench_tellers, pgbench_history")


INSERT_SCRIPT = """\\set id random(1, 1000000000)
INSERT INTO ins_t (id, v, pad) VALUES (:id, :id %% 1000, repeat('x', 100));
"""
BATCH_SCRIPT = """\\set id random(1, 1000000000)
INSERT INTO ins_t (id, v, pad) SELECT :id + g, g, repeat('x', 100) FROM generate_series(1, %d) g;
"""


def insert(cfg, setups, rows):
    for setup in setups:
        _, am, _ = SETUPS[setup]
        db = DBS[am]
        for variant, text, per in (("1 row/txn, 2 clients", INSERT_SCRIPT % (), 1),
                                   ("%d rows/txn, 2 clients" % cfg["batch_rows"],
                                    BATCH_SCRIPT % cfg["batch_rows"], cfg["batch_rows"])):
            setup_psql(setup, "DROP TABLE IF EXISTS ins_t; CREATE TABLE ins_t (id bigint, v int, pad text)")
            check_am(db, am, ["ins_t"])
            script = write_script("insert.sql", text)
            log("== insert %s, %s" % (variant, setup))
            res = pgbench_run(db, am, "insert_" + setup, 2, cfg["duration"], script=script,
                              env=target_env(setup))
            n = int(psql(db, "SELECT count(*) FROM ins_t")[0][0])
            if res["status"] == "ok" and n != res["txns"] * per:
                note("insert %s %s: table has %d rows, pgbench reported %d transactions"
                     % (setup, variant, n, res["txns"]))
            add_row(rows, setup, "insert", variant, res)
            psql(db, "DROP TABLE ins_t")


YCSB = """\\set k {dist}
\\set r random(1, 100)
\\if :r <= {reads}
SELECT field0 FROM usertable WHERE ycsb_key = :k;
\\else
UPDATE usertable SET field0 = md5(:r::text || :k::text) WHERE ycsb_key = :k;
\\endif
"""


def ycsb(cfg, setups, rows):
    n = cfg["ycsb_rows"]
    for setup in setups:
        _, am, _ = SETUPS[setup]
        db = DBS[am]
        setup_psql(setup, "CREATE TABLE usertable (ycsb_key int PRIMARY KEY, field0 text, field1 text)")
        psql(db, "INSERT INTO usertable SELECT g, md5(g::text), md5((-g)::text) "
                 "FROM generate_series(1, %d) g" % n)
        psql(db, "VACUUM ANALYZE usertable")
        check_am(db, am, ["usertable"])
        for mix, reads in (("A", 50), ("B", 95)):
            for dist, expr in (("uniform", "random(1, %d)" % n),
                               ("zipfian", "random_zipfian(1, %d, 1.1)" % n)):
                script = write_script("ycsb.sql", YCSB.format(dist=expr, reads=reads))
                variant = "%s (%d/%d) %s" % (mix, reads, 100 - reads, dist)
                log("== ycsb %s, %s" % (variant, setup))
                res = pgbench_run(db, am, "ycsb_" + setup, 2, cfg["duration"], script=script,
                                  env=target_env(setup))
                add_row(rows, setup, "ycsb", variant, res)
        psql(db, "DROP TABLE usertable")


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


def tpch(cfg, setups, rows):
    n = cfg["lineitem"]
    loaded = set()
    for setup in setups:
        _, am, _ = SETUPS[setup]
        db = DBS[am]
        if am not in loaded:
            log("== lineitem, %d rows, %s: load" % (n, setup))
            start = begin_measure(db)
            t0 = time.monotonic()
            setup_psql(setup, LINEITEM.replace("{n}", str(n)), timeout=3600)
            elapsed = time.monotonic() - t0
            psql(db, "VACUUM ANALYZE lineitem", timeout=3600)
            delta = end_measure(db, start)
            check_am(db, am, ["lineitem"])
            loaded.add(am)
            res = dict(status="ok", detail="", txns=n, time_s=elapsed, tps=n / elapsed,
                       wal_bytes=delta["wal"], pmem_bytes=delta["pmem"], page_bytes=delta["pages"])
            add_row(rows, setup, "load", "lineitem %dk rows" % (n // 1000), res, unit="row")
        size = int(psql(db, "SELECT pg_relation_size('lineitem')")[0][0])
        for qname, q in (("Q1", Q1), ("Q6", Q6)):
            cluster_helper("cluster_restart", WORK)        # cold: empty caches
            times, cpu, body = timed_query(setup, q, cfg["scan_runs"] + 1)
            if ANSWERS.setdefault(qname, body) != body:
                note("%s on %s returned another answer than on heap" % (qname, setup))
            for temp, ts, cs in (("cold", times[:1], cpu[:1]), ("warm", times[1:], cpu[1:])):
                med = statistics.median(ts)
                res = dict(status="ok", detail="", txns=len(ts), time_s=med / 1000.0,
                           tps=1000.0 / med, lat_p50_ms=med, lat_avg_ms=statistics.mean(ts),
                           cpu_user_s=statistics.median(c[0] for c in cs),
                           cpu_sys_s=statistics.median(c[1] for c in cs),
                           wal_bytes=0, pmem_bytes=0, page_bytes=0)
                add_row(rows, setup, "tpch", "%s %s, %d MB" % (qname, temp, size >> 20), res,
                        unit="query", units=0)
    for am in loaded:
        psql(DBS[am], "DROP TABLE lineitem")


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
    until the first query on the benchmark tables is answered again."""
    for scale in cfg["crash_scales"]:
        for setup in setups:
            if setup.endswith("-copy"):
                continue         # the same storage as "nvm_am"
            _, am, _ = SETUPS[setup]
            db = DBS[am]
            run_pg([PGBIN + "/pgbench", "-i", "-q", "-s", str(scale), db], env=target_env(setup),
                   timeout=3600)
            size = int(psql(db, "SELECT pg_total_relation_size('pgbench_accounts')")[0][0])
            env = target_env(setup)
            env["PGAPPNAME"] = "pgbench"
            ok, elapsed, gone_s = crash_during_pgbench(db, env, 3)
            res = dict(status="ok" if ok else "error",
                       detail="%.3f s of it waiting for the killed processes to be reaped"
                       % gone_s, txns=1, time_s=elapsed, restart_s=elapsed - gone_s,
                       tps=None, wal_bytes=0, pmem_bytes=0, page_bytes=0)
            if not ok:
                note("crash %s scale %d: no answer within 120 s" % (setup, scale))
            add_row(rows, setup, "crash", "scale %d (%d MB)" % (scale, size >> 20), res,
                    unit="restart", units=0)
            psql(db, "DROP TABLE pgbench_accounts, pgbench_branches, pgbench_tellers, "
                     "pgbench_history")


WORKLOADS = (("tpcb", tpcb), ("insert", insert), ("ycsb", ycsb), ("tpch", tpch), ("crash", crash))


# ----------------------------------------------------------------------
# reporting
# ----------------------------------------------------------------------

def fmt(v, spec):
    return "-" if v is None else format(v, spec)


def summary(r):
    return "%s: tps %s, time %s s, p99 %s ms, bytes/%s %s" % (
        r["status"], fmt(r.get("tps"), ".1f"), fmt(r.get("time_s"), ".3f"),
        fmt(r.get("lat_p99_ms"), ".3f"), r["unit"], fmt(r.get("bytes_per_txn"), ".0f"))


def ratio(a, b):
    if a is None or b is None or b == 0:
        return None
    return a / b


def add_ratios(rows):
    heap = {(r["workload"], r["variant"]): r for r in rows if r["setup"] == "heap"}
    for r in rows:
        h = heap.get((r["workload"], r["variant"]))
        if h is None or h["status"] != "ok" or r["status"] != "ok":
            h = None
        for k in ("tps", "time_s", "lat_p99_ms", "bytes_per_txn"):
            r["ratio_" + k] = ratio(r.get(k), h.get(k)) if h else None


CSV_FIELDS = ["workload", "variant", "setup", "am", "status", "unit", "txns", "tps", "time_s", "restart_s",
              "lat_avg_ms", "lat_p50_ms", "lat_p99_ms", "cpu_user_s", "cpu_sys_s",
              "bytes_per_txn", "wal_per_txn", "pmem_per_txn", "pages_per_txn", "pss_bytes",
              "ratio_tps", "ratio_time_s", "ratio_lat_p99_ms", "ratio_bytes_per_txn", "detail"]


def write_csv(rows, path):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=CSV_FIELDS, extrasaction="ignore")
        w.writeheader()
        for r in rows:
            w.writerow({k: (("%.6g" % v) if isinstance(v, float) else v)
                        for k, v in r.items() if k in CSV_FIELDS})


TIMED = ("load", "tpch", "crash")     # lower is better: time, not tps


def print_table(rows, cfg, quick, pool_bytes):
    print()
    print("nvm_am against heap (%s run; ratio = set-up / heap on tmpfs; for load, tpch and "
          "crash the time, else tps)" % ("quick" if quick else "full"))
    hdr = ("workload", "variant", "set-up", "tps", "time s", "ratio", "bytes/unit", "WAL",
           "pool", "pages", "p50 ms", "p99 ms", "cpu u/s", "PSS MB")
    table = [hdr]
    for r in rows:
        ok = r["status"] == "ok"
        key = "ratio_time_s" if r["workload"] in TIMED else "ratio_tps"
        cpu = ("%.2f/%.2f" % (r["cpu_user_s"], r["cpu_sys_s"])) if r.get("cpu_user_s") is not None else "-"
        table.append((r["workload"], r["variant"], r["setup"],
                      fmt(r.get("tps"), ".0f") if ok and r["workload"] not in TIMED else "-",
                      (fmt(r.get("time_s"), ".3f") + (" (%.2f)" % r["restart_s"] if r.get("restart_s") else ""))
                      if ok and r["workload"] in TIMED else "-",
                      fmt(r.get(key), ".2f") if r["setup"] != "heap" else "1",
                      (fmt(r.get("bytes_per_txn"), ".0f") + "/" + r["unit"]) if ok and r.get("bytes_per_txn") is not None else "-",
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
    print()
    print("Peak memory (PSS of all server processes; shared memory and the mapped pool are "
          "shared out among the processes that touch them):")
    for setup in PEAK:
        print("  %-15s %6.0f MB%s" % (setup, PEAK[setup] / 1048576.0,
                                      ("   (pool file %d MB)" % (pool_bytes >> 20))
                                      if SETUPS[setup][1] == "nvm_am" else ""))
    print("bytes/unit = WAL + pool + 8 kB page writes (counted after a final CHECKPOINT); "
          "p50/p99: commit latency from pgbench --log;")
    print("tpch: median time per query, cpu u/s = user/system CPU seconds of the backend; "
          "crash: SIGKILL to first answered query")
    print("(in brackets: from the restart to the answer, without the wait for the killed "
          "processes to be reaped).")
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
              "nvm_am-copy": "#ccbb44", "nvm_am-ipl-off": "#aa3377"}
    workloads = [w for w, _ in WORKLOADS if any(r["workload"] == w for r in rows)]
    if any(r["workload"] == "load" for r in rows):
        workloads.insert(workloads.index("tpch"), "load")

    def grouped(fname, title, value, ylabel, log_scale=False):
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
                vals = []
                for v in variants:
                    r = next((x for x in rows if x["workload"] == wl and x["variant"] == v
                              and x["setup"] == s), None)
                    vals.append(value(r) if r and r["status"] == "ok" and value(r) else 0)
                ax.bar([j + (i - (len(setups) - 1) / 2.0) * width for j in range(len(variants))],
                       vals, width, color=colors.get(s, "grey"), label=s)
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

    grouped("throughput.png", "throughput (tps), or time for load / tpch / crash (lower is better)",
            lambda r: r.get("time_s") if r["workload"] in TIMED else r.get("tps"),
            lambda wl: "seconds" if wl in TIMED else "transactions/s")
    grouped("bytes_per_txn.png", "bytes written to durable media per unit (log scale)",
            lambda r: r.get("bytes_per_txn"), lambda wl: "bytes", log_scale=True)
    grouped("latency.png", "commit latency p99 (ms)", lambda r: r.get("lat_p99_ms"),
            lambda wl: "ms")


# ----------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="small scale, short runs (< 5 min)")
    ap.add_argument("--only", default=",".join(w for w, _ in WORKLOADS),
                    help="comma-separated subset of " + ",".join(w for w, _ in WORKLOADS))
    ap.add_argument("--setups", default=",".join(SETUPS),
                    help="comma-separated subset of " + ",".join(SETUPS))
    opts = ap.parse_args()
    cfg = QUICK if opts.quick else FULL
    only = opts.only.split(",")
    chosen = [s for s in SETUPS if s in opts.setups.split(",")]
    os.makedirs(RESULTS, exist_ok=True)

    def on_signal(signum, frame):
        raise SystemExit("interrupted by signal %d" % signum)
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGHUP, on_signal)

    rows = []
    pool_bytes = 0
    t0 = time.monotonic()
    for cluster, (work, conf, ams) in CLUSTERS.items():
        setups = [s for s in chosen if SETUPS[s][0] == cluster]
        if not setups:
            continue
        set_work(work)
        try:
            start_cluster(conf, ams=ams)
            pool_bytes = max(pool_bytes, int(psql(DBS[ams[0]], "SELECT size FROM nvm_am.nvm_am_pool_info()")[0][0]))
            for name, func in WORKLOADS:
                if name in only:
                    func(cfg, setups, rows)
        finally:
            save_server_log()
            stop_cluster()
            shutil.rmtree(work, ignore_errors=True)
    order = [w for w, _ in WORKLOADS]
    order.insert(order.index("tpch"), "load")
    rows.sort(key=lambda r: (order.index(r["workload"]), r["variant"], list(SETUPS).index(r["setup"])))
    add_ratios(rows)
    write_csv(rows, os.path.join(RESULTS, "results.csv"))
    plot(rows, RESULTS)
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        print_table(rows, cfg, opts.quick, pool_bytes)
    sys.stdout.write(buf.getvalue())
    with open(os.path.join(RESULTS, "table.txt"), "w") as f:
        f.write(buf.getvalue().lstrip("\n"))
    log("== done in %.0f s; results in %s" % (time.monotonic() - t0, RESULTS))
    return 1 if any(r["status"] != "ok" for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
