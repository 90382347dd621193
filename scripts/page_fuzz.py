#!/usr/bin/env python3
"""page_fuzz.py - are nvm_am's tuple headers heap's?

Runs a random mix of transactions against two tables with the same rows,
one USING heap and one USING nvm_am, each statement once per table inside
the same transaction, so that both tables' row versions carry the same
xids (tables of 20 to 400 rows, fillfactor 50 to 100): updates that keep
or change the row's length (of one row or a few, through the index, a
bitmap heap scan or a sequential scan, some storing the value in the
TOAST table), updates of an indexed column (not HOT), deletes of one row
or a few, a key deleted and inserted again, inserts of one row or a few
and upserts (DO NOTHING, DO UPDATE), row locks of all four strengths,
updates and inserts in savepoints rolled back or released (one savepoint
around both tables' statements), index scans, and each transaction
committed or rolled back; now and then a VACUUM, or a rewrite (ALTER
COLUMN ... TYPE).  At the end a VACUUM, VACUUM (FREEZE), VACUUM FULL,
CLUSTER or nothing, and then every line pointer of every page is compared through pageinspect (get_raw_page for heap,
nvm_am.nvm_am_get_raw_page for nvm_am): its flags and length, and the
tuple's xmin, xmax, ctid, t_infomask without the four hint bits (nvm_am's
hint bits are set by readers at other times and not made durable), and
t_infomask2.  scripts/placement_fuzz.py compares where rows go (ctids,
statement by statement, each in a session of its own); this compares what
their headers say once the dust has settled.  It found the xmax VACUUM
cleared for an updater that aborted, where heap's keeps it, and an index
scan that pruned a page heap's leaves alone (the page of the row it had
returned last).

  python3 scripts/page_fuzz.py SEED [SEED_TO]   against $PGHOST/$PGPORT

in a database of its own, $PAGE_FUZZ_DB (default page_fuzz), dropped and
made anew, with nvm_am and pageinspect, on a cluster doing nothing else:
whether a page is pruned depends on the horizon of removable xids, which
another session's snapshot holds back and which other databases'
transactions decide when it is computed again, between a statement on the
heap table and its twin on the nvm_am table (seeds run beside
scripts/isolation_fuzz.py differed on both engines' prunes).

Prints "seed N <final VACUUM> ... ok|FAILED" and, for a seed that fails,
the line pointers that differ (heap's field, then nvm_am's); exit status
1 when any seed fails.  The tables are page_fuzz_heap and page_fuzz_nvm.
"""
import os
import random
import subprocess
import sys

STEPS = 100
DB = os.environ.get("PAGE_FUZZ_DB", "page_fuzz")


def psql(sql, db=DB):
    """run sql (any number of statements, as a script) and return its output"""
    r = subprocess.run(["psql", "-X", "-At", "-q", "-v", "ON_ERROR_STOP=1",
                        "-d", db, "-f", "-"],
                       input=sql, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("page_fuzz: psql failed: %s\nin:\n%s" % (r.stderr.strip(), sql[:2000]))
    return r.stdout


def both(stmt):
    """stmt ({t} for the table) once for heap's table, once for nvm_am's"""
    return "%s; %s" % (stmt.format(t="page_fuzz_heap"), stmt.format(t="page_fuzz_nvm"))


def script(seed):
    """the set-up, the transactions and the final VACUUM of seed"""
    rnd = random.Random(seed)
    width = rnd.choice([10, 100, 400])
    nrows = rnd.choice([20, 60, 150, 400])
    fillfactor = rnd.choice([100, 100, 90, 70, 50])
    setup = ["DROP TABLE IF EXISTS page_fuzz_heap, page_fuzz_nvm",
             "CREATE TABLE page_fuzz_heap (id int PRIMARY KEY, k int, v text) USING heap "
             "WITH (fillfactor = %d)" % fillfactor,
             "CREATE TABLE page_fuzz_nvm (id int PRIMARY KEY, k int, v text) USING nvm_am "
             "WITH (fillfactor = %d)" % fillfactor,
             "CREATE INDEX ON page_fuzz_heap (k)",
             "CREATE INDEX ON page_fuzz_nvm (k)",
             "BEGIN",
             both("INSERT INTO {t} SELECT g, g, repeat('x', %d) "
                  "FROM generate_series(1, %d) g" % (width, nrows)),
             "COMMIT"]
    work = []
    for _ in range(STEPS):
        stmts = []
        for _ in range(rnd.randint(1, 4)):
            i = rnd.randint(1, nrows + 20)
            c = rnd.random()
            if c < 0.35:
                stmts.append(both("UPDATE {t} SET v = repeat('%s', %d) WHERE id = %d"
                                  % (rnd.choice("abc"), rnd.choice([5, 10, 100, 400, 900]), i)))
            elif c < 0.42:
                stmts.append(both("UPDATE {t} SET k = k + 1000 WHERE id = %d" % i))
            elif c < 0.46:
                stmts.append(both("UPDATE {t} SET v = v || 'r' WHERE id BETWEEN %d AND %d"
                                  % (i, i + rnd.randint(1, 8))))
            elif c < 0.5:
                # stored in the TOAST table (md5s do not compress)
                stmts.append(both("UPDATE {t} SET v = (SELECT string_agg(md5((g + %d)::text), '') "
                                  "FROM generate_series(1, 100) g) WHERE id = %d" % (i, i)))
            elif c < 0.56:
                stmts.append(both("DELETE FROM {t} WHERE id = %d" % i))
            elif c < 0.58:
                # a sequential scan's update: no index on v
                stmts.append(both("UPDATE {t} SET v = v || 's' WHERE v LIKE '%s%%'"
                                  % rnd.choice("abcix")))
            elif c < 0.6:
                stmts.append(both("DELETE FROM {t} WHERE id BETWEEN %d AND %d"
                                  % (i, i + rnd.randint(1, 4))))
            elif c < 0.66:
                stmts.append(both("INSERT INTO {t} VALUES (%d, %d, repeat('i', %d)) "
                                  "ON CONFLICT (id) DO NOTHING" % (i, i, rnd.choice([10, 200]))))
            elif c < 0.69:
                stmts.append(both("INSERT INTO {t} VALUES (%d, %d, repeat('u', %d)) "
                                  "ON CONFLICT (id) DO UPDATE SET v = excluded.v"
                                  % (i, i, rnd.choice([10, 300]))))
            elif c < 0.72:
                stmts.append(both("INSERT INTO {t} SELECT g, g, repeat('m', %d) "
                                  "FROM generate_series(%d, %d) g ON CONFLICT (id) DO NOTHING"
                                  % (rnd.choice([10, 200]), i, i + rnd.randint(1, 10))))
            elif c < 0.82:
                stmts.append(both("SELECT id FROM {t} WHERE id = %d FOR %s"
                                  % (i, rnd.choice(["UPDATE", "NO KEY UPDATE", "SHARE", "KEY SHARE"]))))
            elif c < 0.9:
                stmts.append("SAVEPOINT s; %s; %s s"
                             % (both("UPDATE {t} SET v = 'sp' WHERE id = %d" % i),
                                rnd.choice(["ROLLBACK TO", "RELEASE"])))
            elif c < 0.93:
                # a bitmap heap scan's update
                stmts.append("SET LOCAL enable_indexscan = off; SET LOCAL enable_seqscan = off; "
                             "%s; RESET enable_indexscan; RESET enable_seqscan"
                             % both("UPDATE {t} SET v = v || 'b' WHERE k BETWEEN %d AND %d"
                                    % (i, i + 6)))
            elif c < 0.95:
                # a key deleted and inserted again by one transaction
                stmts.append("%s; %s" % (both("DELETE FROM {t} WHERE id = %d" % i),
                                         both("INSERT INTO {t} VALUES (%d, %d, repeat('d', %d))"
                                              % (i, i, rnd.choice([10, 300])))))
            elif c < 0.97:
                stmts.append("SAVEPOINT t; %s; %s t"
                             % (both("INSERT INTO {t} VALUES (%d, %d, 'sub') ON CONFLICT DO NOTHING"
                                     % (i + 1000, i)), rnd.choice(["ROLLBACK TO", "RELEASE"])))
            else:
                stmts.append(both("SELECT count(*) FROM {t} WHERE k > %d" % rnd.randint(0, nrows)))
        work.append("BEGIN; %s; %s" % ("; ".join(stmts), rnd.choice(["COMMIT", "COMMIT", "ROLLBACK"])))
        if rnd.random() < 0.08:
            work.append(both("VACUUM {t}"))
        elif rnd.random() < 0.02:
            work.append("BEGIN; %s; COMMIT" % both("ALTER TABLE {t} ALTER COLUMN k TYPE %s"
                                                    % rnd.choice(["bigint", "int"])))
    final = rnd.choice(["VACUUM", "VACUUM", "VACUUM (FREEZE)", "VACUUM FULL", "CLUSTER",
                        "none"])
    if final == "CLUSTER":
        work.append(both("CLUSTER {t} USING {t}_pkey"))
    elif final != "none":
        work.append(both(final + " {t}"))
    return ";\n".join(setup + work) + ";\n", final


# the line pointers whose fields differ; t_infomask without the hint bits
# (XMIN_COMMITTED, XMIN_INVALID, XMAX_COMMITTED, XMAX_INVALID: 0x0F00)
COMPARE = """
WITH h AS (SELECT * FROM heap_page_items(get_raw_page('page_fuzz_heap', %(b)d))),
     n AS (SELECT * FROM heap_page_items(nvm_am.nvm_am_get_raw_page('page_fuzz_nvm', %(b)d)))
SELECT format('block %(b)s lp %%s: flags %%s/%%s len %%s/%%s xmin %%s/%%s xmax %%s/%%s '
              'ctid %%s/%%s infomask %%s/%%s infomask2 %%s/%%s',
              lp, h.lp_flags, n.lp_flags, h.lp_len, n.lp_len, h.t_xmin, n.t_xmin,
              h.t_xmax, n.t_xmax, h.t_ctid, n.t_ctid, h.t_infomask & ~3840,
              n.t_infomask & ~3840, h.t_infomask2, n.t_infomask2)
  FROM h FULL JOIN n USING (lp)
 WHERE h.lp_flags IS DISTINCT FROM n.lp_flags OR h.lp_len IS DISTINCT FROM n.lp_len
    OR h.t_xmin IS DISTINCT FROM n.t_xmin OR h.t_xmax IS DISTINCT FROM n.t_xmax
    OR h.t_ctid IS DISTINCT FROM n.t_ctid
    OR (h.t_infomask & ~3840) IS DISTINCT FROM (n.t_infomask & ~3840)
    OR h.t_infomask2 IS DISTINCT FROM n.t_infomask2
 ORDER BY lp;
"""


def differences():
    """the fields of the two tables' pages that differ, one line each"""
    sizes = psql("SELECT pg_relation_size('page_fuzz_heap') / 8192, "
                 "pg_relation_size('page_fuzz_nvm') / 8192;").strip().split("|")
    nheap, nnvm = int(sizes[0]), int(sizes[1])
    out = [] if nheap == nnvm else ["pages %d/%d" % (nheap, nnvm)]
    if min(nheap, nnvm) > 0:
        rows = psql("".join(COMPARE % {"b": b} for b in range(min(nheap, nnvm))))
        out += [line for line in rows.splitlines() if line]
    return out


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    first = int(sys.argv[1])
    last = int(sys.argv[2]) if len(sys.argv) > 2 else first
    differing = 0
    psql("DROP DATABASE IF EXISTS %s; CREATE DATABASE %s;" % (DB, DB), db="postgres")
    psql("CREATE EXTENSION nvm_am; CREATE EXTENSION pageinspect;")
    for seed in range(first, last + 1):
        sql, final = script(seed)
        psql(sql)
        diff = differences()
        print("seed %d %s ... %s" % (seed, final, "FAILED" if diff else "ok"), flush=True)
        if diff:
            differing += 1
            print("\n".join(diff[:40]), flush=True)
    psql("DROP DATABASE %s;" % DB, db="postgres")
    sys.exit(1 if differing else 0)


if __name__ == "__main__":
    main()
