#!/usr/bin/env python3
"""ipl_bench.py - the in-page logging figures.

1. Bytes written to durable media per 10,000 transactions, and transactions
   per second, of pgbench TPC-B and of an update-heavy YCSB-A-like mix
   (50% reads, 50% updates, zipfian keys): heap (WAL + page writes) once,
   then nvm_am (pool bytes + its WAL + page writes of its indexes) with
   nvm_am.ipl_log_size = 0, 256B, 512B, 1kB, 2kB and 4kB.  The log size of
   a pool is fixed when it is created, so each size gets a fresh cluster.
2. TPC-H-like Q1 and Q6 over a generated lineitem table larger than
   shared_buffers: heap, nvm_am with read_mode = copy and with read_mode =
   redirect; cold (first run after a restart) and warm (median of the next
   runs), with the user and system CPU time of the backend that ran them.

Results: bench/results/ipl.csv, ipl_bytes.png, ipl_scans.png, and a table
on standard output.  Uses the helpers of run_bench.py (same cluster set-up).
"""
import argparse
import csv
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run_bench as rb  # noqa: E402

LOG_SIZES = ["0", "256B", "512B", "1kB", "2kB", "4kB"]
FULL = dict(scale=4, duration=15, ycsb_rows=200_000, lineitem=1_500_000, scan_runs=3)
QUICK = dict(scale=1, duration=5, ycsb_rows=50_000, lineitem=400_000, scan_runs=2)

# the queries and the table of the main benchmark
Q1, Q6, LINEITEM = rb.Q1, rb.Q6, rb.LINEITEM
YCSB_A = rb.YCSB.format(dist="random_zipfian(1, {rows}, 1.1)", reads=50)





write_script = rb.write_script


def oltp(cfg, am, logsize, rows):
    db = rb.DBS[am]
    label = "heap" if am == "heap" else "nvm_am ipl_log_size=%s" % logsize
    # TPC-B
    rb.run_pg([rb.PGBIN + "/pgbench", "-i", "-q", "-s", str(cfg["scale"]), db], env=rb.am_env(am))
    rb.check_am(db, am, ["pgbench_accounts"])
    rb.log("== %s: tpcb, 2 clients, %d s" % (label, cfg["duration"]))
    res = rb.pgbench_run(db, am, "tpcb", 2, cfg["duration"])
    rows.append(result("tpcb", am, logsize, res))
    rb.psql(db, "DROP TABLE pgbench_accounts, pgbench_branches, pgbench_tellers, pgbench_history")
    # YCSB-A
    n = cfg["ycsb_rows"]
    rb.psql(db, "CREATE TABLE usertable (ycsb_key int PRIMARY KEY, field0 text, field1 text)")
    rb.psql(db, "INSERT INTO usertable SELECT g, md5(g::text), md5((-g)::text) "
                "FROM generate_series(1, %d) g" % n)
    rb.psql(db, "VACUUM ANALYZE usertable")
    rb.check_am(db, am, ["usertable"])
    script = write_script("ycsb_a.sql", YCSB_A.format(rows=n))
    rb.log("== %s: ycsb-a zipfian, 2 clients, %d s" % (label, cfg["duration"]))
    res = rb.pgbench_run(db, am, "ycsba", 2, cfg["duration"], script=script)
    rows.append(result("ycsb-a", am, logsize, res))
    rb.psql(db, "DROP TABLE usertable")


def result(workload, am, logsize, res):
    txns = res.get("txns") or 0
    total = res["wal_bytes"] + res["pmem_bytes"] + res["page_bytes"]
    r = dict(workload=workload, am=am, ipl_log_size=logsize if am != "heap" else "",
             status=res["status"], tps=res.get("tps"), txns=txns,
             bytes_per_10k=(total * 10000.0 / txns) if txns else None,
             wal_per_10k=(res["wal_bytes"] * 10000.0 / txns) if txns else None,
             pmem_per_10k=(res["pmem_bytes"] * 10000.0 / txns) if txns else None,
             pages_per_10k=(res["page_bytes"] * 10000.0 / txns) if txns else None)
    rb.log("   %s: %s tps, %s bytes / 10k txn" % (r["status"], rb.fmt(r["tps"], ".0f"),
                                                  rb.fmt(r["bytes_per_10k"], ".0f")))
    return r


def counters_stats(db):
    return dict(rb.psql(db, "SELECT name, value FROM nvm_am.nvm_am_stats"))


def timed_scan(setup, sql, runs):
    """Run sql runs + 1 times in one session (the first right after a
    restart: cold); [(ms, user_s, sys_s)] per run, and the output."""
    times, cpu, body = rb.timed_query(setup, sql, runs + 1)
    return [(t, u, s) for t, (u, s) in zip(times, cpu)], body


def scans(cfg, rows):
    n = cfg["lineitem"]
    rb.start_cluster("shared_buffers = 128MB\n")
    try:
        for am in rb.AMS:
            db = rb.DBS[am]
            rb.log("== lineitem, %d rows, %s: load" % (n, am))
            rb.psql(db, LINEITEM.replace("{n}", str(n)), timeout=3600)
            rb.psql(db, "VACUUM ANALYZE lineitem", timeout=3600)
            rb.check_am(db, am, ["lineitem"])
        size = rb.psql(rb.DBS["heap"], "SELECT pg_relation_size('lineitem')")[0][0]
        rb.log("   heap lineitem: %d MB (shared_buffers 128MB)" % (int(size) >> 20))
        answers = {}
        for setup in ("heap", "nvm_am-copy", "nvm_am"):
            am = rb.SETUPS[setup][1]
            mode = "copy" if setup.endswith("-copy") else "redirect"
            db = rb.DBS[am]
            for qname, q in (("Q1", Q1), ("Q6", Q6)):
                # cold: a fresh server (empty shared_buffers and merge cache)
                rb.cluster_helper("cluster_restart", rb.WORK)
                before = counters_stats(db)
                res, body = timed_scan(setup, q, cfg["scan_runs"])
                after = counters_stats(db)
                if answers.setdefault(qname, body) != body:
                    rb.note("%s on %s (%s) returned another answer than on heap" % (qname, am, mode))
                label = am if am == "heap" else "nvm_am %s" % mode
                warm = res[1:]
                r = dict(workload=qname, am=label, status="ok", rows=n, size_mb=int(size) >> 20,
                         cold_ms=res[0][0], cold_user_s=res[0][1], cold_sys_s=res[0][2],
                         warm_ms=statistics.median(x[0] for x in warm),
                         warm_user_s=statistics.median(x[1] for x in warm),
                         warm_sys_s=statistics.median(x[2] for x in warm),
                         merged_reads=int(after.get("merged_page_reads", 0)) - int(before.get("merged_page_reads", 0)),
                         redirected_reads=int(after.get("redirected_page_reads", 0)) - int(before.get("redirected_page_reads", 0)),
                         copied_reads=int(after.get("copied_page_reads", 0)) - int(before.get("copied_page_reads", 0)))
                rows.append(r)
                rb.log("   %s %s: cold %.0f ms (user %.2f s, sys %.2f s), warm %.0f ms"
                       % (qname, label, r["cold_ms"], r["cold_user_s"], r["cold_sys_s"], r["warm_ms"]))
    finally:
        rb.stop_cluster()


def plot(oltp_rows, scan_rows, outdir):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(9, 3.4))
    for ax, wl in zip(axes, ("tpcb", "ycsb-a")):
        sel = [r for r in oltp_rows if r["workload"] == wl and r["status"] == "ok"]
        heap = [r for r in sel if r["am"] == "heap"]
        nvm = [r for r in sel if r["am"] != "heap"]
        xs = list(range(len(nvm)))
        ax.bar(xs, [r["bytes_per_10k"] / 1e6 for r in nvm], 0.6, color="#ee7733", label="nvm_am")
        if heap:
            ax.axhline(heap[0]["bytes_per_10k"] / 1e6, color="#4477aa", linestyle="--",
                       label="heap (WAL + pages)")
        ax.set_xticks(xs)
        ax.set_xticklabels([r["ipl_log_size"] for r in nvm], fontsize=8)
        ax.set_xlabel("nvm_am.ipl_log_size", fontsize=8)
        ax.set_ylabel("MB written per 10,000 transactions (log scale)", fontsize=8)
        ax.set_yscale("log")
        ax.set_title(wl, fontsize=9)
        ax2 = ax.twinx()
        ax2.plot(xs, [r["tps"] or 0 for r in nvm], "k.-", label="nvm_am tps")
        if heap and heap[0]["tps"]:
            ax2.axhline(heap[0]["tps"], color="black", linestyle=":", label="heap tps")
        ax2.set_ylabel("transactions/s", fontsize=8)
        ax2.set_ylim(bottom=0)
        ax.legend(fontsize=7, loc="upper left")
        ax2.legend(fontsize=7, loc="upper right")
    fig.tight_layout()
    fig.savefig(os.path.join(outdir, "ipl_bytes.png"), dpi=72)
    plt.close(fig)

    if scan_rows:
        fig, axes = plt.subplots(1, 2, figsize=(9, 3.4))
        for ax, q in zip(axes, ("Q1", "Q6")):
            sel = [r for r in scan_rows if r["workload"] == q]
            xs = list(range(len(sel)))
            ax.bar([x - 0.2 for x in xs], [r["cold_ms"] / 1000 for r in sel], 0.4, label="cold",
                   color="#aaaaaa")
            ax.bar([x + 0.2 for x in xs], [r["warm_ms"] / 1000 for r in sel], 0.4, label="warm",
                   color="#ee7733")
            ax.set_xticks(xs)
            ax.set_xticklabels([r["am"] for r in sel], fontsize=8)
            ax.set_ylabel("seconds", fontsize=8)
            ax.set_title("%s over %d rows (%d MB)" % (q, sel[0]["rows"], sel[0]["size_mb"])
                         if sel else q, fontsize=9)
            ax.legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(os.path.join(outdir, "ipl_scans.png"), dpi=72)
        plt.close(fig)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--only", default="oltp,scans")
    ap.add_argument("--replot", action="store_true",
                    help="only redraw the plots from bench/results/ipl.csv")
    opts = ap.parse_args()
    if opts.replot:
        oltp_rows, scan_rows = [], []
        with open(os.path.join(rb.RESULTS, "ipl.csv")) as f:
            for r in csv.DictReader(f):
                for k, v in r.items():
                    try:
                        r[k] = float(v) if "." in v or "e" in v else int(v)
                    except (TypeError, ValueError):
                        pass
                (oltp_rows if r["workload"] in ("tpcb", "ycsb-a") else scan_rows).append(r)
        for r in oltp_rows:
            r["ipl_log_size"] = str(r["ipl_log_size"])
        plot(oltp_rows, scan_rows, rb.RESULTS)
        return 0
    cfg = QUICK if opts.quick else FULL
    os.makedirs(rb.RESULTS, exist_ok=True)
    t0 = time.monotonic()
    oltp_rows, scan_rows = [], []
    only = opts.only.split(",")
    if "oltp" in only:
        for i, size in enumerate(LOG_SIZES):
            ams = rb.AMS if i == 0 else ("nvm_am",)
            rb.start_cluster("nvm_am.ipl_log_size = '%s'\n" % size, ams=ams)
            try:
                for am in ams:
                    oltp(cfg, am, size, oltp_rows)
            finally:
                rb.stop_cluster()
    if "scans" in only:
        scans(cfg, scan_rows)
    with open(os.path.join(rb.RESULTS, "ipl.csv"), "w", newline="") as f:
        fields = ["workload", "am", "ipl_log_size", "status", "tps", "txns", "bytes_per_10k",
                  "wal_per_10k", "pmem_per_10k", "pages_per_10k", "rows", "size_mb", "cold_ms",
                  "cold_user_s", "cold_sys_s", "warm_ms", "warm_user_s", "warm_sys_s",
                  "merged_reads", "redirected_reads", "copied_reads"]
        w = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore")
        w.writeheader()
        for r in oltp_rows + scan_rows:
            w.writerow({k: (("%.6g" % v) if isinstance(v, float) else v) for k, v in r.items()})
    plot(oltp_rows, scan_rows, rb.RESULTS)

    print()
    print("Bytes written per 10,000 transactions (heap: WAL + page writes; nvm_am: pool + WAL + page writes)")
    print("%-8s %-28s %10s %14s %12s %12s %12s" % ("workload", "configuration", "tps", "MB/10k txn",
                                                  "WAL MB", "pool MB", "pages MB"))
    for r in oltp_rows:
        cfgname = "heap" if r["am"] == "heap" else "nvm_am ipl_log_size=%s" % r["ipl_log_size"]
        mb = lambda v: rb.fmt(v / 1e6 if v is not None else None, ".2f")  # noqa: E731
        print("%-8s %-28s %10s %14s %12s %12s %12s" % (
            r["workload"], cfgname, rb.fmt(r["tps"], ".0f"), mb(r["bytes_per_10k"]),
            mb(r["wal_per_10k"]), mb(r["pmem_per_10k"]), mb(r["pages_per_10k"])))
    if scan_rows:
        print()
        print("TPC-H-like scans over lineitem (%d rows, %d MB heap; shared_buffers 128MB; "
              "cold = first run after a restart, warm = median of %d more)"
              % (scan_rows[0]["rows"], scan_rows[0]["size_mb"], cfg["scan_runs"]))
        print("%-6s %-18s %10s %9s %9s %10s %9s %9s %10s %10s" % (
            "query", "configuration", "cold ms", "user s", "sys s", "warm ms", "user s", "sys s",
            "merged", "in place"))
        for r in scan_rows:
            print("%-6s %-18s %10.0f %9.2f %9.2f %10.0f %9.2f %9.2f %10d %10d" % (
                r["workload"], r["am"], r["cold_ms"], r["cold_user_s"], r["cold_sys_s"],
                r["warm_ms"], r["warm_user_s"], r["warm_sys_s"], r["merged_reads"],
                r["redirected_reads"]))
    if rb.NOTES:
        print("\nPROBLEMS:")
        for n in rb.NOTES:
            print("  " + n)
    rb.log("== done in %.0f s" % (time.monotonic() - t0))
    return 1 if rb.NOTES else 0


if __name__ == "__main__":
    sys.exit(main())
