# 037_database_copy.pl - CREATE DATABASE ... TEMPLATE and ALTER DATABASE
# ... SET TABLESPACE carry the pages of the database's nvm_am tables, which
# live in the pool rather than in the files PostgreSQL copies: a database
# made from a template has the template's rows (both strategies, a new
# default tablespace too, unlogged tables, a table in another tablespace),
# changes to it do not reach the template, and its index-only scans see its
# own deletes (its visibility maps start empty: the copied ones are
# truncated).  A move to another tablespace keeps every row and the map,
# whose bits later changes clear, and frees the old storage.  A move with
# sessions in the database or relations already in the tablespace is
# refused with movedb()'s words; a copy that fills the pool fails whole; a
# crash after CREATE DATABASE keeps the copy and brings no map bits back;
# DROP DATABASE frees it.  In WAL mode a streaming standby replays the copy
# and a move.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use NvmProc;

my $node = nvm_node('dbcopy');
my $ts1 = PostgreSQL::Test::Utils::tempdir_short();
my $ts2 = PostgreSQL::Test::Utils::tempdir_short();

sub sql { my ($db, $q) = @_; return $node->safe_psql($db, $q); }
sub frames_used { return sql('postgres', q{SELECT frames_used FROM nvm_am.nvm_am_pool_info()}); }

sql('postgres', qq{CREATE EXTENSION nvm_am; CREATE TABLESPACE ts1 LOCATION '$ts1'; CREATE TABLESPACE ts2 LOCATION '$ts2';
	CREATE DATABASE tpl});
sql('tpl', q{
CREATE EXTENSION nvm_am;
CREATE TABLE t1 (id int PRIMARY KEY, v int, pad text) USING nvm_am;
INSERT INTO t1 SELECT g, 0, repeat('p', 100) FROM generate_series(1, 20000) g;
UPDATE t1 SET v = id % 7 WHERE id % 10 = 0;
DELETE FROM t1 WHERE id % 13 = 0;
VACUUM t1;
UPDATE t1 SET v = v + 1 WHERE id % 100 = 1;
CREATE UNLOGGED TABLE t2 (id int) USING nvm_am;
INSERT INTO t2 SELECT generate_series(1, 500);
CREATE TABLE t3 (id int) USING nvm_am TABLESPACE ts1;
INSERT INTO t3 SELECT generate_series(1, 300);
CREATE TABLE h1 (id int);
INSERT INTO h1 SELECT generate_series(1, 50);
});

# the rows of every table, through sequential scans, and t1 through its index
my $fp = q{SELECT (SELECT count(*) || ':' || sum(v) || ':' || sum(id) FROM t1),
	(SELECT count(*) FROM t2), (SELECT count(*) || ':' || sum(id) FROM t3),
	(SELECT count(*) FROM h1)};
my $ix = q{SET enable_seqscan = off; SET enable_bitmapscan = off;
	SELECT count(*) || ':' || sum(v) || ':' || sum(id) FROM t1 WHERE id > 0};
my $check = q{SELECT count(*) FROM (SELECT * FROM nvm_am.nvm_am_check('t1')
	UNION ALL SELECT * FROM nvm_am.nvm_am_check('t2')
	UNION ALL SELECT * FROM nvm_am.nvm_am_check('t3')) k};
my $expect = sql('tpl', $fp);
like($expect, qr/^18462:\d+:\d+\|500\|300:45150\|50$/, "template: $expect");
my $expect_t1 = (split /\|/, $expect)[0];

sub same_as_template
{
	my ($db, $what) = @_;
	is(sql($db, $fp), $expect, "$db ($what): the template's rows");
	is(sql($db, $ix), $expect_t1, "$db ($what): the index finds them");
	is(sql($db, $check), '0', "$db ($what): nvm_am_check finds nothing");
}

my $used0 = frames_used();
sql('postgres', q{CREATE DATABASE c1 TEMPLATE tpl});
same_as_template('c1', 'CREATE DATABASE, wal_log strategy');
sql('postgres', q{CREATE DATABASE c2 TEMPLATE tpl STRATEGY file_copy});
same_as_template('c2', 'file_copy strategy');
sql('postgres', q{CREATE DATABASE c3 TEMPLATE tpl TABLESPACE ts2});
same_as_template('c3', 'new default tablespace');
my $per_copy = (frames_used() - $used0) / 3;
cmp_ok($per_copy, '>', 300, "each copy took pool frames ($per_copy)");

# the copy is the new database's own: changes stay there; its index-only
# scans see its deletes
my $noscan = q{SET enable_seqscan = off; SET enable_bitmapscan = off;};
my $ios = q{SELECT count(*) FROM t1 WHERE id BETWEEN 1 AND 1000};
my $ios_before = sql('c1', "$noscan $ios");
like(sql('c1', "$noscan EXPLAIN (COSTS OFF) $ios"), qr/Index Only Scan/, 'c1: an index-only scan');
sql('c1', q{DELETE FROM t1 WHERE id = 500; UPDATE t1 SET v = -1000 WHERE id = 1; INSERT INTO t2 VALUES (0)});
is(sql('c1', "$noscan $ios"), $ios_before - 1, 'c1: the index-only scan no longer counts the deleted row');
is(sql('tpl', $fp), $expect, 'the template is unchanged');
is(sql('c2', $fp), $expect, 'c2 is unchanged');

# ALTER DATABASE ... SET TABLESPACE: there and back
my $used1 = frames_used();
sql('postgres', q{ALTER DATABASE c2 SET TABLESPACE ts2});
same_as_template('c2', 'moved to ts2');
is(sql('postgres', q{SELECT spcname FROM pg_database d JOIN pg_tablespace t ON t.oid = d.dattablespace WHERE datname = 'c2'}),
	'ts2', 'c2 is in ts2');
cmp_ok(frames_used(), '<=', $used1, 'the move freed the old storage');
sql('postgres', q{ALTER DATABASE c2 SET TABLESPACE pg_default});
same_as_template('c2', 'moved back');

# a move keeps the visibility map (movedb() copies it) and its bits stay
# looked at: after VACUUM set them, a delete in the moved database clears
# the bit of its page, and an index-only scan does not count the row
sql('c2', q{VACUUM t1});
my $ios_c2 = sql('c2', "$noscan $ios");
sql('postgres', q{ALTER DATABASE c2 SET TABLESPACE ts2});
like(sql('c2', "$noscan EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) $ios"),
	qr/Heap Fetches: 0/, 'c2 moved after VACUUM: the index-only scan uses the moved map');
sql('c2', q{DELETE FROM t1 WHERE id = 600});
is(sql('c2', "$noscan $ios"), $ios_c2 - 1, 'c2: the index-only scan no longer counts the deleted row');
sql('postgres', q{ALTER DATABASE c2 SET TABLESPACE pg_default});
is(sql('c2', "$noscan $ios"), $ios_c2 - 1, 'c2 moved back: the same count');
is(sql('c2', $check), '0', 'c2: nvm_am_check finds nothing');

# refusals, with nothing moved
my ($ret, $out, $err) = $node->psql('postgres', q{ALTER DATABASE c1 SET TABLESPACE ts1});
like($err, qr/some relations of database "c1" are already in tablespace "ts1"/,
	'a move to a tablespace that holds one of its tables is refused');
my $bg = $node->background_psql('c3');
$bg->query_safe('SELECT 1');
($ret, $out, $err) = $node->psql('postgres', q{ALTER DATABASE c3 SET TABLESPACE pg_default});
like($err, qr/database "c3" is being accessed by other users/,
	'a move while a session is connected is refused');
$bg->quit;
same_as_template('c3', 'after the refused move');
isnt(sql('c1', $fp), $expect, 'c1 keeps its own rows after the refused move');
is(sql('c1', $check), '0', 'c1: nvm_am_check finds nothing');

# a copy that does not fit fails whole: no database, no frames kept
my $free = sql('postgres', q{SELECT frames_free FROM nvm_am.nvm_am_pool_info()});
my $rows = int($free * 0.6) * 5;	# five rows of 1,500 bytes a page
sql('postgres', q{CREATE DATABASE big});
sql('big', qq{CREATE EXTENSION nvm_am;
	CREATE TABLE b (id int, pad text) USING nvm_am;
	ALTER TABLE b ALTER pad SET STORAGE plain;
	INSERT INTO b SELECT g, repeat('b', 1500) FROM generate_series(1, $rows) g});
my $used2 = frames_used();
($ret, $out, $err) = $node->psql('postgres', q{CREATE DATABASE big2 TEMPLATE big});
like($err, qr/nvm_am pool is full/, 'a copy larger than the free pool: "pool is full"');
is(sql('postgres', q{SELECT count(*) FROM pg_database WHERE datname = 'big2'}), '0',
	'and no database');
is(frames_used(), $used2, 'and no frames kept');
sql('postgres', q{DROP DATABASE big});
cmp_ok(frames_used(), '<', $used2 - $free / 2, 'DROP DATABASE freed its table');

# a crash after CREATE DATABASE keeps the copy (a crash empties the
# unlogged table, in the template too, as heap's); redo replays the
# copied visibility map pages (all-visible bits of the template's pages),
# which must not come back over the deletes made after the copy
sql('postgres', q{CREATE DATABASE c4 TEMPLATE tpl});
my $ios_c4 = sql('c4', "$noscan $ios");
sql('c4', q{DELETE FROM t1 WHERE id BETWEEN 2 AND 40});
my $expect_c4 = sql('c4', $fp);
ok(kill_server($node), 'server killed');
$node->start;
$expect_c4 =~ s/\|500\|/|0|/;
is(sql('c4', $fp), $expect_c4, 'c4 after a crash: its rows');
is(sql('c4', $check), '0', 'c4 after a crash: nvm_am_check finds nothing');
is(sql('c4', "$noscan $ios"), $ios_c4 - 36,
	'c4 after a crash: index-only scans do not count the rows deleted before it');
$expect =~ s/\|500\|/|0|/;
is(sql('tpl', $fp), $expect, 'the template after the crash');

# DROP DATABASE frees the copies
my $used3 = frames_used();
sql('postgres', q{DROP DATABASE c1; DROP DATABASE c2; DROP DATABASE c3; DROP DATABASE c4});
cmp_ok($used3 - frames_used(), '>=', 4 * $per_copy * 0.9, 'DROP DATABASE freed four copies');
is(sql('tpl', $fp), $expect, 'the template still has its rows');
$node->stop;

# WAL mode: a standby replays CREATE DATABASE and the copy
my $primary = wal_node('dbcopy_wal', 1, "allow_in_place_tablespaces = on\n");
$primary->backup('dbcopy_base');
my $standby = PostgreSQL::Test::Cluster->new('dbcopy_standby');
$standby->init_from_backup($primary, 'dbcopy_base', has_streaming => 1);
$standby->start;
$primary->safe_psql('postgres', q{UPDATE pgbench_accounts SET abalance = aid % 17 WHERE aid % 3 = 0;
	VACUUM pgbench_accounts});
$primary->safe_psql('template1', q{CREATE DATABASE w1 TEMPLATE postgres});
$primary->safe_psql('w1', q{UPDATE pgbench_accounts SET abalance = abalance + 1 WHERE aid <= 100;
	DELETE FROM pgbench_accounts WHERE aid BETWEEN 1001 AND 1050});
my $q = q{SELECT count(*) || ':' || sum(abalance) FROM pgbench_accounts};
my $w1 = $primary->safe_psql('w1', $q);
isnt($w1, $primary->safe_psql('postgres', $q), 'w1 changed apart from its template');
$primary->wait_for_catchup($standby);
is($standby->safe_psql('w1', $q), $w1, 'the standby has the copy and the changes');
is($standby->safe_psql('w1', q{SELECT count(*) FROM nvm_am.nvm_am_check('pgbench_accounts')}), '0',
	'standby: nvm_am_check finds nothing');
my $wios = q{SET enable_seqscan = off; SET enable_bitmapscan = off;
	SELECT count(*) FROM pgbench_accounts WHERE aid BETWEEN 1 AND 2000};
is($standby->safe_psql('w1', $wios), '1950',
	'standby: an index-only scan does not count the deleted rows');
is($primary->safe_psql('w1', $wios), '1950', 'primary: nor there');

# and a move of the copy to another tablespace (one in the data directory,
# which the standby has too), then more changes
$primary->safe_psql('postgres', q{CREATE TABLESPACE wts LOCATION ''});
$primary->safe_psql('postgres', q{ALTER DATABASE w1 SET TABLESPACE wts});
$primary->safe_psql('w1', q{UPDATE pgbench_accounts SET abalance = abalance - 3 WHERE aid % 50 = 0});
$w1 = $primary->safe_psql('w1', $q);
$primary->wait_for_catchup($standby);
is($standby->safe_psql('w1', $q), $w1, 'after ALTER DATABASE ... SET TABLESPACE: the standby has the rows');
is($standby->safe_psql('w1', q{SELECT count(*) FROM nvm_am.nvm_am_check('pgbench_accounts')}), '0',
	'standby: nvm_am_check finds nothing after the move');
is($standby->safe_psql('w1', $wios), '1950', 'standby: the index-only scan after the move');
$standby->stop;
$primary->stop;

done_testing();
