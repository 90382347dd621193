# 046_multixact_crash.pl - a row locked by a multixact in the pool survives
# a crash that loses the multixact's WAL record, as heap's row does.
#
# Two transactions that share a row lock (FOR SHARE, FOR KEY SHARE: a
# foreign-key check) make its xmax a multixact, whose members PostgreSQL
# keeps in pg_multixact and logs in WAL when it creates it.  Heap writes the
# xmax into a buffer, which reaches disk only after that WAL.  nvm_am
# writes it into the pool at once; a crash before the WAL was flushed left
# a row whose xmax names a multixact that redo never created.  Its lockers
# are gone with the crash, so the row must be free: updated, locked,
# deleted, and later multixacts (which reuse the lost id) must not be
# taken for its lockers.
#
# The flush happens with the page unlocked: a lock, or an update of a row
# that others hold FOR KEY SHARE, first makes the multixact, lets go of the
# page, flushes, and looks at the row again (multixact_wal_flushes_locked
# counts flushes made under a page lock; before, every one was).
#
# The WAL writer is stopped (SIGSTOP) while the locks are taken, so nothing
# flushes their WAL behind the test's back, and the server is SIGKILLed.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use NvmProc;

my $node = nvm_node('multi', $WALWRITER_IDLE_CONF);
sub sql { return $node->safe_psql('postgres', $_[0]); }

sql(q{
CREATE EXTENSION nvm_am;
CREATE TABLE m_n (id int PRIMARY KEY, v int) USING nvm_am;
CREATE TABLE m_h (id int PRIMARY KEY, v int) USING heap;
INSERT INTO m_n SELECT g, 0 FROM generate_series(1, 10) g;
INSERT INTO m_h SELECT g, 0 FROM generate_series(1, 10) g;
CHECKPOINT;
});

# lockers SQL - two sessions that run SQL in a transaction left open
sub lockers
{
	my ($sql) = @_;
	my @sessions;
	for (1 .. 2)
	{
		push @sessions, $node->background_psql('postgres');
		$sessions[-1]->query_safe("BEGIN; $sql");
	}
	return @sessions;
}

# two sessions share the lock of row 1 of each table (FOR SHARE) and of row
# 5 (FOR KEY SHARE, as foreign-key checks do), and a third updates row 5
# without changing its key (a multixact of the lockers and the updater);
# all stay open
my (@lockers, $updater);
with_walwriter_stopped($node, sub {
	@lockers = lockers('SELECT FROM m_h WHERE id = 1 FOR SHARE; '
		  . 'SELECT FROM m_n WHERE id = 1 FOR SHARE; '
		  . 'SELECT FROM m_h WHERE id = 5 FOR KEY SHARE; '
		  . 'SELECT FROM m_n WHERE id = 5 FOR KEY SHARE');
	$updater = $node->background_psql('postgres');
	$updater->query_safe('BEGIN; UPDATE m_h SET v = 5 WHERE id = 5; '
		  . 'UPDATE m_n SET v = 5 WHERE id = 5');
	like(sql(q{SELECT xmax FROM m_n WHERE id = 1}), qr/^\d+$/, 'row 1 has an xmax');
	is(sql(q{SELECT count(*) FROM pg_locks WHERE locktype = 'transactionid' AND granted}), 3,
		'two lockers and an updater hold their xids');
	is(nvm_stat($node, 'multixact_wal_flushes'), 3,
		'the multixacts\' WAL was flushed before their ids went into the pool');
	is(nvm_stat($node, 'multixact_wal_flushes_locked'), 0,
		'with the page unlocked');
	crash_restart($node, 'multixact');
});
$_->quit for @lockers, $updater;

for my $t (qw(h n))
{
	for my $id (1, 5)
	{
		my ($ret, $out, $err) = $node->psql('postgres',
			"UPDATE m_$t SET v = v + 1 WHERE id = $id RETURNING v");
		is("$ret $out", '0 1', "$t: row $id, once locked, is updated after the crash")
		  or diag($err);
		($ret, $out, $err) = $node->psql('postgres',
			"SELECT id FROM m_$t WHERE id = $id FOR UPDATE NOWAIT");
		is("$ret $out", "0 $id", "$t: and locked") or diag($err);
	}
}

# new multixacts after the crash, on other rows: the lost one's id comes
# round again, and row 1 must not be taken as locked by them
my @again = lockers('SELECT FROM m_n WHERE id IN (2, 3) FOR SHARE');
my ($ret, $out, $err) = $node->psql('postgres',
	'SELECT id FROM m_n WHERE id = 1 FOR UPDATE NOWAIT');
is("$ret $out", '0 1', 'row 1 is not locked by the multixacts made after the crash')
  or diag($err);
($ret, $out, $err) = $node->psql('postgres', 'DELETE FROM m_n WHERE id = 1 RETURNING id');
is("$ret $out", '0 1', 'and is deleted') or diag($err);
$_->quit for @again;
is(sql(q{SELECT count(*) FROM nvm_am.nvm_am_check('m_n')}), 0, 'nvm_am_check finds nothing');

$node->stop;
done_testing();
