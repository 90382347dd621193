# A full pool and a full relation directory give clean errors, lose
# nothing, and the space is usable again once freed.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $pool = "/dev/shm/nvm_am_tap_full_$$.pool";
my $node = PostgreSQL::Test::Cluster->new('full');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'nvm_am'
nvm_am.pool_path = '$pool'
nvm_am.pool_size = '16MB'
});
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION nvm_am');
$node->safe_psql('postgres', 'CREATE TABLE keep (a int, b text) USING nvm_am');
$node->safe_psql('postgres', q{INSERT INTO keep SELECT g, 'k' || g FROM generate_series(1, 1000) g});

# fill the pool
$node->safe_psql('postgres', 'CREATE TABLE filler (a int, b text) USING nvm_am');
my ($ret, $out, $err) = $node->psql('postgres',
	q{INSERT INTO filler SELECT g, repeat('f', 1000) FROM generate_series(1, 100000) g});
isnt($ret, 0, 'insert into a full pool fails');
like($err, qr/ERROR:  nvm_am pool is full/, 'error says the pool is full');
like($err, qr/HINT:  .*nvm_am\.pool_size/, 'hint names the setting');
is($node->safe_psql('postgres', 'SELECT count(*) FROM filler'), '0',
	'the failed statement left no rows');
is($node->safe_psql('postgres', 'SELECT count(*), sum(a) FROM keep'), '1000|500500',
	'other data intact');
is($node->safe_psql('postgres', q{SELECT value FROM nvm_am.nvm_am_stats WHERE name = 'frames_free'}) < 10,
	1, 'pool is (almost) full');

# a committed transaction's rows survive the next one failing
$node->safe_psql('postgres', 'TRUNCATE filler');
my $used = $node->safe_psql('postgres', q{SELECT value FROM nvm_am.nvm_am_stats WHERE name = 'frames_allocated'});
cmp_ok($used, '<', 20, 'TRUNCATE gave the space back (only table keep and page tables left)');
$node->safe_psql('postgres',
	q{INSERT INTO filler SELECT g, repeat('f', 1000) FROM generate_series(1, 5000) g});
is($node->safe_psql('postgres', 'SELECT count(*) FROM filler'), '5000', 'space is usable again');

# the relation directory is full: 16MB pools hold 1024 relations
$node->safe_psql('postgres', 'DROP TABLE filler');
($ret, $out, $err) = $node->psql('postgres', q{
DO $$ BEGIN
  FOR i IN 1..1100 LOOP
    EXECUTE format('CREATE TABLE many_%s (a int) USING nvm_am', i);
  END LOOP;
END $$});
isnt($ret, 0, 'creating more relations than the directory holds fails');
like($err, qr/ERROR:  nvm_am relation directory is full/, 'error says the directory is full');
is($node->safe_psql('postgres', q{SELECT value FROM nvm_am.nvm_am_stats WHERE name = 'relations'}), '1',
	'the failed transaction left no relations behind');
is($node->safe_psql('postgres', 'SELECT count(*), sum(a) FROM keep'), '1000|500500',
	'data intact after the failures');

# and after a restart
$node->restart;
is($node->safe_psql('postgres', 'SELECT count(*), sum(a) FROM keep'), '1000|500500',
	'data intact after restart');
$node->stop;
unlink $pool;

# no space on the device for a new pool: a 1TB pool on /dev/shm
my $big = "/dev/shm/nvm_am_tap_nospace_$$.pool";
my $node2 = PostgreSQL::Test::Cluster->new('nospace');
$node2->init;
$node2->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'nvm_am'
nvm_am.pool_path = '$big'
nvm_am.pool_size = '1TB'
});
ok(!$node2->start(fail_ok => 1), 'no space for the pool: the server does not start');
my $log = slurp_file($node2->logfile);
like($log, qr/FATAL:  could not create nvm_am pool file "\Q$big\E" of \d+ bytes: No space left on device/,
	'no space: the message names the file and the cause');
like($log, qr/HINT:  Free space on the device holding .* or set nvm_am\.pool_size lower/,
	'no space: the hint says how to fix it');
ok(!-e $big && !-e "$big.init", 'no space: no pool file is left behind');
done_testing();
