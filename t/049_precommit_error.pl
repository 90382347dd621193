# 049_precommit_error.pl - an ERROR that PostgreSQL raises at commit after
# nvm_am's pre-commit step (a full NOTIFY queue, an ON COMMIT action that
# fails) comes after the transaction's pmem commit record is durable.  The
# transaction aborts, and the abort withdraws the record: its changes are
# invisible at once and stay so after a crash, even one that loses the
# WAL abort record (recovery treats a valid entry whose transaction clog
# does not know as a commit).  PostgreSQL's own errors at that point are
# hard to provoke, so a test module, test/precommit_fail, built here and
# loaded before nvm_am, raises one from a transaction callback that runs
# after nvm_am's.  Without the withdrawal the transaction comes back
# committed after the crash (tried by hand).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use NvmProc;

# the module, built against the installed server's headers
my $dir = PostgreSQL::Test::Utils::tempdir;
my $so = "$dir/precommit_fail.so";
my $pg_config = $ENV{PG_CONFIG} // 'pg_config';
my $inc = `$pg_config --includedir-server`;
chomp $inc;
system('gcc', '-shared', '-fPIC', '-O2', '-Wall', '-Werror', "-I$inc", '-o', $so,
	"$FindBin::RealBin/../test/precommit_fail/precommit_fail.c") == 0
  or BAIL_OUT('could not build test/precommit_fail');

my $node = nvm_node('precommit', $WALWRITER_IDLE_CONF
	  . "shared_preload_libraries = '$so, nvm_am'\n");
$node->restart;
sub sql { return $node->safe_psql('postgres', $_[0]); }

sql(q{CREATE EXTENSION nvm_am;
      CREATE TABLE u (id int PRIMARY KEY, v int) USING nvm_am;
      CREATE TABLE n (id int, v text) USING nvm_am;
      INSERT INTO u SELECT g, 0 FROM generate_series(1, 10) g;
      CHECKPOINT;});

# warm - a write that takes the xids of the next transactions into a batch
# logged in WAL (XID_IN_USE, flushed; one per batch and checkpoint): the
# transaction that writes that record commits through WAL, not through a
# pmem commit record
sub warm { sql(q{UPDATE u SET v = v WHERE id = 10}); return; }

# fail_commit LABEL - a HOT update and an insert into an unindexed table
# (an nvm-only transaction: a pmem commit record), whose commit fails after
# nvm_am's pre-commit step
sub fail_commit
{
	my ($label) = @_;
	warm();
	my $records = nvm_stat($node, 'commit_records');
	my ($ret, $out, $err) = $node->psql('postgres', q{SET precommit_fail.enabled = on;
		BEGIN; UPDATE u SET v = v + 1 WHERE id = 1; INSERT INTO n VALUES (1, 'failed'); COMMIT;});
	like($err, qr/ERROR:  precommit_fail: an error after the pre-commit callbacks/,
		"$label: the commit fails after the pre-commit callbacks");
	is(nvm_stat($node, 'commit_records') - $records, 1,
		"$label: nvm_am had written its commit record");
	is(sql(q{SELECT v FROM u WHERE id = 1}) . '|' . sql(q{SELECT count(*) FROM n}), '0|0',
		"$label: the transaction's changes are invisible");
	return;
}

fail_commit('running');
is(sql(q{UPDATE u SET v = v + 1 WHERE id = 2 RETURNING v}), '1', 'the row can be changed afterwards');
sql(q{UPDATE u SET v = v - 1 WHERE id = 2; CHECKPOINT});

# the crash: the WAL writer stopped, so the abort record is not flushed and
# recovery sees an entry for a transaction clog does not know
with_walwriter_stopped($node, sub {
	fail_commit('before a crash');
	is(sql(q{SELECT pg_current_wal_flush_lsn() < pg_current_wal_insert_lsn()}), 't',
		'the abort record is not flushed');
	ok(kill_server($node), 'server gone after SIGKILL');
});
$node->start;
is(sql(q{SELECT v FROM u WHERE id = 1}) . '|' . sql(q{SELECT count(*) FROM n}), '0|0',
	'after the crash the failed transaction stays invisible');
is(nvm_stat($node, 'frozen_winners'), '0', 'recovery committed nothing from the commit log');
is(sql(q{SELECT count(*) FROM nvm_am.nvm_am_check('u')}) + sql(q{SELECT count(*) FROM nvm_am.nvm_am_check('n')}),
	0, 'nvm_am_check finds nothing');

# commits that do not fail are untouched by it, and survive a crash too
warm();
with_walwriter_stopped($node, sub {
	sql(q{BEGIN; UPDATE u SET v = v + 1 WHERE id = 3; INSERT INTO n VALUES (3, 'ok'); COMMIT;});
	ok(kill_server($node), 'server gone after SIGKILL');
});
$node->start;
is(sql(q{SELECT v FROM u WHERE id = 3}) . '|' . sql(q{SELECT string_agg(v, ',') FROM n}), '1|ok',
	'an acknowledged commit is there after the crash');
cmp_ok(nvm_stat($node, 'frozen_winners'), '>=', 1, 'restored from the commit log');

$node->stop;
done_testing();
