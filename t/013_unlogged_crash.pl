# 013_unlogged_crash.pl - unlogged nvm_am tables after a crash and after a
# clean restart, as heap's: a crash empties the table and its indexes
# together (PostgreSQL resets the indexes from their init forks; nvm_am
# empties the table's pool storage), a clean restart keeps both.  The
# temporary tables of sessions that a crash ended give their pool storage
# back at the restart, as PostgreSQL removes their files then (their
# catalog rows go later, when the temporary schema is used again).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use NvmProc;

my $node = nvm_node('unlogged', "restart_after_crash = on\n");

sub sql { return $node->safe_psql('postgres', $_[0]); }

sub counts
{
	my $seq = sql(q{SET enable_indexscan = off; SET enable_bitmapscan = off;
SET enable_indexonlyscan = off; SELECT count(*) FROM u});
	my $idx = sql(q{SET enable_seqscan = off; SET enable_bitmapscan = off;
SELECT count(*) FROM u WHERE a > 0});
	return "$seq|$idx";
}

sub frames_used { return sql(q{SELECT frames_used FROM nvm_am.nvm_am_pool_info()}); }

sql(q{
CREATE EXTENSION nvm_am;
CREATE EXTENSION amcheck;
CREATE UNLOGGED TABLE u (a int PRIMARY KEY, pad text) USING nvm_am;
INSERT INTO u SELECT g, repeat('x', 100) FROM generate_series(1, 1000) g;
CREATE TABLE l (a int PRIMARY KEY) USING nvm_am;
INSERT INTO l SELECT generate_series(1, 100);
CHECKPOINT;
});
is(counts(), '1000|1000', 'the unlogged table and its index hold 1000 rows');

# a clean restart keeps the rows, as heap's unlogged tables do
$node->restart;
is(counts(), '1000|1000', 'after a clean restart: still 1000 rows, in the table and the index');
my $frames_full = frames_used();

# a crash empties table and index alike
crash_restart($node, 'crash');
is(counts(), '0|0', 'after a crash: the table and its index are empty');
cmp_ok(frames_used(), '<', $frames_full, 'the table\'s frames went back to the pool');
is(sql(q{SELECT count(*) FROM l}), '100', 'the logged table keeps its rows');
my ($ret, $out, $err) = $node->psql('postgres', q{INSERT INTO u VALUES (5, 'five')});
is($ret, 0, 'a row goes in');
($ret, $out, $err) = $node->psql('postgres', q{INSERT INTO u VALUES (5, 'again')});
like($err, qr/duplicate key value violates unique constraint "u_pkey"/,
	'the primary key holds');
is(sql(q{SELECT bt_index_check('u_pkey', true)}), '', 'bt_index_check with heapallindexed passes');
is(sql(q{SELECT count(*) FROM nvm_am.nvm_am_check('u')}), '0', 'nvm_am_check clean');

# and it fills again
sql(q{INSERT INTO u SELECT g, 'y' FROM generate_series(10, 500) g});
is(counts(), '492|492', 'the unlogged table fills again');

# a session's temporary table, and a crash while the session holds it
my $frames_before_temp = frames_used();
my $bg = $node->background_psql('postgres');
$bg->query_safe(q{CREATE TEMP TABLE tt (a int, pad text) USING nvm_am;
	INSERT INTO tt SELECT g, repeat('t', 500) FROM generate_series(1, 20000) g});
my $frames_temp = frames_used();
cmp_ok($frames_temp - $frames_before_temp, '>', 1000,
	'a temporary table of 20,000 rows takes pool frames (' . ($frames_temp - $frames_before_temp) . ')');
ok(kill_server($node), 'server gone after SIGKILL, the session with it');
eval { $bg->quit; };
$node->start;
# (fewer than before it: the crash emptied the unlogged table too)
cmp_ok(frames_used(), '<=', $frames_before_temp, 'after the restart its frames are back in the pool');
# a new session that gets the same temporary schema drops the old table
# from the catalog; the pool has nothing of it left to drop
is(sql(q{CREATE TEMP TABLE tt2 (a int) USING nvm_am; INSERT INTO tt2 VALUES (1);
	SELECT count(*) FROM tt2}), '1', 'a new session makes a temporary table');
is(sql(q{SELECT count(*) FROM l}), '100', 'the logged table keeps its rows');
is(sql(q{SELECT count(*) FROM nvm_am.nvm_am_check('l')}), '0', 'nvm_am_check clean');
unlike(slurp_file($node->logfile), qr/PANIC|TRAP/, 'no PANIC or TRAP in the server log');

done_testing();
