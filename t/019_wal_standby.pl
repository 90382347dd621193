# 019_wal_standby.pl - nvm_am.wal_log = on: nvm_am tables reach a standby.
# A base backup taken with pg_basebackup while pgbench writes (the pool, in
# the data directory, is copied while it changes) starts a streaming
# standby that replays the nvm_am records; hot-standby queries read them,
# and one that a prune on the primary conflicts with is cancelled; the
# standby survives a crash in the middle of replay; promoted after
# catch-up, its tables equal the primary's row by row, nvm_am_check() is
# clean on both, and it writes.  A crash of a server in WAL mode loses no
# acknowledged transaction.
# pg_walinspect shows the records by name.  And the setting refuses to
# start without the WAL it needs.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use NvmProc;

my $primary = wal_node('primary', 2);
sub psql_p { return $primary->safe_psql('postgres', $_[0]); }

psql_p(q{CREATE EXTENSION pg_walinspect});
my $lsn0 = psql_p('SELECT pg_current_wal_lsn()');
is(psql_p(q{SELECT count(*) FROM pg_class c JOIN pg_am a ON a.oid = c.relam
            WHERE a.amname = 'nvm_am' AND c.relname LIKE 'pgbench_%'}), '4',
	'the pgbench tables are nvm_am tables');
psql_p(q{CREATE TABLE kv (k int PRIMARY KEY, v text);
         INSERT INTO kv SELECT g, md5(g::text) FROM generate_series(1, 5000) g;
         CREATE UNLOGGED TABLE scratch (a int);
         INSERT INTO scratch SELECT generate_series(1, 100);
         CHECKPOINT;
         UPDATE kv SET v = v WHERE k <= 10;});

# the records by name, as pg_walinspect (the server's rm_desc) shows them
my $kinds = psql_p(qq{SELECT string_agg(DISTINCT record_type, ',' ORDER BY record_type)
                      FROM pg_get_wal_records_info('$lsn0', pg_current_wal_lsn())
                      WHERE resource_manager = 'nvm_am'});
like($kinds, qr/NEW_PAGE/, "nvm_am records in WAL: $kinds");
like($kinds, qr/PAGE_CHANGE/, 'page changes among them');
like($kinds, qr/REL_CREATE/, 'relation creations among them');
is(psql_p(qq{SELECT count(*) > 0 FROM pg_get_wal_records_info('$lsn0', pg_current_wal_lsn())
             WHERE record_type = 'PAGE_CHANGE' AND description ~ ' with the page before it'}),
	't', 'a page\'s first change after a checkpoint carries its image');
like(psql_p(qq{SELECT description FROM pg_get_wal_records_info('$lsn0', pg_current_wal_lsn())
               WHERE record_type = 'PAGE_CHANGE' LIMIT 1}),
	qr/^entry \d+ (patch|prune|prune_fill), \d+ bytes/, 'a page change is described');

# pgbench writing while the base backup copies the pool
my $run = start_pgbench($primary, undef, 'during the base backup', 2, 6);
sleep 1;
$primary->backup('bkp');
finish_pgbench($run);

my $standby = PostgreSQL::Test::Cluster->new('standby');
$standby->init_from_backup($primary, 'bkp', has_streaming => 1);
$standby->append_conf('postgresql.conf', "max_standby_streaming_delay = 0\n");
$standby->start;
$primary->wait_for_catchup($standby);
ok(1, 'the standby caught up');

# hot standby: queries read the nvm_am tables as the primary has them
my $kvq = q{SELECT count(*) || ':' || md5(string_agg(k || v, ',' ORDER BY k)) FROM kv};
is($standby->safe_psql('postgres', $kvq), psql_p($kvq), 'hot standby: kv as on the primary');
is($standby->safe_psql('postgres', q{SELECT count(*) FROM kv WHERE k BETWEEN 10 AND 19}), '10',
	'hot standby: an index scan');
is($standby->safe_psql('postgres', q{SELECT (SELECT sum(abalance) FROM pgbench_accounts) = (SELECT sum(bbalance) FROM pgbench_branches)}),
	't', 'hot standby: balances add up');

# a prune on the primary removes versions a standby query may still see:
# the query is cancelled (max_standby_streaming_delay = 0), never answered
# wrongly
my $bg = $standby->background_psql('postgres', on_error_stop => 0);
$bg->query_safe('BEGIN ISOLATION LEVEL REPEATABLE READ');
my $sum_before = $bg->query_safe(q{SELECT sum(length(v)) FROM kv});
psql_p(q{UPDATE kv SET v = v || 'y' WHERE k <= 2000; VACUUM kv;});
$primary->wait_for_catchup($standby);
my $sum_after = eval { $bg->query(q{SELECT sum(length(v)) FROM kv}) };
ok(!defined $sum_after || $sum_after eq '' || $sum_after eq $sum_before,
	'the old snapshot never sees the pruned page half-changed');
eval { $bg->quit; };
cmp_ok($standby->safe_psql('postgres',
	q{SELECT confl_snapshot FROM pg_stat_database_conflicts WHERE datname = 'postgres'}),
	'>', 0, 'the query conflicting with the prune was cancelled');
is($standby->safe_psql('postgres', $kvq), psql_p($kvq), 'hot standby: kv after the prune');

# more writes, a crash of the standby in the middle of replay, catch-up
$run = start_pgbench($primary, undef, 'while the standby crashed', 2, 4);
sleep 2;
$standby->stop('immediate');
$standby->start;
finish_pgbench($run);
psql_p(q{UPDATE kv SET v = v || 'x' WHERE k % 10 = 0;
         DELETE FROM kv WHERE k % 100 = 1;
         VACUUM kv;
         CREATE TABLE gone (a int); INSERT INTO gone SELECT generate_series(1, 1000);
         DROP TABLE gone;
         TRUNCATE pgbench_history;
         INSERT INTO pgbench_history (tid, bid, aid, delta) VALUES (1, 1, 1, 1);});
# a table whose creation is rolled back: its storage goes on the standby too
psql_p(q{BEGIN; CREATE TABLE rolled_back (a int); INSERT INTO rolled_back VALUES (1); ROLLBACK;});
# up to the insert position: the storage of a dropped or rolled-back table
# is freed by a record written after the commit or abort record, which the
# WAL writer may not have written yet (pg_current_wal_lsn() is the write
# position)
$primary->wait_for_catchup($standby, 'replay', $primary->lsn('insert'));
my $relq = q{SELECT value FROM nvm_am.nvm_am_stats WHERE name = 'relations'};
is($standby->safe_psql('postgres', $relq), psql_p($relq),
	'hot standby: as many nvm_am relations in the pool as on the primary');

# the same rows on both, once the standby is promoted (whole rows: an
# update's WAL record sends the data its new version shares with the old
# one as a copy, pgbench_accounts' filler among it)
my %q = (
	accounts => q{SELECT md5(string_agg(a::text, ',' ORDER BY aid)) FROM pgbench_accounts a},
	tellers => q{SELECT md5(string_agg(t::text, ',' ORDER BY tid)) FROM pgbench_tellers t},
	branches => q{SELECT md5(string_agg(b::text, ',' ORDER BY bid)) FROM pgbench_branches b},
	history => q{SELECT count(*) || ':' || sum(delta) FROM pgbench_history},
	kv => q{SELECT count(*) || ':' || md5(string_agg(k || v, ',' ORDER BY k)) FROM kv},
	balance => q{SELECT (SELECT sum(abalance) FROM pgbench_accounts) = (SELECT sum(bbalance) FROM pgbench_branches)});
my %want = map { $_ => psql_p($q{$_}) } keys %q;
$standby->promote;
$standby->poll_query_until('postgres', 'SELECT NOT pg_is_in_recovery()')
  or die 'the standby was not promoted';
for my $t (sort keys %q)
{
	is($standby->safe_psql('postgres', $q{$t}), $want{$t}, "promoted standby: $t as on the primary");
}
is($want{balance}, 't', 'balances add up');
for my $node ($primary, $standby)
{
	for my $rel (qw(pgbench_accounts pgbench_tellers pgbench_branches pgbench_history kv))
	{
		is($node->safe_psql('postgres', "SELECT count(*) FROM nvm_am.nvm_am_check('$rel')"),
			'0', $node->name . ": nvm_am_check('$rel') is clean");
	}
}
is($standby->safe_psql('postgres', 'SELECT count(*) FROM scratch'), '0',
	'an unlogged table is empty on the promoted standby');
ok(!$standby->safe_psql('postgres', q{SELECT count(*) FROM pg_class WHERE relname = 'gone'}),
	'the dropped table is gone');

# the promoted standby writes to its nvm_am tables
$standby->safe_psql('postgres', q{INSERT INTO kv VALUES (100001, 'new'); INSERT INTO scratch VALUES (1);});
$run = start_pgbench($standby, undef, 'on the promoted standby', 2, 2);
finish_pgbench($run);
is($standby->safe_psql('postgres', q{SELECT v FROM kv WHERE k = 100001}), 'new',
	'a row written on the promoted standby');
is($standby->safe_psql('postgres', q{SELECT (SELECT sum(abalance) FROM pgbench_accounts) = (SELECT sum(bbalance) FROM pgbench_branches)}),
	't', 'balances add up on the promoted standby');
$standby->restart;
is($standby->safe_psql('postgres', q{SELECT v FROM kv WHERE k = 100001}), 'new',
	'and after its restart');

# a crash of a server in WAL mode: replay onto its own pool (which holds
# changes the WAL may not) keeps every acknowledged transaction
my $hist0 = $standby->safe_psql('postgres', 'SELECT count(*) FROM pgbench_history');
$standby->command_ok([ 'pgbench', '-n', '-c', '2', '-t', '500', '-h', $standby->host,
	'-p', $standby->port, 'postgres' ], '1000 pgbench transactions');
$run = start_pgbench($standby, undef, 'under load before a crash', 2, 3);
sleep 1;
$standby->stop('immediate');
$run->{h}->finish;
$standby->start;
cmp_ok($standby->safe_psql('postgres', 'SELECT count(*) FROM pgbench_history'), '>=', $hist0 + 1000,
	'after a crash under load: every acknowledged transaction is there');
is($standby->safe_psql('postgres', q{SELECT (SELECT sum(abalance) FROM pgbench_accounts) = (SELECT sum(bbalance) FROM pgbench_branches)}),
	't', 'after the crash: balances add up');
for my $rel (qw(pgbench_accounts pgbench_tellers pgbench_branches pgbench_history kv))
{
	is($standby->safe_psql('postgres', "SELECT count(*) FROM nvm_am.nvm_am_check('$rel')"),
		'0', "after the crash: nvm_am_check('$rel') is clean");
}

# the setting refuses to start without the WAL it needs
my $minimal = PostgreSQL::Test::Cluster->new('minimal');
$minimal->init;
$minimal->append_conf('postgresql.conf', $NvmProc::WAL_CONF . "wal_level = minimal\nmax_wal_senders = 0\n");
ok(!$minimal->start(fail_ok => 1), 'nvm_am.wal_log with wal_level = minimal does not start');
like(slurp_file($minimal->logfile), qr/FATAL:  nvm_am.wal_log = on requires wal_level replica or logical/,
	'and says why');
$minimal->append_conf('postgresql.conf', "wal_level = replica\nfull_page_writes = off\n");
ok(!$minimal->start(fail_ok => 1), 'nvm_am.wal_log with full_page_writes = off does not start');
like(slurp_file($minimal->logfile), qr/FATAL:  nvm_am.wal_log = on requires full_page_writes = on/,
	'and says why');

$primary->stop;
$standby->stop;
done_testing();
