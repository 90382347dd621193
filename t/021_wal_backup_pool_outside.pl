# 021_wal_backup_pool_outside.pl - nvm_am.wal_log = on with the pool outside
# the data directory, where pg_basebackup does not see it: the low-level
# backup procedure of the README (pg_backup_start; copy the data directory
# and the pool file, while pgbench writes; pg_backup_stop and its
# backup_label) gives a backup that, restored from the WAL archive with
# nvm_am.pool_path pointing at the copied pool, has every transaction
# acknowledged before the backup ended.
use strict;
use warnings;
use File::Copy;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::RecursiveCopy;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;
use FindBin;
use lib $FindBin::RealBin;
use NvmProc;

my $pool = "/dev/shm/nvm_am_tap_outside_$$.pool";
my $copy = "/dev/shm/nvm_am_tap_outside_copy_$$.pool";
END { unlink $pool, $copy; }

my $primary = wal_node('primary', 1, "nvm_am.pool_path = '$pool'\n", has_archiving => 1);
sub psql_p { return $primary->safe_psql('postgres', $_[0]); }

# pgbench writes while the backup is taken
my ($out, $err) = ('', '');
my $h = IPC::Run::start(
	[ 'pgbench', '-n', '-c', '2', '-t', '3000', '-h', $primary->host,
	  '-p', $primary->port, 'postgres' ],
	'>', \$out, '2>', \$err);
sleep 1;

# 1. pg_backup_start, in a session that stays open until pg_backup_stop
my $session = $primary->background_psql('postgres');
$session->query_safe(q{SET client_min_messages = warning});
$session->query_safe(q{SELECT pg_backup_start('outside', true)});
# 2. copy the data directory (without pg_wal: the archive has it) and the pool
my $backup = $primary->backup_dir . '/outside';
PostgreSQL::Test::RecursiveCopy::copypath($primary->data_dir, $backup,
	filterfn => sub {
		my $src = shift;
		return $src ne 'postmaster.pid' && $src !~ m{^pg_wal/.};
	});
copy($pool, $copy) or die "copy of the pool: $!";
# 3. pg_backup_stop: its label goes into the copy as backup_label
my $label = $session->query_safe(q{SELECT labelfile FROM pg_backup_stop()});
$session->quit;
open(my $fh, '>', "$backup/backup_label") or die $!;
print $fh $label, "\n";
close $fh;
$h->finish;
like($out, qr/number of transactions actually processed: 6000\/6000/,
	'pgbench committed its 6000 transactions during the backup');
my %q = (
	accounts => q{SELECT md5(string_agg(a::text, ',' ORDER BY aid)) FROM pgbench_accounts a},
	history => q{SELECT count(*) || ':' || sum(delta) FROM pgbench_history},
	balance => q{SELECT (SELECT sum(abalance) FROM pgbench_accounts) = (SELECT sum(bbalance) FROM pgbench_branches)});
my %want = map { $_ => psql_p($q{$_}) } keys %q;
like($want{history}, qr/^6000:/, 'pgbench_history holds them');
archive_current_wal($primary);

# restore: the copied data directory, nvm_am.pool_path at the copied pool
my $restored = PostgreSQL::Test::Cluster->new('restored');
$restored->init_from_backup($primary, 'outside', has_restoring => 1, standby => 0);
$restored->append_conf('postgresql.conf', "nvm_am.pool_path = '$copy'\n");
$restored->start;
$restored->poll_query_until('postgres', 'SELECT NOT pg_is_in_recovery()')
  or die 'recovery did not finish';
for my $t (sort keys %q)
{
	is($restored->safe_psql('postgres', $q{$t}), $want{$t}, "restored: $t as on the primary");
}
for my $rel (qw(pgbench_accounts pgbench_tellers pgbench_branches pgbench_history))
{
	is($restored->safe_psql('postgres', "SELECT count(*) FROM nvm_am.nvm_am_check('$rel')"),
		'0', "restored: nvm_am_check('$rel') is clean");
}
$restored->command_ok([ 'pgbench', '-n', '-c', '2', '-t', '100', '-h', $restored->host,
	'-p', $restored->port, 'postgres' ], 'the restored server runs pgbench');
is($restored->safe_psql('postgres', $q{balance}), 't', 'balances add up after it');

$_->stop for ($primary, $restored);
done_testing();
