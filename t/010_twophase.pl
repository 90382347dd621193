# 010_twophase.pl - two-phase commit of transactions that create and drop
# nvm_am tables, across a crash and a clean restart.
#
#   - a prepared transaction that created a table (with rows) and dropped
#     another survives a SIGKILL of the server: after the restart both
#     tables still exist (the drop is not decided; the prepared
#     transaction holds the dropped table's lock), nothing is freed, and COMMIT PREPARED then carries both out: the new table
#     keeps its rows, the dropped table's storage is freed at once;
#   - the same with ROLLBACK PREPARED: the new table's storage is freed,
#     the dropped table is back, with its rows;
#   - a prepared transaction survives a clean restart too;
#   - nvm_am_check stays clean and the pool's space accounting adds up.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use NvmProc;

my $node = nvm_node('twophase', qq{
restart_after_crash = on
max_prepared_transactions = 5
});

sub sql { return $node->safe_psql('postgres', $_[0]); }

# frames in use in the pool
sub pool_frames
{
	return sql(q{SELECT value FROM nvm_am.nvm_am_stats WHERE name = 'frames_allocated'});
}

sub check_clean
{
	my ($name, @tables) = @_;
	for my $t (@tables)
	{
		is(sql("SELECT count(*) FROM nvm_am.nvm_am_check('$t')"), '0',
			"$name: nvm_am.nvm_am_check('$t') clean");
	}
	return;
}

sql(q{
CREATE EXTENSION nvm_am;
CREATE TABLE keep (id int PRIMARY KEY, v text) USING nvm_am;
INSERT INTO keep SELECT g, 'k' || g FROM generate_series(1, 500) g;
CHECKPOINT;
});
my $frames0 = pool_frames();

for my $finish ('COMMIT', 'ROLLBACK')
{
	my $name = "$finish PREPARED after a crash";

	sql(q{CREATE TABLE old (id int, v text) USING nvm_am;
	      INSERT INTO old SELECT g, repeat('o', 100) FROM generate_series(1, 3000) g;});
	my $before = pool_frames();
	sql(q{
BEGIN;
CREATE TABLE fresh (id int, v text) USING nvm_am;
INSERT INTO fresh SELECT g, repeat('f', 100) FROM generate_series(1, 3000) g;
DROP TABLE old;
UPDATE keep SET v = 'changed' WHERE id <= 10;
PREPARE TRANSACTION 'ddl';
});
	my $prepared = pool_frames();
	cmp_ok($prepared, '>', $before, "$name: the new table has frames while prepared");

	crash_restart($node, $name);

	is(sql(q{SELECT count(*) FROM pg_prepared_xacts WHERE gid = 'ddl'}), '1',
		"$name: the transaction is still prepared after the crash");
	is(pool_frames(), $prepared,
		"$name: nothing freed while the transaction is undecided");
	is(sql(q{SELECT count(*) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation
	          WHERE c.relname = 'old' AND l.mode = 'AccessExclusiveLock' AND l.granted}), '1',
		"$name: the table being dropped is still locked by the prepared transaction");

	sql("$finish PREPARED 'ddl'");
	if ($finish eq 'COMMIT')
	{
		is(sql(q{SELECT count(*), min(v) FROM fresh}), '3000|' . ('f' x 100),
			"$name: the new table has its rows");
		is(sql(q{SELECT to_regclass('old') IS NULL}), 't',
			"$name: the dropped table is gone");
		is(sql(q{SELECT count(*) FROM keep WHERE v = 'changed'}), '10',
			"$name: the prepared update is committed");
		cmp_ok(pool_frames(), '<', $prepared,
			"$name: the dropped table's storage is freed at once");
		check_clean($name, 'fresh', 'keep');
		sql(q{DROP TABLE fresh; UPDATE keep SET v = 'k' || id WHERE id <= 10});
	}
	else
	{
		is(sql(q{SELECT to_regclass('fresh') IS NULL}), 't',
			"$name: the new table does not exist");
		is(sql(q{SELECT count(*) FROM old}), '3000',
			"$name: the dropped table is back with its rows");
		is(sql(q{SELECT count(*) FROM keep WHERE v = 'changed'}), '0',
			"$name: the prepared update is undone");
		is(pool_frames(), $before,
			"$name: the new table's storage is freed at once");
		check_clean($name, 'old', 'keep');
		sql(q{DROP TABLE old});
	}
	is(pool_frames(), $frames0, "$name: the pool holds what it held before");
}

# a prepared transaction survives a clean restart as well
sql(q{
CREATE TABLE old (id int) USING nvm_am;
INSERT INTO old SELECT generate_series(1, 2000);
BEGIN; DROP TABLE old; PREPARE TRANSACTION 'drop_old';
});
my $with_old = pool_frames();
$node->restart;
is(pool_frames(), $with_old, 'clean restart: nothing freed while prepared');
sql(q{COMMIT PREPARED 'drop_old'});
is(pool_frames(), $frames0, 'COMMIT PREPARED after a restart freed the storage');
is(sql(q{SELECT to_regclass('old') IS NULL}), 't', 'the dropped table is gone');
check_clean('end', 'keep');
is(sql(q{SELECT count(*) FROM keep}), '500', 'keep has its rows');

done_testing();
