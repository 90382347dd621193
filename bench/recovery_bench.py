#!/usr/bin/env python3
"""recovery_bench.py - restart time after a crash, by amount of data.

For each data size (pgbench_accounts of about 100 MB, 1 GB and 5 GB) and
each of heap and nvm_am: load with pgbench -i, CHECKPOINT, run pgbench
TPC-B with 2 clients for 10 s, SIGKILL the postmaster and its children,
start the server again and time the first answered query.  Reported:

  restart_s   SIGKILL to first answered query, minus the wait for the killed
              processes to be reaped (PID 1 reaps late here)
  redo_s      PostgreSQL's WAL replay ("redo done ... elapsed"; heap's part
              of the restart, and nvm_am's index WAL)
  nvm_ms      nvm_am's own recovery (nvm_am.nvm_am_stats.recovery_us: rebuild of
              the allocation state from the page tables + resolution of the
              transaction slots and the commit log)
  winners / losers   transactions nvm_am recovery committed from its commit
              log / found interrupted

heap and nvm_am run in separate clusters (one at a time, so that 5 GB of
each fit in memory).  Results: bench/results/recovery.csv, recovery.png and
a table on standard output and in recovery_table.txt.  Uses the helpers of run_bench.py.  Run it
with Debian's /usr/bin/python3 (python3-matplotlib is installed for it).
"""
import argparse
import contextlib
import csv
import io
import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run_bench as rb  # noqa: E402

# pgbench scale -> about 15 MB of pgbench_accounts per unit
FULL_SCALES = (7, 70, 390)
QUICK_SCALES = (2, 7)
RUN_S = 10


def redo_seconds(logfile, offset):
    """The elapsed time of the last "redo done" line after offset, or 0."""
    with open(logfile, errors="replace") as f:
        f.seek(offset)
        text = f.read()
    found = re.findall(r"redo done at .*?elapsed: ([0-9.]+) s", text)
    return float(found[-1]) if found else 0.0


def measure(am, scale, rows):
    db = rb.DBS[am]
    env = rb.am_env(am)
    rb.log("== %s: load scale %d" % (am, scale))
    t0 = time.monotonic()
    rb.run_pg([rb.PGBIN + "/pgbench", "-i", "-q", "-s", str(scale), db], env=env, timeout=7200)
    load_s = time.monotonic() - t0
    rb.check_am(db, am, ["pgbench_accounts"])
    size = int(rb.psql(db, "SELECT pg_relation_size('pgbench_accounts')")[0][0])
    rb.psql(db, "CHECKPOINT")
    logfile = os.path.join(rb.WORK, "server.log")
    offset = os.path.getsize(logfile)
    env = dict(env)
    env["PGAPPNAME"] = "pgbench"
    ok, elapsed, gone_s = rb.crash_during_pgbench(db, env, RUN_S)
    stats = dict(rb.psql(db, "SELECT name, value FROM nvm_am.nvm_am_stats"))
    r = dict(am=am, scale=scale, size_mb=size >> 20, load_s=round(load_s, 1),
             status="ok" if ok else "error", restart_s=round(elapsed - gone_s, 3),
             redo_s=redo_seconds(logfile, offset),
             nvm_ms=round(int(stats.get("recovery_us", 0)) / 1000.0, 3) if am == "nvm_am" else None,
             winners=int(stats.get("frozen_winners", 0)) if am == "nvm_am" else None,
             losers=int(stats.get("recovered_losers", 0)) if am == "nvm_am" else None)
    rb.log("   %(status)s: %(size_mb)d MB, restart %(restart_s).3f s, redo %(redo_s).2f s, "
           "nvm_am recovery %(nvm_ms)s ms" % r)
    rows.append(r)
    rb.psql(db, "DROP TABLE pgbench_accounts, pgbench_branches, pgbench_tellers, pgbench_history")
    rb.psql(db, "CHECKPOINT")


def plot(rows, outdir):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(7, 4))
    for am, key, label in (("heap", "restart_s", "heap: restart"),
                           ("nvm_am", "restart_s", "nvm_am: restart"),
                           ("heap", "redo_s", "heap: WAL replay"),
                           ("nvm_am", "nvm_ms", "nvm_am: own recovery")):
        pts = [(r["size_mb"], r[key] / 1000.0 if key == "nvm_ms" else r[key])
               for r in rows if r["am"] == am and r["status"] == "ok" and r[key] is not None]
        if pts:
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=label)
    ax.set_xscale("log")
    ax.set_xlabel("pgbench_accounts size (MB)")
    ax.set_ylabel("seconds")
    ax.set_title("restart after SIGKILL during TPC-B, by data size")
    ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(outdir, "recovery.png"), dpi=80)
    plt.close(fig)


FIELDS = ["am", "scale", "size_mb", "load_s", "status", "restart_s", "redo_s", "nvm_ms",
          "winners", "losers"]


def print_table(rows):
    print()
    print("Restart after SIGKILL during %d s of TPC-B (2 clients), by size of pgbench_accounts" % RUN_S)
    print("%-7s %6s %9s %8s %11s %9s %12s %8s %7s" % ("am", "scale", "size MB", "load s", "restart s",
                                                     "redo s", "nvm_am ms", "winners", "losers"))
    for r in rows:
        print("%-7s %6d %9d %8.1f %11.3f %9.2f %12s %8s %7s" % (
            r["am"], r["scale"], r["size_mb"], r["load_s"], r["restart_s"], r["redo_s"],
            rb.fmt(r["nvm_ms"], ".2f"), rb.fmt(r["winners"], "d"), rb.fmt(r["losers"], "d")))


def read_csv(path):
    rows = []
    with open(path) as f:
        for r in csv.DictReader(f):
            for k in ("scale", "size_mb", "winners", "losers"):
                r[k] = int(r[k]) if r[k] != "" else None
            for k in ("load_s", "restart_s", "redo_s", "nvm_ms"):
                r[k] = float(r[k]) if r[k] != "" else None
            rows.append(r)
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="100 MB at most")
    ap.add_argument("--replot", action="store_true",
                    help="only print the table and redraw the plot from bench/results/recovery.csv")
    opts = ap.parse_args()
    csv_path = os.path.join(rb.RESULTS, "recovery.csv")
    if opts.replot:
        rows = read_csv(csv_path)
        print_table(rows)
        plot(rows, rb.RESULTS)
        return 0
    scales = QUICK_SCALES if opts.quick else FULL_SCALES
    pool_mb = max(2048, scales[-1] * 15 * 2 + 1024)
    os.makedirs(rb.RESULTS, exist_ok=True)
    rows = []
    for am in ("nvm_am", "heap"):
        pool = pool_mb if am == "nvm_am" else 256
        rb.start_cluster("nvm_am.pool_size = '%dMB'\nmax_wal_size = 8GB\n" % pool, ams=(am,))
        try:
            for scale in scales:
                measure(am, scale, rows)
        finally:
            rb.stop_cluster()
    rows.sort(key=lambda r: (r["scale"], r["am"]))
    with open(csv_path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS)
        w.writeheader()
        w.writerows(rows)
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        print_table(rows)
    sys.stdout.write(buf.getvalue())
    with open(os.path.join(rb.RESULTS, "recovery_table.txt"), "w") as f:
        f.write(buf.getvalue().lstrip("\n"))
    plot(rows, rb.RESULTS)
    return 0


if __name__ == "__main__":
    sys.exit(main())
