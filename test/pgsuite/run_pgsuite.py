#!/usr/bin/env python3
"""run_pgsuite.py - PostgreSQL's own regression and isolation suites, those
of contrib/test_decoding (logical decoding), the regression tests of the
contrib modules in CONTRIB ("contrib": tests named module/test) and files
of its Perl TAP suites (recovery, pg_rewind, logical replication, and the
client programs and contrib modules that work on tables: standbys,
backups, crashes, subscriptions, dumps, concurrent index builds), on heap
and with nvm_am as the default table access method, in the same run.

Heap is the reference: every test that passes on heap must pass on nvm_am.
The installed server and the test files may differ in minor version (the
test files come from Debian's source package), so a test that fails on heap
is not counted; comparing with heap in the same run absorbs the difference.

Steps:
  1. the source: Debian's postgresql-15 source package, fetched with
     `apt-get source` through a temporary sources list and lists directory
     (the machine's apt configuration is not touched), the installed version
     where it is served, else the newest that is; cached in CACHE between
     runs (only src/test/regress, src/test/isolation, contrib/spi,
     contrib/test_decoding, the modules of CONTRIB and the directories of
     the TAP files of step 7 are kept);
  2. regress.so, refint.so and autoinc.so built with PGXS;
  3. two clusters of the installed server: "heap" and "nvm" (nvm_am
     preloaded, pool on /dev/shm), both with wal_level = logical and
     test_decoding's other settings (its logical.conf), so nvm_am writes
     its logical-decoding records throughout the suites.  In each, the test databases are created
     as pg_regress would create them; in "nvm" they also get the extension
     and default_table_access_method = nvm_am.  The suites then run with
     --use-existing, each on both clusters at the same time (their outputs
     go to directories of their own);
  4. per test: passes on heap and on nvm_am?  A test that passes on heap
     and differs on nvm_am fails, unless (a) it is in allowed/ -- the
     differences that only show the extra access method in catalog
     listings, kept as the exact diff of nvm_am's output against heap's --
     and the diff is exactly that, or (b) it is in known_failures.txt
     (differences not fixed yet, each with its reason): then it is reported
     as a known failure, and a known failure that passes is an error (the
     list must be kept exact) unless its reason says it is intermittent.

  5. amcheck's bt_index_parent_check(heapallindexed, rootdescend) of every
     B-tree index the suites leave, on both clusters: an index that fails
     on nvm_am and not on heap fails (one test, "amcheck");
  6. the regression suite once more, on a primary in WAL mode
     (nvm_am.wal_log = on) with a streaming standby made by pg_basebackup
     before it: every nvm_am table must be equal on both afterwards, system
     columns included, nvm_am_check() clean on the standby, and the
     standby's indexes of permanent tables must pass amcheck's
     bt_index_check (heapallindexed) wherever the primary's pass (one test;
     not with --only or --tests).  It runs from the start, beside steps
     3-5, on clusters of its own: much of the suites' time is waiting.
  7. PostgreSQL's recovery suite (src/test/recovery, Perl TAP files that
     make their own primaries, standbys, backups and archives and crash
     them), the files of RECOVERY, two at a time: every cluster they make
     preloads nvm_am and has it as the default table access method
     (TEMP_CONFIG, and an initdb in PATH that creates the extension in
     template1), in WAL mode ("recovery") and, for the files of one
     server, without WAL ("recovery_pool"); and files of pg_rewind's suite
     (src/bin/pg_rewind, "rewind"), in WAL mode, and of the logical
     replication suite (src/test/subscription, "subscription"), without
     WAL; and TAP files of the programs and modules that work on tables
     (RECOVERY lists them: pg_basebackup, pg_verifybackup, amcheck, bloom
     in WAL mode; pgbench, pg_dump, clusterdb/reindexdb/vacuumdb, commit
     timestamps across crashes without).
     A file that fails there runs again on heap; it fails the run only if
     it passes on heap.

Prints one line per problem and the summary, e.g.
  regress: heap 208/217, nvm_am 208/208 of heap's passes; isolation: 115/115;
  decoding: 18/18; decoding_isolation: 13/13; contrib: 83/83; amcheck: 159
  indexes, 0 differ from heap; recovery: 14/14; recovery_pool: 3/3;
  rewind: 2/2; subscription: 1/1; basebackup: 2/2; ...; standby: 534
  nvm_am tables, 0 problems
and, last, "pgsuite: N passed, M failed" (one per test compared).  Exit status 0 when
nothing failed.

Usage: run_pgsuite.py WORKDIR [--only SUITE] [--tests T ...]
(SUITE: regress, isolation, decoding, decoding_isolation, contrib, or one
of the TAP suites of RECOVERY: recovery, recovery_pool, rewind,
subscription, basebackup, verifybackup, amcheck_tap, bloom, pgbench,
pg_dump, scripts, commit_ts; with these, T names files of the suite's t/ directory
(RECOVERY_DIR) without ".pl")
Run as root (it fetches with apt-get and runs the servers as postgres) or as
postgres with the source already in the cache.
"""
import argparse
import concurrent.futures
import difflib
import functools
import glob
import os
import re
import shutil
import subprocess
import sys
import tarfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PGBIN = "/usr/lib/postgresql/15/bin"
PG_CONFIG = os.path.join(PGBIN, "pg_config")
CACHE = os.environ.get("NVM_PGSRC_CACHE", "/var/cache/nvm_am/pgsrc")
SUITES = ("regress", "isolation", "decoding", "decoding_isolation", "contrib")
# the contrib modules whose own regression tests make up the suite
# "contrib": those whose tests keep rows in tables -- sampling methods
# (TABLESAMPLE's scans), index access methods built over the table and read
# through bitmap scans, data types with their indexes, the visibility map,
# foreign tables over a loopback connection.  (Not the modules that read
# heap's pages themselves and refuse another access method: amcheck's
# verify_heapam, pageinspect, pgstattuple, pgrowlocks, pg_surgery.)
CONTRIB = ("tsm_system_rows", "tsm_system_time", "bloom", "btree_gin", "btree_gist",
           "pg_trgm", "hstore", "citext", "ltree", "cube", "seg", "intarray",
           "pg_visibility", "postgres_fdw", "tablefunc", "earthdistance", "lo", "tcn",
           "file_fdw")
# per suite: the directory of its files, the runner (regress or isolation),
# the database (pg_regress's default for the kind of test)
SUITE_SPEC = {"regress": ("src/test/regress", "regress", "regression"),
              "isolation": ("src/test/isolation", "isolation", "isolation_regression"),
              "decoding": ("contrib/test_decoding", "regress", "contrib_regression"),
              "decoding_isolation": ("contrib/test_decoding", "isolation",
                                     "isolation_regression")}
SUITE_SPEC.update({"contrib/" + m: ("contrib/" + m, "regress", "contrib_regression")
                   for m in CONTRIB})
# the parts of the source tree kept in the cache
KEEP = ["src/test/regress/", "src/test/isolation/", "contrib/spi/",
        "contrib/test_decoding/"] + ["contrib/%s/" % m for m in CONTRIB]
# test_decoding's logical.conf, on both clusters
LOGICAL_CONF = ["wal_level = logical", "max_replication_slots = 4",
                "logical_decoding_work_mem = 64kB"]
# pg_regress's database settings (pg_regress.c, create_database)
DB_SETTINGS = ["lc_messages TO 'C'", "lc_monetary TO 'C'", "lc_numeric TO 'C'",
               "lc_time TO 'C'", "bytea_output TO 'hex'",
               "timezone_abbreviations TO 'Default'"]
DBNAME = {k: v[2] for k, v in SUITE_SPEC.items()}
DBNAME["contrib"] = "contrib_regression"
# a test's step that waits longer than this is cancelled (isolationtester)
STEP_TIMEOUT = os.environ.get("NVM_PGSUITE_STEP_TIMEOUT", "60")
# a whole suite that runs longer than this is stopped
SUITE_TIMEOUT = int(os.environ.get("NVM_PGSUITE_TIMEOUT", "900"))
# more settings for the nvm_am clusters of steps 3 and 6, ";"-separated
# ("nvm_am.ipl_log_size = 256B; nvm_am.read_mode = copy"): the suites under
# other settings than the defaults, by hand (test.sh runs the defaults)
NVM_CONF = [c.strip() for c in os.environ.get("NVM_PGSUITE_CONF", "").split(";") if c.strip()]

# PostgreSQL's recovery suite (src/test/recovery: Perl TAP files that make
# their own clusters with PostgreSQL::Test::Cluster), pg_rewind's and the
# logical replication suite, each file with nvm_am as the default table
# access method of every cluster it makes:
#   "recovery": in WAL mode (nvm_am.wal_log = on), so standbys, base
#     backups, point-in-time recovery and crash recovery carry the nvm_am
#     tables through the extension's WAL records;
#   "recovery_pool": without WAL, where the pool alone keeps the data, the
#     files of one server that crashes or restarts (a standby or a backup
#     has no nvm_am data in this mode, by design);
#   "rewind": pg_rewind's files, in WAL mode (002_databases found the pool
#     file not group-readable in a data directory made with initdb -g);
#   "subscription": src/test/subscription, without WAL;
#   the suites of the client programs and contrib modules that work on
#   tables: "basebackup" (pg_receivewal, and pg_recvlogical decoding nvm_am
#   changes), "verifybackup" (backups of a data directory with the pool
#   checked and corrupted), "amcheck_tap" (CREATE INDEX CONCURRENTLY under
#   pgbench, also across prepared transactions, and an index after
#   point-in-time recovery, all checked by amcheck) and "bloom" (a bloom
#   index on an nvm_am table, queried on primary and standby), in WAL mode;
#   "pgbench" (its own scripts and options), "pg_dump" (dumps and restores
#   of every kind of object, 002's hundreds of checks of the dump's text)
#   and "scripts" (clusterdb, reindexdb, vacuumdb), without WAL.
# Left out of those: pg_basebackup's 010 (its checks of data checksums
# corrupt a table's relation file, which for an nvm_am table is zeros:
# README, Limitations), and pg_checksums' 002 for the same reason;
# amcheck's 001_verify_heapam (verify_heapam checks heap tables only and
# refuses others; nvm_am_check() is nvm_am's); pg_dump's 004 and 010,
# whose restores into new databases meet the extension this script's
# initdb puts in template1 ('schema "nvm_am" already exists'), as they
# would with any extension there; the other files of pg_verifybackup (all
# 10 passed by hand on 2026-11-28), of scripts (7 of 7) and psql's (2 of 2).
# The recovery suite's files left out: 027_stream_regress (the regression
# suite on a primary and a standby, which step 6 runs with row-by-row
# comparisons), 031 (skipped by PostgreSQL itself), 043_vacuum_horizon_floor
# (waits until VACUUM waits for a buffer pin; nvm_am's VACUUM takes no
# cleanup lock, so it never does), 024_archive_recovery (WAL of level
# minimal, which WAL mode refuses), 017_shm (fails on heap on these
# machines), 018_wal_optimize in WAL mode (its point is WAL of level
# minimal, which "recovery_pool" keeps), and for time the files that repeat
# what these and t/019-t/027 cover or that test WAL itself rather than
# table data: 002, 005-008, 010, 016, 019, 020, 022, 025, 026, 029, 030,
# 037, 039, 043_no_contrecord_switch and 045 passed in WAL mode when run by
# hand on 2026-11-28 (15.18's files); --only recovery --tests NAME runs any
# file of the directory.
RECOVERY = {
    # Not run: 017_shm (fails on heap here), 031_recovery_conflict (skipped
    # upstream), 027_stream_regress (step 6 does it), and three that differ
    # for reasons outside nvm_am's results (tried on 2026-11-28):
    # 024_archive_recovery starts a server with wal_level = minimal, which
    # WAL mode refuses (it passes without WAL); 039_end_of_wal expects a
    # record header split 16 bytes before a page's end, and nvm_am's WAL
    # before it puts the split 8 bytes before (it passes without WAL);
    # 043_vacuum_horizon_floor streams to a standby without a slot while
    # WAL mode's larger WAL (its DELETE of 199,999 rows: 12.8 MB, 64 bytes
    # a row, against heap's 10.8 MB, 54) triggers a checkpoint that
    # removes a segment the standby has not received yet, and without WAL
    # it waits for heap's VACUUM to wait for a buffer pin
    "recovery": ("001_stream_rep", "002_archiving", "003_recovery_targets",
                 "004_timeline_switch", "005_replay_delay", "006_logical_decoding",
                 "007_sync_rep", "008_fsm_truncation", "009_twophase",
                 "010_logical_decoding_timelines", "012_subtransactions",
                 "013_crash_restart", "014_unlogged_reinit", "015_promotion_pages",
                 "016_min_consistency", "019_replslot_limit", "020_archive_status",
                 "021_row_visibility", "022_crash_temp_files", "023_pitr_prepared_xact",
                 "025_stuck_on_old_timeline", "026_overwrite_contrecord",
                 "028_pitr_timelines", "029_stats_restart", "030_stats_cleanup_replica",
                 "032_relfilenode_reuse", "033_replay_tsp_drops", "034_create_database",
                 "037_invalid_database", "043_no_contrecord_switch",
                 "045_archive_restartpoint"),
    "recovery_pool": ("013_crash_restart", "014_unlogged_reinit", "018_wal_optimize"),
    # pg_rewind's own files (in WAL mode), each in its local and remote
    # variants; the others (003-010) passed by hand on 2026-11-28
    "rewind": ("001_basic", "002_databases"),
    # logical replication between two servers (publisher and subscriber
    # both nvm_am), without WAL; the other 30 files passed by hand on
    # 2026-11-28 in both modes (in WAL mode but for 001's check that
    # CREATE PUBLICATION warns at wal_level minimal, which WAL mode
    # overrides)
    "subscription": ("001_rep_changes",),
    "basebackup": ("020_pg_receivewal", "030_pg_recvlogical"),
    "verifybackup": ("003_corruption", "008_untar"),
    "amcheck_tap": ("002_cic", "003_cic_2pc", "005_pitr"),
    "bloom": ("001_wal",),
    "pgbench": ("001_pgbench_with_server",),
    "pg_dump": ("002_pg_dump", "003_pg_dump_with_server"),
    "scripts": ("010_clusterdb", "090_reindexdb", "100_vacuumdb"),
    # commit timestamps across a crash and restarts (004 found them lost
    # with the pmem commit of an nvm-only transaction), without WAL; the
    # standby files 002 and 003 passed by hand in WAL mode on 2026-11-28,
    # as did src/test/modules/brin's and test_misc's files in both modes
    "commit_ts": ("001_base", "004_restart"),
}
# where each of them finds its files
RECOVERY_DIR = {"recovery": "src/test/recovery", "recovery_pool": "src/test/recovery",
                "rewind": "src/bin/pg_rewind", "subscription": "src/test/subscription",
                "basebackup": "src/bin/pg_basebackup",
                "verifybackup": "src/bin/pg_verifybackup",
                "amcheck_tap": "contrib/amcheck", "bloom": "contrib/bloom",
                "pgbench": "src/bin/pgbench", "pg_dump": "src/bin/pg_dump",
                "scripts": "src/bin/scripts", "commit_ts": "src/test/modules/commit_ts"}
KEEP += sorted(set(d + "/" for d in RECOVERY_DIR.values()) - set(KEEP))
# the suites without WAL mode
RECOVERY_POOL_ONLY = ("recovery_pool", "subscription", "pgbench", "pg_dump", "scripts",
                      "commit_ts")
# settings (name, value) of every cluster a recovery file makes
# (TEMP_CONFIG; all but the default access method also for the single-user
# server that creates the extension, before which nvm_am is no access method)
RECOVERY_CONF = [("shared_preload_libraries", "nvm_am"),
                 ("default_table_access_method", "nvm_am"),
                 ("nvm_am.pool_size", "128MB")]
# in WAL mode, also in postgresql.auto.conf, which is read after the
# settings the test library writes after TEMP_CONFIG (wal_level = minimal
# for a server without streaming, and full_page_writes = off in 032): WAL
# mode needs WAL of level replica or logical and full-page images
RECOVERY_WAL_AUTO = [("wal_level", "logical"), ("full_page_writes", "on")]
# a file that runs longer than this is stopped
RECOVERY_TIMEOUT = 600


def log(msg):
    print(msg, flush=True)


def run(cmd, user=None, check=True, env=None, timeout=None, **kw):
    """run cmd (a list), as user postgres when we are root and user is set"""
    if user and os.geteuid() == 0:
        cmd = ["runuser", "-u", user, "--"] + cmd
    return subprocess.run(cmd, check=check, env=env, timeout=timeout, **kw)


def apt_opts(tmp):
    return ["-o", "Dir::Etc::SourceList=%s/sources.list" % tmp,
            "-o", "Dir::Etc::SourceParts=%s/parts" % tmp,
            "-o", "Dir::State::Lists=%s/lists" % tmp,
            "-o", "Debug::NoLocking=1"]


def fetch_source():
    """the extracted test sources of Debian's postgresql-15 package (cached)"""
    marker = os.path.join(CACHE, "VERSION")
    cached = os.path.join(CACHE, "postgresql")
    if os.path.exists(marker) and all(os.path.isdir(os.path.join(cached, k))
                                      for k in KEEP):
        with open(marker) as f:
            version = f.read().strip()
        return os.path.join(CACHE, "postgresql"), version
    if os.geteuid() != 0:
        sys.exit("run_pgsuite: the PostgreSQL test sources are not cached in "
                 "%s; run as root once to fetch them" % CACHE)
    tmp = os.path.join(CACHE, "apt")
    shutil.rmtree(CACHE, ignore_errors=True)
    os.makedirs(os.path.join(tmp, "lists", "partial"))
    os.makedirs(os.path.join(tmp, "parts"))
    with open(os.path.join(tmp, "sources.list"), "w") as f:
        for suite, path in (("bookworm", "debian"), ("bookworm-updates", "debian"),
                            ("bookworm-security", "debian-security")):
            f.write("deb-src http://deb.debian.org/%s %s main\n" % (path, suite))
    opts = apt_opts(tmp)
    run(["apt-get"] + opts + ["-qq", "update"], timeout=600)
    out = subprocess.run(["apt-cache"] + opts + ["showsrc", "postgresql-15"],
                         check=True, capture_output=True, text=True).stdout
    versions = re.findall(r"^Version: (\S+)$", out, re.M)
    installed = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "postgresql-15"],
                               capture_output=True, text=True).stdout.strip()
    newest_first = sorted(set(versions), reverse=True,
                          key=lambda v: [int(x) for x in re.findall(r"\d+", v)])
    order = ([installed] if installed in versions else []) + \
        [v for v in newest_first if v != installed]
    dl = os.path.join(tmp, "dl")
    os.makedirs(dl)
    for version in order:
        r = subprocess.run(["apt-get"] + opts + ["-qq", "source", "--download-only",
                                                 "postgresql-15=" + version],
                           cwd=dl, capture_output=True, text=True, timeout=900)
        tars = glob.glob(os.path.join(dl, "postgresql-15_*.orig.tar.*"))
        if r.returncode == 0 and tars:
            break
        log("run_pgsuite: source of postgresql-15 %s is not served (%s)"
            % (version, (r.stderr.strip().splitlines() or ["?"])[-1]))
        for f in glob.glob(os.path.join(dl, "*")):
            os.unlink(f)
    else:
        sys.exit("run_pgsuite: no version of the postgresql-15 source package "
                 "could be downloaded")
    src = os.path.join(CACHE, "postgresql")
    with tarfile.open(tars[0]) as t:
        top = t.getmembers()[0].name.split("/")[0]
        members = [m for m in t.getmembers()
                   if any(m.name.startswith(top + "/" + k) for k in KEEP)]
        t.extractall(CACHE, members=members)
    os.rename(os.path.join(CACHE, top), src)
    shutil.rmtree(tmp)
    with open(marker, "w") as f:
        f.write(version + "\n")
    log("run_pgsuite: cached the test sources of postgresql-15 %s in %s"
        % (version, CACHE))
    return src, version


def build_modules(src, work):
    """regress.so, refint.so, autoinc.so in work/lib, built with PGXS"""
    lib = os.path.join(work, "lib")
    os.makedirs(lib, exist_ok=True)
    for f in ("src/test/regress/regress.c", "contrib/spi/refint.c",
              "contrib/spi/autoinc.c"):
        shutil.copy(os.path.join(src, f), lib)
    with open(os.path.join(lib, "Makefile"), "w") as f:
        f.write("MODULES = regress refint autoinc\n"
                "PG_CONFIG = %s\n"
                "PGXS := $(shell $(PG_CONFIG) --pgxs)\n"
                "include $(PGXS)\n" % PG_CONFIG)
    run(["make", "-s", "-C", lib], stdout=subprocess.DEVNULL)
    return lib


def psql(port, host, db, sql):
    env = dict(os.environ, PGOPTIONS="-c client_min_messages=warning")
    run([os.path.join(PGBIN, "psql"), "-X", "-q", "-v", "ON_ERROR_STOP=1",
         "-h", host, "-p", str(port), "-U", "postgres", "-d", db, "-c", sql],
        user="postgres", env=env, stdout=subprocess.DEVNULL)


class Cluster:
    def __init__(self, work, name, port, nvm, wal=False):
        """wal: nvm_am.wal_log = on, streaming allowed, and the pool in the
        data directory (the default), where pg_basebackup copies it"""
        self.dir = os.path.join(work, name)
        self.name, self.port, self.nvm, self.wal = name, port, nvm, wal
        self.pool = "/dev/shm/nvm_am_pgsuite_%s_%d.pool" % (name, os.getpid())

    def start(self):
        data = os.path.join(self.dir, "data")
        run([os.path.join(PGBIN, "initdb"), "-D", data, "-A", "trust", "-U",
             "postgres", "--no-sync"], user="postgres", stdout=subprocess.DEVNULL)
        conf = ["port = %d" % self.port, "listen_addresses = ''",
                "unix_socket_directories = '%s'" % self.dir,
                "max_connections = 100", "max_prepared_transactions = 10",
                "fsync = off", "log_min_messages = warning",
                "log_line_prefix = '%m [%p] '"]
        if not self.wal:
            conf += LOGICAL_CONF
        if self.nvm:
            conf += ["shared_preload_libraries = 'nvm_am'", "nvm_am.pool_size = '2GB'"]
            conf += ["nvm_am.pool_path = '%s'" % self.pool] if not self.wal else [
                "nvm_am.wal_log = on", "wal_level = replica", "max_wal_senders = 4",
                "wal_keep_size = '4GB'", "hot_standby = on"]
            conf += NVM_CONF
        with open(os.path.join(data, "postgresql.conf"), "a") as f:
            f.write("\n".join(conf) + "\n")
        # (PGHOST: where postgres_fdw's loopback connections go)
        env = dict(os.environ, PMEM_IS_PMEM_FORCE="1", PGHOST=self.dir)
        run([os.path.join(PGBIN, "pg_ctl"), "-D", data, "-l",
             os.path.join(self.dir, "server.log"), "-w", "-t", "120", "start"],
            user="postgres", env=env, stdout=subprocess.DEVNULL)
        if self.nvm:
            # databases made from template1 (some tests make their own) can
            # use nvm_am too
            psql(self.port, self.dir, "template1", "CREATE EXTENSION nvm_am")

    def create_db(self, db):
        """the test database as pg_regress makes it (its create_database)"""
        psql(self.port, self.dir, "postgres",
             'DROP DATABASE IF EXISTS "%s"' % db)
        psql(self.port, self.dir, "postgres",
             'CREATE DATABASE "%s" TEMPLATE=template0' % db)
        for s in DB_SETTINGS:
            psql(self.port, self.dir, "postgres",
                 'ALTER DATABASE "%s" SET %s' % (db, s))
        if self.nvm:
            psql(self.port, self.dir, db, "CREATE EXTENSION nvm_am")
            psql(self.port, self.dir, db,
                 'ALTER DATABASE "%s" SET default_table_access_method = nvm_am' % db)

    def query(self, db, sql, options=None):
        """run sql in database db with psql (unaligned, tuples only); the
        finished process (returncode, stdout, stderr as text).  options:
        PGOPTIONS for the session"""
        env = dict(os.environ, PGOPTIONS=options) if options else None
        return run([os.path.join(PGBIN, "psql"), "-X", "-At", "-h", self.dir,
                    "-p", str(self.port), "-U", "postgres", "-d", db, "-c", sql],
                   user="postgres", check=False, capture_output=True, text=True, env=env)

    def check(self, dbs, permanent_only=False):
        """nvm_am_check() of every nvm_am table left in the databases dbs
        (with permanent_only, of those a standby can read)"""
        problems = []
        for db in dbs:
            r = self.query(db, "SELECT c.oid::regclass, x.* FROM pg_class c "
                           "JOIN pg_am a ON a.oid = c.relam AND a.amname = 'nvm_am', "
                           "LATERAL nvm_am.nvm_am_check(c.oid) x "
                           "WHERE c.relkind IN ('r', 'm')" +
                           (" AND c.relpersistence = 'p'" if permanent_only else ""))
            if r.returncode != 0:
                problems.append("%s: nvm_am_check failed: %s" % (db, r.stderr.strip()))
            problems += ["%s: %s" % (db, l) for l in r.stdout.splitlines() if l]
        return problems

    def index_check(self, dbs, standby=False):
        """amcheck over every valid B-tree index of a table the suites left
        in the databases dbs (not the catalogs'): every row the table's
        index build scan yields must be in the index, and the index must
        be in order -- bt_index_parent_check(heapallindexed, rootdescend),
        or on a standby (no ShareLock in recovery) bt_index_check
        (heapallindexed) of the indexes of permanent tables.  Returns
        ({(db, index): error} of the indexes that fail, indexes checked)."""
        check = ("bt_index_check(r.idx, true)" if standby
                 else "bt_index_parent_check(r.idx, true, true)")
        sql = """DO $$
DECLARE r record; n int := 0;
BEGIN
  FOR r IN SELECT i.indexrelid::regclass AS idx
           FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid
           JOIN pg_class ic ON ic.oid = i.indexrelid
           JOIN pg_am iam ON iam.oid = ic.relam AND iam.amname = 'btree'
           WHERE c.relkind IN ('r', 'm') AND c.relpersistence PERSISTENCE
             AND i.indisvalid AND i.indisready
             AND c.relnamespace <> 'pg_catalog'::regnamespace
           ORDER BY 1::text
  LOOP
    BEGIN
      PERFORM CHECK;
      n := n + 1;
    EXCEPTION WHEN others THEN
      RAISE NOTICE 'index_check failed: % %', r.idx, SQLERRM;
    END;
  END LOOP;
  RAISE NOTICE 'index_check passed: %', n;
END $$""".replace("PERSISTENCE", "= 'p'" if standby else "<> 't'").replace("CHECK", check)
        failures, checked = {}, 0
        for db in dbs:
            if not standby:
                psql(self.port, self.dir, db, "CREATE EXTENSION IF NOT EXISTS amcheck")
            r = self.query(db, sql, "-c client_min_messages=notice -c lock_timeout=30s")
            if r.returncode != 0:
                failures[(db, "*")] = "amcheck failed: " + r.stderr.strip()
                continue
            for line in r.stderr.splitlines():
                m = re.match(r"NOTICE:  index_check (passed|failed): (\S+)(?: (.*))?$", line)
                if m and m.group(1) == "passed":
                    checked += int(m.group(2))
                elif m:
                    failures[(db, m.group(2))] = m.group(3)
        return failures, checked

    def stop(self):
        run([os.path.join(PGBIN, "pg_ctl"), "-D", os.path.join(self.dir, "data"),
             "-m", "immediate", "-w", "stop"], user="postgres", check=False,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if os.path.exists(self.pool):
            os.unlink(self.pool)


def makefile_list(path, var):
    """the words of variable var in a Makefile (continuation lines joined)"""
    with open(path) as f:
        text = f.read().replace("\\\n", " ")
    m = re.search(r"^%s\s*=\s*(.*)$" % var, text, re.M)
    return m.group(1).split() if m else []


@functools.lru_cache(maxsize=None)
def pgxs_dir():
    """the directory of the installed server's PGXS makefiles, beside which
    its test programs and Perl test library are installed"""
    return os.path.dirname(subprocess.run([PG_CONFIG, "--pgxs"], capture_output=True,
                                          text=True, check=True).stdout.strip())


def run_suite(suite, src, lib, cluster, out, tests):
    """run one suite on one cluster; returns {test: passed}"""
    subdir, kind, _ = SUITE_SPEC[suite]
    inputdir = os.path.join(src, subdir)
    pgxs = pgxs_dir()
    if kind == "regress":
        prog = os.path.join(pgxs, "../test/regress/pg_regress")
        extra = ["--dlpath=" + lib, "--max-concurrent-tests=20"]
        schedule = os.path.join(inputdir, "parallel_schedule")
    else:
        prog = os.path.join(pgxs, "../test/isolation/pg_isolation_regress")
        extra = []
        schedule = os.path.join(inputdir, "isolation_schedule")
    if subdir.startswith("contrib/") and not tests:
        # a contrib module lists its tests in its Makefile
        tests = makefile_list(os.path.join(inputdir, "Makefile"),
                              "REGRESS" if kind == "regress" else "ISOLATION")
    cluster.create_db(DBNAME[suite])
    os.makedirs(out, exist_ok=True)
    run(["chown", "-R", "postgres:", out], check=False)
    cmd = [prog, "--inputdir=" + inputdir, "--outputdir=" + out,
           "--bindir=" + PGBIN, "--use-existing", "--host=" + cluster.dir,
           "--port=%d" % cluster.port, "--user=postgres",
           "--dbname=" + DBNAME[suite]] + extra
    cmd += tests if tests else ["--schedule=" + schedule]
    env = dict(os.environ, PGISOLATIONTIMEOUT=STEP_TIMEOUT, PGTZ="PST8PDT",
               PGDATESTYLE="Postgres, MDY")
    logfile = os.path.join(out, "run.log")
    try:
        with open(logfile, "w") as f:
            # (contrib tests read their data files by relative paths)
            run(cmd, user="postgres", check=False, env=env, stdout=f,
                stderr=subprocess.STDOUT, timeout=SUITE_TIMEOUT,
                cwd=inputdir if subdir.startswith("contrib/") else out)
    except subprocess.TimeoutExpired:
        log("run_pgsuite: %s on %s did not finish in %d s: stopped"
            % (suite, cluster.name, SUITE_TIMEOUT))
    with open(logfile) as f:
        text = f.read()
    result = {}
    for m in re.finditer(r"^(?:test |     |ok|not ok)?\s*([\w.-]+)\s+\.\.\. (ok|FAILED|failed)",
                         text, re.M):
        result[m.group(1)] = m.group(2) == "ok"
    # ignored tests (pg_regress's "ignore:" lines) count as their result
    for m in re.finditer(r"^.*?([\w.-]+)\s+\.\.\. failed \(ignored\)", text, re.M):
        result[m.group(1)] = False
    return result


def run_suites(suite, src, lib, cluster, work, tests):
    """{test: (passed, its results file)} of suite on cluster; the suite
    "contrib" runs the tests of each module of CONTRIB (named module/test)"""
    if suite != "contrib":
        out = os.path.join(work, "out", suite, cluster.name)
        res = run_suite(suite, src, lib, cluster, out, tests)
        return {t: (ok, os.path.join(out, "results", t + ".out")) for t, ok in res.items()}
    merged = {}
    for m in CONTRIB:
        mine = [t.split("/", 1)[1] for t in tests if t.startswith(m + "/")]
        if tests and not mine:
            continue
        out = os.path.join(work, "out", "contrib", cluster.name, m)
        res = run_suite("contrib/" + m, src, lib, cluster, out, mine)
        merged.update({"%s/%s" % (m, t): (ok, os.path.join(out, "results", t + ".out"))
                       for t, ok in res.items()})
    return merged


def normalized_diff(a_path, b_path):
    """the unified diff of two result files, without line numbers"""
    with open(a_path, errors="replace") as f:
        a = f.read().splitlines()
    with open(b_path, errors="replace") as f:
        b = f.read().splitlines()
    out = []
    for line in difflib.unified_diff(a, b, lineterm="", n=1):
        if line.startswith(("---", "+++")):
            continue
        out.append("@@" if line.startswith("@@") else line)
    return out


def read_known():
    known = {}
    path = os.path.join(HERE, "known_failures.txt")
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                line = line.split("#", 1)
                reason = line[1].strip() if len(line) > 1 else ""
                words = line[0].split()
                if len(words) == 2:
                    known[(words[0], words[1])] = reason
    return known


def standby_replay(src, lib, work, port):
    """The regression suite on a primary in WAL mode (nvm_am.wal_log = on)
    with a streaming standby that pg_basebackup made before it: once the
    standby replayed all of it, every nvm_am table of the regression
    database must hold the same rows on both, ctid, xmin, xmax and cmin
    included (the page records rebuild tuples exactly), and nvm_am_check()
    must be clean on the standby.  Returns (tables compared, problems)."""
    # the primary's and the standby's sockets are in primary.dir
    primary = Cluster(work, "standby", port, True, wal=True)
    standby = Cluster(work, "standby", port + 1, True)
    top = primary.dir
    sdata = os.path.join(top, "replica")
    pg = lambda *a: os.path.join(PGBIN, *a)
    problems = []
    replica_started = False
    try:
        primary.start()
        run([pg("pg_basebackup"), "-h", top, "-p", str(port), "-U", "postgres", "-D",
             sdata, "-R", "--no-sync"], user="postgres")
        with open(os.path.join(sdata, "postgresql.conf"), "a") as f:
            f.write("port = %d\n" % (port + 1))
        run([pg("pg_ctl"), "-D", sdata, "-l", os.path.join(top, "replica.log"), "-w",
             "-t", "120", "start"], user="postgres",
            env=dict(os.environ, PMEM_IS_PMEM_FORCE="1"), stdout=subprocess.DEVNULL)
        replica_started = True
        run_suite("regress", src, lib, primary, os.path.join(work, "out", "standby"), [])

        def query(c, sql):
            r = c.query(DBNAME["regress"], sql)
            return r.returncode, r.stdout.strip(), r.stderr.strip()
        psql(port, top, DBNAME["regress"], "CREATE EXTENSION IF NOT EXISTS amcheck")
        _, lsn, _ = query(primary, "SELECT pg_current_wal_insert_lsn()")
        for _ in range(300):
            if query(standby, "SELECT pg_last_wal_replay_lsn() >= '%s'" % lsn)[1] == "t":
                break
            time.sleep(1)
        else:
            return 0, ["the standby did not replay the suite's WAL in 300 s"]
        _, tables, _ = query(primary, "SELECT c.oid::regclass FROM pg_class c JOIN pg_am a "
                                   "ON a.oid = c.relam AND a.amname = 'nvm_am' "
                                   "WHERE c.relkind IN ('r', 'm') AND c.relpersistence = 'p' "
                                   "ORDER BY c.oid")
        tables = tables.splitlines()
        for t in tables:
            sql = ("SELECT md5(coalesce(string_agg(format('%%s %%s %%s %%s %%s', x.ctid, x.xmin, "
                   "x.xmax, x.cmin, x::text), E'\\n' ORDER BY x.ctid), '')) FROM %s x" % t)
            a, b = query(primary, sql), query(standby, sql)
            if a[0] != 0 or b[0] != 0:
                problems.append("standby: %s could not be compared: %s %s" % (t, a[2], b[2]))
            elif a[1] != b[1]:
                problems.append("standby: %s differs from the primary's" % t)
        problems += ["standby: " + p for p in standby.check([DBNAME["regress"]],
                                                            permanent_only=True)]
        # the standby's indexes against its replayed tables (amcheck); an
        # index that fails there and not on the primary is a problem
        pfail, _ = primary.index_check([DBNAME["regress"]])
        sfail, checked = standby.index_check([DBNAME["regress"]], standby=True)
        problems += ["standby: amcheck: %s: %s" % (k[1], e)
                     for k, e in sorted(sfail.items()) if k not in pfail or k[1] == "*"]
        if checked == 0:
            problems.append("standby: amcheck checked no index")
        log("   standby: amcheck of %d indexes of permanent tables" % checked)
        return len(tables), problems
    finally:
        if replica_started:
            run([pg("pg_ctl"), "-D", sdata, "-m", "immediate", "-w", "stop"], user="postgres",
                check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        primary.stop()


# initdb for the recovery files with nvm_am: the real one, then the
# extension in template1 and postgres (single-user mode, nvm_am preloaded),
# and for WAL mode the lines of RECOVERY_WAL_AUTO in postgresql.auto.conf
INITDB_WRAPPER = """#!/bin/bash
%(initdb)s "$@" || exit $?
d=
while [ $# -gt 0 ]; do
    case $1 in -D) d=$2; shift ;; --pgdata=*) d=${1#--pgdata=} ;; esac
    shift
done
[ -n "$d" ] || exit 0
for db in template1 postgres; do
    echo 'CREATE EXTENSION nvm_am;' | PMEM_IS_PMEM_FORCE=1 %(postgres)s --single -D "$d" \\
        %(opts)s "$db" >/dev/null ||
        { echo "initdb (run_pgsuite.py): CREATE EXTENSION nvm_am failed in $db" >&2; exit 1; }
done
printf '%%s' '%(auto)s' >>"$d/postgresql.auto.conf"
"""


def recovery_dir(work, suite):
    """where suite's initdb wrapper (bin/initdb) and TEMP_CONFIG file
    (temp.conf) are"""
    return os.path.join(work, "recovery", suite)


def recovery_shm():
    """this run's directory on /dev/shm, where the TAP files' clusters live"""
    return os.path.join("/dev/shm", "nvm_am_pgsuite_%d" % os.getpid())


def recovery_setup(work, suite):
    """the initdb wrapper and the TEMP_CONFIG file of suite (recovery_dir)"""
    top = recovery_dir(work, suite)
    os.makedirs(os.path.join(top, "bin"), exist_ok=True)
    wal = suite not in RECOVERY_POOL_ONLY
    conf = RECOVERY_CONF + ([("nvm_am.wal_log", "on")] if wal else [])
    auto = RECOVERY_WAL_AUTO if wal else []
    opts = ["-c %s=%s" % kv for kv in conf + auto if kv[0] != "default_table_access_method"]
    wrapper = os.path.join(top, "bin", "initdb")
    with open(wrapper, "w") as f:
        f.write(INITDB_WRAPPER % {"initdb": os.path.join(PGBIN, "initdb"),
                                  "postgres": os.path.join(PGBIN, "postgres"),
                                  "opts": " ".join(opts),
                                  "auto": "".join("%s = %s\n" % kv for kv in auto)})
    os.chmod(wrapper, 0o755)
    with open(os.path.join(top, "temp.conf"), "w") as f:
        f.write("".join("%s = '%s'\n" % kv for kv in conf))
    run(["chown", "-R", "postgres:", top], check=False)


def recovery_run(src, work, suite, test, nvm, portdir):
    """run the file test of suite's directory (RECOVERY_DIR), with nvm_am as
    the default table access method in the mode of suite (nvm; the initdb
    wrapper and TEMP_CONFIG of recovery_setup) or on heap; its clusters
    live on /dev/shm (the pools are in their data directories) and are gone
    afterwards, its output and server logs stay in work/out.  Returns
    (passed, seconds, the directory of its logs)."""
    name = os.path.join(suite, "nvm_am" if nvm else "heap", test)
    tmp = os.path.join(recovery_shm(), name)
    out = os.path.join(work, "out", name)
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(os.path.join(tmp, "tmp_check"))
    os.makedirs(out, exist_ok=True)
    # the directories above tmp, not their neighbours: the other lane's
    # file may be running its clusters there
    parts = name.split(os.sep)
    run(["chown", "postgres:"] + [os.path.join(recovery_shm(), *parts[:i])
                                  for i in range(len(parts))], check=False)
    run(["chown", "-R", "postgres:", tmp, out], check=False)
    rec = os.path.join(src, RECOVERY_DIR[suite])
    pgxs = pgxs_dir()
    path = PGBIN + ":" + os.environ.get("PATH", "/usr/bin:/bin")
    env = ["TESTDIR=" + tmp, "PG_TEST_PORT_DIR=" + portdir, "PG_TEST_TIMEOUT_DEFAULT=120",
           "PG_REGRESS=" + os.path.join(pgxs, "../test/regress/pg_regress"),
           "PMEM_IS_PMEM_FORCE=1"]
    if nvm:
        path = os.path.join(recovery_dir(work, suite), "bin") + ":" + path
        env.append("TEMP_CONFIG=" + os.path.join(recovery_dir(work, suite), "temp.conf"))
    cmd = ["env"] + env + ["PATH=" + path, "prove", "-I", os.path.join(pgxs, "../test/perl"),
                           "-I", rec, "-I", os.path.join(rec, "t"), "t/%s.pl" % test]
    t0 = time.time()
    with open(os.path.join(out, "prove.log"), "w") as f:
        try:
            ok = run(cmd, user="postgres", check=False, stdout=f, stderr=subprocess.STDOUT,
                     cwd=rec, timeout=RECOVERY_TIMEOUT).returncode == 0
        except subprocess.TimeoutExpired:
            f.write("run_pgsuite: stopped after %d s\n" % RECOVERY_TIMEOUT)
            ok = False
    # servers a stopped or failed file left running
    for data in glob.glob(os.path.join(tmp, "tmp_check", "t_*_data", "pgdata")):
        if os.path.exists(os.path.join(data, "postmaster.pid")):
            run([os.path.join(PGBIN, "pg_ctl"), "-D", data, "-m", "immediate", "-w", "stop"],
                user="postgres", check=False, stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL)
    logs = os.path.join(tmp, "tmp_check", "log")
    if os.path.isdir(logs):
        shutil.copytree(logs, os.path.join(out, "log"), dirs_exist_ok=True)
    shutil.rmtree(tmp, ignore_errors=True)
    return ok, time.time() - t0, out


def recovery_suites(src, work, suites, tests, known):
    """the TAP files of suites (RECOVERY), two at a time, with nvm_am;
    a file that fails runs again on heap, and counts only if it passes
    there.  Returns (passed, failed, summary lines, problems)."""
    portdir = os.path.join(work, "recovery", "ports")
    os.makedirs(portdir, exist_ok=True)
    run(["chown", "-R", "postgres:", os.path.join(work, "recovery")], check=False)
    jobs = [(suite, t) for suite in suites for t in (tests or RECOVERY[suite])]
    for suite in suites:
        # (written once: the files of a suite run its initdb two at a time)
        recovery_setup(work, suite)
    passed = failed = 0
    summary, problems = [], []
    t0 = time.time()
    try:
        with concurrent.futures.ThreadPoolExecutor(2) as ex:
            res = dict(zip(jobs, ex.map(
                lambda j: recovery_run(src, work, j[0], j[1], True, portdir)
                if os.path.exists(os.path.join(src, RECOVERY_DIR[j[0]], "t", j[1] + ".pl"))
                else (False, 0, None),
                jobs)))
            bad = [j for j in jobs if not res[j][0] and res[j][2]]
            heap = dict(zip(bad, ex.map(
                lambda j: recovery_run(src, work, j[0], j[1], False, portdir), bad)))
    finally:
        shutil.rmtree(recovery_shm(), ignore_errors=True)
    for suite in suites:
        same = total = 0
        for j in (j for j in jobs if j[0] == suite):
            ok, secs, out = res[j]
            if out is None:
                problems.append("%s %s: no such file in %s/t" % (j + (RECOVERY_DIR[j[0]],)))
                failed += 1
                continue
            if not ok and not heap[j][0]:
                log("   %s %s: fails on heap too (%s): not counted"
                    % (suite, j[1], os.path.join(heap[j][2], "prove.log")))
                continue
            total += 1
            if ok and j in known:
                problems.append("%s %s passes now: take it out of known_failures.txt" % j)
                failed += 1
            elif ok:
                same += 1
                passed += 1
            elif j in known:
                log("   %s %s: known failure (%s)" % (suite, j[1], known[j]))
                passed += 1
            else:
                problems.append("%s %s: passes on heap, fails on nvm_am (%s)"
                                % (suite, j[1], os.path.join(out, "prove.log")))
                failed += 1
        summary.append("%s: %d/%d" % (suite, same, total))
    log("   TAP files (recovery, pg_rewind, subscription, programs, modules): %.0f s"
        % (time.time() - t0))
    return passed, failed, summary, problems


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("work")
    ap.add_argument("--only", choices=SUITES + tuple(RECOVERY))
    ap.add_argument("--tests", nargs="*", default=[])
    ap.add_argument("--port", type=int, default=int(os.environ.get("NVM_PGSUITE_PORT", "54350")))
    opts = ap.parse_args()

    src, version = fetch_source()
    work = os.path.abspath(opts.work)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    lib = build_modules(src, work)
    run(["chown", "-R", "postgres:", work], check=False)
    server = subprocess.run([os.path.join(PGBIN, "postgres"), "--version"],
                            capture_output=True, text=True).stdout.strip()
    log("== PostgreSQL's own suites: test files of postgresql-15 %s, server %s"
        % (version, server))

    heap = Cluster(work, "heap", opts.port, False)
    nvm = Cluster(work, "nvm", opts.port + 1, True)
    known = read_known()
    passed = failed = 0
    summary = []
    problems = []
    # the two clusters run each suite at the same time, and the standby's
    # run goes on beside them: most of the suites' time is spent waiting
    # (isolation steps, sleeps, server starts), which the other runs fill
    pool = concurrent.futures.ThreadPoolExecutor(3)
    standby = None
    t_all = time.time()
    if not opts.only and not opts.tests:
        standby = pool.submit(standby_replay, src, lib, work, opts.port + 2)
    if opts.only in RECOVERY:
        passed, failed, summary, problems = recovery_suites(src, work, [opts.only],
                                                            opts.tests, known)
        for p in problems:
            log("   " + p)
        log("; ".join(summary))
        log("pgsuite: %d passed, %d failed" % (passed, failed))
        return 1 if failed else 0
    try:
        heap.start()
        nvm.start()
        for suite in SUITES:
            if opts.only and suite != opts.only:
                continue
            t0 = time.time()
            runs = {c.name: pool.submit(run_suites, suite, src, lib, c, work, opts.tests)
                    for c in (heap, nvm)}
            res = {name: r.result() for name, r in runs.items()}
            secs = time.time() - t0
            h, n = res["heap"], res["nvm"]
            heap_ok = sorted(t for t, (ok, _) in h.items() if ok)
            same = 0
            for t in heap_ok:
                key = (suite, t)
                ok = n.get(t, (False, None))[0]
                how = "ok"
                if not ok:
                    allowed = os.path.join(HERE, "allowed", "%s.diff" % t.replace("/", "."))
                    hres = h[t][1]
                    nres = n[t][1] if t in n else ""
                    if os.path.exists(allowed) and os.path.exists(nres):
                        with open(allowed) as f:
                            want = f.read().splitlines()
                        got = normalized_diff(hres, nres)
                        if got == want:
                            ok, how = True, "ok (only the allowed catalog listing differs)"
                        else:
                            problems.append("%s %s: differs from heap beyond %s"
                                            % (suite, t, os.path.relpath(allowed, HERE)))
                if ok and key in known and "intermittent" in known[key]:
                    log("   %s %s: passed this time (known to fail at times: %s)"
                        % (suite, t, known[key]))
                    same += 1
                    passed += 1
                elif ok and key in known:
                    problems.append("%s %s passes now: take it out of known_failures.txt"
                                    % (suite, t))
                    failed += 1
                elif ok:
                    same += 1
                    passed += 1
                elif key in known:
                    log("   %s %s: known failure (%s)" % (suite, t, known[key]))
                    passed += 1
                else:
                    problems.append("%s %s: passes on heap, fails on nvm_am" % (suite, t))
                    failed += 1
            if suite == "regress":
                summary.append("regress: heap %d/%d, nvm_am %d/%d of heap's passes"
                               % (len(heap_ok), len(h), same, len(heap_ok)))
            else:
                summary.append("%s: %d/%d" % (suite, same, len(heap_ok)))
            log("   %s: %.0f s for both runs" % (suite, secs))
        dbs = sorted({DBNAME[s] for s in SUITES if not opts.only or s == opts.only})
        for p in nvm.check(dbs):
            problems.append("nvm_am_check after the suites: " + p)
            failed += 1
        # the indexes the suites leave against their tables, on both
        # clusters: an index that fails on nvm_am and not on heap fails
        hfail, _ = heap.index_check(dbs)
        nfail, checked = nvm.index_check(dbs)
        bad = sorted(k for k in nfail if k not in hfail or k[1] == "*")
        for k in bad:
            problems.append("amcheck after the suites: %s %s: %s" % (k[0], k[1], nfail[k]))
        if bad:
            failed += 1
        else:
            passed += 1
        summary.append("amcheck: %d indexes, %d differ from heap" % (checked, len(bad)))
    finally:
        heap.stop()
        nvm.stop()
    # PostgreSQL's TAP files, while the standby's run ends
    if not opts.only and not opts.tests:
        p, f, lines, bad = recovery_suites(src, work, list(RECOVERY), [], known)
        passed, failed = passed + p, failed + f
        summary += lines
        problems += bad
    if standby:
        ntables, bad = standby.result()
        problems += bad
        if bad or ntables == 0:
            failed += 1
        else:
            passed += 1
        summary.append("standby: %d nvm_am tables, %d problems" % (ntables, len(bad)))
        log("   regress on a WAL-mode primary and its standby: done %.0f s after the start"
            % (time.time() - t_all))
    pool.shutdown()
    for p in problems:
        log("   " + p)
    log("; ".join(summary))
    log("pgsuite: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
