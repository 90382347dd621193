# What PostgreSQL users lean on keeps working for nvm_am tables: the
# statistics views, autovacuum and autoanalyze, EXPLAIN (ANALYZE, BUFFERS),
# and a pg_dump / pg_restore round trip.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $pool = "/dev/shm/nvm_am_tap_tools_$$.pool";
my $node = PostgreSQL::Test::Cluster->new('tools');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'nvm_am'
nvm_am.pool_path = '$pool'
nvm_am.pool_size = '64MB'
autovacuum_naptime = 1
autovacuum_vacuum_threshold = 10
autovacuum_vacuum_scale_factor = 0
autovacuum_analyze_threshold = 10
autovacuum_analyze_scale_factor = 0
});
$node->start;
$node->safe_psql('postgres', q{
CREATE EXTENSION nvm_am;
CREATE TABLE st (id int PRIMARY KEY, v int, doc text) USING nvm_am;
INSERT INTO st SELECT g, 0, repeat(md5(g::text), 100 * (g % 3)) FROM generate_series(1, 1000) g;
UPDATE st SET v = 1 WHERE id <= 100;
DELETE FROM st WHERE id > 900;
});

# statistics counters, as heap maintains them
$node->safe_psql('postgres', 'SELECT pg_stat_force_next_flush()');
is($node->safe_psql('postgres',
		q{SELECT n_tup_ins, n_tup_upd, n_tup_del FROM pg_stat_user_tables WHERE relname = 'st'}),
	'1000|100|100', 'pg_stat_user_tables counts inserts, updates and deletes');

# autovacuum and autoanalyze are triggered by those counters
ok($node->poll_query_until('postgres',
		q{SELECT last_autovacuum IS NOT NULL AND last_autoanalyze IS NOT NULL
		  FROM pg_stat_user_tables WHERE relname = 'st'}),
	'autovacuum and autoanalyze ran on the nvm_am table');
is($node->safe_psql('postgres',
		q{SELECT n_live_tup, n_dead_tup FROM pg_stat_user_tables WHERE relname = 'st'}),
	'900|0', 'live and dead tuple counts after autovacuum');
is($node->safe_psql('postgres', q{SELECT reltuples FROM pg_class WHERE relname = 'st'}),
	'900', 'reltuples after autoanalyze');

# EXPLAIN (ANALYZE, BUFFERS)
my $plan = $node->safe_psql('postgres',
	q{EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT count(*) FROM st WHERE id < 50});
like($plan, qr/actual rows=49 /, 'EXPLAIN ANALYZE reports the rows');
like($plan, qr/Buffers: shared hit=/, 'EXPLAIN BUFFERS reports the index buffers');

# pg_dump / pg_restore round trip
my $before = $node->safe_psql('postgres',
	q{SELECT count(*), sum(v), md5(string_agg(id || ':' || v || ':' || md5(doc), ',' ORDER BY id)) FROM st});
my $dump = $node->basedir . '/dump.fc';
$node->command_ok([ 'pg_dump', '-Fc', '-f', $dump, '-d', $node->connstr('postgres') ],
	'pg_dump of a database with nvm_am tables');
$node->safe_psql('postgres', 'CREATE DATABASE restored');
$node->command_ok([ 'pg_restore', '-d', $node->connstr('restored'), $dump ],
	'pg_restore into a new database');
is($node->safe_psql('restored',
		q{SELECT a.amname FROM pg_class c JOIN pg_am a ON a.oid = c.relam WHERE c.relname = 'st'}),
	'nvm_am', 'the restored table uses nvm_am');
is($node->safe_psql('restored',
		q{SELECT count(*), sum(v), md5(string_agg(id || ':' || v || ':' || md5(doc), ',' ORDER BY id)) FROM st}),
	$before, 'the restored rows are identical');
is($node->safe_psql('postgres', q{SELECT value FROM nvm_am.nvm_am_stats WHERE name = 'relations'}),
	'2', 'both tables have pool storage');

$node->stop;
unlink $pool;
done_testing();
