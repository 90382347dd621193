# 007_ipl.pl - in-page logging: records, merges, the merge cache, torn
# records, and in-page logging turned off.
#
# A small log (256 bytes) and a small merge cache (1MB, 128 page images)
# make every path run: records appended, logs filling up and merged into
# new frames, images evicted from the cache and merged again from base +
# log when read.  The same DML runs on a heap table; after it, after a clean
# restart and after a SIGKILL the nvm_am table must hold exactly what heap
# holds.  Then a record is damaged in the pool file of a stopped server:
# the server starts, the damaged record and its change are ignored, the
# records before it still count; the same for a DELTA record.  Finally a second cluster with
# nvm_am.ipl_log_size = 0 (every change writes its whole page) runs the
# same DML.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use NvmProc;

$ENV{PMEM_IS_PMEM_FORCE} = 1;
my @pools;
END { unlink @pools; }

sub new_node
{
	my ($name, $logsize) = @_;
	my $pool = "/dev/shm/nvm_am_tap_007_${name}_$$.pool";
	push @pools, $pool;
	my $node = PostgreSQL::Test::Cluster->new($name);
	$node->init;
	$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'nvm_am'
nvm_am.pool_path = '$pool'
nvm_am.pool_size = '64MB'
nvm_am.ipl_log_size = '$logsize'
nvm_am.merge_cache_size = '1MB'
autovacuum = off
});
	$node->start;
	$node->safe_psql('postgres', 'CREATE EXTENSION nvm_am');
	return ($node, $pool);
}

sub stats
{
	my ($node) = @_;
	my %s = map { split /\|/ } split /\n/,
	  $node->safe_psql('postgres', 'SELECT name, value FROM nvm_am.nvm_am_stats');
	return \%s;
}

# the same DML on heap table h and nvm_am table t
my $dml = q{
CREATE TABLE h (id int PRIMARY KEY, v int NOT NULL, pad text);
CREATE TABLE t (id int PRIMARY KEY, v int NOT NULL, pad text) USING nvm_am;
INSERT INTO h SELECT g, g, repeat('p', g % 200) FROM generate_series(1, 6000) g;
INSERT INTO t SELECT * FROM h;
DO $$
BEGIN
  FOR i IN 1 .. 40 LOOP
    UPDATE h SET v = v + i WHERE id % 37 = i % 37;
    UPDATE t SET v = v + i WHERE id % 37 = i % 37;
    DELETE FROM h WHERE id % 101 = i;
    DELETE FROM t WHERE id % 101 = i;
    INSERT INTO h SELECT 10000 * i + g, g, 'new' FROM generate_series(1, 50) g;
    INSERT INTO t SELECT 10000 * i + g, g, 'new' FROM generate_series(1, 50) g;
  END LOOP;
END $$;
VACUUM h;
VACUUM t;
UPDATE h SET pad = pad || 'x' WHERE id % 13 = 0;
UPDATE t SET pad = pad || 'x' WHERE id % 13 = 0;
UPDATE h SET v = v + 1 WHERE id % 7 = 0;
UPDATE t SET v = v + 1 WHERE id % 7 = 0;
UPDATE h SET v = v + 1 WHERE id % 7 = 0;
UPDATE t SET v = v + 1 WHERE id % 7 = 0;
UPDATE h SET v = v + 1 WHERE id % 7 = 0;
UPDATE t SET v = v + 1 WHERE id % 7 = 0;
DELETE FROM h WHERE id % 11 = 0;
DELETE FROM t WHERE id % 11 = 0;
};

my $q_sum = q{SELECT count(*) || ':' || md5(string_agg(id || ',' || v || ',' || pad, ';' ORDER BY id)) FROM };

sub same_as_heap
{
	my ($node, $name) = @_;
	my $heap = $node->safe_psql('postgres', "SET enable_indexscan = off; SET enable_bitmapscan = off; $q_sum h");
	is($node->safe_psql('postgres', "SET enable_indexscan = off; SET enable_bitmapscan = off; $q_sum t"),
		$heap, "$name: sequential scan of t returns what heap returns");
	is($node->safe_psql('postgres', "SET enable_seqscan = off; SET enable_bitmapscan = off; $q_sum t WHERE id > 0"),
		$heap, "$name: index scan of t returns what heap returns");
	is($node->safe_psql('postgres', "SET nvm_am.read_mode = copy; SET enable_indexscan = off; SET enable_bitmapscan = off; $q_sum t"),
		$heap, "$name: read_mode = copy returns the same");
	is($node->safe_psql('postgres', 'SELECT count(*) FROM nvm_am.nvm_am_check(\'t\')'), '0',
		"$name: nvm_am_check finds no problem");
	return;
}

# ---------------------------------------------------------------------
# 256-byte logs, a 1MB merge cache
# ---------------------------------------------------------------------
my ($node, $pool) = new_node('ipl256', '256B');
my $s0 = stats($node);
$node->safe_psql('postgres', $dml);
my $s1 = stats($node);
cmp_ok($s1->{ipl_records} - $s0->{ipl_records}, '>', 1000, 'changes were appended as log records');
cmp_ok($s1->{ipl_bytes} / ($s1->{ipl_records} || 1), '<', 256, 'records are smaller than the log');
cmp_ok($s1->{merges_on_full}, '>', 100, 'full logs were merged into new frames');
is($s1->{merge_bytes_written}, $s1->{merges_on_full} * 8192, 'each merge writes one page');
cmp_ok($s1->{merge_cache_evictions}, '>', 0, 'the 1MB merge cache evicted images');
cmp_ok($s1->{merges_on_read}, '>', 0, 'evicted images were merged again from base + log');
# DELTA records (pool format version 7) among the records the merges and the
# restarts below decode against the page before them
cmp_ok($node->safe_psql('postgres', q{
	SELECT count(*) FROM generate_series(0, pg_relation_size('t') / 8192 - 1) b,
		nvm_am.nvm_am_page_log('t', b) WHERE kind = 'delta'}), '>', 100,
	'changes were appended as DELTA records');
same_as_heap($node, 'after the DML');

# an update that stays on its page is one record: the new version and the
# old one's xmax and ctid together (IplUpdateTuple)
$node->safe_psql('postgres',
	'CREATE TABLE one (id int PRIMARY KEY, v int) USING nvm_am; INSERT INTO one VALUES (1, 0)');
my $r0 = stats($node)->{ipl_records};
$node->safe_psql('postgres', 'UPDATE one SET v = 1 WHERE id = 1');
is(stats($node)->{ipl_records} - $r0, 1, 'an update on the same page appends one record');
$node->safe_psql('postgres', 'UPDATE one SET id = 2 WHERE id = 1');
is(stats($node)->{ipl_records} - $r0, 2, 'so does a non-HOT update that fits on the page');

$node->restart;

# an index fetch that merges the page from its log read it from the pool:
# heap_blks_read; the next one finds the merged image: heap_blks_hit
my $statio = sub {
	$node->safe_psql('postgres',
		"SELECT heap_blks_read || ' ' || heap_blks_hit FROM pg_statio_user_tables WHERE relname = 'one'");
};
my $fetch = sub {
	$node->safe_psql('postgres',
		'SET enable_seqscan = off; SET enable_bitmapscan = off; '
		  . 'SELECT v FROM one WHERE id = 2; SELECT pg_stat_force_next_flush()');
};
my ($read0, $hit0) = split / /, $statio->();
$fetch->();
my ($read1, $hit1) = split / /, $statio->();
is($read1 - $read0 . ' ' . ($hit1 - $hit0), '1 0',
	'an index fetch that merged its page from the log counts a read');
$fetch->();
my ($read2, $hit2) = split / /, $statio->();
is($read2 - $read1 . ' ' . ($hit2 - $hit1), '0 1',
	'the next fetch finds the merged image: a hit');
is($node->safe_psql('postgres', 'SELECT id, v FROM one'), '2|1',
	'both updates are there after a restart');
my $s2 = stats($node);
$node->safe_psql('postgres', "SELECT count(*) FROM t");
my $s3 = stats($node);
cmp_ok($s3->{merges_on_read} - $s2->{merges_on_read}, '>', 0,
	'after a restart, pages with log records are merged when read');
cmp_ok($s3->{redirected_page_reads} - $s2->{redirected_page_reads}, '>', 0,
	'after a restart, pages with empty logs are read in place');
same_as_heap($node, 'after a clean restart');

# SIGKILL: the cache is gone, the logs have everything
my $pm = postmaster_pid($node);
$node->kill9;
ok(wait_gone($pm), 'server gone after SIGKILL');
$node->start;
same_as_heap($node, 'after SIGKILL and restart');

# ---------------------------------------------------------------------
# A damaged record: ignored, with everything after it; records before it
# still count
# ---------------------------------------------------------------------
$node->safe_psql('postgres', q{
CREATE TABLE torn (id int, v text) USING nvm_am;
INSERT INTO torn VALUES (1, 'one');
INSERT INTO torn VALUES (2, 'two');
INSERT INTO torn VALUES (3, 'three');
});
my $filenode = $node->safe_psql('postgres', "SELECT pg_relation_filenode('torn')");
my $dboid = $node->safe_psql('postgres', "SELECT oid FROM pg_database WHERE datname = 'postgres'");
$node->stop;



my (undef, undef, undef, undef, $log_size) = pool_layout($pool);
is($log_size, 256, 'pool header: log size 256');
my $pte = pool_pte($pool, $filenode, 0, $dboid);
my $frame = defined $pte ? unpack('Q<', read_bytes($pool, $pte, 8)) : undef;
ok(defined $frame, 'found the frame of table torn in the pool');
my ($log, @recs) = pool_log_records($pool, $frame);
is(scalar(@recs), 3, 'the page of table torn has three log records, one per INSERT');
# damage the last record's body (a byte of the tuple it carries)
my ($last_off, $last_len) = @{ $recs[-1] };
my $byte = read_bytes($pool, $log + $last_off + $last_len - 12, 1);
write_bytes($pool, $log + $last_off + $last_len - 12, chr(ord($byte) ^ 0xFF));

$node->start;
my $t0 = stats($node)->{ipl_torn_records};
is($node->safe_psql('postgres', 'SELECT string_agg(id || v, \',\' ORDER BY id) FROM torn'), '1one,2two',
	'the damaged record is not applied, the records before it are');
cmp_ok(stats($node)->{ipl_torn_records} - $t0, '>=', 1, 'the damaged record was counted as torn');
is($node->safe_psql('postgres', 'SELECT count(*) FROM nvm_am.nvm_am_check(\'torn\')'), '0',
	'nvm_am_check: the page without the damaged record is sound');
$node->safe_psql('postgres', q{INSERT INTO torn VALUES (4, 'four')});
$node->restart;
is($node->safe_psql('postgres', 'SELECT string_agg(id || v, \',\' ORDER BY id) FROM torn'), '1one,2two,4four',
	'a record appended after the damaged one replaces it and survives a restart');
same_as_heap($node, 'after the damaged record');

# ---------------------------------------------------------------------
# A damaged DELTA record: the same.  Its operations decode against the page
# before it, so nothing after it could apply either.
# ---------------------------------------------------------------------
$node->safe_psql('postgres', q{
CREATE TABLE tdelta (id int PRIMARY KEY, v int, pad text) USING nvm_am;
INSERT INTO tdelta SELECT g, 0, repeat('d', 40) FROM generate_series(1, 3) g;
DELETE FROM tdelta WHERE id = 1;
DELETE FROM tdelta WHERE id = 2;
});
is($node->safe_psql('postgres', q{SELECT string_agg(kind, ',' ORDER BY byte_offset)
	FROM nvm_am.nvm_am_page_log('tdelta', 0)}), 'patch,patch,patch,delta,delta',
	'three inserts into the base, two deletes as DELTA records');
$filenode = $node->safe_psql('postgres', "SELECT pg_relation_filenode('tdelta')");
$node->stop;
$pte = pool_pte($pool, $filenode, 0, $dboid);
$frame = defined $pte ? unpack('Q<', read_bytes($pool, $pte, 8)) : undef;
ok(defined $frame, 'found the frame of table tdelta in the pool');
($log, @recs) = pool_log_records($pool, $frame);
is(scalar(@recs), 5, 'the page of table tdelta has five log records');
# a byte of the last record's operations (after its header and xid)
($last_off, $last_len) = @{ $recs[-1] };
$byte = read_bytes($pool, $log + $last_off + 21, 1);
write_bytes($pool, $log + $last_off + 21, chr(ord($byte) ^ 0xFF));
$node->start;
$t0 = stats($node)->{ipl_torn_records};
is($node->safe_psql('postgres', 'SELECT string_agg(id::text, \',\' ORDER BY id) FROM tdelta'), '2,3',
	'the damaged DELTA record is not applied, the one before it is');
cmp_ok(stats($node)->{ipl_torn_records} - $t0, '>=', 1, 'the damaged DELTA record was counted as torn');
is($node->safe_psql('postgres', 'SELECT count(*) FROM nvm_am.nvm_am_check(\'tdelta\')'), '0',
	'nvm_am_check: the page without the damaged record is sound');
$node->safe_psql('postgres', 'DELETE FROM tdelta WHERE id = 3');
$node->restart;
is($node->safe_psql('postgres', 'SELECT string_agg(id::text, \',\' ORDER BY id) FROM tdelta'), '2',
	'a DELTA record appended after the damaged one replaces it and survives a restart');
my $logtext = slurp_file($node->logfile);
unlike($logtext, qr/PANIC|TRAP|terminated by signal/, 'no crash in the server log');
$node->stop;

# ---------------------------------------------------------------------
# In-page logging off: every change writes the whole page
# ---------------------------------------------------------------------
my ($off_node) = new_node('ipl0', '0');
$s0 = stats($off_node);
$off_node->safe_psql('postgres', $dml);
$s1 = stats($off_node);
is($s1->{ipl_records} - $s0->{ipl_records}, 0, 'ipl_log_size = 0: no log records');
cmp_ok($s1->{merges_on_full} - $s0->{merges_on_full}, '>', 1000,
	'ipl_log_size = 0: every change wrote its page');
same_as_heap($off_node, 'ipl_log_size = 0');
$off_node->restart;
same_as_heap($off_node, 'ipl_log_size = 0, after a restart');
$off_node->stop;

done_testing();
