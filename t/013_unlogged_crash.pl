# 013_unlogged_crash.pl - unlogged nvm_am tables after a crash and after a
# clean restart, as heap's: a crash empties the table and its indexes
# together (PostgreSQL resets the indexes from their init forks; nvm_am
# empties the table's pool storage), a clean restart keeps both.
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
ok(kill_server($node), 'server gone after SIGKILL');
$node->start;
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
unlike(slurp_file($node->logfile), qr/PANIC|TRAP/, 'no PANIC or TRAP in the server log');

done_testing();
