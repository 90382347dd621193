# 023_wal_rewind.pl - nvm_am.wal_log = on and pg_rewind: after a failover
# the old primary, which wrote on its own meanwhile, is rewound to the new
# primary with pg_rewind (which copies the pool, a file it does not know,
# whole and while it changes, and leaves a backup_label), follows it as a
# standby, reads its nvm_am tables as the new primary has them, and,
# promoted, writes. The old primary's data directory allows group access
# (initdb -g), as for a backup run by another member of the group: the pool
# file too is readable by the group, before and after the rewind, as
# PostgreSQL's own files are.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;
use FindBin;
use lib $FindBin::RealBin;
use NvmProc;

my $old = wal_node('old', 1, "wal_log_hints = on\n", extra => ['-g']);
ok(check_mode_recursive($old->data_dir, 0750, 0640),
	'group access: the pool file and pg_nvm are group-readable as the data directory is');
sub psql_o { return $old->safe_psql('postgres', $_[0]); }
psql_o(q{CREATE TABLE kv (k int PRIMARY KEY, v text);
         INSERT INTO kv SELECT g, 'common' FROM generate_series(1, 2000) g;});
$old->backup('bkp');
my $new = PostgreSQL::Test::Cluster->new('new');
$new->init_from_backup($old, 'bkp', has_streaming => 1);
$new->start;
$old->wait_for_catchup($new);

# failover; both write on their own
$new->promote;
$new->poll_query_until('postgres', 'SELECT NOT pg_is_in_recovery()')
  or die 'the standby was not promoted';
$new->safe_psql('postgres', q{UPDATE kv SET v = 'new' WHERE k <= 500;
                              INSERT INTO kv SELECT g, 'new' FROM generate_series(2001, 2500) g;
                              CHECKPOINT;});
$new->command_ok([ 'pgbench', '-n', '-c', '2', '-t', '300', '-h', $new->host,
	'-p', $new->port, 'postgres' ], 'the new primary writes');
psql_o(q{UPDATE kv SET v = 'diverged' WHERE k > 1000;
         DELETE FROM kv WHERE k <= 100;});
$old->stop;
# pg_rewind copies the source's configuration files: keep the old one's
my $conf = slurp_file($old->data_dir . '/postgresql.conf');

# pg_rewind the old primary to the new one, which keeps writing
my $h = IPC::Run::start(
	[ 'pgbench', '-n', '-c', '1', '-T', '5', '-h', $new->host, '-p', $new->port, 'postgres' ],
	'>', \my $out, '2>', \my $err);
command_ok([ 'pg_rewind', '--target-pgdata=' . $old->data_dir,
	'--source-server=' . $new->connstr('postgres'), '--no-sync' ],
	'pg_rewind of the old primary');
$h->finish;
open(my $fh, '>', $old->data_dir . '/postgresql.conf') or die $!;
print $fh $conf;
close $fh;
$old->enable_streaming($new);
$old->start;
$new->wait_for_catchup($old);
ok(check_mode_recursive($old->data_dir, 0750, 0640),
	'group access after pg_rewind: the pool copied from the source is group-readable');

# the rewound server, a hot standby now, reads the new primary's rows
my %q = (
	kv => q{SELECT count(*) || ':' || md5(string_agg(k || v, ',' ORDER BY k)) FROM kv},
	accounts => q{SELECT md5(string_agg(a::text, ',' ORDER BY aid)) FROM pgbench_accounts a},
	history => q{SELECT count(*) || ':' || sum(delta) FROM pgbench_history});
for my $t (sort keys %q)
{
	is($old->safe_psql('postgres', $q{$t}), $new->safe_psql('postgres', $q{$t}),
		"rewound standby: $t as on the new primary");
}
is($old->safe_psql('postgres', q{SELECT count(*) FROM kv WHERE v = 'diverged'}), '0',
	'what only the old primary wrote is gone');
for my $rel (qw(kv pgbench_accounts pgbench_history))
{
	is($old->safe_psql('postgres', "SELECT count(*) FROM nvm_am.nvm_am_check('$rel')"),
		'0', "rewound standby: nvm_am_check('$rel') is clean");
}

# promoted, it writes
$old->promote;
$old->poll_query_until('postgres', 'SELECT NOT pg_is_in_recovery()')
  or die 'the rewound server was not promoted';
psql_o(q{INSERT INTO kv VALUES (99999, 'after rewind')});
is(psql_o(q{SELECT v FROM kv WHERE k = 99999}), 'after rewind', 'the rewound server writes');

$_->stop for ($old, $new);
done_testing();
