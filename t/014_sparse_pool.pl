# 014_sparse_pool.pl - a pool file with holes on a file system without the
# space to fill them.  A copy made with cp --sparse=always (or rsync -S,
# tar -S) maps fine, but the first store into a hole on a full file system
# is a SIGBUS: in the postmaster at start, or in a backend at its next
# insert, restarting the whole server.  The server must allocate the whole
# pool at start or refuse with a clear message; with space enough, the
# copy works and holds the data.
#
# Needs a small file system: scripts/test.sh mounts a 96 MB tmpfs when it
# runs as root and passes it in NVM_SMALL_FS; without one the test skips.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use NvmProc;

my $small = $ENV{NVM_SMALL_FS} // '';
plan skip_all => 'no small file system (NVM_SMALL_FS; scripts/test.sh mounts one as root)'
  unless $small ne '' && -d $small && -w $small;

my $node = nvm_node('sparse', '');
sub sql { return $node->safe_psql('postgres', $_[0]); }

sql(q{
CREATE EXTENSION nvm_am;
CREATE TABLE t (a int PRIMARY KEY, pad text) USING nvm_am;
INSERT INTO t SELECT g, repeat('x', 100) FROM generate_series(1, 2000) g;
});
my $pool = sql(q{SELECT path FROM nvm_am.nvm_am_pool_info()});
my $size = -s $pool;
$node->stop;

# the 64 MB pool, copied with holes, onto the 96 MB file system
my $copy = "$small/copy.pool";
system('cp', '--sparse=always', $pool, $copy) == 0 or die "cp: $?";
my $blocks = (stat($copy))[12] * 512;
cmp_ok($blocks, '<', $size, "the copy has holes ($blocks of $size bytes allocated)");
# leave less free space than the holes need
my $filler = "$small/filler";
system('dd', 'if=/dev/zero', "of=$filler", 'bs=1M', 'count=40', 'status=none') == 0 or die "dd: $?";

$node->append_conf('postgresql.conf', "nvm_am.pool_path = '$copy'\n");
my $off = -s $node->logfile;
ok(!$node->start(fail_ok => 1), 'the server does not start on the copy');
my $log = substr(slurp_file($node->logfile), $off);
like($log, qr/FATAL:  could not allocate the space of nvm_am pool file "\Q$copy\E" \($size bytes\): No space left on device/,
	'FATAL names the pool, its size and the reason');
like($log, qr/HINT:  Free space on the file system holding the pool/, 'HINT says what to do');
unlike($log, qr/Bus error|terminated by signal 7|PANIC/, 'no bus error, no PANIC');

# with the space freed the copy starts and holds the rows
unlink $filler;
$node->start;
is(sql(q{SELECT count(*), sum(a) FROM t}), '2000|2001000', 'the rows are in the copy');
sql(q{INSERT INTO t SELECT g, repeat('y', 100) FROM generate_series(2001, 4000) g});
is(sql(q{SELECT count(*) FROM t}), '4000', 'inserts work');
is((stat($copy))[12] * 512 >= $size ? 1 : 0, 1, 'the copy is fully allocated now');
is(sql(q{SELECT count(*) FROM nvm_am.nvm_am_check('t')}), '0', 'nvm_am_check clean');
$node->stop;
unlink $copy;

done_testing();
