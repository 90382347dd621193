#!/usr/bin/env python3
"""run_bench.py - side-by-side benchmark of heap and nvm_am.

Starts one throwaway PostgreSQL 15 cluster (data directory and nvm_am pool
both on /dev/shm), runs the same workloads once in a database whose tables
are heap and once in a database whose tables are nvm_am, and reports
throughput, latency and bytes written to durable media per transaction.

Workloads
  tpcb    pgbench TPC-B (-M prepared), 1 and 2 clients, fixed duration
  insert  single-row INSERT transactions (pgbench custom script), 1 and 2 clients
  load    CREATE TABLE AS of the scan table (bulk load), timed once
  seqscan SELECT count(*), sum(k) over the scan table, median of several runs

Bytes written per transaction
  WAL bytes (pg_stat_wal.wal_bytes delta, reset before the run)
  + pmem bytes (nvm_am_stats 'pmem_bytes_written' delta)
  + page writes ((buffers_checkpoint + buffers_clean + buffers_backend)
    delta x 8192, measured after a CHECKPOINT that ends the run)

Run as root (commands run as user "postgres") or as the cluster owner.
Only the Python standard library and matplotlib (Agg) are used.
"""
import argparse
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

FULL = dict(scale=10, duration=20, scan_rows=2_000_000, scan_runs=5)
QUICK = dict(scale=2, duration=5, scan_rows=300_000, scan_runs=5)
CLIENTS = (1, 2)
HANG_GRACE = 20          # seconds past -T before a pgbench run counts as hung

EXTRA_CONF = """shared_buffers = 256MB
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
    info = psql(DBS["nvm_am"], "SELECT path, size, is_pmem, emulated FROM nvm_am_pool_info()")
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
  (SELECT value FROM nvm_am_stats WHERE name = 'pmem_bytes_written')"""


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


def pgbench_run(db, am, name, clients, duration, script=None):
    """pgbench_once, run once more if something outside killed pgbench."""
    res = pgbench_once(db, am, name, clients, duration, script)
    if res["status"] == "killed":
        note("%s %s %d clients: running it once more" % (name, am, clients))
        res = pgbench_once(db, am, name, clients, duration, script)
    return res


def pgbench_once(db, am, name, clients, duration, script=None):
    """Run pgbench with a watchdog. Returns a result dict (status ok/hang/error/killed)."""
    prefix = os.path.join(WORK, "logs", "%s_%s_c%d" % (name, am, clients))
    args = [PGBIN + "/pgbench", "-n", "-M", "prepared", "-c", str(clients), "-j", str(clients),
            "-T", str(duration), "-l", "--log-prefix=" + prefix]
    if script:
        args += ["-f", script]
    args.append(db)
    env = am_env(am)
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
# workloads
# ----------------------------------------------------------------------

def per_unit(res, units):
    if not units or res.get("status") != "ok":
        return dict(bytes_per_txn=None, wal_per_txn=None, pmem_per_txn=None, pages_per_txn=None)
    return dict(bytes_per_txn=(res["wal_bytes"] + res["pmem_bytes"] + res["page_bytes"]) / units,
                wal_per_txn=res["wal_bytes"] / units, pmem_per_txn=res["pmem_bytes"] / units,
                pages_per_txn=res["page_bytes"] / units)


def tpcb(cfg, rows):
    for clients in CLIENTS:
        for am in AMS:
            db = DBS[am]
            log("== tpcb scale %d, %d client(s), %s: init" % (cfg["scale"], clients, am))
            run_pg([PGBIN + "/pgbench", "-i", "-q", "-s", str(cfg["scale"]), db], env=am_env(am))
            check_am(db, am, ["pgbench_accounts", "pgbench_branches", "pgbench_tellers",
                              "pgbench_history"])
            log("   run %d s" % cfg["duration"])
            res = pgbench_run(db, am, "tpcb", clients, cfg["duration"])
            res.update(workload="tpcb", config="scale %d, %d client%s" % (
                cfg["scale"], clients, "s" if clients > 1 else ""), am=am, unit="txn")
            res.update(per_unit(res, res["txns"]))
            rows.append(res)
            log("   %s" % summary(res))
    for am in AMS:
        psql(DBS[am], "DROP TABLE pgbench_accounts, pgbench_branches, pgbench_tellers, "
                      "pgbench_history")


INSERT_SCRIPT = """\\set id random(1, 1000000000)
INSERT INTO ins_t (id, v, pad) VALUES (:id, :id % 1000, repeat('x', 100));
"""


def insert(cfg, rows):
    script = os.path.join(WORK, "insert.sql")
    with open(script, "w") as f:
        f.write(INSERT_SCRIPT)
    os.chmod(script, 0o644)
    for am in AMS:
        db = DBS[am]
        psql(db, "DROP TABLE IF EXISTS ins_t; CREATE TABLE ins_t (id bigint, v int, pad text)")
        check_am(db, am, ["ins_t"])
    for clients in CLIENTS:
        for am in AMS:
            db = DBS[am]
            psql(db, "TRUNCATE ins_t")
            log("== insert, %d client(s), %s: run %d s" % (clients, am, cfg["duration"]))
            res = pgbench_run(db, am, "insert", clients, cfg["duration"], script=script)
            n = int(psql(db, "SELECT count(*) FROM ins_t")[0][0])
            if res["status"] == "ok" and n != res["txns"]:
                note("insert %s %d clients: table has %d rows, pgbench reported %d transactions"
                     % (am, clients, n, res["txns"]))
            res.update(workload="insert", config="1 row/txn, %d client%s" % (
                clients, "s" if clients > 1 else ""), am=am, unit="txn")
            res.update(per_unit(res, res["txns"]))
            rows.append(res)
            log("   %s" % summary(res))
    for am in AMS:
        psql(DBS[am], "DROP TABLE ins_t")


def timed_queries(db, sql, n):
    """Run sql n times in one session; return the per-run times in ms."""
    script = "\\timing on\n" + (sql.rstrip(";") + ";\n") * n
    out, _, _ = run_pg([PGBIN + "/psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", db,
                        "-c", "SET max_parallel_workers_per_gather = 0"] +
                       [a for line in script.splitlines() for a in ("-c", line)],
                       timeout=1800)
    times = [float(x) for x in re.findall(r"Time: ([\d.]+) ms", out)]
    if len(times) != n:
        raise RuntimeError("expected %d timings, got %d:\n%s" % (n, len(times), out))
    return times, out


def seqscan(cfg, rows):
    n = cfg["scan_rows"]
    cfgname = "%dk rows" % (n // 1000)
    for am in AMS:
        db = DBS[am]
        psql(db, "DROP TABLE IF EXISTS scan_t")
        log("== load %s, %s" % (cfgname, am))
        start = begin_measure(db)
        times, _ = timed_queries(db, "CREATE TABLE scan_t AS SELECT g AS id, (g %% 1000) AS k, "
                                     "md5(g::text) AS pad FROM generate_series(1, %d) g" % n, 1)
        delta = end_measure(db, start)
        check_am(db, am, ["scan_t"])
        res = dict(workload="load", config=cfgname + " (CTAS)", am=am, unit="row", status="ok",
                   detail="", txns=n, time_s=times[0] / 1000.0, tps=n / (times[0] / 1000.0),
                   wal_bytes=delta["wal"], pmem_bytes=delta["pmem"], page_bytes=delta["pages"])
        res.update(per_unit(res, n))
        rows.append(res)
        log("   %s" % summary(res))

        log("== seqscan %s, %s: %d timed runs after 1 warm-up" % (cfgname, am, cfg["scan_runs"]))
        start = begin_measure(db)
        times, out = timed_queries(db, "SELECT count(*), sum(k) FROM scan_t", cfg["scan_runs"] + 1)
        delta = end_measure(db, start)
        got = re.findall(r"^\s*(\d+)\s*\|\s*(\d+)\s*$", out, re.M)
        want = (str(n), str(sum(g % 1000 for g in range(1, n + 1))))
        if not got or any(g != want for g in got):
            note("seqscan %s: wrong result %s, expected %s" % (am, got[:1], want))
        timed = times[1:]
        med = statistics.median(timed)
        res = dict(workload="seqscan", config=cfgname + ", count+sum", am=am, unit="scan",
                   status="ok", detail="", txns=len(times), time_s=med / 1000.0,
                   tps=1000.0 / med, lat_avg_ms=statistics.mean(timed),
                   lat_p50_ms=med, lat_p99_ms=None,
                   wal_bytes=delta["wal"], pmem_bytes=delta["pmem"], page_bytes=delta["pages"])
        res.update(per_unit(res, len(times)))
        rows.append(res)
        log("   %s" % summary(res))
        psql(db, "DROP TABLE scan_t")


# ----------------------------------------------------------------------
# reporting
# ----------------------------------------------------------------------

def fmt(v, spec):
    return "-" if v is None else format(v, spec)


def summary(r):
    return "%s: tps %s, lat avg %s ms, bytes/%s %s" % (
        r["status"], fmt(r.get("tps"), ".1f"), fmt(r.get("lat_avg_ms"), ".3f"), r["unit"],
        fmt(r.get("bytes_per_txn"), ".0f"))


def ratio(a, b):
    if a is None or b is None or b == 0:
        return None
    return a / b


def add_ratios(rows):
    heap = {(r["workload"], r["config"]): r for r in rows if r["am"] == "heap"}
    for r in rows:
        h = heap.get((r["workload"], r["config"]))
        if h is None or h["status"] != "ok" or r["status"] != "ok":
            h = None
        for k in ("tps", "time_s", "lat_avg_ms", "lat_p99_ms", "bytes_per_txn"):
            r["ratio_" + k] = ratio(r.get(k), h.get(k)) if h else None


CSV_FIELDS = ["workload", "config", "am", "status", "unit", "txns", "tps", "time_s",
              "lat_avg_ms", "lat_p50_ms", "lat_p99_ms", "tps_q1", "tps_q4", "bytes_per_txn", "wal_per_txn",
              "pmem_per_txn", "pages_per_txn", "wal_bytes", "pmem_bytes", "page_bytes",
              "ratio_tps", "ratio_time_s", "ratio_lat_avg_ms", "ratio_lat_p99_ms",
              "ratio_bytes_per_txn", "detail"]


def write_csv(rows, path):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=CSV_FIELDS, extrasaction="ignore")
        w.writeheader()
        for r in rows:
            w.writerow({k: (("%.6g" % v) if isinstance(v, float) else v)
                        for k, v in r.items() if k in CSV_FIELDS})


def print_table(rows, cfg, quick):
    print()
    print("nvm_am vs heap  (%s: scale %d, %d s per pgbench run, %d scan rows; "
          "ratio = nvm_am / heap)" % ("quick" if quick else "full", cfg["scale"], cfg["duration"],
                                       cfg["scan_rows"]))
    hdr = ("workload", "config", "am", "tps", "tps q1/q4", "time s", "lat avg ms", "p50 ms", "p99 ms",
           "bytes/unit", "WAL", "pmem", "pages", "ratio tps", "ratio lat", "ratio bytes")
    table = [hdr]
    for r in rows:
        st = r["status"]
        tps = fmt(r.get("tps"), ".1f") if st == "ok" else st.upper()
        time_s = fmt(r.get("time_s"), ".3f") if r.get("time_s") is not None else "-"
        q = ("%.0f/%.0f" % (r["tps_q1"], r["tps_q4"])) if r.get("tps_q1") and st == "ok" else "-"
        table.append((r["workload"], r["config"], r["am"], tps, q, time_s,
                      fmt(r.get("lat_avg_ms"), ".3f") if st == "ok" else "-",
                      fmt(r.get("lat_p50_ms"), ".3f") if st == "ok" else "-",
                      fmt(r.get("lat_p99_ms"), ".3f") if st == "ok" else "-",
                      (fmt(r.get("bytes_per_txn"), ".0f") + "/" + r["unit"]) if st == "ok" else "-",
                      fmt(r.get("wal_per_txn"), ".0f"), fmt(r.get("pmem_per_txn"), ".0f"),
                      fmt(r.get("pages_per_txn"), ".0f"),
                      fmt(r.get("ratio_tps"), ".2f") if r["am"] != "heap" else "",
                      fmt(r.get("ratio_lat_avg_ms"), ".2f") if r["am"] != "heap" else "",
                      fmt(r.get("ratio_bytes_per_txn"), ".2f") if r["am"] != "heap" else ""))
    widths = [max(len(str(row[i])) for row in table) for i in range(len(hdr))]
    for i, row in enumerate(table):
        print("  ".join(str(c).ljust(w) if j < 3 else str(c).rjust(w)
                        for j, (c, w) in enumerate(zip(row, widths))).rstrip())
        if i == 0:
            print("  ".join("-" * w for w in widths))
    print("tps: transactions (load: rows, seqscan: scans) per second; tps q1/q4: in the first "
          "and last quarter of the run;")
    print("time s: load time, or median scan time; latencies from pgbench --log (seqscan: "
          "per scan);")
    print("bytes/unit = WAL + pmem + pages (8 kB page writes counted after a final CHECKPOINT).")
    if NOTES:
        print()
        print("PROBLEMS:")
        for n in NOTES:
            print("  " + n)


def plot(rows, outdir):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    colors = {"heap": "#4477aa", "nvm_am": "#ee7733"}
    workloads = []
    for r in rows:
        if r["workload"] not in workloads:
            workloads.append(r["workload"])
    ylabel = {"tpcb": "transactions/s", "insert": "transactions/s", "load": "seconds",
              "seqscan": "median seconds per scan"}

    # throughput (tps; for load and seqscan: time, lower is better)
    fig, axes = plt.subplots(1, len(workloads), figsize=(3.2 * len(workloads), 3.4))
    if len(workloads) == 1:
        axes = [axes]
    for ax, wl in zip(axes, workloads):
        configs = [r["config"] for r in rows if r["workload"] == wl and r["am"] == "heap"]
        key = "time_s" if wl in ("load", "seqscan") else "tps"
        for i, am in enumerate(AMS):
            vals = []
            for c in configs:
                r = next((x for x in rows if x["workload"] == wl and x["config"] == c
                          and x["am"] == am), None)
                vals.append(r[key] if r and r["status"] == "ok" and r.get(key) else 0)
            xs = [j + (i - 0.5) * 0.38 for j in range(len(configs))]
            bars = ax.bar(xs, vals, 0.38, color=colors[am], label=am)
            for b, v in zip(bars, vals):
                if v == 0:
                    ax.text(b.get_x() + b.get_width() / 2, 0, "failed", rotation=90,
                            ha="center", va="bottom", fontsize=7, color="red")
        ax.set_xticks(range(len(configs)))
        ax.set_xticklabels([c.replace(", ", "\n") for c in configs], fontsize=7)
        ax.set_title(wl + (" (lower is better)" if key == "time_s" else ""), fontsize=9)
        ax.set_ylabel(ylabel.get(wl, key), fontsize=8)
        ax.tick_params(axis="y", labelsize=7)
    axes[0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(outdir, "throughput.png"), dpi=72)
    plt.close(fig)

    # bytes written per unit, stacked WAL / pmem / pages
    parts = (("wal_per_txn", "WAL", 1.0), ("pmem_per_txn", "pmem", 0.55),
             ("pages_per_txn", "page writes", 0.25))
    fig, axes = plt.subplots(1, len(workloads), figsize=(3.2 * len(workloads), 3.4))
    if len(workloads) == 1:
        axes = [axes]
    for ax, wl in zip(axes, workloads):
        sel = [r for r in rows if r["workload"] == wl]
        labels = ["%s\n%s" % (r["config"].replace(", ", "\n"), r["am"]) for r in sel]
        bottom = [0.0] * len(sel)
        for key, name, alpha in parts:
            vals = [(r.get(key) or 0) if r["status"] == "ok" else 0 for r in sel]
            ax.bar(range(len(sel)), vals, 0.7, bottom=bottom, label=name,
                   color=[colors[r["am"]] for r in sel], alpha=alpha, edgecolor="black",
                   linewidth=0.4)
            bottom = [b + v for b, v in zip(bottom, vals)]
        ax.set_xticks(range(len(sel)))
        ax.set_xticklabels(labels, fontsize=6)
        unit = sel[0]["unit"] if sel else "txn"
        ax.set_title("%s: bytes per %s" % (wl, unit), fontsize=9)
        ax.tick_params(axis="y", labelsize=7)
    axes[0].legend(fontsize=7, title="solid WAL, light pmem,\nlighter page writes",
                   title_fontsize=6)
    fig.tight_layout()
    fig.savefig(os.path.join(outdir, "bytes_per_txn.png"), dpi=72)
    plt.close(fig)


# ----------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="small scale, 5 s runs (< 5 min)")
    ap.add_argument("--only", default="tpcb,insert,seqscan",
                    help="comma-separated subset of tpcb,insert,seqscan")
    ap.add_argument("--keep", action="store_true", help="keep %s after the run" % WORK)
    opts = ap.parse_args()
    cfg = QUICK if opts.quick else FULL
    os.makedirs(RESULTS, exist_ok=True)

    def on_signal(signum, frame):
        raise SystemExit("interrupted by signal %d" % signum)
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGHUP, on_signal)

    rows = []
    t0 = time.monotonic()
    try:
        start_cluster()
        only = opts.only.split(",")
        if "tpcb" in only:
            tpcb(cfg, rows)
        if "insert" in only:
            insert(cfg, rows)
        if "seqscan" in only:
            seqscan(cfg, rows)
        pool = psql(DBS["nvm_am"], "SELECT name, value FROM nvm_am_stats WHERE name IN "
                                   "('frames_allocated', 'relations')")
        pool = dict(pool)
        log("   nvm_am pool after the run (all benchmark tables dropped): %s" % (pool,))
        if pool.get("frames_allocated") != "0" or pool.get("relations") != "0":
            note("nvm_am pool still holds %s frames of %s relations after every benchmark "
                 "table was dropped" % (pool.get("frames_allocated"), pool.get("relations")))
    finally:
        save_server_log()
        stop_cluster()
        if not opts.keep:
            shutil.rmtree(WORK, ignore_errors=True)
    order = ["tpcb", "insert", "load", "seqscan"]
    rows.sort(key=lambda r: order.index(r["workload"]))  # stable: heap stays before nvm_am
    add_ratios(rows)
    write_csv(rows, os.path.join(RESULTS, "results.csv"))
    plot(rows, RESULTS)
    print_table(rows, cfg, opts.quick)
    log("== done in %.0f s; results in %s" % (time.monotonic() - t0, RESULTS))
    return 1 if any(r["status"] != "ok" for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
