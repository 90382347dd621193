# 026_wal_records.pl - nvm_am.wal_log = on: the compact page-change records
# (IplWalBody) rebuild every tuple on a standby exactly.  The records leave
# out what redo derives (a new tuple's line pointer and place, header fields
# as expected, fields of a changed header that stay, the data an update
# shares with the old version); after a workload that takes each path —
# several commands per transaction, subtransactions, a lock and an update
# in one transaction (a multixact), speculative inserts, a table rewrite
# (tuples keep their old xmin), TOAST, null bitmaps, rows that grow and
# shrink, prunes, two-phase commit — every row of the standby equals the
# primary's, its system columns (ctid, xmin, xmax, cmin) included.  And the
# records are about as small as heap's: an update of one column, an insert
# and a delete each within 16 bytes of heap's record for the same change;
# and the standby's in-page logs hold the same records as the primary's.
# full_page_writes turned off by a reload: a change of an nvm_am page is an
# ERROR before anything changed (heap tables still change), and on again
# everything works.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use NvmProc;

my $primary = wal_node('primary', 1, "max_prepared_transactions = 5\n");
sub psql_p { return $primary->safe_psql('postgres', $_[0]); }

psql_p(q{CREATE EXTENSION pg_walinspect;
         CREATE TABLE w (id int PRIMARY KEY, a int, b text, c text, n int);
         CREATE TABLE u (k int PRIMARY KEY, v int);});
$primary->backup('bkp');
my $standby = PostgreSQL::Test::Cluster->new('standby');
$standby->init_from_backup($primary, 'bkp', has_streaming => 1);
$standby->start;

# the workload, each statement taking one of the paths of the encoder
psql_p(q{
INSERT INTO w SELECT g, g, repeat(md5(g::text), 3),
       CASE WHEN g % 3 = 0 THEN NULL ELSE md5(g::text) END, NULL
  FROM generate_series(1, 500) g;
INSERT INTO w SELECT 1000, 0, string_agg(md5(g::text), ''), NULL, 1
  FROM generate_series(1, 400) g;
BEGIN;
UPDATE w SET a = a + 1 WHERE id <= 20;
UPDATE w SET a = a + 1 WHERE id <= 10;
DELETE FROM w WHERE id BETWEEN 21 AND 25;
INSERT INTO w VALUES (2000, 1, 'new', NULL, NULL);
COMMIT;
UPDATE w SET b = 'short' WHERE id BETWEEN 30 AND 40;
UPDATE w SET c = repeat('y', 300) WHERE id BETWEEN 41 AND 60;
UPDATE w SET n = id WHERE id % 7 = 0;
UPDATE w SET c = NULL, n = NULL WHERE id % 11 = 0;
UPDATE w SET b = b || 'z' WHERE id = 1000;
BEGIN;
SAVEPOINT s1;
INSERT INTO w VALUES (3000, 1, 'sub', NULL, NULL);
UPDATE w SET a = -1 WHERE id = 70;
ROLLBACK TO s1;
SAVEPOINT s2;
UPDATE w SET a = -2 WHERE id = 71;
RELEASE s2;
COMMIT;
BEGIN;
SELECT id FROM w WHERE id = 80 FOR SHARE;
SAVEPOINT s;
UPDATE w SET a = 7 WHERE id = 80;
COMMIT;
BEGIN;
SELECT id FROM w WHERE id BETWEEN 81 AND 85 FOR UPDATE;
COMMIT;
INSERT INTO u SELECT g, 0 FROM generate_series(1, 50) g;
INSERT INTO u SELECT g, 1 FROM generate_series(40, 60) g
  ON CONFLICT (k) DO UPDATE SET v = u.v + excluded.v;
INSERT INTO u SELECT g, 1 FROM generate_series(55, 70) g ON CONFLICT DO NOTHING;
VACUUM FULL u;
UPDATE u SET v = v + 1 WHERE k <= 5;
BEGIN;
UPDATE w SET a = 99 WHERE id = 90;
PREPARE TRANSACTION 'p1';
COMMIT PREPARED 'p1';
DELETE FROM w WHERE id BETWEEN 100 AND 150;
VACUUM w;
INSERT INTO w SELECT g, g, 'refill', NULL, NULL FROM generate_series(100, 130) g;
CREATE TABLE c AS SELECT g AS id, md5(g::text) AS t FROM generate_series(1, 3000) g;
});
# HOT updates of one row, one transaction each: the page is pruned
psql_p('UPDATE w SET a = a + 1 WHERE id = 200') for 1 .. 40;

$primary->wait_for_catchup($standby);
my %rows = (
	w => q{SELECT string_agg(format('%s %s %s %s %s', ctid, xmin, xmax, cmin, w), E'\n'
	                         ORDER BY ctid) FROM w},
	u => q{SELECT string_agg(format('%s %s %s %s %s', ctid, xmin, xmax, cmin, u), E'\n'
	                         ORDER BY ctid) FROM u},
	c => q{SELECT string_agg(format('%s %s %s %s %s', ctid, xmin, xmax, cmin, c), E'\n'
	                         ORDER BY ctid) FROM c},
);
for my $t (sort keys %rows)
{
	my $p = psql_p($rows{$t});
	my $s = $standby->safe_psql('postgres', $rows{$t});
	ok(length($p) > 1000, "$t has rows on the primary");
	is($s, $p, "$t: the standby's rows equal the primary's, system columns included");
}
is($standby->safe_psql('postgres', q{SELECT a FROM w WHERE id = 200}), '240',
	'an index scan on the standby finds the row updated 40 times');
is($standby->safe_psql('postgres', q{SELECT count(*) FROM w WHERE xmax <> '0'}),
	psql_p(q{SELECT count(*) FROM w WHERE xmax <> '0'}),
	'as many rows carry an xmax on the standby as on the primary');
for my $rel (qw(w u c))
{
	is($standby->safe_psql('postgres', "SELECT count(*) FROM nvm_am.nvm_am_check('$rel')"),
		'0', "nvm_am_check('$rel') is clean on the standby");
}

# record sizes against heap's for the same change
psql_p(q{CREATE TABLE acc (aid int PRIMARY KEY, bid int, abalance int, filler char(84))
           WITH (fillfactor = 90);
         CREATE TABLE acc_heap (LIKE acc INCLUDING ALL) USING heap;
         INSERT INTO acc SELECT g, 1, 0, '' FROM generate_series(1, 100) g;
         INSERT INTO acc_heap SELECT * FROM acc;
         CHECKPOINT;
         UPDATE acc SET abalance = 1 WHERE aid = 1;
         UPDATE acc_heap SET abalance = 1 WHERE aid = 1;});
sub record_bytes
{
	my ($sql, $rmgr, $type) = @_;
	my $lsn = psql_p('SELECT pg_current_wal_flush_lsn()');
	psql_p($sql);
	# the change itself, not a prune its statement's read made (heap's are
	# records of their own type)
	return psql_p(qq{SELECT max(record_length - fpi_length)
	                   FROM pg_get_wal_records_info('$lsn', pg_current_wal_flush_lsn())
	                  WHERE resource_manager = '$rmgr' AND record_type = '$type'
	                    AND description NOT LIKE '%prune%'});
}
for my $case (
	[ 'an update of one column', 'UPDATE %s SET abalance = abalance + 7 WHERE aid = 5', 'HOT_UPDATE' ],
	[ 'an insert', q{INSERT INTO %s VALUES (1000, 2, 3, 'filler')}, 'INSERT' ],
	[ 'a delete', 'DELETE FROM %s WHERE aid = 9', 'DELETE' ])
{
	my ($what, $sql, $type) = @$case;
	my $heap = record_bytes(sprintf($sql, 'acc_heap'), 'Heap', $type);
	my $nvm = record_bytes(sprintf($sql, 'acc'), 'nvm_am', 'PAGE_CHANGE');
	ok($heap > 0 && $nvm > 0 && $nvm <= $heap + 16,
		"$what: $nvm record bytes against heap's $heap");
}
$primary->wait_for_catchup($standby);
is($standby->safe_psql('postgres',
		q{SELECT string_agg(format('%s %s %s', ctid, xmin, acc), ',' ORDER BY aid) FROM acc}),
	psql_p(q{SELECT string_agg(format('%s %s %s', ctid, xmin, acc), ',' ORDER BY aid) FROM acc}),
	'acc is equal on the standby');
# the standby's startup process appends the records it replays to its own
# in-page logs in the same compact form, made with the WAL record's xid as
# the primary's with its transaction's: the same records, byte for byte long
my $logq = q{SELECT string_agg(kind || ' ' || length, ',' ORDER BY byte_offset)
               FROM nvm_am.nvm_am_page_log('acc', 0)};
my $plog = psql_p($logq);
my $slog = $standby->safe_psql('postgres', $logq);
like($plog, qr/delta.*delta/, "acc's page has DELTA records on the primary");
# (the standby's log may start earlier: the page image the primary wrote for
# the first change after the checkpoint is a record on the standby)
ok($slog =~ /\Q$plog\E$/ && $slog !~ /patch/,
	"the standby's log of acc's page ends with the primary's records ($slog; $plog)");

# full_page_writes turned off by a reload while in WAL mode: a change of an
# nvm_am page is refused before anything changed (replay from a checkpoint
# could apply it twice), heap keeps working, and turned on again it all
# works as before
psql_p(q{ALTER SYSTEM SET full_page_writes = off; SELECT pg_reload_conf();});
$primary->poll_query_until('postgres', q{SELECT current_setting('full_page_writes') = 'off'})
  or die 'full_page_writes stayed on';
{
	my $before = psql_p(q{SELECT abalance FROM acc WHERE aid = 1});
	my ($ret, $out, $err) = $primary->psql('postgres', q{UPDATE acc SET abalance = abalance + 1 WHERE aid = 1});
	isnt($ret, 0, 'full_page_writes = off: a change of an nvm_am page fails');
	like($err, qr/ERROR:  nvm_am.wal_log requires full_page_writes = on\n(?:.*\n)*?HINT:  Set full_page_writes = on and reload the configuration\./,
		'full_page_writes = off: the error says why and what to do');
	is(psql_p(q{SELECT abalance FROM acc WHERE aid = 1}), $before, 'full_page_writes = off: the row is unchanged');
	is(psql_p(q{UPDATE acc_heap SET abalance = abalance + 1 WHERE aid = 1 RETURNING 'ok'}), 'ok',
		'full_page_writes = off: heap tables still change');
}
psql_p(q{ALTER SYSTEM RESET full_page_writes; SELECT pg_reload_conf();});
$primary->poll_query_until('postgres', q{SELECT current_setting('full_page_writes') = 'on'})
  or die 'full_page_writes stayed off';
psql_p(q{UPDATE acc SET abalance = abalance + 1 WHERE aid = 1});
$primary->wait_for_catchup($standby);
is($standby->safe_psql('postgres',
		q{SELECT string_agg(format('%s %s %s', ctid, xmin, acc), ',' ORDER BY aid) FROM acc}),
	psql_p(q{SELECT string_agg(format('%s %s %s', ctid, xmin, acc), ',' ORDER BY aid) FROM acc}),
	'full_page_writes on again: changes work and acc is equal on the standby');

$standby->stop;
$primary->stop;
done_testing();
