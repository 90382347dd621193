# 029_vacuum_skip.pl - VACUUM skips the pages the visibility map lets it
# skip, as heap's does, and frozen loads set the map as heap's do.
#
# - VACUUM VERBOSE reports the pages it scanned; a second VACUUM of an
#   unchanged table scans only its last page (heap's always looks at the
#   last page, to see whether it may be cut off); after an UPDATE of a few
#   rows it skips the long run of pages they were not on.  Runs shorter
#   than 32 pages are scanned (heap's threshold): a small table's VACUUM
#   advances relfrozenxid.
# - An aborted deleter's xmax is cleared by VACUUM (FREEZE) even when a hint
#   bit calls it invalid, as on heap.
# - A VACUUM that skipped all-visible pages holding unfrozen xids leaves
#   relfrozenxid alone; VACUUM (FREEZE) (aggressive) scans those pages and
#   advances it, and skips all-frozen pages; DISABLE_PAGE_SKIPPING scans
#   every page.
# - COPY FREEZE into a table truncated in the transaction, and REFRESH
#   MATERIALIZED VIEW, leave the pages all-frozen in the map: the VACUUM
#   after them scans nothing, an index-only scan fetches no row.  Rows
#   inserted without FREEZE earlier in the same transaction keep their page
#   out of the map.
# - The cost-based delay throttles VACUUM; pg_stat_progress_vacuum shows it.
# - The map is not believed after a crash: the VACUUM after an immediate
#   stop scans every page again (and one after a clean restart none); with
#   wal_level = minimal a frozen load sets no bits (WAL could bring them
#   back after a crash).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use NvmProc;

# (wal_level = replica: a TAP node's default, minimal, makes frozen loads
# leave the map alone; that case is tested at the end)
my $node = nvm_node('vacskip', "autovacuum = off\nwal_level = replica\n");

sub sql { return $node->safe_psql('postgres', $_[0]); }

# vacuum VERBOSE: (pages scanned, pages in the table, the whole report)
sub vacuum
{
	my ($target) = @_;
	my ($ret, $out, $err) = $node->psql('postgres', "VACUUM $target");
	is($ret, 0, "VACUUM $target succeeds") or diag($err);
	my ($remain, $scanned) = $err =~ /pages: \d+ removed, (\d+) remain, (\d+) scanned/;
	return ($scanned // -1, $remain // -1, $err);
}

sql(q{
CREATE EXTENSION nvm_am;
CREATE TABLE t (id int PRIMARY KEY, v int, pad text) USING nvm_am;
INSERT INTO t SELECT g, 0, repeat('x', 200) FROM generate_series(1, 3000) g;
});
my $pages = sql(q{SELECT pg_relation_size('t') / 8192});
cmp_ok($pages, '>=', 50, "the table has $pages pages");

my ($scanned, $remain, $report) = vacuum('(VERBOSE) t');
is($scanned, $pages, 'the first VACUUM scans every page');
like($report, qr/tuples: \d+ removed, 3000 remain/, 'it counts the rows');
($scanned) = vacuum('(VERBOSE) t');
is($scanned, 1, 'a second VACUUM of the unchanged table scans only its last page (as heap\'s)');

# a few rows at the start updated: their pages and the pages of the new
# versions are scanned, the long run of untouched pages between is not
my $touched = sql(q{SELECT count(DISTINCT (ctid::text::point)[0]) FROM t WHERE id <= 60});
sql(q{UPDATE t SET v = v + 1, pad = repeat('y', 200) WHERE id <= 60});
my $pagesNow = sql(q{SELECT pg_relation_size('t') / 8192});
($scanned) = vacuum('(VERBOSE) t');
cmp_ok($scanned, '>=', $touched, "VACUUM after the update scans the $touched pages the rows left");
cmp_ok($scanned, '<', $pagesNow / 2,
	"but not the run of unchanged pages ($scanned of $pagesNow scanned)");
is(sql(q{SELECT count(*), sum(v) FROM t}), '3000|60', 'the rows are intact');

# relfrozenxid: skipped all-visible pages with unfrozen xids hold it back
my $frozen0 = sql(q{SELECT relfrozenxid FROM pg_class WHERE relname = 't'});
sql(q{SELECT txid_current()}) for 1 .. 3;
($scanned) = vacuum('(VERBOSE) t');
is($scanned, 1, 'nothing changed: only the last page scanned');
is(sql(q{SELECT relfrozenxid FROM pg_class WHERE relname = 't'}), $frozen0,
	'relfrozenxid stays where it was when unfrozen pages were skipped');
($scanned, undef, $report) = vacuum('(VERBOSE, FREEZE) t');
is($scanned, $pagesNow, 'an aggressive VACUUM scans the all-visible pages not frozen (all)');
ok(sql(qq{SELECT age(relfrozenxid) < age('$frozen0'::xid) FROM pg_class WHERE relname = 't'}) eq 't',
	'and advances relfrozenxid');
($scanned) = vacuum('(VERBOSE) t');
is($scanned, 1, 'everything frozen: only the last page scanned');
($scanned) = vacuum('(VERBOSE, FREEZE) t');
is($scanned, 1, 'nor more by an aggressive VACUUM');
($scanned) = vacuum('(VERBOSE, DISABLE_PAGE_SKIPPING) t');
is($scanned, $pagesNow, 'DISABLE_PAGE_SKIPPING scans every page');

# the cost-based delay throttles it (a page costs vacuum_cost_page_hit, so
# with a limit of 1 it sleeps after every page), and pg_stat_progress_vacuum
# shows it meanwhile
my ($vac, $vout, $verr) = throttled_vacuum($node, 20, '(DISABLE_PAGE_SKIPPING) t');
ok( $node->poll_query_until(
		'postgres', qq{SELECT phase = 'scanning heap' AND heap_blks_total = $pagesNow
		AND heap_blks_scanned > 0 AND heap_blks_scanned < heap_blks_total
		FROM pg_stat_progress_vacuum WHERE relid = 't'::regclass}),
	'pg_stat_progress_vacuum shows the throttled VACUUM scanning the table');
ok($vac->finish, 'the throttled VACUUM succeeds') or diag($$verr);
is(sql(q{SELECT count(*) FROM pg_stat_progress_vacuum}), '0', 'and leaves the view');

# runs shorter than 32 pages are scanned anyway (heap's threshold), so a
# small table's VACUUM that is not aggressive still freezes its all-visible
# pages (here with vacuum_freeze_min_age = 0) and advances relfrozenxid
sql(q{CREATE TABLE small (id int, pad text) USING nvm_am;
INSERT INTO small SELECT g, repeat('s', 200) FROM generate_series(1, 300) g});
my $spages = sql(q{SELECT pg_relation_size('small') / 8192});
cmp_ok($spages, '<', 32, "a table of $spages pages");
vacuum('small');
my $sfrozen = sql(q{SELECT relfrozenxid FROM pg_class WHERE relname = 'small'});
sql(q{SELECT txid_current()}) for 1 .. 3;
my ($sret, $sout, $serr) = $node->psql('postgres',
	'SET vacuum_freeze_min_age = 0; VACUUM (VERBOSE) small');
my ($sscanned) = $serr =~ /(\d+) scanned/;
is($sscanned, $spages, 'a run of all-visible pages shorter than 32 is scanned');
ok(sql(qq{SELECT age(relfrozenxid) < age('$sfrozen'::xid) FROM pg_class WHERE relname = 'small'}) eq 't',
	'and relfrozenxid advances');

# a deleter that aborted is forgotten by an aggressive VACUUM even when a
# reader's hint bit already says its xmax is invalid (nvm_am's hint bits
# do not survive a crash, the xmax would): xmax 0 afterwards, as on heap
for my $am ('nvm_am', 'heap')
{
	sql(qq{CREATE TABLE ab_$am (id int, pad text) USING $am;
INSERT INTO ab_$am SELECT g, 'x' FROM generate_series(1, 100) g});
	sql(qq{BEGIN; DELETE FROM ab_$am WHERE id <= 10; ROLLBACK});
	sql(qq{SELECT count(*) FROM ab_$am});
	is(sql(qq{SELECT count(*) FROM ab_$am WHERE xmax <> '0'}), '10', "$am: the aborted deleter's xmax is there");
	vacuum("(FREEZE) ab_$am");
	is(sql(qq{SELECT count(*) FROM ab_$am WHERE xmax <> '0'}), '0', "$am: VACUUM (FREEZE) forgot it");
}

# COPY FREEZE into a table truncated in the same transaction
sql(q{CREATE TABLE c (id int PRIMARY KEY, pad text) USING nvm_am});
sql(q{
BEGIN;
TRUNCATE c;
COPY c FROM PROGRAM 'seq 1 20000 | sed "s/$/\tpadding-padding-padding-padding/"' WITH (FREEZE);
COMMIT;
});
is(sql(q{SELECT count(*) FROM c}), '20000', 'COPY FREEZE loaded the rows');
my $cpages = sql(q{SELECT pg_relation_size('c') / 8192});
($scanned, $remain) = vacuum('(VERBOSE) c');
is($scanned, 1, "the VACUUM after COPY FREEZE scans only the last of its $cpages pages");
is($remain, $cpages, 'and knows them all');
sql(q{ANALYZE c});
my $plan = sql(q{SET enable_seqscan = off; SET enable_bitmapscan = off;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT count(id) FROM c WHERE id > 100});
like($plan, qr/Index Only Scan/, 'an index-only scan is planned');
like($plan, qr/Heap Fetches: 0/, 'and fetches no row from the table');

# rows inserted without FREEZE first: their page stays out of the map
sql(q{
BEGIN;
TRUNCATE c;
INSERT INTO c VALUES (0, 'not frozen');
COPY c FROM PROGRAM 'seq 1 20000 | sed "s/$/\tpadding-padding-padding-padding/"' WITH (FREEZE);
COMMIT;
});
($scanned) = vacuum('(VERBOSE) c');
cmp_ok($scanned, '>=', 1, 'the page with the row not frozen is scanned');
cmp_ok($scanned, '<=', 2, 'the frozen pages are not');
is(sql(q{SELECT count(*), min(id), max(id) FROM c}), '20001|0|20000', 'all rows there');
$cpages = sql(q{SELECT pg_relation_size('c') / 8192});

# REFRESH MATERIALIZED VIEW fills its new storage frozen
sql(q{CREATE MATERIALIZED VIEW mv USING nvm_am AS SELECT id, pad FROM c WITH NO DATA;
REFRESH MATERIALIZED VIEW mv;});
my $mvpages = sql(q{SELECT pg_relation_size('mv') / 8192});
($scanned) = vacuum('(VERBOSE) mv');
is($scanned, 1, "the VACUUM after REFRESH MATERIALIZED VIEW scans only the last of its $mvpages pages");

# the map is kept over a clean restart, not believed after a crash
$node->restart;
($scanned) = vacuum('(VERBOSE) c');
is($scanned, 1, 'after a clean restart the map is kept (only the last page scanned)');
$node->stop('immediate');
$node->start;
($scanned) = vacuum('(VERBOSE) c');
is($scanned, $cpages, 'after a crash every page is scanned again');
($scanned) = vacuum('(VERBOSE) c');
is($scanned, 1, 'and the map is whole again after it');

# wal_level = minimal: the commit may write the new storage's forks to WAL
# whole, the map's too, and replay after a crash would bring back bits
# nothing clears any more; a frozen load sets no bits there
my $min = nvm_node('vacskip_min', "wal_level = minimal\nmax_wal_senders = 0\n");
$min->safe_psql('postgres', q{
CREATE EXTENSION nvm_am;
CREATE TABLE m (id int PRIMARY KEY, pad text) USING nvm_am;
BEGIN;
TRUNCATE m;
COPY m FROM PROGRAM 'seq 1 3000 | sed "s/$/	padding/"' WITH (FREEZE);
COMMIT;
});
$min->stop('immediate');
$min->start;
$min->safe_psql('postgres', 'DELETE FROM m WHERE id <= 10');
is($min->safe_psql('postgres', q{SET enable_seqscan = off; SET enable_bitmapscan = off;
SELECT count(*) FROM m WHERE id <= 10}), '0',
	'wal_level = minimal, crash after a frozen load: an index-only scan does not return deleted rows');
$min->stop;

is(sql(q{SELECT count(*) FROM nvm_am.nvm_am_check('t')}), '0', 'nvm_am_check clean (t)');
is(sql(q{SELECT count(*) FROM nvm_am.nvm_am_check('c')}), '0', 'nvm_am_check clean (c)');
unlike(slurp_file($node->logfile), qr/TRAP|terminated by signal/,
	'no assertion failure or crash in the server log');

done_testing();
