# 001_pool_errors.pl - the server must refuse to start on a pool file it
# cannot trust, with a FATAL message that names the file and a HINT, and
# must never reinitialise such a file.  Also: a missing preload, absurd
# settings, and a working pool on an ordinary (non-pmem) file.

use strict;
use warnings;
use File::Copy qw(copy);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use NvmProc;

# ---------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------

# struct NvmPoolHeader (nvm_pool.c), little-endian, 128 bytes with padding
my $HDR_FMT = 'Q< L< L< Q< Q< Q< Q< Q< Q< Q< L< L< Q< Q< Q< Q< q< L<';
my @HDR_FIELDS = qw(magic format_version frame_size system_identifier
  pool_size dir_offset dir_entries frames_offset nframes logs_offset log_size log_share
  xact_offset xact_slots clog_offset clog_entries created_at checksum);
my $CRC_OFFSET = 120;    # offsetof(NvmPoolHeader, checksum)
my $NVM_POOL_MAGIC = unpack('Q<', '1NVMPOOL');    # 0x4C4F4F504D564E31
my $MB = 1024 * 1024;



sub read_header
{
	my ($path) = @_;
	my %h;
	@h{@HDR_FIELDS} = unpack($HDR_FMT, read_bytes($path, 0, 128));
	return \%h;
}

# Rewrite the header with some fields changed and a correct checksum.
sub rewrite_header
{
	my ($path, %change) = @_;
	my $h = read_header($path);
	$h->{$_} = $change{$_} for keys %change;
	my $raw = pack($HDR_FMT, @{$h}{@HDR_FIELDS});
	my $body = substr($raw, 0, $CRC_OFFSET);
	write_bytes($path, 0, $body . pack('L<', crc32c($body)));
	return;
}

# The whole content of a file (64MB pools are cheap to compare in memory).
sub contents
{
	my ($path) = @_;
	open(my $fh, '<:raw', $path) or return 'absent';
	local $/;
	my $data = <$fh>;
	close $fh;
	return $data;
}

sub same_contents
{
	my ($path, $expected, $name) = @_;
	# not is(): a failure must not print 64MB
	ok(contents($path) eq $expected, $name);
	return;
}

# Start $node expecting failure; return the part of the log it wrote.
sub start_fails
{
	my ($node, $what) = @_;
	my $off = -s $node->logfile;
	ok(!$node->start(fail_ok => 1), "$what: server does not start");
	return substr(slurp_file($node->logfile), $off);
}

# ---------------------------------------------------------------------
# A cluster with a pool holding one committed table
# ---------------------------------------------------------------------

my $pool = "/dev/shm/nvm_am_tap_001_$$.pool";
my $good = "/dev/shm/nvm_am_tap_001_$$.good";
my $rodir = "/dev/shm/nvm_am_tap_001_$$.rodir";
my $pooldir = "/dev/shm/nvm_am_tap_001_$$.isdir";
my $fresh = "/dev/shm/nvm_am_tap_001_$$.fresh";
END { unlink $pool, $good, $fresh, "$pool.init"; rmdir $pooldir; rmdir $rodir; }

my $node = PostgreSQL::Test::Cluster->new('main');
$node->init;
my $base_conf = "shared_preload_libraries = 'nvm_am'\n"
  . "nvm_am.pool_path = '$pool'\n"
  . "nvm_am.pool_size = '64MB'\n"
  . "nvm_am.ipl_log_size = '4kB'\n"
  . "nvm_am.merge_cache_size = '8MB'\n";
$node->append_conf('postgresql.conf', $base_conf);
$node->start;
$node->safe_psql(
	'postgres', q{
	CREATE EXTENSION nvm_am;
	CREATE TABLE t (id int PRIMARY KEY, v text) USING nvm_am;
	INSERT INTO t SELECT g, 'row ' || g FROM generate_series(1, 500) g;
});
my $expected_data = '500|125250';
is($node->safe_psql('postgres', 'SELECT count(*), sum(id) FROM t'),
	$expected_data, 'committed rows in the pool');
is( $node->safe_psql(
		'postgres',
		'SELECT path, size, format_version FROM nvm_am.nvm_am_pool_info()'),
	"$pool|" . (64 * $MB) . "|7",
	'nvm_am_pool_info reports the configured pool');
my $sysid = $node->safe_psql('postgres',
	'SELECT system_identifier FROM pg_control_system()');
$node->stop;

copy($pool, $good) or die "copy $pool: $!";

# The header layout used below must be the one the extension writes.
is(sprintf('%08x', crc32c('123456789')), 'e3069283', 'CRC-32C check value');
{
	my $h = read_header($good);
	is($h->{magic}, $NVM_POOL_MAGIC, 'header: magic at offset 0');
	is($h->{format_version}, 7, 'header: format_version at offset 8');
	is($h->{frame_size}, 8192, 'header: frame_size at offset 12');
	is($h->{system_identifier}, $sysid, 'header: system_identifier at offset 16');
	is($h->{pool_size}, 64 * $MB, 'header: pool_size at offset 24');
	is($h->{checksum}, crc32c(read_bytes($good, 0, $CRC_OFFSET)),
		'header: CRC-32C of the first 120 bytes at offset 120');
	is($h->{log_size}, 4096, 'header: log_size (nvm_am.ipl_log_size) at offset 72');
	is($h->{logs_offset}, $h->{frames_offset} + $h->{nframes} * 8192, 'header: the log areas follow the frames');
	is($h->{log_share}, 8, 'header: one frame in 8 has a log area (log_share at offset 76)');
	cmp_ok($h->{logs_offset} + int(($h->{nframes} + 7) / 8) * 4096, '<=', $h->{pool_size},
		'header: the log frames\' log areas fit the pool');
	cmp_ok($h->{logs_offset} + int(($h->{nframes} + 7) / 8 + 2) * 4096 + 8192, '>', $h->{pool_size},
		'header: the frames fill the pool');
	is($h->{xact_slots} . ',' . $h->{clog_entries}, '1024,16384', 'header: transaction slots and commit-log entries');
	is($h->{clog_offset}, $h->{xact_offset} + 1024 * 64, 'header: the commit log follows the slots');
	cmp_ok($h->{frames_offset}, '>=', $h->{clog_offset} + 16384 * 64, 'header: the frames follow the commit log');
	is(-s $good, 64 * $MB, 'pool file has the configured size');
}

# ---------------------------------------------------------------------
# Bad pool files: refuse, name the file, give a hint, leave the file alone
# ---------------------------------------------------------------------

sub pool_refused
{
	my (%c) = @_;
	my $name = $c{name};

	copy($good, $pool) or die "copy: $!";
	$c{damage}->();
	my $before = contents($pool);

	my $log = start_fails($node, $name);
	like($log, qr/FATAL:  nvm_am pool file "\Q$pool\E" $c{msg}\n/,
		"$name: FATAL names the file");
	like($log, $c{detail}, "$name: DETAIL") if $c{detail};
	like($log, qr/HINT:  \Q$c{hint}\E/, "$name: HINT");
	unlike($log, qr/created pool file/, "$name: no new pool created");
	same_contents($pool, $before, "$name: pool file unchanged");
	ok(!-e "$pool.init", "$name: no temporary pool file left");
	return;
}

my $move_hint = 'Point nvm_am.pool_path at the right pool file, or move this file away';

pool_refused(
	name => 'empty file',
	damage => sub { truncate($pool, 0) or die $! },
	msg => 'is empty',
	hint => $move_hint);

pool_refused(
	name => 'file shorter than a header',
	damage => sub { truncate($pool, 40) or die $! },
	msg => 'is truncated',
	detail => qr/DETAIL:  The file has 40 bytes, less than a pool header/,
	hint => $move_hint);

pool_refused(
	name => 'bad magic',
	damage => sub { write_bytes($pool, 0, 'NOTAPOOL') },
	msg => 'is not an nvm_am pool',
	hint => $move_hint);

pool_refused(
	name => 'header byte changed, checksum not',
	damage => sub {
		my $h = read_header($pool);
		write_bytes($pool, 64, pack('q<', $h->{created_at} + 1));
	},
	msg => 'has a corrupt header',
	hint => $move_hint);

pool_refused(
	name => 'checksum damaged',
	damage => sub {
		my $h = read_header($pool);
		write_bytes($pool, $CRC_OFFSET, pack('L<', $h->{checksum} ^ 1));
	},
	msg => 'has a corrupt header',
	hint => $move_hint);

# an older format version and a newer one
for my $v (1, 8)
{
	pool_refused(
		name => "format version $v",
		damage => sub { rewrite_header($pool, format_version => $v) },
		msg => 'has an unsupported format version',
		detail => qr/DETAIL:  The file has format version $v, this build of nvm_am reads versions 5 to 7\./,
		hint => 'Use the nvm_am version that created the pool');
}

pool_refused(
	name => 'no frame with a log area',
	damage => sub { rewrite_header($pool, log_share => 0) },
	msg => 'has an inconsistent layout',
	detail => qr/DETAIL:  The header says 1 frame in 0 has a log area\./,
	hint => $move_hint);

pool_refused(
	name => 'system identifier of another cluster',
	damage => sub { rewrite_header($pool, system_identifier => $sysid ^ 0xFF) },
	msg => 'belongs to another database cluster',
	detail => qr/DETAIL:  The pool was created by the cluster with system identifier \d+, this cluster's is $sysid\./,
	hint => $move_hint);

pool_refused(
	name => 'file truncated to half',
	damage => sub { truncate($pool, 32 * $MB) or die $! },
	msg => 'is truncated',
	detail => qr/DETAIL:  The header and the pool's extents record ${\(64 * $MB)} bytes, the file has ${\(32 * $MB)}\./,
	hint => $move_hint);

# an intact pool, but nvm_am.pool_size asks for less: a pool cannot shrink
# (asking for more grows it: t/016)
$node->append_conf('postgresql.conf', "nvm_am.pool_size = '32MB'\n");
pool_refused(
	name => 'configured size smaller',
	damage => sub { },
	msg => 'is larger than nvm_am.pool_size',
	detail => qr/DETAIL:  The pool has ${\(64 * $MB)} bytes, nvm_am.pool_size asks for ${\(32 * $MB)}; a pool cannot shrink\./,
	hint => "Set nvm_am.pool_size = '64MB' or more (a larger value grows the pool).");
$node->append_conf('postgresql.conf', "nvm_am.pool_size = '64MB'\n");

# an intact pool, but nvm_am.ipl_log_size asks for another log size
$node->append_conf('postgresql.conf', "nvm_am.ipl_log_size = '512B'\n");
pool_refused(
	name => 'configured log size differs',
	damage => sub { },
	msg => 'has another in-page log size',
	detail => qr/DETAIL:  The pool was created with nvm_am.ipl_log_size = 4096 bytes, the setting is 512 bytes\./,
	hint => "Set nvm_am.ipl_log_size = '4096B' to use this pool");
$node->append_conf('postgresql.conf', "nvm_am.ipl_log_size = '4kB'\n");

# pool_path naming a directory
mkdir $pooldir or die "mkdir $pooldir: $!";
$node->append_conf('postgresql.conf', "nvm_am.pool_path = '$pooldir'\n");
{
	my $log = start_fails($node, 'pool path is a directory');
	like($log, qr/FATAL:  nvm_am pool file "\Q$pooldir\E" is not a regular file\n/,
		'pool path is a directory: FATAL names the file');
	like($log, qr/HINT:  /, 'pool path is a directory: HINT');
}
rmdir $pooldir;

# cannot create: directory not writable, directory missing
mkdir $rodir or die "mkdir $rodir: $!";
chmod 0555, $rodir or die "chmod $rodir: $!";
for my $case (
	[ 'directory not writable', $rodir,                qr/Permission denied/ ],
	[ 'directory missing',      "$rodir/missing/deeper", qr/No such file or directory/ ])
{
	my ($name, $dir, $errno) = @$case;
	my $path = "$dir/nvm.pool";
	$node->append_conf('postgresql.conf', "nvm_am.pool_path = '$path'\n");
	my $log = start_fails($node, $name);
	like($log,
		qr/FATAL:  could not create nvm_am pool file "\Q$path\E" of ${\(64 * $MB)} bytes: $errno\n/,
		"$name: FATAL names the file and the reason");
	like($log, qr/HINT:  Make sure directory "\Q$dir\E" exists and is writable/,
		"$name: HINT names the directory");
	ok(!-e $path && !-e "$path.init", "$name: no file left behind");
}
rmdir $rodir;
$node->append_conf('postgresql.conf', "nvm_am.pool_path = '$pool'\n");

# nvm_am.persist_trace naming no directory the server can write into: a
# FATAL at start that names the setting, not a PANIC at every first flush
for my $case (
	[ 'persist_trace missing', "/dev/shm/nvm_am_tap_001_$$.notrace", qr/The directory does not exist\./ ],
	[ 'persist_trace a file',  $pool, qr/It is not a directory\./ ])
{
	my ($name, $dir, $detail) = @$case;
	$node->append_conf('postgresql.conf', "nvm_am.persist_trace = '$dir'\n");
	my $log = start_fails($node, $name);
	like($log, qr/FATAL:  invalid value for parameter "nvm_am.persist_trace": "\Q$dir\E"\n/,
		"$name: FATAL names the setting and the path");
	like($log, $detail, "$name: DETAIL says why");
	unlike($log, qr/PANIC/, "$name: no PANIC");
}
$node->append_conf('postgresql.conf', "nvm_am.persist_trace = ''\n");

# ---------------------------------------------------------------------
# Another cluster pointed at this cluster's pool
# ---------------------------------------------------------------------

copy($good, $pool) or die "copy: $!";
my $other = PostgreSQL::Test::Cluster->new('other');
$other->init;
$other->append_conf('postgresql.conf', $base_conf);

# while this cluster runs: the file lock refuses the second server
$node->start;
{
	my $before = contents($pool);
	my $log = start_fails($other, 'pool in use by a running server');
	same_contents($pool, $before, 'pool in use: pool file unchanged by the refused server');
	like($log, qr/FATAL:  nvm_am pool file "\Q$pool\E" is in use by another server\n/,
		'pool in use: FATAL names the file');
	like($log, qr/HINT:  Each cluster needs its own pool/, 'pool in use: HINT');
	is($node->safe_psql('postgres', 'SELECT count(*), sum(id) FROM t'),
		$expected_data, 'pool in use: the owning server is unaffected');
	$node->stop;
}

# while it is stopped: the header refuses the other cluster
{
	my $before = contents($pool);
	my $log = start_fails($other, 'pool of another cluster');
	like($log, qr/FATAL:  nvm_am pool file "\Q$pool\E" belongs to another database cluster\n/,
		'pool of another cluster: FATAL names the file');
	like($log, qr/DETAIL:  The pool was created by the cluster with system identifier $sysid, this cluster's is \d+\./,
		'pool of another cluster: DETAIL names both clusters');
	like($log, qr/HINT:  \Q$move_hint\E/, 'pool of another cluster: HINT');
	same_contents($pool, $before, 'pool of another cluster: pool file unchanged');
}

# after all refusals the original pool still holds the data
$node->start;
is($node->safe_psql('postgres', 'SELECT count(*), sum(id) FROM t'),
	$expected_data, 'original pool intact after all refused starts');
is($node->safe_psql('postgres', "SELECT v FROM t WHERE id = 321"),
	'row 321', 'index lookup in the original pool');

# pools of format versions 5 (before PRUNE_FILL records) and 6 (before
# DELTA records) are read, and kept readable by the builds of their
# version: a version 5 pool's prunes write PRUNE records, compacted as heap
# compacts, and its changes patch records; a version 6 pool's prunes write
# PRUNE_FILL records; a version 7 pool's changes are DELTA records where
# that is shorter
sub record_kinds
{
	$node->safe_psql('postgres', q{
		DROP TABLE IF EXISTS hot;
		CREATE TABLE hot (id int PRIMARY KEY, v int, pad char(100)) USING nvm_am;
		INSERT INTO hot SELECT g, 0, 'x' FROM generate_series(1, 60) g;});
	$node->safe_psql('postgres', 'UPDATE hot SET v = v + 1') for 1 .. 5;
	return $node->safe_psql('postgres', q{
		SELECT string_agg(DISTINCT kind, ',' ORDER BY kind)
		FROM nvm_am.nvm_am_page_log('hot', 0) WHERE kind <> 'patch'});
}
is(record_kinds(), 'delta,prune_fill',
	'a version 7 pool: DELTA records, prunes write PRUNE_FILL records');
$node->stop;
for my $old ([ 6, 'prune_fill', 'PRUNE_FILL records, no DELTA records' ],
	[ 5, 'prune', 'PRUNE records, no DELTA records' ])
{
	my ($v, $kinds, $what) = @$old;
	copy($good, $pool) or die "copy: $!";
	rewrite_header($pool, format_version => $v);
	$node->start;
	is($node->safe_psql('postgres', 'SELECT format_version FROM nvm_am.nvm_am_pool_info()'),
		$v, "a version $v pool starts and keeps its version");
	is($node->safe_psql('postgres', 'SELECT count(*), sum(id) FROM t'),
		$expected_data, "version $v: its rows are read");
	is(record_kinds(), $kinds, "version $v: $what");
	is($node->safe_psql('postgres', q{SELECT count(*), sum(v) FROM hot}), '60|300',
		"version $v: the updated rows");
	is($node->safe_psql('postgres', q{SELECT count(*) FROM nvm_am.nvm_am_check('hot')}), '0',
		"version $v: nvm_am_check of the updated table: sound");
	$node->stop;
}
# ---------------------------------------------------------------------
# The pool file gone (a pool on tmpfs after a reboot of the machine): the
# server starts with a new, empty pool, and every nvm_am table it had is
# an ERROR that names it and says what to do, not an empty table; a new
# table works, an old one can be dropped, and the original file put back
# gives every row back
# ---------------------------------------------------------------------

unlink $pool or die "unlink $pool: $!";
$node->start;
ok(-f $pool, 'pool gone: the server starts and creates a new pool');
{
	my ($ret, $out, $err) = $node->psql('postgres', 'SELECT count(*) FROM t');
	isnt($ret, 0, 'pool gone: reading a table it held fails');
	like($err, qr/ERROR:  nvm_am storage of relation "t" is missing from the pool\n/,
		'pool gone: the error names the table');
	like($err, qr/HINT:  The pool file was replaced or recreated after the table was created\. Restore the original pool file, or drop the table\./,
		'pool gone: the hint says what to do');
	is($out, '', 'pool gone: no rows (no empty count)');
	($ret, $out, $err) = $node->psql('postgres', 'INSERT INTO t VALUES (0, \'x\')');
	like($err, qr/is missing from the pool/, 'pool gone: writing to it fails the same way');
	is($node->safe_psql('postgres', q{CREATE TABLE fresh_t USING nvm_am AS SELECT 1 AS a;
		SELECT a FROM fresh_t}), '1', 'pool gone: a new table works');
	$node->safe_psql('postgres', q{CREATE TABLE gone_t (a int) USING nvm_am; DROP TABLE fresh_t});
}
$node->stop;
copy($good, $pool) or die "copy: $!";
$node->start;
is($node->safe_psql('postgres', 'SELECT count(*), sum(id) FROM t'),
	$expected_data, 'the original pool put back: every row is back');
# gone_t's storage was in the new pool: missing now, and it can be dropped
my ($dret) = $node->psql('postgres', 'DROP TABLE gone_t');
is($dret, 0, 'a table whose storage is missing from the pool can be dropped');

# ---------------------------------------------------------------------
# Absurd settings: the server must refuse to start, not fall back to the
# default and create a pool somewhere else.
# ---------------------------------------------------------------------

$node->stop;
for my $case (
	[ 'pool_size', "'-1'",   $fresh ],
	[ 'pool_size', "'10TB'", $fresh ],
	[ 'pool_size', "'abc'",  $fresh ],
	[ 'ipl_log_size', "'100B'", $fresh ],
	[ 'ipl_log_size', "'1MB'",  $fresh ],
	[ 'ipl_log_size', "'300B'", $fresh ],
	[ 'merge_cache_size', "'10kB'", $fresh ],
	[ 'merge_cache_size', "'x'",    $fresh ],
	[ 'pool_path', "''",     $node->data_dir . '/pg_nvm/nvm_am.pool' ])
{
	my ($guc, $value, $created) = @$case;
	my $name = "nvm_am.$guc = $value";
	$node->append_conf('postgresql.conf',
		$guc ne 'pool_path'
		? "nvm_am.pool_path = '$fresh'\nnvm_am.$guc = $value\n"
		: "nvm_am.$guc = $value\n");

	my $off = -s $node->logfile;
	my $started = $node->start(fail_ok => 1);
	my $log = substr(slurp_file($node->logfile), $off);
	my $made_pool = -e $created;
	$node->stop if $started;
	unlink $created;

	like($log, qr/nvm_am\.$guc/, "$name: the log names the setting");
	ok(!$started, "$name: server does not start");
	ok(!$made_pool, "$name: no pool created with the default value");
	like($log, qr/FATAL:  .*nvm_am\.$guc/,
		"$name: the refusal is an error, not a warning");
	$node->append_conf('postgresql.conf', $base_conf);
}

# ---------------------------------------------------------------------
# Without shared_preload_libraries
# ---------------------------------------------------------------------

$node->append_conf('postgresql.conf', "shared_preload_libraries = ''\n");
$node->start;
my $preload_msg = qr/ERROR:  nvm_am must be loaded via shared_preload_libraries\n(?:.*\n)*?HINT:  Add nvm_am to shared_preload_libraries in postgresql.conf/;
$node->safe_psql('postgres', 'CREATE DATABASE nopreload');
{
	my ($ret, $out, $err) = $node->psql('nopreload', 'CREATE EXTENSION nvm_am');
	isnt($ret, 0, 'no preload: CREATE EXTENSION fails');
	like($err, $preload_msg, 'no preload: CREATE EXTENSION says why and how to fix it');
	is($node->safe_psql('nopreload',
			"SELECT count(*) FROM pg_extension WHERE extname = 'nvm_am'"),
		'0', 'no preload: extension not created');

	($ret, $out, $err) = $node->psql('nopreload', "LOAD 'nvm_am'");
	isnt($ret, 0, 'no preload: LOAD fails');
	like($err, $preload_msg, 'no preload: LOAD says why and how to fix it');

	($ret, $out, $err) = $node->psql('postgres', 'SELECT count(*) FROM t');
	isnt($ret, 0, 'no preload: reading an existing nvm_am table fails');
	like($err, $preload_msg, 'no preload: reading says why and how to fix it');

	is($node->safe_psql('postgres', 'SELECT 42'), '42', 'no preload: server still serves queries');
}
$node->stop;
$node->append_conf('postgresql.conf', $base_conf);
$node->start;
is($node->safe_psql('postgres', 'SELECT count(*), sum(id) FROM t'),
	$expected_data, 'data intact after running without the preload');
$node->stop;

# ---------------------------------------------------------------------
# Default pool path in the data directory, ordinary file (msync path)
# ---------------------------------------------------------------------

my $plain = PostgreSQL::Test::Cluster->new('plain');
$plain->init;
$plain->append_conf('postgresql.conf',
	"shared_preload_libraries = 'nvm_am'\nnvm_am.pool_size = '64MB'\n");
my $default_pool = $plain->data_dir . '/pg_nvm/nvm_am.pool';
{
	# without the emulation setting a file outside DAX is not pmem; every
	# flush is an msync to the disk, so keep the data small
	delete local $ENV{PMEM_IS_PMEM_FORCE};

	my $off = -s $plain->logfile;
	$plain->start;
	like(substr(slurp_file($plain->logfile), $off),
		qr/LOG:  nvm_am created pool file "\Q$default_pool\E" of ${\(64 * $MB)} bytes \(\d+ page frames, msync\)/,
		'default path: pool created in the data directory, msync mode');
	ok(-f $default_pool, 'default path: pool file is a regular file');
	is(-s $default_pool, 64 * $MB, 'default path: pool file has the configured size');

	$plain->safe_psql('postgres', 'CREATE EXTENSION nvm_am');
	is( $plain->safe_psql(
			'postgres',
			'SELECT path, size, format_version, is_pmem, emulated FROM nvm_am.nvm_am_pool_info()'),
		"$default_pool|" . (64 * $MB) . "|7|f|f",
		'default path: nvm_am_pool_info reports an ordinary file');

	$plain->safe_psql(
		'postgres', q{
		CREATE TABLE p (id int PRIMARY KEY, v text) USING nvm_am;
		INSERT INTO p SELECT g, repeat('x', g % 50) FROM generate_series(1, 400) g;
		UPDATE p SET v = 'updated' WHERE id % 10 = 0;
		DELETE FROM p WHERE id % 7 = 0;
	});
	my $q = q{SELECT count(*), sum(id), count(*) FILTER (WHERE v = 'updated'),
			  md5(string_agg(id || ':' || v, ',' ORDER BY id)) FROM p};
	my $before = $plain->safe_psql('postgres', $q);
	like($before, qr/^343\|/, 'default path: rows written');
	cmp_ok(
		$plain->safe_psql('postgres',
			"SELECT value FROM nvm_am.nvm_am_stats WHERE name = 'pmem_flushes'"),
		'>', 0, 'default path: flushes counted');

	$plain->restart;
	is($plain->safe_psql('postgres', $q), $before, 'default path: data survives a restart');
	is($plain->safe_psql('postgres', 'SELECT v FROM p WHERE id = 390'),
		'updated', 'default path: index lookup after restart');
	is($plain->safe_psql('postgres', 'SELECT is_pmem FROM nvm_am.nvm_am_pool_info()'),
		'f', 'default path: still msync mode after restart');

	# nvm_am makes the WAL writer flush what it writes (nvm_commit.c says
	# why) only where the configuration leaves wal_writer_flush_after
	# alone: a configured value wins, at reload and at restart.
	my $wwfa = q{SELECT setting || ':' || source FROM pg_settings
				 WHERE name = 'wal_writer_flush_after'};
	is($plain->safe_psql('postgres', $wwfa), '0:default',
		'wal_writer_flush_after: 0 by default under nvm_am');
	$plain->append_conf('postgresql.conf', "wal_writer_flush_after = 32\n");
	$plain->reload;
	is($plain->poll_query_until('postgres',
			"SELECT setting = '32' FROM pg_settings WHERE name = 'wal_writer_flush_after'"),
		1, 'wal_writer_flush_after: a value in postgresql.conf wins at reload');
	$plain->restart;
	is($plain->safe_psql('postgres', $wwfa), '32:configuration file',
		'wal_writer_flush_after: and at restart');
	$plain->stop;
}

done_testing();
