# 043_commit_metadata.pl - what PostgreSQL keeps in a transaction's WAL
# commit record besides the commit itself survives a crash with it, as on
# heap.  A transaction that changed nvm_am data only normally commits
# through a pmem commit record, and its WAL commit record is written
# without a flush (it is not needed for the commit to be durable); a crash
# that loses that WAL record loses what only it carries:
#
#   - the commit timestamp (track_commit_timestamp = on): the transaction
#     committed, pg_xact_commit_timestamp() had answered, and after the
#     crash it answered NULL (PostgreSQL's commit_ts/t/004_restart found
#     it);
#   - the progress of a replication origin (a logical replication apply
#     worker, or pg_replication_origin_xact_setup): the row was there, the
#     origin's remote_lsn was not, and a subscriber would apply the
#     transaction a second time.
#
# Such transactions commit through WAL, as heap's.  The WAL writer is
# stopped (SIGSTOP) around the commits, so nothing flushes them behind the
# test's back, and the server is SIGKILLed; rows, timestamps and origin
# progress are compared with a heap table's, changed the same way.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use NvmProc;

my $node = nvm_node('meta', "track_commit_timestamp = on\n" . $WALWRITER_IDLE_CONF);
sub sql { return $node->safe_psql('postgres', $_[0]); }

# warm_up - an nvm-only insert: the first transaction after a start
# writes the WAL record that covers a batch of xids (nvm_commit.c, rule 1)
# and so commits through WAL whatever it changed; the ones after it show
# which path they take
sub warm_up
{
	sql(q{INSERT INTO n VALUES (0, 'warm-up')});
	return;
}

# (no indexes: an index entry is WAL and makes any commit go through WAL)
sql(q{
CREATE EXTENSION nvm_am;
CREATE TABLE n (id int, v text) USING nvm_am;
CREATE TABLE h (id int, v text) USING heap;
CHECKPOINT;
});

# --- the commit timestamp -------------------------------------------------
my %ts;
warm_up();
my $records = nvm_stat($node, 'commit_records');
my $through_wal = nvm_stat($node, 'commits_through_wal');
with_walwriter_stopped($node, sub {
	# heap's first: its commit flushes WAL, with every commit record before it
	for my $t (qw(h n))
	{
		$ts{$t} = sql(qq{
			INSERT INTO $t VALUES (1, 'timestamped');
			SELECT pg_xact_commit_timestamp(xmin) FROM $t WHERE id = 1;});
		ok($ts{$t} ne '', "$t: the commit has a timestamp");
	}
	is(nvm_stat($node, 'commit_records') . ' ' . (nvm_stat($node, 'commits_through_wal') - $through_wal),
		"$records 1", 'with track_commit_timestamp the nvm_am commit went through WAL');
	crash_restart($node, 'commit timestamps');
});
for my $t (qw(n h))
{
	is(sql("SELECT pg_xact_commit_timestamp(xmin) FROM $t WHERE id = 1"), $ts{$t},
		"$t: the commit timestamp survives the crash");
}

# without track_commit_timestamp, nvm-only commits keep the pmem path
$node->append_conf('postgresql.conf', "track_commit_timestamp = off\n");
$node->restart;
warm_up();
$records = nvm_stat($node, 'commit_records');
sql(q{INSERT INTO n VALUES (2, 'pmem')});
is(nvm_stat($node, 'commit_records'), $records + 1,
	'without track_commit_timestamp an nvm-only commit writes a pmem commit record');

# --- a replication origin's progress ----------------------------------------
sql(q{SELECT pg_replication_origin_create('o_n'); SELECT pg_replication_origin_create('o_h');});
$records = nvm_stat($node, 'commit_records');
$through_wal = nvm_stat($node, 'commits_through_wal');
with_walwriter_stopped($node, sub {
	# heap's first: its commit flushes WAL, with every commit record before it
	for my $t (qw(h n))
	{
		# as a logical replication apply worker commits a remote transaction
		sql(qq{
			SELECT pg_replication_origin_session_setup('o_$t');
			BEGIN;
			SELECT pg_replication_origin_xact_setup('0/ABCDEF0', now());
			INSERT INTO $t VALUES (3, 'replicated');
			COMMIT;});
	}
	is(sql(q{SELECT string_agg(external_id || ' ' || remote_lsn, ', ' ORDER BY external_id)
			 FROM pg_replication_origin_status}),
		'o_h 0/ABCDEF0, o_n 0/ABCDEF0', 'both origins advanced');
	is(nvm_stat($node, 'commit_records') . ' ' . (nvm_stat($node, 'commits_through_wal') - $through_wal),
		"$records 1", 'with a replication origin the nvm_am commit went through WAL');
	crash_restart($node, 'replication origin');
});
for my $t (qw(n h))
{
	is(sql(qq{SELECT (SELECT count(*) FROM $t WHERE id = 3) || ' ' ||
			 coalesce((SELECT remote_lsn::text FROM pg_replication_origin_status
					   WHERE external_id = 'o_$t'), 'none')}),
		'1 0/ABCDEF0', "$t: the replicated row and the origin's progress survive together");
}
is(sql(q{SELECT count(*) FROM nvm_am.nvm_am_check('n')}), 0, 'nvm_am_check finds nothing');

$node->stop;
done_testing();
