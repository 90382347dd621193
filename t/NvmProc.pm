# NvmProc - helpers for the crash tests: the postmaster's pid, its
# children and their state, read from /proc; a crash and restart of a
# node; a counter of nvm_am_stats; raw reads and writes of bytes
# in a file (to inspect or damage a pool file); a started node with nvm_am
# preloaded; a WAL-mode node and the archiving of its WAL; VACUUM
# VERBOSE's lines on index scans; a throttled VACUUM; a stopped WAL writer.
package NvmProc;

use strict;
use warnings;
use Exporter 'import';

our @EXPORT = qw(proc_stat postmaster_pid children_of wait_gone kill_server crash_restart nvm_stat read_bytes write_bytes
  nvm_node wal_node archive_current_wal pool_layout pool_dir_entry pool_pt_root pool_pte pool_log_records vacuum_index_lines
  throttled_vacuum crc32c_add crc32c $WALWRITER_IDLE_CONF with_walwriter_stopped
  pgbench_scripts start_pgbench finish_pgbench);

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;

# CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), one byte at a time
my @crc32c_table = map {
	my $c = $_;
	$c = ($c & 1) ? (($c >> 1) ^ 0x82F63B78) : ($c >> 1) for 1 .. 8;
	$c;
} 0 .. 255;

# crc32c_add CRC, BYTES - the CRC-32C register CRC advanced over BYTES
sub crc32c_add
{
	my ($crc, $bytes) = @_;
	$crc = $crc32c_table[ ($crc ^ $_) & 0xFF ] ^ ($crc >> 8) for unpack('C*', $bytes);
	return $crc;
}

# crc32c BYTES - CRC-32C as PostgreSQL's pg_crc32c computes it: init
# 0xFFFFFFFF, final xor 0xFFFFFFFF
sub crc32c
{
	return crc32c_add(0xFFFFFFFF, $_[0]) ^ 0xFFFFFFFF;
}

# pool files of the nodes made here, removed when the test ends
my @pools;
END { unlink @pools; }

# proc_stat PID - (state, parent pid) of a process (comm may hold spaces)
sub proc_stat
{
	my ($pid) = @_;
	open(my $fh, '<', "/proc/$pid/stat") or return;
	my $line = <$fh>;
	close $fh;
	return unless defined $line && $line =~ /\)\s+(\S)\s+(\d+)/;
	return ($1, $2);
}

# postmaster_pid NODE - the pid in the node's postmaster.pid
sub postmaster_pid
{
	my ($node) = @_;
	open(my $fh, '<', $node->data_dir . '/postmaster.pid') or die "postmaster.pid: $!";
	my $pid = <$fh>;
	close $fh;
	chomp $pid;
	return $pid;
}

# children_of PID - the pids whose parent is PID
sub children_of
{
	my ($parent) = @_;
	return grep {
		my ($state, $ppid) = proc_stat($_);
		defined $ppid && $ppid == $parent
	} map { m{^/proc/(\d+)$} ? $1 : () } glob('/proc/[0-9]*');
}

# wait_gone PM CHILDREN... - wait (up to 30 s) until the killed postmaster
# is reaped (its pid is in postmaster.pid) and every child is at most a
# zombie (a dead child holds no shared memory or file lock); true if so
sub wait_gone
{
	my ($pm, @children) = @_;
	for (1 .. 300)
	{
		my $left = grep {
			my ($state) = proc_stat($_);
			defined $state && $state ne 'Z'
		} @children;
		return 1 if !-e "/proc/$pm" && $left == 0;
		select(undef, undef, undef, 0.1);
	}
	return 0;
}

# read_bytes PATH, OFFSET, LEN - LEN bytes of a file from OFFSET
sub read_bytes
{
	my ($path, $off, $len) = @_;
	open(my $fh, '<:raw', $path) or die "open $path: $!";
	sysseek($fh, $off, 0) or die "seek $path: $!";
	my $n = sysread($fh, my $buf, $len);
	die "read $path: $!" unless defined $n && $n == $len;
	close $fh;
	return $buf;
}

# write_bytes PATH, OFFSET, BYTES - overwrite bytes of a file in place
sub write_bytes
{
	my ($path, $off, $bytes) = @_;
	open(my $fh, '+<:raw', $path) or die "open $path: $!";
	sysseek($fh, $off, 0) or die "seek $path: $!";
	syswrite($fh, $bytes) == length($bytes) or die "write $path: $!";
	close $fh;
	return;
}


# kill_server NODE - SIGKILL the node's postmaster and all its children (the
# postmaster stopped first, so that no backend sees it die and exits
# cleanly), and wait until they are gone; true if they are
sub kill_server
{
	my ($node) = @_;
	my $pm = postmaster_pid($node);
	kill 'STOP', $pm;
	my @children = children_of($pm);
	kill 'KILL', @children;
	$node->kill9;
	return wait_gone($pm, @children);
}

# crash_restart NODE, LABEL - kill_server, then start the node again
sub crash_restart
{
	my ($node, $label) = @_;
	ok(kill_server($node), "$label: server gone after SIGKILL");
	$node->start;
	return;
}

# WALWRITER_IDLE_CONF - settings under which nothing but commits flushes
# WAL for a while: the tests that stop the WAL writer and crash the server
# to lose WAL not yet flushed
our $WALWRITER_IDLE_CONF = qq{
wal_writer_delay = '10s'
wal_writer_flush_after = '1GB'
checkpoint_timeout = '1h'
restart_after_crash = on
};

# with_walwriter_stopped NODE, CODE - run CODE while NODE's WAL writer is
# stopped (SIGSTOP), so that nothing flushes WAL behind the test's back
sub with_walwriter_stopped
{
	my ($node, $code) = @_;
	my $ww = $node->safe_psql('postgres',
		q{SELECT pid FROM pg_stat_activity WHERE backend_type = 'walwriter'});
	ok($ww > 0, 'the WAL writer runs');
	kill 'STOP', $ww;
	$code->();
	kill 'CONT', $ww;
	return;
}

# nvm_stat NODE, NAME - the counter NAME of nvm_am_stats on NODE
sub nvm_stat
{
	my ($node, $name) = @_;
	return $node->safe_psql('postgres',
		"SELECT value FROM nvm_am.nvm_am_stats WHERE name = '$name'");
}

# nvm_node NAME, EXTRA_CONF - a started node with nvm_am preloaded, its
# pool (64MB) on /dev/shm, autovacuum off, plus EXTRA_CONF; the pool file is
# removed when the test ends
sub nvm_node
{
	my ($name, $extra) = @_;
	my $pool = "/dev/shm/nvm_am_tap_${name}_$$.pool";
	my $node = PostgreSQL::Test::Cluster->new($name);

	push @pools, $pool;
	$node->init;
	$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'nvm_am'
nvm_am.pool_path = '$pool'
nvm_am.pool_size = '64MB'
autovacuum = off
} . ($extra // ''));
	$ENV{PMEM_IS_PMEM_FORCE} = 1;
	$node->start;
	return $node;
}

# WAL_CONF - the settings of a node in WAL mode (wal_node), for tests that
# make such a node themselves
our $WAL_CONF = qq{
shared_preload_libraries = 'nvm_am'
nvm_am.pool_size = '64MB'
nvm_am.wal_log = on
autovacuum = off
};

# wal_node NAME, SCALE, EXTRA_CONF, INIT_PARAMS... - a started node with
# nvm_am.wal_log = on (allows_streaming, WAL kept for standbys), nvm_am the
# default table access method of database postgres, and the pgbench tables
# of SCALE loaded (nvm_am tables)
sub wal_node
{
	my ($name, $scale, $extra, %init) = @_;
	my $node = PostgreSQL::Test::Cluster->new($name);

	$node->init(allows_streaming => 1, %init);
	$node->append_conf('postgresql.conf', $WAL_CONF . "wal_keep_size = '1GB'\n" . ($extra // ''));
	$ENV{PMEM_IS_PMEM_FORCE} = 1;
	$node->start;
	$node->safe_psql('postgres', q{CREATE EXTENSION nvm_am;
		ALTER DATABASE postgres SET default_table_access_method = nvm_am;});
	$node->command_ok([ 'pgbench', '-i', '-q', '-s', $scale, '-h', $node->host,
		'-p', $node->port, 'postgres' ], "$name: pgbench -i on nvm_am tables");
	return $node;
}

# archive_current_wal NODE - switch NODE to a new WAL segment and wait
# until the archiver has archived the one the switch completed, by name:
# later WAL (a checkpoint, the background writer's snapshot of running
# transactions) starts the next segment, which is not archived until it
# fills
sub archive_current_wal
{
	my ($node) = @_;
	my $seg = $node->safe_psql('postgres', q{SELECT pg_walfile_name(pg_switch_wal())});

	$node->poll_query_until('postgres',
		qq{SELECT last_archived_wal >= '$seg' FROM pg_stat_archiver})
	  or die "WAL segment $seg was not archived";
	return;
}

# ---- the pool's layout (nvm_pool_internal.h), for tests that damage it ----

# pool_layout POOL - (dir_offset, dir_entries, frames_offset, logs_offset,
# log_size, log_frames) from the header: dir_offset at 32, dir_entries at
# 40, frames_offset at 48, nframes at 56, logs_offset at 64, log_size at
# 72, log_share at 76; log_frames: how many of the header's frames (the
# first ones) have a log area
sub pool_layout
{
	my ($pool) = @_;
	my ($dir_off, $dir_n, $frames_off, $nframes, $logs_off, $log_size, $share) =
	  unpack('Q< Q< Q< Q< Q< L< L<', read_bytes($pool, 32, 48));
	my $log_frames = $log_size ? int(($nframes + $share - 1) / $share) : 0;
	return ($dir_off, $dir_n, $frames_off, $logs_off, $log_size, $log_frames);
}

# pool_dir_entry POOL, RELNODE[, DBOID] - pool offset of the directory entry
# of a relation, or undef.  An entry: state, spcNode, dbNode, relNode,
# keycheck, root, nblocks; the top 16 bits of state, root and nblocks are
# checks.
sub pool_dir_entry
{
	my ($pool, $relnode, $dboid) = @_;
	my ($dir_off, $dir_n) = pool_layout($pool);
	for my $i (0 .. $dir_n - 1)
	{
		my ($state, $spc, $db, $rel) =
		  unpack('Q< L< L< L<', read_bytes($pool, $dir_off + 64 * $i, 20));
		next unless (($state >> 32) & 1) && $rel == $relnode;
		next if defined $dboid && $db != $dboid;
		return $dir_off + 64 * $i;
	}
	return undef;
}

# pool_pt_root POOL, RELNODE[, DBOID] - (root frame, levels) of a
# relation's page table, from its directory entry's root word, or ()
sub pool_pt_root
{
	my ($pool, $relnode, $dboid) = @_;
	my $entry = pool_dir_entry($pool, $relnode, $dboid);
	return () unless defined $entry;
	my $word = unpack('Q<', read_bytes($pool, $entry + 24, 8)) & ((1 << 48) - 1);	# the entry's check bits off
	# the root frame; above it the levels beyond two
	return ($word & ((1 << 44) - 1), 2 + ($word >> 44));
}

# pool_pte POOL, RELNODE, BLKNO[, DBOID] - pool offset of the page-table
# entry of a block, or undef
sub pool_pte
{
	my ($pool, $relnode, $blkno, $dboid) = @_;
	my (undef, undef, $frames_off) = pool_layout($pool);
	my ($frame, $levels) = pool_pt_root($pool, $relnode, $dboid);
	return undef unless defined $frame;
	for (my $shift = 10 * ($levels - 1); $shift > 0; $shift -= 10)
	{
		$frame = unpack('Q<',
			read_bytes($pool, $frames_off + ($frame - 1) * 8192 + 8 * (($blkno >> $shift) & 1023), 8));
	}
	return $frames_off + ($frame - 1) * 8192 + 8 * ($blkno % 1024);
}

# pool_log_records POOL, FRAME - (pool offset of the frame's log area,
# [offset, length] of each record of the base image's generation); for a
# frame without a log area (a plain frame), (undef)
sub pool_log_records
{
	my ($pool, $frame) = @_;
	my (undef, undef, $frames_off, $logs_off, $log_size, $log_frames) = pool_layout($pool);
	return (undef) if $frame > $log_frames;
	my ($lo, $hi) = unpack('L< L<', read_bytes($pool, $frames_off + ($frame - 1) * 8192, 8));
	my $gen = $lo * 4294967296 + $hi;
	my $log = $logs_off + ($frame - 1) * $log_size;
	my @recs;
	for (my $off = 0; $off + 16 <= $log_size;)
	{
		my ($rgen, $crc, $len) = unpack('Q< L< S<', read_bytes($pool, $log + $off, 14));
		last if $rgen != $gen || $len < 16;
		push @recs, [ $off, $len ];
		$off += $len;
	}
	return ($log, @recs);
}

# vacuum_index_lines NODE, TABLE, OPTIONS - run VACUUM (VERBOSE OPTIONS) on
# TABLE of database postgres (a test that it succeeds) and return the lines
# of its report on index scans and dead line pointers
sub vacuum_index_lines
{
	my ($node, $t, $opts) = @_;
	$opts //= '';
	my ($ret, $out, $err) = $node->psql('postgres', "VACUUM (VERBOSE$opts) $t");
	is($ret, 0, "VACUUM (VERBOSE$opts) $t succeeds") or diag($err);
	my ($report) = $err =~ /(finished vacuuming "postgres\.public\.$t".*?)(?:\nINFO|\z)/s;
	my @lines = grep { /index scans:|index scan / } split /\n/, $report // '';
	s/.*(index scans: \d+).*/$1/ for @lines;
	return join("\n", @lines);
}

# throttled_vacuum NODE, DELAY_MS, ARGS - start VACUUM ARGS in database
# postgres of NODE, slowed by the cost-based delay (a page costs
# vacuum_cost_page_hit, so with a limit of 1 it sleeps DELAY_MS after every
# page); returns the IPC::Run handle and references to its stdout and stderr
sub throttled_vacuum
{
	my ($node, $delay, $args) = @_;
	my ($out, $err) = ('', '');
	my $h = IPC::Run::start(
		[ 'psql', '-X', '-d', $node->connstr('postgres'),
		  '-c', "SET vacuum_cost_delay = $delay", '-c', 'SET vacuum_cost_limit = 1',
		  '-c', "VACUUM $args" ],
		'>', \$out, '2>', \$err);
	return ($h, \$out, \$err);
}

# pgbench_scripts NAME => TEXT... - a new temporary directory holding each
# TEXT as NAME.sql, for start_pgbench
sub pgbench_scripts
{
	my (%script) = @_;
	my $dir = PostgreSQL::Test::Utils::tempdir;

	for my $name (keys %script)
	{
		open my $fh, '>', "$dir/$name.sql" or die "$dir/$name.sql: $!";
		print $fh $script{$name};
		close $fh;
	}
	return $dir;
}

# start_pgbench NODE, DIR, LABEL, CLIENTS, SECONDS, SCRIPTS... - pgbench in
# the background on NODE's database postgres: CLIENTS clients, one thread
# each, for SECONDS, running DIR/NAME.sql for each NAME of SCRIPTS
# (NAME@WEIGHT weighs it; no NAME: pgbench's built-in TPC-B), retrying
# serialization failures and deadlocks up to 1000 times.  A SCRIPTS element that starts with "-" is a pgbench
# option, given after those and overriding them (--jobs=2,
# --max-tries=50).  Returns the run, for finish_pgbench.
sub start_pgbench
{
	my ($node, $dir, $label, $clients, $seconds, @scripts) = @_;
	my ($out, $err) = ('', '');
	my @cmd = ('pgbench', '-h', $node->host, '-p', $node->port, '-n',
		'-c', $clients, '-j', $clients, '-T', $seconds, '--max-tries=1000',
		(grep { /^-/ } @scripts),
		map { my ($f, $w) = split /@/; ('-f', "$dir/$f.sql" . (defined $w ? "\@$w" : '')) }
		  grep { !/^-/ } @scripts);
	my $h = IPC::Run::start([ @cmd, 'postgres' ], '>', \$out, '2>', \$err);
	return { label => $label, h => $h, out => \$out, err => \$err };
}

# finish_pgbench RUN - wait for a start_pgbench run: it exited with status
# 0, no client aborted or reported an error (a script that finds an
# invariant broken fails a statement, or prints INVARIANT), and it
# committed transactions; returns how many
sub finish_pgbench
{
	my ($run) = @_;
	$run->{h}->finish;
	my $rc = $run->{h}->result(0);
	my ($done) = ${ $run->{out} } =~ /number of transactions actually processed: (\d+)/;
	$done //= 0;
	is($rc, 0, "$run->{label}: pgbench succeeded");
	unlike(${ $run->{err} }, qr/aborted|error|INVARIANT/i,
		"$run->{label}: no client aborted, no invariant broken")
	  or diag(${ $run->{err} });
	cmp_ok($done, '>', 0, "$run->{label}: did some work ($done transactions)");
	return $done;
}

1;
