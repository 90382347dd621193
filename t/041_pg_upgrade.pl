# 041_pg_upgrade.pl - pg_upgrade of a cluster with nvm_am tables.
#
# pg_upgrade makes every table anew in the new cluster and then copies the
# table files across.  The rows of an nvm_am table are in the old cluster's
# pool, not in its files: before nvm_am refused, pg_upgrade reported
# "Upgrade Complete" and the table was empty in the new cluster, its index
# pointing past its end.  Now the upgrade stops while it restores the
# schema, with a message that names the table and says what to do; the old
# cluster is as it was.  Once the table is heap (ALTER TABLE ... SET ACCESS
# METHOD heap), pg_upgrade carries its rows, and the extension, over; the
# table can go back to nvm_am in the new cluster.
use strict;
use warnings;
use File::Find;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use NvmProc;

my $old = nvm_node('upg_old');
$old->safe_psql('postgres', q{
	CREATE EXTENSION nvm_am;
	CREATE TABLE t (id int PRIMARY KEY, v text) USING nvm_am;
	INSERT INTO t SELECT g, 'v' || g FROM generate_series(1, 1000) g;
	CREATE TABLE h (id int) USING heap;
	INSERT INTO h SELECT generate_series(1, 10);
});
my $rows = $old->safe_psql('postgres', 'SELECT count(*), sum(id), md5(string_agg(v, \',\' ORDER BY id)) FROM t');
$old->stop;
my $bindir = $old->config_data('--bindir');

# upgrade NEW - pg_upgrade from the old node into the (stopped) node NEW;
# returns whether it succeeded and its output
sub upgrade
{
	my ($new) = @_;
	my ($out, $err) = ('', '');
	my $ok = IPC::Run::run(
		[ 'pg_upgrade', '--no-sync', '-d', $old->data_dir, '-D', $new->data_dir,
		  '-b', $bindir, '-B', $bindir, '-s', $new->host, '-p', $old->port,
		  '-P', $new->port ],
		'>', \$out, '2>', \$err);
	return ($ok, $out . $err);
}

# the text of every log pg_upgrade left in NEW's data directory
sub upgrade_logs
{
	my ($new) = @_;
	my $text = '';
	find(sub { $text .= slurp_file($_) if -f $_ && /\.log$/ }, $new->data_dir);
	return $text;
}

# 1. an nvm_am table: pg_upgrade stops, with nvm_am's message in its log
my $new = nvm_node('upg_new');
$new->stop;
my ($ok, $out) = upgrade($new);
ok(!$ok, 'pg_upgrade with an nvm_am table fails');
like($out, qr/Restoring database schemas/, 'it stops while restoring the schema');
like(upgrade_logs($new), qr/pg_upgrade cannot carry nvm_am table "t" over/,
	"its log has nvm_am's message, naming the table");
unlike($out, qr/Upgrade Complete/, 'no "Upgrade Complete"');

# the old cluster is as it was
$old->start;
is($old->safe_psql('postgres', 'SELECT count(*), sum(id), md5(string_agg(v, \',\' ORDER BY id)) FROM t'),
	$rows, 'the old cluster keeps every row');
is($old->safe_psql('postgres', 'SELECT count(*) FROM nvm_am.nvm_am_check(\'t\')'), '0',
	'nvm_am_check clean on the old cluster');

# 2. the table changed to heap first: the upgrade carries it over
$old->safe_psql('postgres', 'ALTER TABLE t SET ACCESS METHOD heap');
$old->stop;
my $new2 = nvm_node('upg_new2');
$new2->stop;
($ok, $out) = upgrade($new2);
ok($ok, 'pg_upgrade succeeds once the table is heap') or diag($out . upgrade_logs($new2));
$new2->start;
is($new2->safe_psql('postgres', 'SELECT count(*), sum(id), md5(string_agg(v, \',\' ORDER BY id)) FROM t'),
	$rows, 'the new cluster has every row');
is($new2->safe_psql('postgres', q{SELECT extname FROM pg_extension WHERE extname = 'nvm_am'}),
	'nvm_am', 'and the extension');
$new2->safe_psql('postgres', 'ALTER TABLE t SET ACCESS METHOD nvm_am');
is($new2->safe_psql('postgres', 'SELECT count(*), sum(id), md5(string_agg(v, \',\' ORDER BY id)) FROM t'),
	$rows, 'the table is nvm_am again in the new cluster, with every row');
is($new2->safe_psql('postgres', 'SELECT count(*) FROM nvm_am.nvm_am_check(\'t\')'), '0',
	'nvm_am_check clean');
$new2->stop;

done_testing();
