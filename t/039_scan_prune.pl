# 039_scan_prune.pl - a sequential scan that finds enough row versions dead
# to every transaction on a page (16, by their hint bits) prunes the page,
# so that the scans after it do not check them again.  Without it a page of
# a small table that every transaction scans (TPC-B's branches and
# tellers) kept its dead versions until the next version no longer fitted.
# - 40 updates of 10 rows on one page, then a scan: the page is pruned
#   once (pages_pruned_by_scans), no dead versions are left on it, a
#   second scan prunes nothing;
# - 10 updates: too few dead versions to prune for;
# - versions an open REPEATABLE READ snapshot can still see are not dead:
#   the scan leaves them, and prunes once the snapshot is gone;
# - the same rows throughout, after a restart too; nvm_am_check clean.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use NvmProc;

my $node = nvm_node('scanprune');
sub sql { return $node->safe_psql('postgres', $_[0]); }
sub stat_of
{
	return sql(qq{SELECT value FROM nvm_am.nvm_am_stats WHERE name = '$_[0]'});
}
sub dead_of
{
	return sql(qq{SELECT dead_tuple_count FROM nvm_am.nvm_am_stattuple('$_[0]')});
}

sql(q{CREATE EXTENSION nvm_am});

# n updates of a 10-row one-page table, one transaction each (pgbench),
# found through the primary key: a sequential scan of the updates would
# prune the page itself
my $dir = PostgreSQL::Test::Utils::tempdir;
sub make_and_update
{
	my ($t, $n) = @_;
	sql(qq{CREATE TABLE $t (id int PRIMARY KEY, v int NOT NULL) USING nvm_am
			 WITH (autovacuum_enabled = off);
		   INSERT INTO $t SELECT g, 0 FROM generate_series(1, 10) g;});
	open my $fh, '>', "$dir/$t.sql" or die "$dir/$t.sql: $!";
	print $fh "SET enable_seqscan = off;\n\\set id random(1, 10)\nUPDATE $t SET v = v + 1 WHERE id = :id;\n";
	close $fh;
	my ($out, $err) = run_command(
		[ 'pgbench', '-n', '-h', $node->host, '-p', $node->port, '-c', '1', '-j', '1',
		  '-t', $n, '-f', "$dir/$t.sql", 'postgres' ]);
	like($out, qr/actually processed: $n\/$n/, "$t: $n updates") or diag($err);
}

# enough dead versions: the scan prunes the page
make_and_update('t1', 40);
is(sql(q{SELECT pg_relation_size('t1') / 8192}), '1', 't1 has one page');
is(dead_of('t1'), '40', 't1: the 40 old versions are on the page');
my $p0 = stat_of('pages_pruned_by_scans');
is(sql(q{SELECT count(*), sum(v) FROM t1}), '10|40', 't1: the rows');
is(stat_of('pages_pruned_by_scans') - $p0, 1, 't1: the scan pruned the page');
is(dead_of('t1'), '0', 't1: no dead versions left on it');
is(sql(q{SELECT count(*), sum(v) FROM t1}), '10|40', 't1: the rows at the second scan');
is(stat_of('pages_pruned_by_scans') - $p0, 1, 't1: which prunes nothing');

# too few
make_and_update('t2', 10);
$p0 = stat_of('pages_pruned_by_scans');
is(sql(q{SELECT count(*), sum(v) FROM t2}), '10|10', 't2: the rows');
is(stat_of('pages_pruned_by_scans') - $p0, 0, 't2: 10 dead versions are too few to prune for');
is(dead_of('t2'), '10', 't2: they stay');

# a snapshot that still sees the old versions keeps them
sql(q{CREATE TABLE t3 (id int PRIMARY KEY, v int NOT NULL) USING nvm_am
		WITH (autovacuum_enabled = off);
	  INSERT INTO t3 SELECT g, 0 FROM generate_series(1, 10) g;});
my $bg = $node->background_psql('postgres', on_error_stop => 1);
$bg->query_safe(q{BEGIN ISOLATION LEVEL REPEATABLE READ});
is($bg->query_safe(q{SELECT sum(v) FROM t3}), '0', 't3: an open snapshot sees the first versions');
open my $fh, '>', "$dir/t3.sql" or die "$dir/t3.sql: $!";
print $fh "SET enable_seqscan = off;\n\\set id random(1, 10)\nUPDATE t3 SET v = v + 1 WHERE id = :id;\n";
close $fh;
my ($out, $err) = run_command(
	[ 'pgbench', '-n', '-h', $node->host, '-p', $node->port, '-c', '1', '-j', '1',
	  '-t', '40', '-f', "$dir/t3.sql", 'postgres' ]);
like($out, qr/actually processed: 40\/40/, 't3: 40 updates') or diag($err);
$p0 = stat_of('pages_pruned_by_scans');
is(sql(q{SELECT count(*), sum(v) FROM t3}), '10|40', 't3: the rows');
is(stat_of('pages_pruned_by_scans') - $p0, 0, 't3: the scan prunes nothing while the snapshot lasts');
is($bg->query_safe(q{SELECT sum(v) FROM t3}), '0', 't3: the snapshot still sees its versions');
$bg->query_safe(q{COMMIT});
$bg->quit;
is(sql(q{SELECT count(*), sum(v) FROM t3}), '10|40', 't3: the rows once the snapshot is gone');
is(stat_of('pages_pruned_by_scans') - $p0, 1, 't3: and the scan prunes the page');
is(dead_of('t3'), '0', 't3: no dead versions left');

# the pruned pages after a restart
for my $t ('t1', 't2', 't3')
{
	is(sql(qq{SELECT count(*) FROM nvm_am.nvm_am_check('$t')}), '0', "$t: nvm_am_check is clean");
}
$node->restart;
is(sql(q{SELECT sum(v) FROM t1}) . '/' . sql(q{SELECT sum(v) FROM t2}) . '/'
	. sql(q{SELECT sum(v) FROM t3}), '40/10/40', 'the same rows after a restart');
is(sql(q{SELECT count(*) FROM nvm_am.nvm_am_check('t1')}), '0', 'nvm_am_check after the restart');

$node->stop;
done_testing();
