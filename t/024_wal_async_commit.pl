# 024_wal_async_commit.pl - nvm_am.wal_log = on honours
# synchronous_commit = off for transactions that change nvm_am tables, as
# heap does: the commit returns before its WAL is flushed, and a crash may
# lose it.  Nothing in the pool may outlive such a lost commit: no hint bit
# that says it committed, no prune that removed the versions it deleted.
# Each transaction below changes a heap table and an nvm_am table alike, so
# after the crash both must hold the same rows.
#
# The WAL writer is stopped (SIGSTOP) while the asynchronous commits are
# made, so that nothing flushes them behind the test's back; the test checks
# that they are indeed not flushed when the server is killed.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;
use FindBin;
use lib $FindBin::RealBin;
use NvmProc;

# (buffers large enough that no eviction flushes WAL)
my $node = wal_node('async', 1, "wal_writer_delay = '10s'\ncheckpoint_timeout = '1h'\n"
	  . "shared_buffers = '64MB'\nwal_buffers = '16MB'\n");
sub sql { return $node->safe_psql('postgres', $_[0]); }

# Two tables per engine: k (a few rows, an index) and d (a full page of
# rows, no index).
my $walwriter;
for my $am (qw(heap nvm_am))
{
	my $s = $am eq 'heap' ? 'h' : 'n';
	sql(qq{
		CREATE TABLE ${s}_k (id int PRIMARY KEY, v int) USING $am;
		INSERT INTO ${s}_k SELECT g, 0 FROM generate_series(1, 20) g;
		CREATE TABLE ${s}_d (id int, v int, pad text) USING $am;
		INSERT INTO ${s}_d SELECT g, 0, repeat('x', 60) FROM generate_series(1, 100) g;});
}

# --- a commit with synchronous_commit = off returns before WAL is flushed ---
$walwriter = sql(q{SELECT pid FROM pg_stat_activity WHERE backend_type = 'walwriter'});
ok($walwriter > 0, 'the WAL writer runs');
sql('CHECKPOINT');
kill 'STOP', $walwriter;
my $r = sql(q{
	SET synchronous_commit = off;
	INSERT INTO h_k VALUES (101, 0);
	INSERT INTO n_k VALUES (101, 0);
	SELECT pg_current_wal_flush_lsn() < pg_current_wal_insert_lsn();});
is($r, 't', 'synchronous_commit = off: an nvm_am commit is not flushed');
$r = sql(q{
	SET synchronous_commit = on;
	INSERT INTO h_k VALUES (102, 0);
	INSERT INTO n_k VALUES (102, 0);
	SELECT pg_current_wal_flush_lsn() >= pg_current_wal_insert_lsn();});
is($r, 't', 'synchronous_commit = on: it is');

# crash_and_compare LABEL - kill the server (no WAL writer to flush what
# is left), start it again, and compare each nvm_am table with its heap twin
sub crash_and_compare
{
	my ($label) = @_;
	kill_server($node) or die 'the server did not go away';
	$node->start;
	for my $t (qw(k d))
	{
		is(sql(qq{SELECT array_agg(id || ':' || v ORDER BY id) FROM n_$t}),
			sql(qq{SELECT array_agg(id || ':' || v ORDER BY id) FROM h_$t}),
			"$label: after the crash the nvm_am table $t has the rows of its heap twin");
		is(sql("SELECT count(*) FROM nvm_am.nvm_am_check('n_$t')"), '0',
			"$label: nvm_am_check('n_$t') is clean");
	}
	$walwriter = sql(q{SELECT pid FROM pg_stat_activity WHERE backend_type = 'walwriter'});
	sql('CHECKPOINT');
	kill 'STOP', $walwriter;
	return;
}

# --- a lost commit leaves no hint bit ---
# A row inserted and read (its xmin looked up in clog, committed), then its
# page rewritten by more asynchronous changes (the image a reader hinted
# goes to a new frame).  The crash loses all of them.
crash_and_compare('before');
my $merges = nvm_stat($node, 'merges_on_full');
my $lost_lsn = sql(q{
	SET synchronous_commit = off;
	BEGIN;
	INSERT INTO h_k VALUES (201, 1);
	INSERT INTO n_k VALUES (201, 1);
	COMMIT;
	SELECT pg_current_wal_insert_lsn();});
is(sql(q{SELECT count(*) FROM n_k WHERE id = 201}), '1', 'the row is visible');
is(sql(q{SELECT count(*) FROM n_k WHERE id >= 0}), '23', 'to a scan too');
for my $i (1 .. 100)
{
	sql(qq{
		SET synchronous_commit = off;
		BEGIN;
		UPDATE h_k SET v = v + 1 WHERE id = 1 + $i % 20;
		UPDATE n_k SET v = v + 1 WHERE id = 1 + $i % 20;
		COMMIT;});
}
ok(nvm_stat($node, 'merges_on_full') > $merges, 'the page was written to a new frame since');
ok(sql(qq{SELECT pg_current_wal_flush_lsn() < '$lost_lsn'}) eq 't',
	'none of these commits is flushed');
crash_and_compare('hint');
is(sql(q{SELECT count(*) FROM n_k WHERE id = 201}), '0', 'the lost insert is gone');

# --- a prune never rests on a lost commit ---
# Half the rows of a full page deleted, then a scan prunes the page: the
# prune flushes WAL up to the deleting commit first, so the delete is
# durable whatever happens next.
my $flushes = nvm_stat($node, 'relied_commit_flushes');
my $pruned = nvm_stat($node, 'pages_pruned');
sql(q{
	SET synchronous_commit = off;
	BEGIN;
	DELETE FROM h_d WHERE id % 2 = 0;
	DELETE FROM n_d WHERE id % 2 = 0;
	COMMIT;});
is(sql(q{SELECT count(*) FROM n_d}), '50', 'the rows are deleted');
ok(nvm_stat($node, 'pages_pruned') > $pruned, 'and the scan pruned the page');
is(nvm_stat($node, 'relied_commit_flushes'), $flushes + 1, 'after flushing the delete\'s commit');
crash_and_compare('prune');
is(sql(q{SELECT count(*) FROM n_d}), '50', 'the delete is kept');

# --- under load: TPC-B with synchronous_commit = off, killed mid-run ---
kill 'CONT', $walwriter;
my ($out, $err) = ('', '');
$ENV{PGOPTIONS} = '-c synchronous_commit=off';
my $h = IPC::Run::start(
	[ 'pgbench', '-n', '-c', '2', '-T', '20', '-h', $node->host, '-p', $node->port, 'postgres' ],
	'>', \$out, '2>', \$err);
delete $ENV{PGOPTIONS};
sleep 4;
ok(nvm_stat($node, 'pages_pruned') > $pruned + 10, 'pgbench made its pages be pruned');
kill_server($node) or die 'the server did not go away';
$h->finish;
$node->start;
is(sql(q{SELECT (SELECT sum(abalance) FROM pgbench_accounts) = (SELECT sum(bbalance) FROM pgbench_branches)
	AND (SELECT sum(tbalance) FROM pgbench_tellers) = (SELECT sum(bbalance) FROM pgbench_branches)
	AND (SELECT coalesce(sum(delta), 0) FROM pgbench_history) = (SELECT sum(bbalance) FROM pgbench_branches)}),
	't', 'after the crash the balances add up');
for my $rel (qw(pgbench_accounts pgbench_tellers pgbench_branches pgbench_history))
{
	is(sql("SELECT count(*) FROM nvm_am.nvm_am_check('$rel')"), '0', "nvm_am_check('$rel') is clean");
}
$node->stop;
done_testing();
