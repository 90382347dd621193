# 032_scan_fold.pl - a page that stopped changing (the visibility map calls
# it all-visible) keeps its in-page log until something seals it; a
# sequential scan that has to merge it from its log again (its image was
# evicted from the merge cache since a reader merged it before) folds the
# log into a base image, and later scans read the page in place.  A scan
# that reads a page for the first time folds nothing.  Same rows before
# and after, nvm_am_check clean; in WAL mode a streaming standby replays
# the folds (and folds nothing itself: it does not write); a crash after
# the folds keeps every row.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use NvmProc;

# a merge cache of 1 MB (128 images) against a table of ~1,000 pages
my $node = wal_node('fold', 1, "nvm_am.merge_cache_size = '1MB'\nnvm_am.pool_size = '64MB'\n");
sub sql { return $node->safe_psql('postgres', $_[0]); }
sub stat_of
{
	my ($n, $name) = @_;
	return $n->safe_psql('postgres', qq{SELECT value FROM nvm_am.nvm_am_stats WHERE name = '$name'});
}

my $standby_base = 'fold_base';
$node->backup($standby_base);
my $standby = PostgreSQL::Test::Cluster->new('fold_standby');
$standby->init_from_backup($node, $standby_base, has_streaming => 1);
$standby->start;

sql(q{CREATE TABLE t (id int PRIMARY KEY, v int, pad text) WITH (autovacuum_enabled = off);
      INSERT INTO t SELECT g, 0, repeat('x', 100) FROM generate_series(1, 60000) g;
      VACUUM t;});

# a change on every page (HOT: the new versions stay on it), then VACUUM:
# every page all-visible again, its log holding the change and the prune
sql(q{UPDATE t SET v = v + 1 WHERE id % 10 = 0});
sql(q{VACUUM t});
my $pages = sql(q{SELECT pg_relation_size('t') / 8192});
cmp_ok($pages, '>', 600, "the table has $pages pages, more than the merge cache holds");

my $expect = '60000|6000';
my $q = q{SELECT count(*), sum(v) FROM t};
my $fold0 = stat_of($node, 'pages_folded_on_read');
my $merged0 = stat_of($node, 'merged_page_reads');
is(sql($q), $expect, 'first scan: the rows');
my $fold1 = stat_of($node, 'pages_folded_on_read');
my $merged1 = stat_of($node, 'merged_page_reads');
is($fold1 - $fold0, 0, 'a scan that reads the pages for the first time folds none');
cmp_ok($merged1 - $merged0, '>', $pages / 2, 'it merged them (' . ($merged1 - $merged0) . ')');

is(sql($q), $expect, 'second scan: the rows');
my $fold2 = stat_of($node, 'pages_folded_on_read');
my $merged2 = stat_of($node, 'merged_page_reads');
cmp_ok($fold2 - $fold1, '>', $pages / 2,
	'the second scan merges them again and folds them (' . ($fold2 - $fold1) . " of $pages pages)");

is(sql($q), $expect, 'third scan: the rows');
my $merged3 = stat_of($node, 'merged_page_reads');
cmp_ok($merged3 - $merged2, '<', ($merged2 - $merged1) / 10,
	'the third scan reads the folded pages in place (' . ($merged3 - $merged2) . ' merged reads)');
is(sql(q{SELECT count(*) FROM t WHERE v <> CASE WHEN id % 10 = 0 THEN 1 ELSE 0 END}), '0',
	'each row has its own value');
is(sql(q{SELECT count(*) FROM nvm_am.nvm_am_check('t')}), '0', 'nvm_am_check: sound');

# a page changed since a reader merged it is not folded at its next merge:
# the change makes it not all-visible, and until a reader merges it twice
# after VACUUM it keeps its log
sql(q{UPDATE t SET v = v + 1 WHERE id % 10 = 0});
sql(q{VACUUM t});
my $fold3 = stat_of($node, 'pages_folded_on_read');
is(sql($q), '60000|12000', 'after more changes and VACUUM: the rows');
is(stat_of($node, 'pages_folded_on_read') - $fold3, 0,
	'the changed pages are not folded at their first read since');
is(sql($q), '60000|12000', 'and the second');
cmp_ok(stat_of($node, 'pages_folded_on_read') - $fold3, '>', $pages / 2,
	'they are at their second');

# the standby replays the folds, reads the same rows, and folds nothing
$node->wait_for_catchup($standby);
my $sfold = stat_of($standby, 'pages_folded_on_read');
is($standby->safe_psql('postgres', $q), '60000|12000', 'the standby reads the same rows');
is($standby->safe_psql('postgres', $q), '60000|12000', 'twice');
is(stat_of($standby, 'pages_folded_on_read') - $sfold, 0, 'a hot standby folds nothing');
is($standby->safe_psql('postgres', q{SELECT count(*) FROM nvm_am.nvm_am_check('t')}), '0',
	'nvm_am_check on the standby: sound');

# a crash after the folds keeps every row
kill_server($node);
$node->start;
is(sql($q), '60000|12000', 'the rows after a crash');
is(sql(q{SELECT count(*) FROM t WHERE v <> CASE WHEN id % 10 = 0 THEN 2 ELSE 0 END}), '0',
	'each row has its own value after the crash');
is(sql(q{SELECT count(*) FROM nvm_am.nvm_am_check('t')}), '0', 'nvm_am_check after the crash: sound');

$standby->stop;
$node->stop;
done_testing();
