# 018_log_frames.pl - pages being changed live in log frames (one frame in
# 8 has an in-page log area); with more pages in change than log frames,
# a backend that finds none seals a page it gave one long ago
# (log_frames_stolen), else the page is written whole (log_frames_short),
# with the same answers, in another session too; VACUUM gives log frames of all-visible pages back when
# they run short; a crash and a restart keep every row and rebuild the
# count of free log frames.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use NvmProc;

my $node = nvm_node('logframes', "nvm_am.pool_size = '16MB'\nnvm_am.merge_cache_size = '2MB'\n");
sub sql { return $node->safe_psql('postgres', $_[0]); }
sub logs { return split /\|/, sql(q{SELECT log_frames_total, log_frames_used, log_frames_free FROM nvm_am.nvm_am_pool_info()}); }

sql(q{CREATE EXTENSION nvm_am;
      CREATE TABLE u (id int PRIMARY KEY, v int, pad text) USING nvm_am;
      INSERT INTO u SELECT g, 0, repeat('x', 100) FROM generate_series(1, 6000) g;
      CREATE TABLE t (id int PRIMARY KEY, v int, pad text) USING nvm_am;
      INSERT INTO t SELECT g, 0, repeat('x', 100) FROM generate_series(1, 36000) g;});
my $pages = sql(q{SELECT pg_relation_size('t') / 8192});
my ($ltotal, $lused) = logs();
cmp_ok($pages, '>', $ltotal, "the table has more pages ($pages) than the pool has log frames ($ltotal)");
cmp_ok($lused, '<=', 2, 'after the load only the last page of each table has a log frame');

# change a row on every page: the first pages take all log frames, the
# rest find none
my $short0 = nvm_stat($node, 'log_frames_short');
my $stolen0 = nvm_stat($node, 'log_frames_stolen');
sql(q{UPDATE t SET v = v + 1 WHERE id % 50 = 0});
sql(q{UPDATE t SET v = v + 1 WHERE id % 50 = 0});
my (undef, $lused2, $lfree2) = logs();
cmp_ok($lfree2, '<', $ltotal / 8, "log frames ran short ($lfree2 of $ltotal free)");
cmp_ok(nvm_stat($node, 'log_frames_short') - $short0, '>', 0, 'changes that found no log frame were counted');
cmp_ok(nvm_stat($node, 'log_frames_stolen') - $stolen0, '>', 0,
	'pages given a log frame long before gave theirs back ('
	  . (nvm_stat($node, 'log_frames_stolen') - $stolen0) . ')');
is(sql(q{SELECT count(*), sum(v) FROM t}), '36000|1440', 'every change is there');
is(sql(q{SELECT count(*) FROM t WHERE v <> CASE WHEN id % 50 = 0 THEN 2 ELSE 0 END}), '0',
	'each row has its own value');
is(sql(q{SELECT count(*) FROM nvm_am.nvm_am_check('t')}), '0', 'nvm_am_check: sound');

# other sessions, each changing one page of another table, take log frames
# back from the pages the first one changed (the ring of pages given one
# is shared): after the few free ones are gone, none of them has to write
# its page whole
my $stolen1 = nvm_stat($node, 'log_frames_stolen');
my $short1 = nvm_stat($node, 'log_frames_short');
for my $i (0 .. 59)
{
	my $id = 25 + 100 * $i;
	sql(qq{UPDATE u SET v = v + 1 WHERE id = $id});
}
my $stolen_u = nvm_stat($node, 'log_frames_stolen') - $stolen1;
my $short_u = nvm_stat($node, 'log_frames_short') - $short1;
cmp_ok($stolen_u, '>=', 60 - $lfree2 - 2,
	"sessions of their own took log frames back ($stolen_u for 60 pages, $lfree2 were free)");
cmp_ok($short_u - $stolen_u, '<=', 2,
	'and hardly ever wrote a page whole (' . ($short_u - $stolen_u) . " of $short_u that found none free)");
is(sql(q{SELECT count(*), sum(v) FROM u}), '6000|60', 'their changes are there');
is(sql(q{SELECT count(*) FROM nvm_am.nvm_am_check('u')}), '0', 'nvm_am_check of that table: sound');

# VACUUM finds the pages all-visible and, log frames being short, gives
# theirs back until a quarter of them are free
my $dem0 = nvm_stat($node, 'log_frame_demotions');
sql('VACUUM t');
my (undef, $lused3, $lfree3) = logs();
cmp_ok($lfree3, '>=', int($ltotal / 4) - 1, "VACUUM gave log frames back ($lfree2 -> $lfree3 free of $ltotal)");
cmp_ok(nvm_stat($node, 'log_frame_demotions') - $dem0, '>=', $lfree3 - $lfree2, 'and counted the pages it moved');
is(sql(q{SELECT count(*), sum(v) FROM t}), '36000|1440', 'the rows after VACUUM');
is(sql(q{SELECT count(*) FROM nvm_am.nvm_am_check('t')}), '0', 'nvm_am_check after VACUUM: sound');

# more changes, then a crash in the middle of a stream of them
sql(q{UPDATE t SET v = v + 1 WHERE id % 50 = 0});
my $bg = $node->background_psql('postgres', on_error_stop => 0);
$bg->query_until(qr/started/, q{
\echo started
UPDATE t SET v = v + 100 WHERE id % 7 = 0;
UPDATE t SET v = v + 100 WHERE id % 7 = 0;
UPDATE t SET v = v + 100 WHERE id % 7 = 0;
});
kill_server($node);
eval { $bg->quit; };
$node->start;
my ($total4, $used4, $free4) = logs();
is($total4, $ltotal, 'the same log frames after the crash');
is($used4 + $free4, $total4, 'used and free log frames add up after the rebuild');
my $sum = sql(q{SELECT sum(v) FROM t});
ok($sum == 2160 || ($sum - 2160) % (100 * 5142) == 0,
	"the rows are those of whole statements ($sum)");
is(sql(q{SELECT count(*) FROM nvm_am.nvm_am_check('t')}), '0', 'nvm_am_check after the crash: sound');

# a clean restart keeps them too
$node->restart;
is(sql(q{SELECT sum(v) FROM t}), $sum, 'the same rows after a restart');
my (undef, $used5, $free5) = logs();
is($used5 + $free5, $ltotal, 'used and free log frames add up after the restart');

$node->stop;
done_testing();
