# 025_prune_xid.pl - a page whose rows were updated or deleted stays
# prunable when its image is made again from its frame and in-page log (a
# restart, or the image leaving the merge cache): pd_prune_xid is in the
# change's record, not only in the image.  Without it the old versions stay
# until VACUUM and an update on the page, which needs their room, is no
# longer HOT.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use NvmProc;

my $node = nvm_node('prunexid');
sub sql { return $node->safe_psql('postgres', $_[0]); }

# a page full of rows (the inserter seals it into a plain frame when the
# 62nd row does not fit), and one row on the next
sql(q{CREATE EXTENSION nvm_am;
	CREATE TABLE t (id int PRIMARY KEY, v int, pad text) USING nvm_am;
	INSERT INTO t SELECT g, 0, repeat('x', 90) FROM generate_series(1, 62) g;});
is(sql(q{SELECT count(*) FROM t WHERE (ctid::text::point)[0] = 0}), '61', 'the rows fill a page');

# The first update finds no room on the page: its new version goes
# elsewhere, and the old one stays until a prune.  Nothing reads the page
# before the image is made again from the frame and the log (an immediate
# stop: a clean one writes the merge cache back): a reader would prune it.
sql(q{UPDATE t SET v = 1 WHERE id = 1});
$node->stop('immediate');
$node->start;

for my $id (2 .. 4)
{
	my $hot = nvm_stat($node, 'hot_updates');
	sql(qq{UPDATE t SET v = 1 WHERE id = $id});
	is(nvm_stat($node, 'hot_updates'), $hot + 1, "after the restart row $id is updated HOT");
	is(sql(qq{SELECT (ctid::text::point)[0] FROM t WHERE id = $id}), '0', 'on its page');
	if ($id == 2)
	{
		sql(q{UPDATE t SET v = 1 WHERE id = 5});
		$node->stop('immediate');
		$node->start;
	}
}
is(sql(q{SELECT (ctid::text::point)[0] FROM t WHERE id = 1}), '1', 'the first update moved its row to page 1');
ok(nvm_stat($node, 'pages_pruned') > 0, 'the page was pruned');
is(sql(q{SELECT count(*) FROM nvm_am.nvm_am_check('t')}), '0', 'nvm_am_check is clean');
is(sql(q{SELECT count(*), sum(v) FROM t}), '62|5', 'every row is there once');

$node->stop;
done_testing();
