# 022_wal_failover.pl - nvm_am.wal_log = on with a synchronous standby:
# commits of nvm_am-only transactions wait for the standby as heap's do, so
# when the primary is killed (SIGKILL) under load and the standby promoted,
# no acknowledged transaction is missing; the new primary writes.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;
use FindBin;
use lib $FindBin::RealBin;
use NvmProc;

my $primary = wal_node('primary', 1);
sub psql_p { return $primary->safe_psql('postgres', $_[0]); }
# no index: these transactions change nvm_am data and nothing else
psql_p(q{CREATE TABLE acks (id int, note text)});

$primary->backup('bkp');
my $standby = PostgreSQL::Test::Cluster->new('standby');
$standby->init_from_backup($primary, 'bkp', has_streaming => 1);
$standby->append_conf('postgresql.conf', "cluster_name = 'standby'\n");
$standby->start;
$primary->append_conf('postgresql.conf', "synchronous_standby_names = 'standby'\n");
$primary->reload;
$primary->poll_query_until('postgres',
	q{SELECT sync_state = 'sync' FROM pg_stat_replication WHERE application_name = 'standby'})
  or die 'the standby did not become synchronous';
ok(1, 'the standby is synchronous');

# load on the primary, and acknowledged single-row commits to count
my ($out, $err) = ('', '');
my $h = IPC::Run::start(
	[ 'pgbench', '-n', '-c', '2', '-T', '30', '-h', $primary->host,
	  '-p', $primary->port, 'postgres' ],
	'>', \$out, '2>', \$err);
my $acked = 0;
for my $i (1 .. 150)
{
	$primary->safe_psql('postgres', "INSERT INTO acks VALUES ($i, 'acknowledged')");
	$acked = $i;
}
is($acked, 150, '150 commits acknowledged on the primary under load');

# the primary dies at once, with pgbench in the middle of transactions
kill_server($primary);
$h->finish;

$standby->promote;
$standby->poll_query_until('postgres', 'SELECT NOT pg_is_in_recovery()')
  or die 'the standby was not promoted';
is($standby->safe_psql('postgres', q{SELECT count(*), min(id), max(id) FROM acks}),
	'150|1|150', 'the promoted standby has every acknowledged commit');
is($standby->safe_psql('postgres', q{SELECT (SELECT sum(abalance) FROM pgbench_accounts) = (SELECT sum(bbalance) FROM pgbench_branches)}),
	't', 'balances add up on the promoted standby');
for my $rel (qw(pgbench_accounts pgbench_tellers pgbench_branches pgbench_history acks))
{
	is($standby->safe_psql('postgres', "SELECT count(*) FROM nvm_am.nvm_am_check('$rel')"),
		'0', "promoted standby: nvm_am_check('$rel') is clean");
}
$standby->safe_psql('postgres', q{INSERT INTO acks VALUES (151, 'on the new primary')});
$standby->command_ok([ 'pgbench', '-n', '-c', '2', '-t', '200', '-h', $standby->host,
	'-p', $standby->port, 'postgres' ], 'the new primary runs pgbench');
is($standby->safe_psql('postgres', q{SELECT count(*) FROM acks}), '151', 'and keeps its own commits');

$standby->stop;
done_testing();
