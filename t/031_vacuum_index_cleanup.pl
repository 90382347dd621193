# 031_vacuum_index_cleanup.pl - VACUUM's index vacuuming decisions are
# heap's (PostgreSQL 15): the same statements on a heap and an nvm_am table
# give the same VERBOSE lines for index scans and dead line pointers.
#
# - INDEX_CLEANUP auto (the default) skips the index pass for a handful of
#   dead rows ("bypassed"), and does it when many pages have them;
# - INDEX_CLEANUP off leaves every dead line pointer, the index entries
#   still pointing at them; the next VACUUM removes them; INDEX_CLEANUP on
#   scans the indexes even for one dead row;
# - pg_stat_progress_cluster shows CLUSTER's copy (phase, blocks, rows);
# - the wraparound failsafe: an anti-wraparound autovacuum of tables whose
#   relfrozenxid is older than autovacuum_freeze_max_age * 1.05 (with
#   vacuum_failsafe_age = 0) freezes them but leaves the indexes alone
#   ("bypassed by failsafe") and warns.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;
use FindBin;
use lib $FindBin::RealBin;
use NvmProc;

my $node = nvm_node('vacix', qq{
autovacuum = off
autovacuum_freeze_max_age = 100000
vacuum_failsafe_age = 0
log_autovacuum_min_duration = 0
autovacuum_naptime = 1
});

sub sql { return $node->safe_psql('postgres', $_[0]); }

sub vacuum_lines { return vacuum_index_lines($node, @_); }

sql(q{CREATE EXTENSION nvm_am});
for my $am ('heap', 'nvm_am')
{
	my $t = $am eq 'heap' ? 'th' : 'tn';
	sql(qq{CREATE TABLE $t (id int PRIMARY KEY, v int, pad text) USING $am;
		   INSERT INTO $t SELECT g, 0, repeat('x', 200) FROM generate_series(1, 5000) g;
		   VACUUM $t;});
}

my @steps = (
	[ 'one dead row, auto', 'DELETE FROM %s WHERE id = 7', '' ],
	[ 'a tenth of the rows, INDEX_CLEANUP off', 'DELETE FROM %s WHERE id % 10 = 0',
	  ', INDEX_CLEANUP off' ],
	[ 'nothing new, auto: what off left', undef, '' ],
	[ 'one dead row, INDEX_CLEANUP on', 'DELETE FROM %s WHERE id = 11', ', INDEX_CLEANUP on' ],
	[ 'a tenth of the rows, auto', 'DELETE FROM %s WHERE id %% 10 = 1', '' ]);
my %expect = (
	'one dead row, auto' => qr/index scans: 0\nindex scan bypassed: .* have 1 dead item/,
	'a tenth of the rows, INDEX_CLEANUP off' =>
	  qr/index scans: 0\nindex scan bypassed: .* have 501 dead item/,
	'nothing new, auto: what off left' =>
	  qr/index scans: 1\nindex scan needed: .* had 501 dead item identifiers removed/,
	'one dead row, INDEX_CLEANUP on' =>
	  qr/index scans: 1\nindex scan needed: .* had 1 dead item identifiers removed/,
	'a tenth of the rows, auto' =>
	  qr/index scans: 1\nindex scan needed: .* had 499 dead item identifiers removed/);
for my $s (@steps)
{
	my ($name, $dml, $opts) = @$s;
	my %got;
	for my $t ('th', 'tn')
	{
		sql(sprintf($dml, $t)) if defined $dml;
		$got{$t} = vacuum_lines($t, $opts);
	}
	is($got{tn}, $got{th}, "$name: nvm_am's index lines are heap's");
	like($got{tn}, $expect{$name}, "$name: $got{tn}");
}

# INDEX_CLEANUP off left the index entries: a bitmap scan finds the TIDs,
# the table does not return the rows
sql(q{DELETE FROM tn WHERE id BETWEEN 4001 AND 4100});
vacuum_lines('tn', ', INDEX_CLEANUP off');
is(sql(q{SET enable_seqscan = off; SET enable_indexscan = off;
		 SELECT count(*) FROM tn WHERE id BETWEEN 4001 AND 4100}), '0',
	'rows deleted before VACUUM (INDEX_CLEANUP off) stay deleted');
is(sql(q{SELECT count(*) FROM nvm_am.nvm_am_check('tn')}), '0',
	'nvm_am_check is clean with dead line pointers left');

# pg_stat_progress_cluster during the copy of CLUSTER: the sort compares
# index expressions, which block on an advisory lock at row 1000, after the
# scan of the old table
sql(q{CREATE FUNCTION gate(i int) RETURNS int LANGUAGE plpgsql IMMUTABLE AS $$
	  BEGIN
	    IF i = 1000 AND current_setting('app.gate', true) = 'on' THEN
	      PERFORM pg_advisory_lock_shared(42);
	      PERFORM pg_advisory_unlock_shared(42);
	    END IF;
	    RETURN i;
	  END $$;
	  CREATE TABLE pc (id int, pad text) USING nvm_am;
	  INSERT INTO pc SELECT g, repeat('p', 100) FROM generate_series(1, 3000) g;
	  CREATE INDEX pc_gate ON pc (gate(id));});
my $pcpages = sql(q{SELECT pg_relation_size('pc') / 8192});
my $holder = IPC::Run::start(
	[ 'psql', '-X', '-d', $node->connstr('postgres'), '-c',
	  q{SELECT pg_advisory_lock(42), pg_sleep(300)} ], '>', \my $hout, '2>', \my $herr);
$node->poll_query_until('postgres',
	q{SELECT count(*) = 1 FROM pg_locks WHERE locktype = 'advisory' AND granted})
  or die 'the advisory lock was not taken';
my $cl = IPC::Run::start(
	[ 'psql', '-X', '-d', $node->connstr('postgres'), '-c', 'SET enable_indexscan = off',
	  '-c', 'SET app.gate = on', '-c', 'CLUSTER pc USING pc_gate' ],
	'>', \my $cout, '2>', \my $cerr);
ok( $node->poll_query_until(
		'postgres', qq{SELECT command = 'CLUSTER' AND phase = 'sorting tuples'
		AND heap_tuples_scanned = 3000 AND heap_blks_total = $pcpages
		AND heap_blks_scanned = $pcpages AND heap_tuples_written = 0
		FROM pg_stat_progress_cluster WHERE relid = 'pc'::regclass}),
	'pg_stat_progress_cluster shows the copy sorting the rows it scanned');
sql(q{SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND granted AND mode = 'ExclusiveLock'});
$holder->finish;
ok($cl->finish, 'CLUSTER succeeds') or diag($cerr);
is(sql(q{SELECT count(*) FROM pg_stat_progress_cluster}), '0', 'and leaves the view');
is(sql(q{SELECT count(*) FROM pc}), '3000', 'the clustered table has its rows');

# the failsafe, in an anti-wraparound autovacuum: 120,000 xids burnt with
# autovacuum off, then autovacuum on: it finds the tables past
# autovacuum_freeze_max_age * 1.05
for my $am ('heap', 'nvm_am')
{
	my $t = $am eq 'heap' ? 'fh' : 'fn';
	sql(qq{CREATE TABLE $t (id int PRIMARY KEY, v int) USING $am;
		   INSERT INTO $t SELECT g, 0 FROM generate_series(1, 2000) g;
		   DELETE FROM $t WHERE id % 4 = 0;});
}
my $logstart = -s $node->logfile;
sql(q{CREATE TEMP TABLE burn (a int);
	  DO $$ BEGIN FOR i IN 1 .. 120000 LOOP
	      BEGIN INSERT INTO burn VALUES (i); EXCEPTION WHEN others THEN NULL; END;
	  END LOOP; END $$;});
cmp_ok(sql(q{SELECT min(age(relfrozenxid)) FROM pg_class WHERE relname IN ('fh', 'fn')}),
	'>', 105000, 'the tables are past the failsafe age');
sql(q{ALTER SYSTEM SET autovacuum = on; SELECT pg_reload_conf();});
ok($node->poll_query_until('postgres',
		q{SELECT bool_and(age(relfrozenxid) < 100000) FROM pg_class WHERE relname IN ('fh', 'fn')}),
	'the anti-wraparound autovacuum froze both tables');
my $log = slurp_file($node->logfile, $logstart);
for my $t ('fh', 'fn')
{
	like($log, qr/automatic aggressive vacuum to prevent wraparound of table "postgres\.public\.$t".*?\n\s*index scan bypassed by failsafe: .* have 500 dead item identifiers/s,
		"$t: the failsafe bypassed the indexes");
}
like($log, qr/WARNING:  skipping index vacuuming and truncation of table "postgres\.public\.fn" as a failsafe/,
	'nvm_am warns of the failsafe');
is(sql(q{SELECT count(*) FROM fn}), '1500', 'the table still has its rows');

done_testing();
