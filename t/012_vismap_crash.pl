# 012_vismap_crash.pl - the visibility map of nvm_am tables across a crash
# and a restart.
#
# nvm_am writes no WAL for the map: a page change is durable in the pool at
# once, the map only at the next checkpoint.  A crash after a checkpoint
# that wrote the map with a page's bit set, and after a delete on that page
# that cleared the bit in shared buffers only, leaves the bit set on disk.
# The server must not believe it: after the restart an index-only scan must
# not return the deleted rows (it would, answering from the index alone).
# A backend crash (the postmaster resets shared memory) and an immediate
# stop start with an empty map too; VACUUM builds it again.  A clean
# restart keeps the map, and changes after it clear its bits.  Last,
# nvm_am_check reports a map that says more than its pages hold.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use NvmProc;

my $node = nvm_node('vismap', "restart_after_crash = on\n");

sub sql { return $node->safe_psql('postgres', $_[0]); }

# count and sum by an index-only scan, and its heap fetches
sub ios
{
	my $plan = sql(q{
SET enable_seqscan = off; SET enable_bitmapscan = off;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
SELECT a FROM t WHERE a <= 1000});
	like($plan, qr/Index Only Scan/, 'the plan is an index-only scan');
	my ($fetches) = $plan =~ /Heap Fetches: (\d+)/;
	my $res = sql(q{
SET enable_seqscan = off; SET enable_bitmapscan = off;
SELECT count(*), sum(a) FROM t WHERE a <= 1000});
	return ($res, $fetches);
}

sub visible_pages
{
	return sql(q{SELECT count(*) FILTER (WHERE all_visible) FROM pg_visibility_map('t')});
}

sql(q{
CREATE EXTENSION nvm_am;
CREATE EXTENSION pg_visibility;
CREATE TABLE t (a int PRIMARY KEY, pad text) USING nvm_am;
INSERT INTO t SELECT g, repeat('x', 40) FROM generate_series(1, 1000) g;
VACUUM t;
CHECKPOINT;
});
my ($res, $fetches) = ios();
is($res, '1000|500500', 'all rows by an index-only scan');
is($fetches, 0, 'after VACUUM no heap fetches');
cmp_ok(visible_pages(), '>', 0, 'VACUUM set the map');

# the delete clears the bits in shared buffers; the checkpoint wrote them set
sql(q{DELETE FROM t WHERE a <= 500});
($res, $fetches) = ios();
is($res, '500|375250', 'the delete is seen before the crash');

# crash the server
crash_restart($node, 'crash');

($res, $fetches) = ios();
is($res, '500|375250', 'after the crash the deleted rows stay deleted');
is(visible_pages(), 0, 'the map is empty after the crash');
is(sql(q{SELECT count(*) FROM nvm_am.nvm_am_check('t')}), '0', 'nvm_am_check clean');

sql(q{VACUUM t});
($res, $fetches) = ios();
is($res, '500|375250', 'after VACUUM the same rows');
is($fetches, 0, 'after VACUUM no heap fetches again');

# a backend crash: the postmaster resets shared memory, the map goes too
sql(q{CHECKPOINT});
sql(q{DELETE FROM t WHERE a > 900});
# kill a backend with SIGKILL while it waits in a query
my $sleeper = IPC::Run::start(
	[ 'psql', '-X', '-d', $node->connstr('postgres'), '-c', 'SELECT pg_sleep(60)' ],
	'>', \my $out, '2>', \my $err);
my $spid;
for (1 .. 100)
{
	$spid = sql(q{SELECT pid FROM pg_stat_activity WHERE query = 'SELECT pg_sleep(60)'});
	last if $spid;
	select(undef, undef, undef, 0.1);
}
ok($spid, 'a backend waits');
kill 'KILL', $spid;
$sleeper->finish;
ok($node->poll_query_until('postgres', 'SELECT 1', '1'), 'the server is back after the backend crash');
($res, $fetches) = ios();
is($res, '400|280200', 'after the backend crash the deleted rows stay deleted');
is(visible_pages(), 0, 'the map is empty after the backend crash');

# a clean restart keeps the map (its shutdown checkpoint wrote it after the
# last change), as heap's; changes after the restart clear its bits
sql(q{VACUUM t});
my $before = visible_pages();
cmp_ok($before, '>', 0, 'VACUUM set the map again');
$node->restart;
is(visible_pages(), $before, 'a clean restart keeps the map');
($res, $fetches) = ios();
is($res, '400|280200', 'the rows after the clean restart');
is($fetches, 0, 'an index-only scan needs no heap fetch and no new VACUUM');
sql(q{DELETE FROM t WHERE a > 800});
($res, $fetches) = ios();
is($res, '300|195150', 'a delete after the clean restart is seen by an index-only scan');
cmp_ok($fetches, '>', 0, 'the delete cleared the bits of its pages');

# a start after an immediate stop (no shutdown checkpoint) empties it
$node->stop('immediate');
$node->start;
is(visible_pages(), 0, 'the map is empty after an immediate stop');
($res, $fetches) = ios();
is($res, '300|195150', 'the rows after it');
sql(q{VACUUM t});
($res, $fetches) = ios();
is($fetches, 0, 'and VACUUM sets it again');
is(sql(q{SELECT count(*) FROM nvm_am.nvm_am_check('t')}), '0', 'nvm_am_check clean at the end');

# nvm_am_check compares the map with the pages.  A map that says more than
# the page holds (here written into the map's file while the server is
# stopped cleanly, so that it is believed) makes index-only scans answer
# from the index alone; pg_visibility's checks read the table's empty
# main-fork pages and see nothing.
sql(q{CREATE EXTENSION IF NOT EXISTS pg_visibility});
sql(q{CREATE TABLE m (a int PRIMARY KEY, b text) USING nvm_am WITH (autovacuum_enabled = off);
INSERT INTO m SELECT g, 'row ' || g FROM generate_series(1, 50) g;
VACUUM m;
DELETE FROM m WHERE a % 10 = 0;
UPDATE m SET b = 'new' WHERE a = 1});
is(sql(q{SELECT all_visible FROM pg_visibility_map('m', 0)}), 'f', 'the changes cleared block 0\'s bits');
is(sql(q{SELECT count(*) FROM nvm_am.nvm_am_check('m')}), '0', 'nvm_am_check clean while the map agrees');
my $vm = $node->data_dir . '/' . sql(q{SELECT pg_relation_filepath('m')}) . '_vm';
$node->stop;
# block 0's two bits: the first byte after the map page's header
write_bytes($vm, 24, pack('C', 0x03));
$node->start;
is(sql(q{SELECT all_visible::text || '|' || all_frozen::text FROM pg_visibility_map('m', 0)}), 'true|true',
	'the map now marks block 0 all-visible and all-frozen');
is(sql(q{SELECT count(*) FROM pg_check_visible('m')}) . '|' . sql(q{SELECT count(*) FROM pg_check_frozen('m')}),
	'0|0', 'pg_visibility\'s checks find nothing (they read empty pages)');
my $problems = sql(q{SELECT problem, count(*) FROM nvm_am.nvm_am_check('m')
GROUP BY problem ORDER BY problem});
like($problems, qr/^tuple not frozen on a page the visibility map marks all-frozen\|\d+$/m,
	'nvm_am_check: tuples of the page not frozen');
like($problems, qr/^tuple not visible to every transaction on a page the visibility map marks all-visible\|6$/m,
	'nvm_am_check: the 5 deleted rows and the updated row\'s old version not visible to all');
$node->stop;
write_bytes($vm, 24, pack('C', 0x00));
$node->start;
is(sql(q{SELECT count(*) FROM nvm_am.nvm_am_check('m')}), '0', 'clean again once the bits are cleared');

done_testing();
