#!/usr/bin/env python3
"""placement_fuzz.py - does nvm_am put rows where heap puts them?

Runs the same random mix of statements (inserts of rows of varied length,
COPY, rows long enough for TOAST, updates that keep or change the row
length, updates of an indexed column, updates rolled back, deletes,
sequential and index scans, VACUUM) against an nvm_am table and a
heap table, alternately, each statement in its own session as psql -c runs
it, and compares every row's ctid after each statement.  Equal ctids mean
equal pages: the same prunes, the same free-space-map answers, the same
index deletions, and with them the same order of scans without ORDER BY.

  python3 scripts/placement_fuzz.py SEED [STEPS]      against $PGHOST/$PGPORT
  python3 scripts/placement_fuzz.py SEED STEPS --sql   print the statements
  python3 scripts/placement_fuzz.py SEED STEPS --regress
        print them as a section of sql/nvm_placement.sql (tables mSEED_nvm
        and mSEED_heap, a placement_log row after each statement)

Exit status 1 at the first statement after which the tables differ.
"""
import os
import random
import subprocess
import sys


def statements(seed, steps):
    rnd = random.Random(seed)
    ff = rnd.choice([100, 100, 90, 70])
    padw = rnd.choice([20, 80, 300, 1200])
    nid = 0
    out = []
    ops = ["ins", "ins", "upd", "upd", "upd", "updk", "del",
           "sel", "sel", "idx", "vac", "abort", "copy", "toast"]
    if seed >= 1000:
        # the second mix: row locks, upserts, subtransactions rolled back,
        # ANALYZE (plans), RETURNING (its order), VACUUM FULL and CLUSTER
        ops += ["lock", "upsert", "subxact", "analyze", "returning", "vacfull",
                "cluster"]
    for _ in range(steps):
        op = rnd.choice(ops)
        if op == "ins":
            n = rnd.choice([1, 5, 50, 300])
            ln = rnd.randint(1, padw)
            sql = ("INSERT INTO f_T SELECT g, g %% 97, 0, repeat('x', %d + g %% 7) "
                   "FROM generate_series(%d, %d) g" % (ln, nid + 1, nid + n))
            nid += n
        elif op == "upd":
            m = rnd.choice([2, 5, 10, 50])
            r = rnd.randrange(m)
            d = rnd.choice([0, 0, 3, -3])
            sql = ("UPDATE f_T SET v = v + 1, pad = CASE WHEN %d = 0 THEN pad ELSE "
                   "repeat('y', greatest(1, length(pad) + %d)) END WHERE id %% %d = %d"
                   % (d, d, m, r))
        elif op == "updk":
            m = rnd.choice([5, 20])
            sql = "UPDATE f_T SET k = k + 1 WHERE id %% %d = %d" % (m, rnd.randrange(m))
        elif op == "del":
            m = rnd.choice([3, 10, 40])
            r = rnd.randrange(m)
            sql = "DELETE FROM f_T WHERE id %% %d = %d AND id > %d" % (
                m, r, rnd.randint(0, max(nid, 1)))
        elif op == "sel":
            sql = "SELECT count(*), sum(v) FROM f_T"
        elif op == "idx":
            lo = rnd.randint(0, max(nid, 1))
            hi = rnd.randint(0, max(nid, 1)) + 50
            sql = ("SELECT count(*) FROM (SELECT v FROM f_T WHERE id BETWEEN %d AND %d) s"
                   % (lo, hi))
        elif op == "abort":
            m = rnd.choice([2, 5, 10])
            sql = ("BEGIN; UPDATE f_T SET v = v + 1, pad = pad || 'z' WHERE id %% %d = %d; "
                   "ROLLBACK" % (m, rnd.randrange(m)))
        elif op == "copy":
            n = rnd.choice([10, 200, 1000])
            sql = ("COPY f_T FROM PROGRAM 'seq %d %d | sed \"s/.*/&,1,0,%s/\"' "
                   "WITH (FORMAT csv)" % (nid + 1, nid + n, "c" * rnd.randint(1, padw)))
            nid += n
        elif op == "toast":
            n = rnd.choice([1, 5])
            sql = ("INSERT INTO f_T SELECT g, 1, 0, (SELECT string_agg(md5(g::text || i::text), '') "
                   "FROM generate_series(1, %d) i) FROM generate_series(%d, %d) g"
                   % (rnd.choice([20, 100, 300]), nid + 1, nid + n))
            nid += n
        elif op == "lock":
            m = rnd.choice([3, 10])
            sql = ("BEGIN; SELECT count(*) FROM (SELECT id FROM f_T WHERE id %% %d = %d FOR %s) s; "
                   "COMMIT" % (m, rnd.randrange(m),
                               rnd.choice(["UPDATE", "NO KEY UPDATE", "SHARE", "KEY SHARE"])))
        elif op == "upsert":
            lo = rnd.randint(1, max(nid, 1))
            hi = lo + rnd.choice([5, 50]) - 1
            sql = ("INSERT INTO f_T SELECT g, g %% 97, 0, repeat('u', %d) "
                   "FROM generate_series(%d, %d) g ON CONFLICT (id) DO UPDATE SET v = f_T.v + 1"
                   % (rnd.randint(1, padw), lo, hi))
            nid = max(nid, hi)
        elif op == "subxact":
            m = rnd.choice([5, 10])
            sql = ("BEGIN; UPDATE f_T SET v = v + 1 WHERE id %% %d = %d; SAVEPOINT s; "
                   "UPDATE f_T SET pad = pad || 'q' WHERE id %% %d = %d; ROLLBACK TO s; "
                   "UPDATE f_T SET v = v + 1 WHERE id %% %d = %d; COMMIT"
                   % (m, rnd.randrange(m), m, rnd.randrange(m), m, rnd.randrange(m)))
        elif op == "analyze":
            sql = "ANALYZE f_T"
        elif op == "returning":
            m = rnd.choice([10, 40])
            sql = "UPDATE f_T SET v = v + 1 WHERE id %% %d = %d RETURNING id" % (m, rnd.randrange(m))
        elif op == "vacfull":
            sql = "VACUUM FULL f_T"
        elif op == "cluster":
            sql = "CLUSTER f_T USING f_T_pkey"
        else:
            sql = "VACUUM f_T"
        out.append(sql)
    return ff, out


def create(ff, name, am):
    return ("DROP TABLE IF EXISTS %s; CREATE TABLE %s (id int PRIMARY KEY, k int, v int, "
            "pad text) USING %s WITH (fillfactor = %d, autovacuum_enabled = false); "
            "CREATE INDEX ON %s (k)" % (name, name, am, ff, name))


def regress_section(seed, ff, stmts):
    """The statements as sql/nvm_placement.sql runs them: each in a session
    of its own, and the tables compared after each."""
    out = ["-- the mix of seed %d (fillfactor %d)" % (seed, ff)]
    for am, suffix in (("nvm_am", "nvm"), ("heap", "heap")):
        out += ["CREATE TABLE m%d_%s (id int PRIMARY KEY, k int, v int, pad text) USING %s"
                % (seed, suffix, am),
                "  WITH (fillfactor = %d, autovacuum_enabled = false);" % ff,
                "CREATE INDEX ON m%d_%s (k);" % (seed, suffix)]
    out.append("\\o /dev/null")
    for i, sql in enumerate(stmts):
        # each statement in a session of its own, as psql -c runs it here
        for suffix in ("nvm", "heap"):
            out += [sql.replace("f_T", "m%d_%s" % (seed, suffix)) + ";", "\\c"]
        out += ["INSERT INTO placement_log SELECT 'seed %d', %d, "
                "placement_differs('m%d_nvm', 'm%d_heap');" % (seed, i + 1, seed, seed), "\\c"]
    out.append("\\o")
    return "\n".join(out)


def psql(sql):
    r = subprocess.run(["psql", "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1",
                        "-c", "SET max_parallel_workers_per_gather = 0", "-c", sql],
                       capture_output=True, text=True)
    if r.returncode:
        sys.exit("psql failed: %s\n%s" % (sql, r.stderr))
    return r.stdout


def main():
    seed = int(sys.argv[1])
    steps = int(sys.argv[2]) if len(sys.argv) > 2 else 60
    ff, stmts = statements(seed, steps)
    if "--regress" in sys.argv:
        print(regress_section(seed, ff, stmts))
        return
    if "--sql" in sys.argv:
        print("-- fillfactor %d" % ff)
        print("\n".join(stmts))
        return
    psql(create(ff, "fz_nvm", "nvm_am"))
    psql(create(ff, "fz_heap", "heap"))
    for i, sql in enumerate(stmts):
        outs = [psql(sql.replace("f_T", t)) for t in ("fz_nvm", "fz_heap")]
        if outs[0] != outs[1]:
            print("seed %d step %d: results differ: %s" % (seed, i, sql))
            sys.exit(1)
        a = psql("SELECT ctid, id FROM fz_nvm")
        b = psql("SELECT ctid, id FROM fz_heap")
        if a != b:
            print("seed %d step %d: rows lie elsewhere after: %s" % (seed, i, sql))
            sys.exit(1)
    print("seed %d (fillfactor %d): %d statements, rows where heap has them"
          % (seed, ff, steps))


if __name__ == "__main__":
    main()
