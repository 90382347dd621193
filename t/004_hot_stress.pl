# HOT updates, copy-on-write pruning and frame pins under concurrency.
#
# A bounded pgbench workload: money transfers between accounts whose total
# is constant (HOT updates of the non-indexed balance, non-HOT updates that
# also change an indexed column, row locks first, delete + re-insert,
# rolled-back subtransactions), while other clients read through sequential,
# index and bitmap scans, hold REPEATABLE READ snapshots across pruning,
# walk slow cursors forwards and backwards, and build and drop indexes
# (plainly and CONCURRENTLY) on the column the transfers change.  Every
# reader checks its invariant itself and fails its transaction when it does
# not hold; afterwards all access paths must agree, every retired frame must
# have been freed, and HOT updates of a table of fixed size must not keep
# allocating frames.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use List::Util ();
use FindBin;
use lib $FindBin::RealBin;
use NvmProc;

my $duration = 20;    # seconds of concurrent load (the whole test stays under a minute)
my $pool = "/dev/shm/nvm_am_tap_hot_$$.pool";
# removed even when the test dies early
END { unlink $pool if defined $pool; }
my $node = PostgreSQL::Test::Cluster->new('hot');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'nvm_am'
nvm_am.pool_path = '$pool'
nvm_am.pool_size = '256MB'
max_connections = 40
autovacuum = off
});
$ENV{PMEM_IS_PMEM_FORCE} = 1;
$node->start;

$node->safe_psql('postgres', q{
CREATE EXTENSION nvm_am;
CREATE TABLE acc (id int NOT NULL, grp int NOT NULL, balance int NOT NULL, pad text) USING nvm_am;
INSERT INTO acc SELECT g, g % 10, 1000, repeat('x', 80) FROM generate_series(1, 100) g;
CREATE UNIQUE INDEX acc_id ON acc (id);
CREATE INDEX acc_grp ON acc (grp);

-- a table that only ever gets HOT updates: its size must settle
CREATE TABLE hotonly (id int PRIMARY KEY, n int NOT NULL, pad text) USING nvm_am;
INSERT INTO hotonly SELECT g, 0, repeat('h', 200) FROM generate_series(1, 100) g;

-- upserts, HOT updates and attempted duplicates of a few keys: the
-- unique checks (dirty snapshots) walk HOT chains that are being pruned
CREATE TABLE frz (id int PRIMARY KEY, n int NOT NULL, pad char(84)) USING nvm_am;
INSERT INTO frz SELECT g, 0, '' FROM generate_series(1, 20) g;

CREATE TABLE kv (k int PRIMARY KEY, n int NOT NULL, pad text) USING nvm_am;
INSERT INTO kv SELECT g, 0, repeat('p', 300) FROM generate_series(1, 20) g;
CREATE FUNCTION tryins(key int) RETURNS int LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO kv VALUES (key, 0, 'dup');
  RAISE EXCEPTION 'INVARIANT duplicate key % accepted', key;
EXCEPTION WHEN unique_violation THEN RETURN 0;
END $$;

CREATE FUNCTION fail(t text) RETURNS int LANGUAGE plpgsql AS
$$ BEGIN RAISE EXCEPTION 'INVARIANT %', t; END $$;

CREATE FUNCTION chk(s bigint, c bigint, what text) RETURNS int LANGUAGE plpgsql AS $$
BEGIN
  IF s IS DISTINCT FROM 100000 OR c IS DISTINCT FROM 100 THEN
    RAISE EXCEPTION 'INVARIANT % sum=% count=%', what, s, c;
  END IF;
  RETURN 1;
END $$;

-- move x from a to b; mode 0: HOT, 1: also change the indexed grp (not
-- HOT), 2: lock both rows first.  A row deleted and re-inserted meanwhile
-- makes an update find nothing: retried (40001) so no money is lost.
CREATE FUNCTION xfer(a int, b int, x int, mode int) RETURNS void LANGUAGE plpgsql AS $$
DECLARE n int; lo int := least(a, b); hi int := greatest(a, b); d int;
BEGIN
  IF a = b THEN RETURN; END IF;
  d := CASE WHEN a < b THEN -x ELSE x END;
  IF mode = 2 THEN
    PERFORM 1 FROM acc WHERE id IN (lo, hi) ORDER BY id FOR UPDATE;
    GET DIAGNOSTICS n = ROW_COUNT;
    IF n <> 2 THEN RAISE EXCEPTION 'retry' USING ERRCODE = '40001'; END IF;
  END IF;
  IF mode = 1 THEN
    UPDATE acc SET balance = balance + d, grp = (grp + 1) % 10 WHERE id = lo;
  ELSE
    UPDATE acc SET balance = balance + d WHERE id = lo;
  END IF;
  GET DIAGNOSTICS n = ROW_COUNT;
  IF n <> 1 THEN RAISE EXCEPTION 'retry' USING ERRCODE = '40001'; END IF;
  UPDATE acc SET balance = balance - d WHERE id = hi;
  GET DIAGNOSTICS n = ROW_COUNT;
  IF n <> 1 THEN RAISE EXCEPTION 'retry' USING ERRCODE = '40001'; END IF;
END $$;

CREATE FUNCTION reins(a int) RETURNS void LANGUAGE plpgsql AS $$
DECLARE r acc;
BEGIN
  DELETE FROM acc WHERE id = a RETURNING * INTO r;
  IF r.id IS NULL THEN RAISE EXCEPTION 'retry' USING ERRCODE = '40001'; END IF;
  INSERT INTO acc VALUES (r.id, r.grp, r.balance, r.pad);
END $$;

-- read the table through a cursor one row at a time, pausing, moving
-- back and forth, and compare with what the snapshot sees
CREATE FUNCTION slowcur(kind int) RETURNS int LANGUAGE plpgsql AS $$
DECLARE
  h0 text; h1 text; c refcursor; r record; arr text[] := '{}'; n int := 0;
BEGIN
  SELECT md5(string_agg(id || ':' || balance || ':' || grp, ',' ORDER BY id)) INTO h0 FROM acc;
  IF kind = 0 THEN
    SET LOCAL enable_seqscan = on; SET LOCAL enable_indexscan = off; SET LOCAL enable_bitmapscan = off;
    OPEN c SCROLL FOR SELECT id, balance, grp FROM acc;
  ELSIF kind = 1 THEN
    SET LOCAL enable_seqscan = off; SET LOCAL enable_indexscan = on; SET LOCAL enable_bitmapscan = off;
    OPEN c SCROLL FOR SELECT id, balance, grp FROM acc WHERE id > 0 ORDER BY id;
  ELSE
    SET LOCAL enable_seqscan = off; SET LOCAL enable_indexscan = off; SET LOCAL enable_bitmapscan = on;
    OPEN c FOR SELECT id, balance, grp FROM acc WHERE grp >= 0;
  END IF;
  LOOP
    FETCH c INTO r;
    EXIT WHEN NOT FOUND;
    arr := arr || (r.id || ':' || r.balance || ':' || r.grp);
    n := n + 1;
    IF n % 7 = 0 THEN PERFORM pg_sleep(0.003); END IF;
    IF kind < 2 AND n % 13 = 0 THEN
      MOVE BACKWARD 2 FROM c; PERFORM pg_sleep(0.002); MOVE FORWARD 2 FROM c;
    END IF;
  END LOOP;
  CLOSE c;
  SELECT md5(string_agg(x, ',' ORDER BY split_part(x, ':', 1)::int)) INTO h1 FROM unnest(arr) x;
  IF h1 IS DISTINCT FROM h0 THEN
    RAISE EXCEPTION 'INVARIANT cursor kind % saw another set of rows (% rows)', kind, n;
  END IF;
  IF kind < 2 THEN
    arr := '{}';
    IF kind = 0 THEN OPEN c SCROLL FOR SELECT id, balance, grp FROM acc;
    ELSE OPEN c SCROLL FOR SELECT id, balance, grp FROM acc WHERE id > 0 ORDER BY id; END IF;
    MOVE LAST FROM c; MOVE NEXT FROM c;
    LOOP
      FETCH PRIOR FROM c INTO r;
      EXIT WHEN NOT FOUND;
      arr := arr || (r.id || ':' || r.balance || ':' || r.grp);
      IF cardinality(arr) % 11 = 0 THEN PERFORM pg_sleep(0.003); END IF;
    END LOOP;
    CLOSE c;
    SELECT md5(string_agg(x, ',' ORDER BY split_part(x, ':', 1)::int)) INTO h1 FROM unnest(arr) x;
    IF h1 IS DISTINCT FROM h0 THEN
      RAISE EXCEPTION 'INVARIANT backward cursor kind % saw another set of rows', kind;
    END IF;
  END IF;
  RETURN n;
END $$;

-- the index on balance (being built and dropped by another client) must
-- return what a sequential scan returns, in one snapshot
CREATE FUNCTION chk_bal() RETURNS int LANGUAGE plpgsql AS $$
DECLARE hs text; hi text; hb text; n int;
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_index WHERE indexrelid = 'acc_bal'::regclass AND indisvalid) THEN
    RETURN 0;
  END IF;
  PERFORM set_config('enable_seqscan', 'on', true);
  PERFORM set_config('enable_indexscan', 'off', true);
  PERFORM set_config('enable_bitmapscan', 'off', true);
  EXECUTE $q$SELECT md5(string_agg(id || ':' || balance, ',' ORDER BY id)) FROM acc$q$ INTO hs;
  PERFORM set_config('enable_seqscan', 'off', true);
  PERFORM set_config('enable_indexscan', 'on', true);
  EXECUTE $q$SELECT md5(string_agg(id || ':' || balance, ',' ORDER BY id)) FROM acc
             WHERE balance BETWEEN -100000000 AND 100000000$q$ INTO hi;
  PERFORM set_config('enable_indexscan', 'off', true);
  PERFORM set_config('enable_bitmapscan', 'on', true);
  EXECUTE $q$SELECT md5(string_agg(id || ':' || balance, ',' ORDER BY id)) FROM acc
             WHERE balance BETWEEN -100000000 AND 100000000$q$ INTO hb;
  IF hi IS DISTINCT FROM hs OR hb IS DISTINCT FROM hs THEN
    RAISE EXCEPTION 'INVARIANT index on balance differs from a sequential scan';
  END IF;
  -- a point lookup of every row through the index
  PERFORM set_config('enable_bitmapscan', 'off', true);
  PERFORM set_config('enable_indexscan', 'on', true);
  PERFORM set_config('enable_hashjoin', 'off', true);
  PERFORM set_config('enable_mergejoin', 'off', true);
  EXECUTE $q$SELECT count(*) FROM (SELECT id, balance FROM acc OFFSET 0) s
             WHERE NOT EXISTS (SELECT 1 FROM acc a WHERE a.balance = s.balance AND a.id = s.id)$q$ INTO n;
  IF n <> 0 THEN
    RAISE EXCEPTION 'INVARIANT % rows not found through the index on balance', n;
  END IF;
  RETURN 1;
END $$;
});

# ---------------------------------------------------------------------------
# pgbench scripts
# ---------------------------------------------------------------------------
my %script = (
	w_hot => q{
\set a random(1, 100)
\set b random(1, 100)
\set x random(1, 50)
SELECT xfer(:a, :b, :x, 0);
},
	w_nonhot => q{
\set a random(1, 100)
\set b random(1, 100)
\set x random(1, 50)
SELECT xfer(:a, :b, :x, 1);
},
	w_lock => q{
\set a random(1, 100)
\set b random(1, 100)
\set x random(1, 50)
BEGIN;
SELECT xfer(:a, :b, :x, 2);
END;
},
	w_reins => q{
\set a random(1, 100)
SELECT reins(:a);
},
	w_abort => q{
\set a random(1, 100)
\set b random(1, 100)
\set x random(1, 50)
BEGIN;
SELECT xfer(:a, :b, :x, 0);
SAVEPOINT s1;
UPDATE acc SET balance = balance + 1000 WHERE id = :a;
UPDATE acc SET balance = balance + 1000 WHERE id = :a;
ROLLBACK TO s1;
UPDATE acc SET pad = repeat('y', 80) WHERE id = :a;
SAVEPOINT s2;
UPDATE acc SET balance = balance - 77, grp = grp + 1 WHERE id = :b;
ROLLBACK TO s2;
END;
BEGIN;
UPDATE acc SET balance = balance + 5 WHERE id = :b;
UPDATE acc SET balance = balance + 5 WHERE id = :b;
ROLLBACK;
},
	r_seq => q{
SELECT chk(sum(balance), count(*), 'seqscan') FROM acc;
},
	r_idx => q{
BEGIN;
SET LOCAL enable_seqscan = off; SET LOCAL enable_bitmapscan = off;
SET LOCAL enable_hashjoin = off; SET LOCAL enable_mergejoin = off;
SELECT chk(sum(balance), count(*), 'indexscan id') FROM acc WHERE id BETWEEN 1 AND 100;
SELECT chk(sum(balance), count(*), 'indexscan grp') FROM acc WHERE grp BETWEEN 0 AND 9;
SELECT chk(sum(balance), count(DISTINCT id), 'index point lookups') FROM generate_series(1, 100) g, LATERAL (SELECT * FROM acc WHERE id = g) s;
END;
},
	r_bmp => q{
BEGIN;
SET LOCAL enable_seqscan = off; SET LOCAL enable_indexscan = off;
SELECT chk(sum(balance), count(*), 'bitmap id') FROM acc WHERE id BETWEEN 1 AND 100;
SELECT chk(sum(balance), count(*), 'bitmap grp') FROM acc WHERE grp BETWEEN 0 AND 9;
END;
},
	r_rr => q{
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT md5(string_agg(id || ':' || balance || ':' || grp, ',' ORDER BY id)) AS h0, count(*) AS c0, sum(balance) AS s0 FROM acc \gset
SELECT chk(:s0, :c0, 'repeatable read');
SELECT pg_sleep(0.1);
SET LOCAL enable_seqscan = off; SET LOCAL enable_bitmapscan = off;
SELECT CASE WHEN md5(string_agg(id || ':' || balance || ':' || grp, ',' ORDER BY id)) <> ':h0' THEN fail('repeatable read, index scan') END FROM acc WHERE id > 0;
SELECT pg_sleep(0.1);
SET LOCAL enable_indexscan = off; SET LOCAL enable_bitmapscan = on;
SELECT CASE WHEN md5(string_agg(id || ':' || balance || ':' || grp, ',' ORDER BY id)) <> ':h0' THEN fail('repeatable read, bitmap scan') END FROM acc WHERE grp >= 0;
SELECT pg_sleep(0.1);
SET LOCAL enable_seqscan = on; SET LOCAL enable_bitmapscan = off;
SELECT CASE WHEN md5(string_agg(id || ':' || balance || ':' || grp, ',' ORDER BY id)) <> ':h0' THEN fail('repeatable read, seqscan') END FROM acc;
END;
},
	r_cur0 => "BEGIN ISOLATION LEVEL REPEATABLE READ;\nSELECT slowcur(0);\nEND;\n",
	r_cur1 => "BEGIN ISOLATION LEVEL REPEATABLE READ;\nSELECT slowcur(1);\nEND;\n",
	r_cur2 => "BEGIN ISOLATION LEVEL REPEATABLE READ;\nSELECT slowcur(2);\nEND;\n",
	d_cic => q{
CREATE INDEX CONCURRENTLY IF NOT EXISTS acc_bal ON acc (balance);
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT chk_bal();
COMMIT;
DROP INDEX acc_bal;
CREATE INDEX acc_bal ON acc (balance);
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT chk_bal();
COMMIT;
DROP INDEX acc_bal;
SELECT pg_sleep(0.3);
},
	m_vac => q{
VACUUM acc;
ANALYZE acc;
SELECT pg_sleep(0.3);
},
	# freezing right behind HOT updates: VACUUM's horizon may pass an
	# update that the pruning horizon has not (a commit between the two);
	# a frozen successor of a version still on the page once made pruning
	# cut the chain and drop the row from the index
	f_upd => q{
\set a random(1, 20)
UPDATE frz SET n = n + 1 WHERE id = :a;
},
	f_freeze => q{
VACUUM (FREEZE) frz;
},
	k_upsert => q{
\set k random(1, 20)
INSERT INTO kv VALUES (:k, 1, 'new') ON CONFLICT (k) DO UPDATE SET n = kv.n + 1;
},
	k_hot => q{
\set k random(1, 20)
UPDATE kv SET n = n + 1 WHERE k = :k;
},
	k_dup => q{
\set k random(1, 20)
SELECT tryins(:k);
INSERT INTO kv VALUES (:k, 0, 'x') ON CONFLICT DO NOTHING;
},
	h_hot => q{
\set a random(1, 100)
UPDATE hotonly SET n = n + 1 WHERE id = :a;
},);
my $dir = pgbench_scripts(%script);

my $pruned0 = nvm_stat($node, 'pages_pruned');
my $hot0 = nvm_stat($node, 'hot_updates');

my @runs = (
	start_pgbench($node, $dir, 'writers', 8, $duration,
		'w_hot@6', 'w_nonhot@2', 'w_lock@2', 'w_reins@1', 'w_abort@2'),
	start_pgbench($node, $dir, 'seq/index/bitmap readers', 3, $duration, 'r_seq', 'r_idx', 'r_bmp'),
	start_pgbench($node, $dir, 'repeatable read readers', 2, $duration, 'r_rr'),
	start_pgbench($node, $dir, 'slow cursors', 3, $duration, 'r_cur0', 'r_cur1', 'r_cur2'),
	start_pgbench($node, $dir, 'index builds', 1, $duration, 'd_cic'),
	start_pgbench($node, $dir, 'vacuum/analyze', 1, $duration, 'm_vac'),
	start_pgbench($node, $dir, 'hot-only writers', 2, $duration, 'h_hot'),
	start_pgbench($node, $dir, 'upserts', 3, $duration, 'k_upsert'),
	start_pgbench($node, $dir, 'key updates', 2, $duration, 'k_hot'),
	start_pgbench($node, $dir, 'duplicate inserts', 2, $duration, 'k_dup'));
my %done = map { $_->{label} => finish_pgbench($_) } @runs;

# ---------------------------------------------------------------------------
# invariants after the load
# ---------------------------------------------------------------------------
my $q_all = q{SELECT string_agg(id || ':' || balance || ':' || grp, ',' ORDER BY id) FROM acc};
my $seq = $node->safe_psql('postgres', qq{
SET enable_indexscan = off; SET enable_bitmapscan = off; $q_all});
my $idx = $node->safe_psql('postgres', qq{
SET enable_seqscan = off; SET enable_bitmapscan = off; $q_all WHERE id > 0});
my $bmp = $node->safe_psql('postgres', qq{
SET enable_seqscan = off; SET enable_indexscan = off; $q_all WHERE grp >= 0});
is($idx, $seq, 'index scan returns what a sequential scan returns');
is($bmp, $seq, 'bitmap scan returns what a sequential scan returns');
is($node->safe_psql('postgres', 'SELECT count(*), count(DISTINCT id), sum(balance) FROM acc'),
	'100|100|100000', 'every account once, the total unchanged');

# every upsert and update of kv counted once, no key twice
is( $node->safe_psql('postgres', 'SELECT count(*), count(DISTINCT k), sum(n) FROM kv'),
	'20|20|' . ($done{'upserts'} + $done{'key updates'}),
	'kv: no duplicate keys, every upsert and update counted once');
is( $node->safe_psql('postgres', q{
SET enable_seqscan = off; SET enable_bitmapscan = off;
SELECT count(*), sum(n) FROM kv WHERE k BETWEEN 1 AND 20}),
	'20|' . ($done{'upserts'} + $done{'key updates'}),
	'kv: the same through the primary key');

is( $node->safe_psql('postgres', q{
SELECT string_agg(t || ' ' || blkno || ' ' || offnum || ' ' || problem, E'\n')
  FROM (SELECT 'acc' t, * FROM nvm_am.nvm_am_check('acc') UNION ALL
        SELECT 'kv', * FROM nvm_am.nvm_am_check('kv') UNION ALL
        SELECT 'hotonly', * FROM nvm_am.nvm_am_check('hotonly')) c}),
	'', 'nvm_am_check finds no problem in acc, kv and hotonly');

# every key through each index, one lookup at a time
$node->safe_psql('postgres', 'DROP INDEX IF EXISTS acc_bal; CREATE INDEX acc_bal ON acc (balance)');
is( $node->safe_psql(
		'postgres', q{
SET enable_seqscan = off; SET enable_bitmapscan = off;
SET enable_hashjoin = off; SET enable_mergejoin = off;
SELECT count(*) FROM (SELECT * FROM acc OFFSET 0) s
 WHERE (SELECT count(*) FROM acc a WHERE a.id = s.id) <> 1
    OR (SELECT count(*) FROM acc a WHERE a.grp = s.grp AND a.id = s.id) <> 1
    OR (SELECT count(*) FROM acc a WHERE a.balance = s.balance AND a.id = s.id) <> 1}),
	'0', 'point lookups through every index find every row exactly once');

cmp_ok(nvm_stat($node, 'hot_updates') - $hot0, '>', 1000, 'the load made HOT updates');
cmp_ok(nvm_stat($node, 'pages_pruned') - $pruned0, '>', 10, 'the load pruned pages');

# no pins left behind: with no transaction running, every frame retired --
# by a merge (a full in-page log, or a pruning that did not fit in the
# log), or cut off by VACUUM's truncation of empty end pages, which the
# concurrent VACUUMs do at times (comparing with merges_on_full alone failed
# then: 6890 reclaimed, 6821 merges) -- has been freed
cmp_ok(nvm_stat($node, 'frames_retired'), '>=', nvm_stat($node, 'merges_on_full'),
	'every merge retired a frame');
is(nvm_stat($node, 'frames_reclaimed'), nvm_stat($node, 'frames_retired'),
	'every retired frame was freed (no leaked frame pins)');

# HOT updates of a table of fixed size settle: pruning makes the room, so
# (almost) no new frames are needed.  A few updates may still find their
# page full of versions that concurrent snapshots need and go elsewhere
# (heap does the same): from 0 up to 35 new pages in a round of about
# 300,000 transactions, depending on how the clients' snapshots happen to
# overlap.  Without working pruning each round would need over a thousand,
# so a round may grow the table by one page per 3,000 transactions (at
# least 16).
my $run = start_pgbench($node, $dir, 'hot-only, first round', 4, 5, 'h_hot');
finish_pgbench($run);
my $frames1 = nvm_stat($node, 'frames_allocated');
my $pruned1 = nvm_stat($node, 'pages_pruned');
my $upd1 = nvm_stat($node, 'tuples_updated');
my $hot1 = nvm_stat($node, 'hot_updates');
my $ext1 = nvm_stat($node, 'pages_extended');
$run = start_pgbench($node, $dir, 'hot-only, second round', 4, 5, 'h_hot');
my $done = finish_pgbench($run);
my $upd = nvm_stat($node, 'tuples_updated') - $upd1;
my $hot = nvm_stat($node, 'hot_updates') - $hot1;
cmp_ok(nvm_stat($node, 'pages_pruned'), '>', $pruned1, 'the second round pruned pages');
cmp_ok($upd - $hot, '<=', $upd / 100, "second round: at most 1% of $upd updates not HOT (" . ($upd - $hot) . ")");
my $grown = nvm_stat($node, 'frames_allocated') - $frames1;
my $extended = nvm_stat($node, 'pages_extended') - $ext1;
cmp_ok($grown, '<=', List::Util::max(16, int($done / 3000)),
	"second round of $done HOT-updating transactions allocated (almost) no frames ($grown, $extended new pages)");
is(nvm_stat($node, 'frames_reclaimed'), nvm_stat($node, 'frames_retired'),
	'still every retired frame freed');
is($node->safe_psql('postgres', q{
SET enable_seqscan = off; SET enable_bitmapscan = off;
SELECT count(*) FROM hotonly WHERE id BETWEEN 1 AND 100}), '100', 'hotonly: every row through the index');

# HOT updates of a few rows with VACUUM (FREEZE) running right behind them
$run = start_pgbench($node, $dir, 'updates racing freezes', 4, 8, 'f_upd');
my $frun = start_pgbench($node, $dir, 'freezes', 1, 8, 'f_freeze');
my $fdone = finish_pgbench($run);
finish_pgbench($frun);
my $q_frz = q{SELECT count(*) || ':' || sum(n) FROM frz};
is($node->safe_psql('postgres', qq{SET enable_indexscan = off; SET enable_bitmapscan = off; $q_frz}),
	"20:$fdone", 'frz: every update counted once by a sequential scan');
is($node->safe_psql('postgres', qq{SET enable_seqscan = off; SET enable_bitmapscan = off; $q_frz WHERE id > 0}),
	"20:$fdone", 'frz: the index finds every row, frozen or not');
is($node->safe_psql('postgres', q{SELECT count(*) FROM nvm_am.nvm_am_check('frz')}), '0',
	'frz: nvm_am_check finds no problem');

# the log: no crash, no internal error
$node->stop;
my $log = PostgreSQL::Test::Utils::slurp_file($node->logfile);
my @bad = grep { !/could not serialize|deadlock detected|INVARIANT|retry/ }
  ($log =~ /^.*(?:ERROR|PANIC|TRAP|was terminated by signal).*$/mg);
# the only expected errors: retried conflicts (and invariant failures,
# reported above)
is(scalar(@bad), 0, 'no unexpected errors in the server log') or diag(join("\n", @bad[0 .. ($#bad < 20 ? $#bad : 20)]));
# ---------------------------------------------------------------------------
# A frame pin taken by a cursor's scan while it runs inside a subtransaction
# must survive the rollback of that subtransaction: the cursor (opened
# before the savepoint) keeps reading the frame even after its page is
# pruned and the frame retired; the frame must not be freed and reused
# under it.  Heap returns the rows.  Run last, on a restarted server.
# ---------------------------------------------------------------------------
$node->start;
my ($ret, $out, $err) = $node->psql('postgres', q{
CREATE TABLE subp (id int, v int, pad text) USING nvm_am;
INSERT INTO subp SELECT g, 0, repeat('s', 200) FROM generate_series(1, 200) g;
DELETE FROM subp WHERE id BETWEEN 34 AND 39;
BEGIN;
DECLARE c CURSOR FOR SELECT id, v, left(pad, 3) AS pad FROM subp;
FETCH 1 FROM c;
SAVEPOINT s;
MOVE 50 IN c;
ROLLBACK TO s;
UPDATE subp SET v = v + 1 WHERE id BETWEEN 40 AND 45;
CREATE TABLE other (a int, pad text) USING nvm_am;
INSERT INTO other SELECT g, repeat('Z', 500) FROM generate_series(1, 500) g;
FETCH 5 FROM c;
FETCH 5 FROM c;
COMMIT;
});
is($ret, 0, 'cursor survives ROLLBACK TO SAVEPOINT and pruning of its page')
  or diag($err);
my @good = ($out =~ /^\d+\|0\|sss$/mg);
is(scalar(@good), 11, 'cursor returns its rows, not those of a reused frame')
  or diag($out);
$node->stop('fast', fail_ok => 1);

unlink $pool;
done_testing();
