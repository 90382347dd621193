#!/usr/bin/env python3
"""isolation_fuzz.py - do concurrent transactions on nvm_am see, wait and
fail as they do on heap?

Writes a random isolation spec (PostgreSQL's isolationtester format): a
parent table with a primary key and a unique column, a child table with
a foreign key to it, a partitioned table, a table with an exclusion
constraint, in 2 specs in 7 a table with a deferred unique
constraint (inserts of one key by two transactions, keys moved, rows
deleted or updated HOT, in savepoints too, rows inserted and then deleted
or re-keyed by their own transaction; the check at COMMIT or at SET
CONSTRAINTS ALL IMMEDIATE waits for the other transaction and fails or
passes after it), and two or three sessions, each one transaction at a
random isolation level of a few statements drawn from updates (of plain, unique
and key columns), deletes, inserts, upserts, MERGE, inserts and updates
under an exclusion constraint, row locks of all four strengths (also
NOWAIT and SKIP LOCKED, and in subtransactions rolled back or
released), a work queue (the first row not locked, SKIP LOCKED, changed or
deleted), reads, locks and changes through bitmap heap scans and
index-only scans, index builds and ANALYZE inside the transaction, foreign-key
checks, FOR UPDATE cursors, joins, rows moved between partitions, rows
given another length (rows of up to 1,900 bytes stored in place, or
3,000 in the TOAST table), savepoints rolled back and snapshot reads,
sometimes through BEFORE UPDATE or DELETE row triggers; then COMMIT or
ROLLBACK, or PREPARE TRANSACTION and COMMIT or ROLLBACK PREPARED.
Sometimes a VACUUM runs between their steps, or a VACUUM FULL or CLUSTER
of the parent table while no open transaction has touched it (one may
hold a snapshot that needs rows the rewrite keeps; the table may have a
column added with a default after its rows were written).  The
permutations interleave the sessions at random; after each, one more
session reads the tables.  The spec runs once in a database whose
default_table_access_method is heap and once in one where it is nvm_am,
and the two outputs (every result, every "waiting", every error) must be
the same.

A COMMIT of a transaction that wrote a key of the deferred constraint
may wait for another that wrote the same key: the permutation lets it
wait only where a statement could (no other waiter, no cycle), and
otherwise ends that session with ROLLBACK.  Sessions that write such keys
do not use two-phase commit.  The choices for that table come from a
random stream of their own: a spec without it is the one its seed gave
before it was added.

  python3 scripts/isolation_fuzz.py SEED [SEED_TO]   against $PGHOST/$PGPORT
  python3 scripts/isolation_fuzz.py SEED --spec      print the spec
  python3 scripts/isolation_fuzz.py SEED --self      heap against heap (is
                                                     the output deterministic?)
  python3 scripts/isolation_fuzz.py SEED --placement the final reads show every
                                                     row's ctid (does nvm_am put
                                                     rows where heap does?)

One difference is expected (heap's, see specs/nvm_rewrite_key_flag.spec):
after a VACUUM FULL or CLUSTER, a REPEATABLE READ transaction older than it
that locks FOR KEY SHARE (or checks a foreign key against) a parent row
deleted or given another key before the rewrite gets a serialization
error on nvm_am, where heap locks the old version (seed 75125 of a mix
weighted to index builds and released savepoints).

With --placement a spec's output can differ from run to run on heap too
(seed 10438: 1 run in 6 on heap, 2 in 6 on nvm_am, put rows elsewhere):
whether a prune finds a version dead to all can depend on timing.

A permutation only launches a step of a session that cannot be waiting:
the generator keeps, per open transaction, the rows it has written or
locked, and a statement that may wait for one of them holds its session's
next steps back until the other transaction has ended.  The model errs
towards "may wait", which only costs interleavings.  At most one session
waits at a time, unless each waits to update or lock one row by its key
(they queue on the row's tuple lock): other waiters woken by one commit
race for the row (on heap as well), and the output would depend on which
the kernel runs first.  Nor when the transaction they wait for changed the
row: its commit sends the first waiter on to the newest version, where
the next one races it.

Prints "seed N ... ok" or "seed N ... FAILED" and the start of the diff.
Exit status 1 when a spec's outputs differ; the spec and both outputs are
left in $ISOLATION_FUZZ_DIR (default /tmp/isolation_fuzz).  The databases
are $ISOLATION_FUZZ_DB_heap and _twin (default fzi_heap, fzi_twin).
"""
import difflib
import os
import random
import subprocess
import sys

OUT = os.environ.get("ISOLATION_FUZZ_DIR", "/tmp/isolation_fuzz")
# the two databases, <DB>_heap and <DB>_twin (dropped and made anew): runs
# side by side on one server need names of their own
DB = os.environ.get("ISOLATION_FUZZ_DB", "fzi")
NPARENT = 6
LEVELS = ["READ COMMITTED", "READ COMMITTED", "REPEATABLE READ", "SERIALIZABLE"]
LOCKS = ["UPDATE", "NO KEY UPDATE", "SHARE", "KEY SHARE"]


def lock_touch(m):
    """the touch mode of a row lock of strength m (see Gen.statement)"""
    return "l" if m in ("UPDATE", "NO KEY UPDATE") else "s"


def tester():
    pgxs = subprocess.run([os.environ.get("PG_CONFIG", "pg_config"), "--pgxs"], capture_output=True,
                          text=True).stdout.strip()
    return os.path.join(os.path.dirname(pgxs), "..", "test", "isolation",
                        "isolationtester")


class Gen:
    """One spec's random choices."""

    def __init__(self, seed, placement=False):
        self.rnd = random.Random(seed)
        # with placement, the last reads show each row's ctid too
        self.ctid = "tableoid::regclass, ctid, " if placement else ""
        self.nextid = 100
        # a table d with a deferred unique constraint in 2 specs in 7,
        # dprob of their statements on it: its choices come from a stream
        # of their own, so a spec without it is the one its seed gave
        # before d existed
        self.drnd = random.Random(seed * 7919 + 17)
        self.dprob = self.drnd.choice([0, 0, 0, 0, 0, 0.35, 0.6])

    def key(self):
        # mostly the rows that exist, the first ones most (so that sessions
        # meet), sometimes one that does not exist yet
        return self.rnd.choice([1, 1, 1, 2, 2, 3, 4, 5, 6, 7])

    def newkey(self):
        # a row to insert: mostly one no other session inserts, sometimes
        # one that exists or that another session may insert too
        return self.rnd.choice([7, 8, 9, 10, 11, 12, self.key()])

    def unique(self):
        return self.rnd.choice([75, 85, 95, 105, 115, 125, 135, 145, 10 * self.key()])

    def statement(self):
        """A statement as (sql, touches, may_wait): touches lists
        (resource, key, mode), mode 's' for key-share and share locks, 'l'
        for the stronger row locks, 'x' for changes (and everything else);
        key '*' stands for every row of the resource.
        A statement that writes or locks a row of p may also give it a new
        version in the index of the unique column ('w': only an insert of
        any value waits for it).  may_wait is "row" for a statement that
        can wait only to update or lock one row named by its key: such
        waiters queue on the row's tuple lock, in the order they came."""
        if self.dprob and self.drnd.random() < self.dprob:
            sql, touches, may_wait = self.dstatement()
        else:
            sql, touches, may_wait = self.statement1()
        if any(t[0] == "p" and t[2] in ("x", "l") for t in touches):
            # and it holds a lock on table p that an index build waits for
            # ("pt"; row locks take a weaker one, counted here all the same)
            touches = touches + [("pu", "*", "w"), ("pt", "*", "s")]
        if not touches or not all(t[0] in ("q", "qr") for t in touches):
            # a lock on table p (or c) until the transaction ends: no
            # VACUUM FULL of p meanwhile
            touches = touches + [("pr", "*", "r")]
        return sql, touches, may_wait

    def dstatement(self):
        """A statement on d (id int PRIMARY KEY, k int UNIQUE DEFERRABLE
        INITIALLY DEFERRED, v int), rows (1..4, k = id): its unique
        constraint is checked at COMMIT (or PREPARE, or SET CONSTRAINTS
        ALL IMMEDIATE), where the check waits for a transaction still open
        that inserted, changed or deleted a row with the same key.  Those
        rows are touched as ("dk", key, "x"), or ("dk", "*", "x") when the
        keys are not known here; an insert never waits (its check is
        deferred), so two transactions can insert one key and meet at
        their commits."""
        r = self.drnd
        k = r.choice([1, 2, 5, 5, 6, 6])
        j = r.randint(1, 4)
        op = r.choice(["ins", "ins", "ins", "sub", "fix", "fix", "updk", "updv", "del",
                       "read"])
        if op == "fix":
            # a row inserted and then, in the same transaction, given
            # another key or deleted: an insert that met another's version
            # of the key has its check queued, and the check must find its
            # own row dead (SnapshotSelf) and let it be
            self.nextid += 1
            k2 = r.choice([5, 6, 7])
            then = r.choice(["UPDATE d SET k = %d WHERE id = %d" % (k2, self.nextid),
                             "DELETE FROM d WHERE id = %d" % self.nextid])
            return ("INSERT INTO d VALUES (%d, %d, 0); %s" % (self.nextid, k, then),
                    [("d", self.nextid, "x"), ("dk", k, "x"), ("dk", k2, "x")], False)
        if op in ("ins", "sub"):
            self.nextid += 1
            sql = "INSERT INTO d VALUES (%d, %d, 0)" % (self.nextid, k)
            if op == "sub":
                # the insert taken back, or committed into the transaction
                sql = "SAVEPOINT da; %s; %s da" % (sql, r.choice(["ROLLBACK TO", "RELEASE"]))
            return sql, [("d", self.nextid, "x"), ("dk", k, "x")], False
        if op == "updk":
            # a key moved: the row's old key is freed, the new one taken
            return ("UPDATE d SET k = %d WHERE id = %d RETURNING id, k" % (k, j),
                    [("d", j, "x"), ("dk", "*", "x")], True)
        if op == "updv":
            # a HOT update: the key's index entry leads to a version that
            # is the updater's
            return ("UPDATE d SET v = v + 1 WHERE id = %d RETURNING id, k, v" % j,
                    [("d", j, "x"), ("dk", "*", "x")], True)
        if op == "del":
            return ("DELETE FROM d WHERE k = %d RETURNING id" % k,
                    [("d", "*", "x"), ("dk", "*", "x")], True)
        return ("SELECT id, k, v FROM d ORDER BY id", [], False)

    def statement1(self):
        r = self.rnd
        k = self.key()
        op = r.choice(["upd", "upd", "updu", "updkey", "del", "ins", "upsert",
                       "nothing", "lock", "lock", "skip", "multi", "insc", "updc",
                       "delc", "read", "readc", "savepoint", "reinsert",
                       "lockrange", "cond", "multidel", "byu", "updcv", "point",
                       "sublock", "qmove", "qupd", "qlock", "qdel", "qread", "cursor",
                       "joinlock", "joinupd", "inscs", "merge", "merge", "updpad",
                       "exins", "exnothing", "exdel", "exupd", "cridx", "subrel",
                       "scan", "scan", "queue", "analyze"])
        if op == "upd":
            return ("UPDATE p SET v = v + 1 WHERE id = %d RETURNING id, v" % k,
                    [("p", k, "x")], "row")
        if op == "updu":
            u = self.unique()
            return ("UPDATE p SET u = %d WHERE id = %d RETURNING id, u" % (u, k),
                    [("p", k, "x"), ("pu", u, "x")], True)
        if op == "updkey":
            k2 = self.newkey()
            return ("UPDATE p SET id = %d WHERE id = %d RETURNING id" % (k2, k),
                    [("p", k, "x"), ("p", k2, "x"), ("c", "*", "x")], True)
        if op == "del":
            return ("DELETE FROM p WHERE id = %d RETURNING id" % k,
                    [("p", k, "x"), ("c", "*", "x")], True)
        if op in ("ins", "upsert", "nothing"):
            k = self.key() if op == "upsert" else self.newkey()
            u = self.unique()
            sql = "INSERT INTO p VALUES (%d, %d, 0)" % (k, u)
            if op == "upsert":
                sql += " ON CONFLICT (id) DO UPDATE SET v = p.v + 100 RETURNING id, v"
            elif op == "nothing":
                sql += " ON CONFLICT DO NOTHING RETURNING id"
            return (sql, [("p", k, "x"), ("pu", u, "x")], True)
        if op == "lock":
            m = r.choice(LOCKS)
            return ("SELECT id, v FROM p WHERE id = %d FOR %s" % (k, m),
                    [("p", k, lock_touch(m))], "row")
        if op == "skip":
            k2 = self.key()
            m = r.choice(LOCKS)
            w = r.choice(["NOWAIT", "SKIP LOCKED"])
            return ("SELECT id FROM p WHERE id IN (%d, %d) ORDER BY id FOR %s %s"
                    % (k, k2, m, w),
                    [("p", k, "l"), ("p", k2, "l")], False)
        if op == "multi":
            return ("WITH w AS (UPDATE p SET v = v + 10 WHERE v %% 2 = %d RETURNING id, v) "
                    "SELECT * FROM w ORDER BY id" % r.randint(0, 1),
                    [("p", "*", "x")], True)
        if op == "insc":
            self.nextid += 1
            return ("INSERT INTO c VALUES (%d, %d, 0)" % (self.nextid, k),
                    [("p", k, "s"), ("c", self.nextid, "x")], True)
        if op == "updc":
            j = r.randint(1, 8)
            return ("UPDATE c SET pid = %d WHERE id = %d" % (k, j),
                    [("c", j, "x"), ("p", k, "s")], True)
        if op == "delc":
            return ("DELETE FROM c WHERE pid = %d" % k, [("c", "*", "x")], True)
        if op == "read":
            return ("SELECT id, u, v, length(pad) FROM p ORDER BY id", [], False)
        if op == "readc":
            return ("SELECT pid, count(*), sum(v) FROM c GROUP BY pid ORDER BY pid", [], False)
        if op == "savepoint":
            return ("SAVEPOINT a; UPDATE p SET v = v + 1000 WHERE id = %d; ROLLBACK TO a" % k,
                    [("p", k, "x")], True)
        if op == "reinsert":
            u = self.unique()
            return ("DELETE FROM p WHERE id = %d; INSERT INTO p VALUES (%d, %d, 1)" % (k, k, u),
                    [("p", k, "x"), ("pu", u, "x"), ("c", "*", "x")], True)
        if op == "cond":
            # an update whose condition the newest version may no longer meet
            return ("UPDATE p SET v = v + 1 WHERE id = %d AND v < %d RETURNING id, v"
                    % (k, r.randint(1, 12)), [("p", k, "x")], "row")
        if op == "multidel":
            return ("WITH w AS (DELETE FROM p WHERE v > %d RETURNING id) "
                    "SELECT * FROM w ORDER BY id" % r.randint(4, 40),
                    [("p", "*", "x"), ("c", "*", "x")], True)
        if op == "byu":
            u = 10 * self.key()
            return ("UPDATE p SET v = v + 3 WHERE u = %d RETURNING id, u, v" % u,
                    [("p", "*", "x")], True)
        if op == "updcv":
            return ("UPDATE c SET v = v + 1 WHERE pid = %d" % k, [("c", "*", "x")], True)
        if op == "qmove":
            # moves the row to the other partition
            return ("UPDATE q SET part = 1 - part, v = v + 1 WHERE id = %d RETURNING id, part, v"
                    % k, [("q", k, "x")], True)
        if op == "qupd":
            return ("UPDATE q SET v = v + 1 WHERE id = %d RETURNING id, part, v" % k,
                    [("q", k, "x")], "row")
        if op == "qlock":
            m = r.choice(LOCKS)
            return ("SELECT id, part, v FROM q WHERE id = %d FOR %s" % (k, m),
                    [("q", k, lock_touch(m))], "row")
        if op == "qread":
            # a snapshot (above READ COMMITTED) that has not met p yet
            return ("SELECT count(*), sum(v) FROM q", [("qr", "*", "r")], False)
        if op == "qdel":
            return ("DELETE FROM q WHERE id = %d RETURNING id, part" % k, [("q", k, "x")], True)
        if op == "cursor":
            # an update of the row a FOR UPDATE cursor stands on
            return ("DECLARE cu CURSOR FOR SELECT id, v FROM p WHERE id >= %d ORDER BY id "
                    "FOR UPDATE; FETCH 1 FROM cu; UPDATE p SET v = v + 5 WHERE CURRENT OF cu; "
                    "CLOSE cu" % k, [("p", "*", "x")], True)
        if op == "joinlock":
            j = r.randint(1, 8)
            return ("SELECT p.id, p.v FROM p JOIN c ON c.pid = p.id WHERE c.id = %d FOR %s OF p"
                    % (j, r.choice(LOCKS)), [("p", "*", "l")], True)
        if op == "joinupd":
            j = r.randint(1, 8)
            return ("UPDATE p SET v = p.v + c.v FROM c WHERE c.pid = p.id AND c.id = %d "
                    "RETURNING p.id, p.v" % j, [("p", "*", "x")], True)
        if op == "inscs":
            # several foreign-key checks in one statement
            self.nextid += 2
            return ("INSERT INTO c SELECT %d + g, g, 0 FROM generate_series(1, 2) g"
                    % (self.nextid - 2), [("p", 1, "s"), ("p", 2, "s"), ("c", "*", "x")], True)
        if op == "merge":
            # MERGE: its own path for a row another transaction changed
            # (re-checks the join, then the WHEN clauses, under READ
            # COMMITTED; a serialization failure above it)
            u = self.unique()
            return ("MERGE INTO p USING (VALUES (%d, %d)) s(id, d) ON p.id = s.id "
                    "WHEN MATCHED AND p.v > %d THEN DELETE "
                    "WHEN MATCHED THEN UPDATE SET v = p.v + s.d "
                    "WHEN NOT MATCHED THEN INSERT VALUES (s.id, %d, s.d)"
                    % (k, r.randint(1, 9), r.randint(3, 40), u),
                    [("p", k, "x"), ("pu", u, "x"), ("c", "*", "x")], True)
        if op == "updpad":
            # a new length for pad: another size of row version (and, with
            # pad stored out of line, a new TOAST value)
            n = r.choice([0, 10, self.pad // 2, self.pad, self.pad + 40])
            return ("UPDATE p SET pad = repeat('%s', %d) WHERE id = %d RETURNING id, length(pad)"
                    % (r.choice("yz"), n, k), [("p", k, "x")], "row")
        if op in ("exins", "exnothing", "exdel", "exupd"):
            # an exclusion constraint: an overlapping range inserted or
            # deleted by a transaction still open is waited for
            a = r.randint(0, 13)
            rng = "int4range(%d, %d)" % (a, a + r.randint(1, 3))
            if op == "exdel":
                sql = "DELETE FROM e WHERE r && %s RETURNING id" % rng
            elif op == "exupd":
                sql = "UPDATE e SET r = %s WHERE id = %d RETURNING id, r" % (rng, r.randint(1, 4))
            else:
                self.nextid += 1
                sql = "INSERT INTO e VALUES (%d, %s)%s RETURNING id" % (
                    self.nextid, rng, " ON CONFLICT DO NOTHING" if op == "exnothing" else "")
            return (sql, [("e", "*", "x")], True)
        if op == "cridx":
            # an index built inside the transaction (it waits for the
            # transactions that changed p, and they for it), over what this
            # transaction changed and older snapshots still see; then read
            # through it and (under READ COMMITTED) checked against the
            # table by amcheck
            self.nextid += 1
            name = "fz_i%d" % self.nextid
            ddl, where, order = r.choice([
                ("CREATE INDEX %s ON p (v)", "v > -1000000", "v, id"),
                ("CREATE UNIQUE INDEX %s ON p (u)", "u > -1000000", "u"),
                ("CREATE INDEX %s ON p (v) WHERE v > 5", "v > 5", "v, id"),
                ("CREATE INDEX %s ON p ((v %% 3), id)", "v % 3 = 1", "id"),
                ("CREATE UNIQUE INDEX %s ON p (id, v) INCLUDE (u)", "id > 0", "id, v")])
            sql = (ddl % name + "; SET LOCAL enable_seqscan = off; "
                   "SELECT id, u, v FROM p WHERE %s ORDER BY %s; "
                   "SET LOCAL enable_seqscan = on" % (where, order))
            if self.level == "READ COMMITTED":
                # (above it amcheck refuses an index whose build met a
                # version some snapshot may still need -- indcheckxmin --
                # and whether one did depends on the other backends'
                # horizons at that moment: autovacuum's, for one)
                sql += "; SELECT bt_index_check('%s', true)" % name
            return (sql, [("pt", "*", "x"), ("pa", "*", "x")], True)
        if op == "subrel":
            # row locks and changes in subtransactions that commit into the
            # transaction (RELEASE), beside one rolled back: the row's xmax
            # names a subtransaction, or a multixact with one as a member
            m1, m2 = r.choice(LOCKS), r.choice(LOCKS)
            u = self.unique()
            sql, extra = r.choice([
                ("SAVEPOINT a; SELECT id FROM p WHERE id = %(k)d FOR %(m1)s; RELEASE a; "
                 "UPDATE p SET v = v + 1 WHERE id = %(k)d RETURNING id, v", []),
                ("SAVEPOINT a; UPDATE p SET v = v + 1 WHERE id = %(k)d; RELEASE a; "
                 "SELECT id, v FROM p WHERE id = %(k)d FOR %(m2)s", []),
                ("SAVEPOINT a; SELECT id FROM p WHERE id = %(k)d FOR %(m1)s; SAVEPOINT b; "
                 "UPDATE p SET v = v + 7 WHERE id = %(k)d; ROLLBACK TO b; RELEASE a; "
                 "SELECT id, v FROM p WHERE id = %(k)d FOR %(m2)s", []),
                ("SAVEPOINT a; UPDATE p SET u = %(u)d WHERE id = %(k)d; RELEASE a; "
                 "SAVEPOINT b; UPDATE p SET v = v + 1 WHERE id = %(k)d RETURNING id, u, v; "
                 "RELEASE b", [("pu", u, "x")]),
                ("SAVEPOINT a; SELECT id FROM p WHERE id = %(k)d FOR %(m1)s; RELEASE a; "
                 "SAVEPOINT b; SELECT id FROM p WHERE id = %(k)d FOR %(m2)s; ROLLBACK TO b; "
                 "DELETE FROM p WHERE id = %(k)d RETURNING id", [("c", "*", "x")]),
                # and a lock or change of the row that a savepoint takes back
                ("SAVEPOINT a; UPDATE p SET v = v + 1 WHERE id = %(k)d; SAVEPOINT b; "
                 "SELECT id FROM p WHERE id = %(k)d FOR %(m1)s; RELEASE b; ROLLBACK TO a; "
                 "SELECT id, v FROM p WHERE id = %(k)d FOR %(m2)s", []),
                ("SAVEPOINT a; DELETE FROM p WHERE id = %(k)d; ROLLBACK TO a; "
                 "SELECT id, v FROM p WHERE id = %(k)d FOR %(m2)s", [("c", "*", "x")]),
                ("SAVEPOINT a; UPDATE p SET v = v + 1 WHERE id = %(k)d; ROLLBACK TO a; "
                 "UPDATE p SET v = v + 2 WHERE id = %(k)d RETURNING id, v", []),
                ("SAVEPOINT a; UPDATE p SET u = %(u)d WHERE id = %(k)d; ROLLBACK TO a; "
                 "SELECT id, u, v FROM p WHERE id = %(k)d FOR %(m2)s", [("pu", u, "x")]),
                ("SAVEPOINT a; SELECT id FROM p WHERE id = %(k)d FOR %(m1)s; SAVEPOINT b; "
                 "SELECT id FROM p WHERE id = %(k)d FOR %(m2)s; RELEASE b; ROLLBACK TO a; "
                 "UPDATE p SET v = v + 3 WHERE id = %(k)d RETURNING id, v", []),
                ("SAVEPOINT a; SELECT id FROM p WHERE id = %(k)d FOR %(m1)s; RELEASE a; "
                 "DELETE FROM c WHERE pid = %(k)d; UPDATE p SET u = %(u)d WHERE id = %(k)d "
                 "RETURNING id, u", [("pu", u, "x"), ("c", "*", "x")])])
            return (sql % {"k": k, "m1": m1, "m2": m2, "u": u},
                    [("p", k, "x")] + extra, True)
        if op == "scan":
            # reads, row locks and changes through the other scan kinds: a
            # bitmap heap scan (its condition rechecked when a version it
            # found was changed meanwhile) or an index-only scan (the
            # visibility map), with the planner kept off the others
            a = r.randint(1, 7)
            b = a + r.randint(0, 4)
            m = r.choice(LOCKS)
            if r.random() < 0.65:
                sets = "SET LOCAL enable_seqscan = off; SET LOCAL enable_indexscan = off; "
                sql, touches, may_wait = r.choice([
                    ("SELECT id, u, v FROM p WHERE id BETWEEN %d AND %d ORDER BY id" % (a, b),
                     [], False),
                    ("SELECT id, u, v FROM p WHERE u BETWEEN %d AND %d ORDER BY id"
                     % (10 * a, 10 * b), [], False),
                    ("WITH w AS (UPDATE p SET v = v + 1 WHERE id BETWEEN %d AND %d AND v < %d "
                     "RETURNING id, v) SELECT * FROM w ORDER BY id" % (a, b, r.randint(2, 30)),
                     [("p", "*", "x")], True),
                    ("SELECT id, v FROM p WHERE u BETWEEN %d AND %d ORDER BY id FOR %s"
                     % (10 * a, 10 * b, m),
                     [("p", "*", lock_touch(m))], True),
                    ("WITH w AS (DELETE FROM p WHERE id BETWEEN %d AND %d AND v > %d "
                     "RETURNING id) SELECT * FROM w ORDER BY id" % (a, b, r.randint(3, 40)),
                     [("p", "*", "x"), ("c", "*", "x")], True),
                    ("SELECT count(*), sum(v) FROM c WHERE id BETWEEN %d AND %d" % (a, b + 2),
                     [], False)])
            else:
                sets = "SET LOCAL enable_seqscan = off; SET LOCAL enable_bitmapscan = off; "
                sql, touches, may_wait = r.choice([
                    ("SELECT id FROM p WHERE id BETWEEN %d AND %d ORDER BY id" % (a, b),
                     [], False),
                    ("SELECT u FROM p WHERE u > 0 ORDER BY u", [], False),
                    ("SELECT count(*) FROM p WHERE id > %d" % a, [], False),
                    ("SELECT id FROM c WHERE id BETWEEN %d AND %d ORDER BY id" % (a, b),
                     [], False)])
            return (sets + sql + "; SET LOCAL enable_seqscan = on; "
                    "SET LOCAL enable_indexscan = on; SET LOCAL enable_bitmapscan = on",
                    touches, may_wait)
        if op == "queue":
            # a work queue: take the first row nobody holds (SKIP LOCKED)
            # and change or delete it.  It waits for no row, but an update
            # waits for the table lock of an index build (seed 310028: two
            # waiters, one cancelled after the tester's timeout)
            if r.random() < 0.5:
                return ("WITH w AS (SELECT id FROM p WHERE v >= %d ORDER BY id LIMIT 1 "
                        "FOR UPDATE SKIP LOCKED) UPDATE p SET v = p.v + 1 FROM w "
                        "WHERE p.id = w.id RETURNING p.id, p.v" % r.randint(0, 8),
                        [("p", "*", "x")], True)
            return ("DELETE FROM p WHERE id = (SELECT id FROM p WHERE v >= %d ORDER BY id "
                    "LIMIT 1 FOR UPDATE SKIP LOCKED) RETURNING id" % r.randint(0, 8),
                    [("p", "*", "x"), ("c", "*", "x")], True)
        if op == "analyze":
            # ANALYZE inside the transaction: the rows it counts live (its
            # own inserts and the deletes of others still running are; the
            # inserts of others and its own deletes are not) make
            # reltuples, which is written in place, at once.  It locks p
            # against other ANALYZEs, VACUUM and index builds ("pa")
            return ("ANALYZE p; SELECT reltuples FROM pg_class WHERE relname = 'p'",
                    [("pa", "*", "x")], True)
        if op == "point":
            return ("SELECT id, u, v FROM p WHERE id = %d" % k, [], False)
        if op == "sublock":
            # a row lock taken in a subtransaction that is rolled back
            return ("SAVEPOINT b; SELECT id FROM p WHERE id = %d FOR %s; ROLLBACK TO b"
                    % (k, r.choice(LOCKS)), [("p", k, "l")], True)
        # lockrange
        m = r.choice(LOCKS)
        return ("SELECT id FROM p WHERE v >= %d ORDER BY id FOR %s" % (r.randint(0, 60), m),
                [("p", "*", lock_touch(m))], True)

    def spec(self):
        r = self.rnd
        action = r.choice(["NO ACTION", "CASCADE", "CASCADE", "SET NULL", "SET NULL",
                           "RESTRICT"])
        upd_action = r.choice(["NO ACTION", "CASCADE", "CASCADE"])
        vindex = r.random() < 0.5
        # wide rows put a few on a page: updates then move rows to other
        # pages, and waiters follow update chains across pages
        pad = r.choice([0, 0, 700, 1900, 3000])
        self.pad = pad
        ff = r.choice([100, 100, 50])
        # row triggers: BEFORE UPDATE and BEFORE DELETE lock the row
        # through their own path (GetTupleForTrigger) before the change
        trig = r.choice([None, None, None, "UPDATE", "DELETE", "UPDATE OR DELETE"])
        nsess = r.choice([2, 2, 3])
        lines = ["setup",
                 "{",
                 "  CREATE TABLE p (id int PRIMARY KEY, u int UNIQUE, v int NOT NULL,"
                 " pad text DEFAULT repeat('x', %d)) WITH (fillfactor = %d);" % (pad, ff),
                 "  CREATE TABLE c (id int PRIMARY KEY, pid int REFERENCES p"
                 " ON DELETE %s ON UPDATE %s, v int);" % (action, upd_action)]
        if vindex:
            lines.append("  CREATE INDEX ON p (v);")
        if pad:
            # 3,000 bytes go to the TOAST table, uncompressed; less stays
            # in the row
            lines.append("  ALTER TABLE p ALTER pad SET STORAGE %s;"
                         % ("external" if pad > 2000 else "plain"))
        if trig:
            lines += ["  CREATE FUNCTION fz_br() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
                      " IF TG_OP = 'UPDATE' THEN NEW.v := NEW.v + 0; RETURN NEW; END IF;"
                      " RETURN OLD; END $$;",
                      "  CREATE TRIGGER fz_br BEFORE %s ON p FOR EACH ROW EXECUTE FUNCTION fz_br();"
                      % trig]
        lines += ["  INSERT INTO p SELECT g, g * 10, g FROM generate_series(1, %d) g;" % NPARENT]
        # a column added with a default after the rows: their values live
        # in the catalog until a rewrite (VACUUM FULL, CLUSTER) puts them
        # in the rows
        fastdef = r.random() < 0.4
        if fastdef:
            lines.append("  ALTER TABLE p ADD COLUMN w int DEFAULT 42;")
        lines += [
                  "  INSERT INTO c SELECT g, g %% %d + 1, g FROM generate_series(1, 8) g;"
                  % NPARENT,
                  "  CREATE TABLE q (id int, part int, v int) PARTITION BY LIST (part);",
                  "  CREATE TABLE q0 PARTITION OF q FOR VALUES IN (0);",
                  "  CREATE TABLE q1 PARTITION OF q FOR VALUES IN (1);",
                  "  CREATE INDEX ON q (id);",
                  "  INSERT INTO q SELECT g, g %% 2, g FROM generate_series(1, %d) g;" % NPARENT,
                  "  CREATE TABLE e (id int, r int4range, EXCLUDE USING gist (r WITH &&));",
                  "  INSERT INTO e VALUES (1, '[0,2)'), (2, '[5,7)'), (3, '[10,12)');"]
        if self.dprob:
            lines += ["  CREATE TABLE d (id int PRIMARY KEY,"
                      " k int UNIQUE DEFERRABLE INITIALLY DEFERRED, v int);",
                      "  INSERT INTO d SELECT g, g, 0 FROM generate_series(1, 4) g;"]
        lines += ["}",
                  "teardown { DROP TABLE c, p, q, e%s; DROP FUNCTION IF EXISTS fz_br(); }"
                  % (", d" if self.dprob else ""), ""]
        sessions = []
        for s in range(nsess):
            name = "s%d" % (s + 1)
            level = r.choice(LEVELS)
            self.level = level
            steps = [self.statement() for _ in range(r.randint(2, 4))]
            dks = [x for st in steps for x in st[1] if x[0] == "dk"]
            if dks and self.drnd.random() < 0.3:
                # the deferred checks run now, and wait as a commit's would
                steps.append(("SET CONSTRAINTS ALL IMMEDIATE", dks, True))
            endpos = len(steps)
            # not for a session with deferred keys: their checks would run,
            # and wait, at PREPARE
            twophase = r.random() < 0.15 and not dks
            if twophase:
                # PREPARE TRANSACTION and COMMIT (or ROLLBACK) PREPARED, or,
                # where a permutation cannot prepare, the last step instead
                # (gids are the server's: one per run of this script)
                gid = "fz_%s_%s" % (DB, name)
                steps.append(("PREPARE TRANSACTION '%s'" % gid, [], False))
                steps.append(("%s PREPARED '%s'" % (r.choice(["COMMIT", "COMMIT", "ROLLBACK"]),
                                                     gid), [], False))
            steps.append(("ROLLBACK" if r.random() < 0.2 else "COMMIT", [], False))
            if dks:
                # a COMMIT may wait for the check of a deferred key; where
                # a permutation cannot let it wait, the session rolls back
                # (the step after its last)
                steps.append(("ROLLBACK", [], False))
            sessions.append((name, steps, endpos, twophase))
            lines += ["session %s" % name,
                      "setup { BEGIN ISOLATION LEVEL %s; }" % level]
            for i, (sql, _, _) in enumerate(steps):
                lines.append("step %s%s { %s; }" % (name, chr(ord("a") + i), sql))
            lines.append("")
        if r.random() < 0.3:
            # VACUUM between the transactions' steps: prunes and freezes
            # what no snapshot needs, under the sessions' feet
            # and VACUUM FULL or CLUSTER, which rewrite p, keeping the
            # versions older snapshots may still need
            lines += ["session v",
                      "step vac { VACUUM %sp; }" % r.choice(["", "(FREEZE) "]),
                      "step vf { %s; }" % r.choice(["VACUUM FULL p", "CLUSTER p USING p_pkey",
                                                    "CLUSTER p USING p_u_key"]), ""]
            vac = True
        else:
            vac = False
        lines += ["session z",
                  "step zp { SELECT %sid, u, v, length(pad)%s FROM p ORDER BY id; }"
                  % (self.ctid, ", w" if fastdef else ""),
                  "step zc { SELECT %s* FROM c ORDER BY id; }" % self.ctid,
                  "step zq { SELECT %s* FROM q ORDER BY id; }" % self.ctid,
                  "step ze { SELECT %s* FROM e ORDER BY id, r; }" % self.ctid]
        if self.dprob:
            lines.append("step zd { SELECT %s* FROM d ORDER BY id; }" % self.ctid)
        lines.append("")
        for _ in range(r.randint(3, 6)):
            perm = self.permutation(sessions, vac)
            lines.append("permutation " + " ".join(perm) + " zp zc zq ze" +
                         (" zd" if self.dprob else ""))
        return "\n".join(lines) + "\n"

    def permutation(self, sessions, vac):
        """A random interleaving in which no session is asked to run a step
        while it may be waiting (see the module comment).  With vac, the
        step vac (VACUUM) comes in one to three times while no session
        waits: heap's VACUUM (FREEZE) waits for the pin a session waiting
        for a row lock keeps on its page, a wait isolationtester cannot see
        (nvm_am's does not)."""
        r = self.rnd
        n = len(sessions)
        pos = [0] * n
        done = [False] * n
        touched = [[] for _ in range(n)]
        waits = [set() for _ in range(n)]
        kind = [False] * n
        out = []

        def conflicts(a, b):
            for ra, ka, ma in a:
                for rb, kb, mb in b:
                    if ra == rb and (ka == kb or "*" in (ka, kb)) and {ma, mb} & {"x", "l"}:
                        return True
            return False

        def reaches(a, b, seen=()):
            # does session a wait, directly or through others, for b?
            for t in waits[a]:
                if not done[t] and (t == b or (t not in seen and reaches(t, b, seen + (a,)))):
                    return True
            return False

        prepared = [False] * n
        # a session whose COMMIT waits for a deferred key's check: it ends
        # when its blockers have
        ending = [False] * n

        def emit(s, i):
            out.append("%s%s" % (sessions[s][0], chr(ord("a") + i)))

        def waiting(t):
            # is session t waiting for a session still open?
            return not done[t] and any(not done[b] for b in waits[t])

        def blockers_of(s, touches):
            # the open sessions whose rows touches conflict with
            return {t for t in range(n)
                    if t != s and not done[t] and conflicts(touches, touched[t])}

        while not all(done):
            nobody_waits = not any(waiting(t) for t in range(n))
            # VACUUM waits for the lock an index build or an ANALYZE holds
            # until its transaction ends
            built = any(not done[t] and any(x[0] in ("pt", "pa") and x[2] == "x"
                                            for x in touched[t])
                        for t in range(n))
            if vac and r.random() < 0.15 and out.count("vac") < 3 and nobody_waits and \
                    not built:
                out.append("vac")
            # VACUUM FULL waits for every lock on p: only when no open
            # transaction has touched p or c (statement() marks those "pr")
            if vac and r.random() < 0.15 and out.count("vf") < 2 and nobody_waits and \
                    all(done[t] or all(x[0] != "pr" for x in touched[t])
                        for t in range(n)):
                out.append("vf")
            ready = [s for s in range(n)
                     if not done[s] and all(done[t] for t in waits[s])]
            if not ready:
                break
            s = r.choice(ready)
            name, steps, endpos, twophase = sessions[s]
            if ending[s]:
                done[s] = True
                continue
            if prepared[s]:
                emit(s, endpos + 1)		# COMMIT or ROLLBACK PREPARED
                done[s] = True
                continue
            if pos[s] < endpos:
                sql, touches, may_wait = steps[pos[s]]
                blockers = blockers_of(s, touches)
                # a wait for what the blocker changed ('x') is no row
                # queue: an index build's table lock wakes every waiter at
                # once, and at the commit of a row's change the first
                # waiter finds the row updated, lets the tuple lock go and
                # looks for the newest version, where the next waiter races
                # it (on heap as well: seed 103502)
                if may_wait == "row" and any(x[2] == "x" and conflicts(touches, [x])
                                             for t in blockers for x in touched[t]):
                    may_wait = True
                waiters = [t for t in range(n) if t != s and waiting(t)]
                # several waiters only when each waits for one row by its
                # key: they queue on its tuple lock; others woken by one
                # commit race (on heap too)
                queued = may_wait == "row" and all(kind[t] == "row" for t in waiters)
                # not a cycle, not beside a waiter it could race, and not
                # for a prepared transaction (isolationtester does not see
                # that wait)
                if not (may_wait and blockers and
                        ((waiters and not queued) or any(prepared[t] for t in blockers) or
                         any(reaches(t, s) for t in blockers))):
                    emit(s, pos[s])
                    kind[s] = may_wait
                    touched[s] += touches
                    if may_wait:
                        waits[s] = blockers
                    pos[s] += 1
                    continue
            # end the transaction: prepare it only when nobody waits for it
            if twophase and not any(not done[t] and s in waits[t] for t in range(n)):
                emit(s, endpos)
                prepared[s] = True
                continue
            end = endpos + (2 if twophase else 0)
            blockers = blockers_of(s, [x for x in touched[s] if x[0] == "dk"])
            if steps[end][0] != "COMMIT" or not blockers:
                emit(s, end)
                done[s] = True
            elif any(waiting(t) for t in range(n) if t != s) or \
                    any(prepared[t] or reaches(t, s) for t in blockers):
                # the COMMIT's check could wait beside another waiter, or
                # for a session that waits for this one: roll back instead
                emit(s, end + 1)
                done[s] = True
            else:
                emit(s, end)
                waits[s] = blockers
                kind[s] = True
                ending[s] = True
        return out


def run(spec, db, path):
    env = dict(os.environ, PGISOLATIONTIMEOUT="20")
    conn = "dbname=%s" % db
    r = subprocess.run([tester(), conn], input=spec, capture_output=True, text=True,
                       env=env, timeout=600)
    with open(path, "w") as f:
        f.write(r.stdout + r.stderr)
    return r.stdout + r.stderr


def psql(db, sql):
    """Run sql in db; its output (unaligned).  Exits on any error: a set-up
    that failed unseen could leave both databases on heap."""
    r = subprocess.run(["psql", "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", "-d", db,
                        "-c", sql], capture_output=True, text=True)
    if r.returncode:
        sys.exit("psql -d %s failed: %s\n%s" % (db, sql, r.stderr))
    return r.stdout


def setup(db, am):
    # a run cut short may have left a transaction prepared there
    for gid in psql("postgres", "SELECT gid FROM pg_prepared_xacts WHERE database = '%s' "
                    "AND gid LIKE 'fz\\_%%'" % db).split():
        psql(db, "ROLLBACK PREPARED '%s'" % gid)
    psql("postgres", "DROP DATABASE IF EXISTS %s WITH (FORCE)" % db)
    psql("postgres", "CREATE DATABASE %s" % db)
    psql(db, "CREATE EXTENSION IF NOT EXISTS nvm_am")
    psql(db, "CREATE EXTENSION IF NOT EXISTS amcheck")
    psql("postgres", "ALTER DATABASE %s SET default_table_access_method = %s" % (db, am))
    psql("postgres", "ALTER DATABASE %s SET max_parallel_workers_per_gather = 0" % db)
    if psql(db, "SHOW default_table_access_method").strip() != am:
        sys.exit("%s: default_table_access_method is not %s" % (db, am))


def ran(out):
    """Did the spec run?  A spec the tester cannot parse, or whose setup
    fails, gives the same output on both engines."""
    return ("starting permutation" in out and "setup failed" not in out and
            "syntax error" not in out)


def main():
    seed = int(sys.argv[1])
    last = int(sys.argv[2]) if len(sys.argv) > 2 and sys.argv[2].isdigit() else seed
    if "--spec" in sys.argv:
        sys.stdout.write(Gen(seed, "--placement" in sys.argv).spec())
        return
    twin = "heap" if "--self" in sys.argv else "nvm_am"
    dbs = (DB + "_heap", DB + "_twin")
    setup(dbs[0], "heap")
    setup(dbs[1], twin)
    os.makedirs(OUT, exist_ok=True)
    bad = 0
    for sd in range(seed, last + 1):
        spec = Gen(sd, "--placement" in sys.argv).spec()
        with open(os.path.join(OUT, "%d.spec" % sd), "w") as f:
            f.write(spec)
        a = run(spec, dbs[0], os.path.join(OUT, "%d.heap.out" % sd))
        b = run(spec, dbs[1], os.path.join(OUT, "%d.%s.out" % (sd, twin)))
        if not (ran(a) and ran(b)):
            bad += 1
            print("seed %d ... FAILED (the spec did not run: %s)" % (sd, OUT))
        elif a != b:
            bad += 1
            print("seed %d ... FAILED (outputs differ: %s)" % (sd, OUT))
            sys.stdout.writelines(list(difflib.unified_diff(
                a.splitlines(True), b.splitlines(True), "heap", twin, n=4))[:60])
        else:
            print("seed %d ... ok" % sd)
        sys.stdout.flush()
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
