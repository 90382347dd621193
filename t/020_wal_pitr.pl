# 020_wal_pitr.pl - nvm_am.wal_log = on: an online base backup taken while
# pgbench writes, restored from the WAL archive, has every transaction
# acknowledged before the backup; point-in-time recovery to a restore point
# gives exactly the state at that point (changes after it, a DROP TABLE
# among them, are not there); nvm_am_check() is clean.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;
use FindBin;
use lib $FindBin::RealBin;
use NvmProc;

my $primary = wal_node('primary', 1, '', has_archiving => 1);
sub psql_p { return $primary->safe_psql('postgres', $_[0]); }
psql_p(q{CREATE TABLE kv (k int PRIMARY KEY, v text);
         INSERT INTO kv SELECT g, 'base' FROM generate_series(1, 3000) g;
         CREATE TABLE doomed (a int);
         INSERT INTO doomed SELECT generate_series(1, 500);});

# an online backup while pgbench runs a fixed number of transactions
my ($out, $err) = ('', '');
my $h = IPC::Run::start(
	[ 'pgbench', '-n', '-c', '2', '-t', '1500', '-h', $primary->host,
	  '-p', $primary->port, 'postgres' ],
	'>', \$out, '2>', \$err);
sleep 1;
$primary->backup('bkp');
$h->finish;
like($out, qr/number of transactions actually processed: 3000\/3000/,
	'pgbench committed its 3000 transactions around the backup');

# the state at the restore point, then more changes and a DROP TABLE
psql_p(q{INSERT INTO kv SELECT g, 'before' FROM generate_series(3001, 3100) g;
         UPDATE kv SET v = 'updated before' WHERE k <= 100;});
my %q = (
	kv => q{SELECT count(*) || ':' || md5(string_agg(k || v, ',' ORDER BY k)) FROM kv},
	accounts => q{SELECT md5(string_agg(a::text, ',' ORDER BY aid)) FROM pgbench_accounts a},
	history => q{SELECT count(*) || ':' || sum(delta) FROM pgbench_history},
	doomed => q{SELECT count(*) FROM doomed});
my %at_rp = map { $_ => psql_p($q{$_}) } keys %q;
like($at_rp{history}, qr/^3000:/, 'the 3000 transactions are in pgbench_history');
psql_p(q{SELECT pg_create_restore_point('rp1')});
psql_p(q{INSERT INTO kv SELECT g, 'after' FROM generate_series(3101, 3200) g;
         UPDATE kv SET v = 'updated after' WHERE k > 100 AND k <= 200;
         DELETE FROM pgbench_history WHERE tid = 1;
         DROP TABLE doomed;});
$primary->command_ok([ 'pgbench', '-n', '-c', '2', '-t', '200', '-h', $primary->host,
	'-p', $primary->port, 'postgres' ], 'more transactions after the restore point');
my $end_history = psql_p($q{history});
archive_current_wal($primary);

# recovery to the end of the archive: the latest state
my $latest = PostgreSQL::Test::Cluster->new('latest');
$latest->init_from_backup($primary, 'bkp', has_restoring => 1, standby => 0);
$latest->start;
$latest->poll_query_until('postgres', 'SELECT NOT pg_is_in_recovery()')
  or die 'recovery to the end did not finish';
is($latest->safe_psql('postgres', $q{history}), $end_history,
	'recovery to the end of the archive: every transaction is there');
is($latest->safe_psql('postgres', $q{kv}), psql_p($q{kv}), 'and kv is as on the primary');
ok(!$latest->safe_psql('postgres', q{SELECT count(*) FROM pg_class WHERE relname = 'doomed'}),
	'and the dropped table is gone');

# recovery to the restore point: exactly the state there
my $pitr = PostgreSQL::Test::Cluster->new('pitr');
$pitr->init_from_backup($primary, 'bkp', has_restoring => 1, standby => 0);
$pitr->append_conf('postgresql.conf', qq{
recovery_target_name = 'rp1'
recovery_target_action = 'promote'
});
$pitr->start;
$pitr->poll_query_until('postgres', 'SELECT NOT pg_is_in_recovery()')
  or die 'point-in-time recovery did not finish';
for my $t (sort keys %q)
{
	is($pitr->safe_psql('postgres', $q{$t}), $at_rp{$t}, "restore point: $t as it was there");
}
for my $node ($primary, $latest, $pitr)
{
	for my $rel (qw(pgbench_accounts pgbench_history kv))
	{
		is($node->safe_psql('postgres', "SELECT count(*) FROM nvm_am.nvm_am_check('$rel')"),
			'0', $node->name . ": nvm_am_check('$rel') is clean");
	}
}
is($pitr->safe_psql('postgres', "SELECT count(*) FROM nvm_am.nvm_am_check('doomed')"), '0',
	"pitr: nvm_am_check('doomed') is clean");
$pitr->safe_psql('postgres', q{INSERT INTO kv VALUES (99999, 'after pitr')});
is($pitr->safe_psql('postgres', q{SELECT v FROM kv WHERE k = 99999}), 'after pitr',
	'the recovered server writes');

$_->stop for ($primary, $latest, $pitr);
done_testing();
