# 044_old_snapshot.pl - old_snapshot_threshold does not make nvm_am give
# wrong answers.  With the setting on, VACUUM and the rewrites (VACUUM
# FULL, CLUSTER) get a horizon that has moved past snapshots older than
# the threshold (vacuum_set_xid_limits).  Heap then removes row versions
# such a snapshot still sees, and refuses the snapshot when it reads a page
# changed since it was taken ("snapshot too old", from the page's LSN).
# nvm_am pages carry no such LSN: a reader would silently miss the removed
# versions (before the fix, a REPEATABLE READ count of 1000 rows gave 500
# after a DELETE of 500 and a VACUUM).  nvm_am keeps what old snapshots
# see instead: they keep their answers, and VACUUM removes the versions
# once they are gone.
#
# The threshold is 1 minute (0 is a testing value that seldom moves the
# horizon), so the test waits until heap's VACUUM removes the deleted
# versions, which shows that the horizon has moved past the old snapshots:
# about two minutes.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use NvmProc;

my $node = nvm_node('oldsnap', "old_snapshot_threshold = '1min'\n");
sub sql { return $node->safe_psql('postgres', $_[0]); }

sql(q{CREATE EXTENSION nvm_am;});
for my $t (qw(n_vac n_full h_vac))
{
	my $am = $t =~ /^n_/ ? 'nvm_am' : 'heap';
	sql(qq{CREATE TABLE $t (c int NOT NULL) USING $am;
		INSERT INTO $t SELECT generate_series(1, 1000);});
	sql("VACUUM ANALYZE $t");
}

# old snapshots: one reads nvm_am tables, one heap's (n_full is not read
# before its VACUUM FULL, which waits for every lock on it)
my $sn = $node->background_psql('postgres');
is($sn->query_safe(q{BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT count(*) FROM n_vac;}),
	'1000', 'an old snapshot of the nvm_am tables');
my $sh = $node->background_psql('postgres', on_error_stop => 0);
is($sh->query_safe(q{BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT count(*) FROM h_vac;}),
	'1000', 'an old snapshot of the heap table');

sql("DELETE FROM $_ WHERE c <= 500") for qw(n_vac n_full h_vac);

# wait until heap's VACUUM removes what the old snapshots see
my $removed = 0;
my $deadline = time() + 360;
while (time() < $deadline)
{
	my ($ret, $out, $err) = $node->psql('postgres', 'VACUUM (VERBOSE) h_vac');
	if ($err =~ /tuples: (\d+) removed/ && $1 > 0)
	{
		$removed = $1;
		last;
	}
	sleep 10;
}
is($removed, 500, "the horizon moved past the old snapshots: heap's VACUUM removed 500 versions");

sql('VACUUM n_vac');
sql('VACUUM FULL n_full');
is(sql(q{SELECT dead_tuple_count FROM nvm_am.nvm_am_stattuple('n_vac')}), '500',
	"nvm_am's VACUUM keeps the versions the old snapshot sees");
is($sn->query_safe(q{SELECT count(*), sum(c) FROM n_vac}), '1000|500500',
	'the old snapshot reads its rows after the VACUUM');
is($sn->query_safe(q{SELECT count(*), sum(c) FROM n_full}), '1000|500500',
	'the old snapshot reads its rows after the VACUUM FULL');
is($sn->query_safe(q{SELECT count(*) FROM n_vac WHERE c > 500}), '500',
	'and the rows nobody deleted once each');

# heap refuses the old snapshot instead (what nvm_am does not do)
$sh->query(q{SELECT count(*) FROM h_vac});
like($sh->{stderr}, qr/snapshot too old/, 'heap: snapshot too old');
$sh->quit;

$sn->query_safe('COMMIT');
$sn->quit;
sql('VACUUM n_vac');
is(sql(q{SELECT dead_tuple_count || ' ' || tuple_count FROM nvm_am.nvm_am_stattuple('n_vac')}),
	'0 500', 'once the old snapshot is gone, VACUUM removes them');
is(sql(q{SELECT count(*) FROM n_full}), '500', 'VACUUM FULL kept no row twice');
is(sql(q{SELECT count(*) FROM nvm_am.nvm_am_check('n_vac')}) . ' '
	  . sql(q{SELECT count(*) FROM nvm_am.nvm_am_check('n_full')}), '0 0',
	'nvm_am_check finds nothing');

$node->stop;
done_testing();
