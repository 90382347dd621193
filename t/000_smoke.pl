use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('smoke');
$node->init;
my $pool = "/dev/shm/nvm_am_tap_smoke_$$.pool";
$node->append_conf('postgresql.conf', "shared_preload_libraries = 'nvm_am'\nnvm_am.pool_path = '$pool'\nnvm_am.pool_size = '64MB'\n");
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION nvm_am');
is($node->safe_psql('postgres', 'SELECT 1'), '1', 'server up');
$node->stop;
unlink $pool;
done_testing();
