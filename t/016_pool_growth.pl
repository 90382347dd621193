# 016_pool_growth.pl - a pool grows when nvm_am.pool_size is raised and the
# server restarted; it never shrinks.  Growing adds an extent (frames and
# their log areas) after the pool's end in three durable steps; a crash
# after any of them (injected with NVM_AM_TEST_GROWTH_CRASH, a SIGKILL of
# the postmaster while it grows the pool) leaves a pool that the next start
# grows the rest of the way, with every row intact.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use NvmProc;

my $MB = 1024 * 1024;
my $node = nvm_node('grow', "nvm_am.merge_cache_size = '4MB'\n");
sub sql { return $node->safe_psql('postgres', $_[0]); }
sub info { return sql(q{SELECT size, frames_total, frames_used FROM nvm_am.nvm_am_pool_info()}); }

sql(q{CREATE EXTENSION nvm_am;
      CREATE TABLE t (id int PRIMARY KEY, pad text) USING nvm_am;});
my $pool = sql(q{SELECT path FROM nvm_am.nvm_am_pool_info()});
my ($size0, $total0) = split /\|/, info();
is($size0, 64 * $MB, 'the pool starts at 64 MB');

# fill it: the pool refuses more rows, and says how to get room
my $rows = 0;
my ($ret, $out, $err);
while (1)
{
	($ret, $out, $err) = $node->psql('postgres',
		"INSERT INTO t SELECT g, repeat('x', 1000) FROM generate_series($rows + 1, $rows + 2000) g");
	last if $ret != 0;
	$rows += 2000;
}
like($err, qr/ERROR:  nvm_am pool is full/, "the pool is full after $rows rows");
like($err, qr/HINT:  .*raise nvm_am.pool_size and restart the server: the pool grows/,
	'the hint says the pool grows');
my $sum = sql(q{SELECT count(*), sum(id) FROM t});

# grow it to 96 MB
$node->stop;
$node->append_conf('postgresql.conf', "nvm_am.pool_size = '96MB'\n");
my $logoff = -s $node->logfile;
$node->start;
like(substr(slurp_file($node->logfile), $logoff),
	qr/LOG:  nvm_am pool file "\Q$pool\E" grew from ${\(64 * $MB)} to \d+ bytes: \d+ page frames added/,
	'the start logs the growth');
my ($size1, $total1) = split /\|/, info();
cmp_ok($total1, '>', $total0, "more frames: $total0 -> $total1");
# one frame in 8 of the extent has a log area, as in the pool's first part
my ($logs1, $logsfree1) = split /\|/,
  sql(q{SELECT log_frames_total, log_frames_free FROM nvm_am.nvm_am_pool_info()});
cmp_ok(abs($logs1 * 8 - $total1), '<', 16, "one frame in 8 is a log frame: $logs1 of $total1");
cmp_ok($logsfree1, '>', ($total1 - $total0) / 8 - 2, 'the log frames of the extent are free');
cmp_ok($size1, '<=', 96 * $MB, 'the pool is at most the configured size');
is(sql(q{SELECT count(*), sum(id) FROM t}), $sum, 'the rows are intact');
sql("INSERT INTO t SELECT g, repeat('y', 1000) FROM generate_series($rows + 1, $rows + 2000) g");
$rows += 2000;
my (undef, undef, $used1) = split /\|/, info();
cmp_ok($used1, '>', $total0, 'the new frames are in use');
is(sql(q{SELECT count(*) FROM nvm_am.nvm_am_check('t')}), '0', 'nvm_am_check clean');
$node->restart;
is(sql(q{SELECT count(*) FROM t}), $rows, 'the rows in the new frames survive a restart');

# shrinking is refused, clearly; the pool stays as it is
$node->stop;
$node->append_conf('postgresql.conf', "nvm_am.pool_size = '64MB'\n");
$logoff = -s $node->logfile;
ok(!$node->start(fail_ok => 1), 'a smaller nvm_am.pool_size: the server does not start');
like(substr(slurp_file($node->logfile), $logoff),
	qr/FATAL:  nvm_am pool file "\Q$pool\E" is larger than nvm_am.pool_size\n.*DETAIL:  The pool has $size1 bytes, nvm_am.pool_size asks for ${\(64 * $MB)}; a pool cannot shrink\./s,
	'FATAL says a pool cannot shrink');
is(-s $pool, $size1, 'the pool file is unchanged');

# a crash (SIGKILL of the postmaster) after each step of growing
my $target = 96;
for my $step (1, 2, 3)
{
	$target += 32;
	$node->append_conf('postgresql.conf', "nvm_am.pool_size = '${target}MB'\n");
	$ENV{NVM_AM_TEST_GROWTH_CRASH} = $step;
	ok(!$node->start(fail_ok => 1), "crash after step $step of growing to $target MB: the start dies");
	delete $ENV{NVM_AM_TEST_GROWTH_CRASH};
	$node->start;
	my ($size, $total) = split /\|/, info();
	cmp_ok($size, '>', 96 * $MB, "crash after step $step: the pool grew ($size bytes, $total frames)");
	cmp_ok($size, '<=', $target * $MB, "crash after step $step: not beyond the configured size");
	is(sql(q{SELECT count(*) FROM t}), $rows, "crash after step $step: the rows are intact");
	sql("INSERT INTO t SELECT g, repeat('z', 1000) FROM generate_series($rows + 1, $rows + 1000) g");
	$rows += 1000;
	is(sql(q{SELECT count(*) FROM nvm_am.nvm_am_check('t')}), '0', "crash after step $step: nvm_am_check clean");
	$node->stop;
}
$node->start;
is(sql(q{SELECT count(*) FROM t}), $rows, 'every row at the end');
unlike(slurp_file($node->logfile), qr/PANIC|TRAP/, 'no PANIC or TRAP');
$node->stop;

done_testing();
