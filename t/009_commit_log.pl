# 009_commit_log.pl - the commit protocol of nvm_commit.c, case by case.
#
#   - nvm-only commits need no WAL flush: 300 single-row commits into an
#     unindexed nvm_am table cause few WAL syncs (pg_stat_wal), 300 into a
#     heap table one each.  (An index is WAL-logged: a transaction that
#     adds index entries commits through WAL.);
#   - an nvm-only commit (insert into an unindexed table, HOT update)
#     whose PostgreSQL commit record never reached disk
#     (the WAL writer is made slow, the server SIGKILLed right after the
#     commits) is restored from the pmem commit log: every acknowledged row
#     is there, frozen_winners counts them, recovery_us is set, and the
#     restored commits survive a second crash (their COMMIT_RESOLVED records
#     are in WAL);
#   - a transaction still open at the crash is a loser: its rows are
#     invisible and recovered_losers counts it;
#   - a transaction that changed heap and nvm_am data commits through WAL
#     (commits_through_wal) and is atomic across the crash;
#   - a commit-log entry with a bad checksum (a torn write) is ignored, an
#     entry of a transaction that committed in clog is left alone;
#   - PREPARE TRANSACTION of nvm_am changes survives a crash and COMMIT
#     PREPARED / ROLLBACK PREPARED decide it afterwards;
#   - a page-table entry pointing outside the pool and a frame whose
#     checksum does not match: clear errors for that table, a warning at
#     start, nvm_am_check lists the damaged page, other tables readable,
#     the damaged tables can be dropped;
#   - the recovery worker runs recovery before anyone asks.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use NvmProc;

my $pool = "/dev/shm/nvm_am_tap_009_$$.pool";
END { unlink $pool if defined $pool; }

my $node = PostgreSQL::Test::Cluster->new('commit');
$node->init;
$node->append_conf(
	'postgresql.conf', qq{
shared_preload_libraries = 'nvm_am'
nvm_am.pool_path = '$pool'
nvm_am.pool_size = '64MB'
autovacuum = off
restart_after_crash = on
max_prepared_transactions = 5
wal_writer_delay = '10s'
wal_writer_flush_after = '1GB'
checkpoint_timeout = '1h'
fsync = on
});
$ENV{PMEM_IS_PMEM_FORCE} = 1;
$node->start;

sub sql { return $node->safe_psql('postgres', $_[0]); }

sql(q{
CREATE EXTENSION nvm_am;
CREATE TABLE n (id int, v text) USING nvm_am;
CREATE TABLE u (id int PRIMARY KEY, v int NOT NULL) USING nvm_am;
CREATE TABLE h (id int PRIMARY KEY, v text) USING heap;
INSERT INTO u SELECT g, 0 FROM generate_series(1, 10) g;
CHECKPOINT;
});

# --- WAL syncs per commit -------------------------------------------------
sub wal_syncs { return sql('SELECT wal_sync FROM pg_stat_wal'); }

my $script = join('', map { "INSERT INTO n VALUES ($_, 'x');\n" } 1 .. 300);
my $before = wal_syncs();
sql($script);
my $nvm_syncs = wal_syncs() - $before;
$script = join('', map { "INSERT INTO h VALUES ($_, 'x');\n" } 1 .. 300);
$before = wal_syncs();
sql($script);
my $heap_syncs = wal_syncs() - $before;
note "WAL syncs for 300 commits: nvm_am $nvm_syncs, heap $heap_syncs";
cmp_ok($heap_syncs, '>=', 300, 'heap: a WAL sync per commit');
cmp_ok($nvm_syncs, '<', 30, 'nvm_am: nvm-only commits need no WAL sync');
cmp_ok(nvm_stat($node, 'commit_records'), '>=', 290, 'commit records written to the pmem commit log');

# --- winners whose PostgreSQL commit record was lost ------------------------
sql('DELETE FROM n; DELETE FROM h; CHECKPOINT');
$script = join('', map { "INSERT INTO n VALUES ($_, 'acked');\n" } 1 .. 200);
$script .= join('', map { "UPDATE u SET v = v + 1 WHERE id = " . ($_ % 10 + 1) . ";\n" } 1 .. 200);
sql($script);
crash_restart($node, 'lost commit records');
is(sql('SELECT count(*) FROM n'), 200, 'every acknowledged nvm-only insert is there after the crash');
is(sql('SELECT sum(v) FROM u'), 200, 'every acknowledged HOT update is there after the crash');
cmp_ok(nvm_stat($node, 'frozen_winners'), '>', 0, 'recovery committed winners from the commit log');
cmp_ok(nvm_stat($node, 'recovery_us'), '>', 0, 'recovery time is reported');
my $winners = nvm_stat($node, 'frozen_winners');
note "frozen_winners $winners";
is(sql('SELECT count(*) FROM nvm_am.nvm_am_check(\'n\')'), 0, 'nvm_am_check finds nothing');

# the resolution is in WAL: a second crash before any checkpoint keeps it
crash_restart($node, 'second crash');
is(sql('SELECT count(*) FROM n') . ',' . sql('SELECT sum(v) FROM u'), '200,200',
	'the restored commits survive a second crash');
is(nvm_stat($node, 'frozen_winners'), 0, 'nothing left to restore the second time');
like($node->safe_psql('postgres', 'SELECT 1'), qr/1/, 'server up');

# --- losers and mixed transactions ---------------------------------------------
my $open = $node->background_psql('postgres');
$open->query_safe('BEGIN');
$open->query_safe("INSERT INTO n SELECT g, 'loser' FROM generate_series(1001, 1100) g");
my $before_wal = nvm_stat($node, 'commits_through_wal');
sql(q{BEGIN; INSERT INTO n VALUES (2001, 'mixed'); INSERT INTO h VALUES (2001, 'mixed'); COMMIT;});
cmp_ok(nvm_stat($node, 'commits_through_wal'), '>', $before_wal, 'a heap+nvm_am transaction commits through WAL');
crash_restart($node, 'open transaction');
eval { $open->quit; };
is(sql(q{SELECT count(*) FROM n WHERE v = 'loser'}), 0, 'rows of the open transaction are invisible');
cmp_ok(nvm_stat($node, 'recovered_losers'), '>=', 1, 'recovered_losers counts it');
is(sql(q{SELECT (SELECT count(*) FROM n WHERE id = 2001) || ',' || (SELECT count(*) FROM h WHERE id = 2001)}),
	'1,1', 'the mixed transaction is in both tables');
# the loser's xid is never handed out again: new commits do not revive it
sql(q{INSERT INTO n SELECT g, 'new' FROM generate_series(3001, 3200) g});
is(sql(q{SELECT count(*) FROM n WHERE v = 'loser'}), 0, 'still invisible after new transactions');
is(sql('SELECT count(*) FROM nvm_am.nvm_am_check(\'n\')'), 0, 'nvm_am_check finds nothing');

# --- damaged and stale commit-log entries -------------------------------------
# find_entry XID - pool offset of the commit-log entry of transaction XID
# (the commit log's offset is in the pool header, at byte 96)
sub find_entry
{
	my ($xid) = @_;
	my $clog = unpack('Q<', read_bytes($pool, 96, 8));
	my $data = read_bytes($pool, $clog, 16384 * 64);
	for (my $off = 0; $off < length($data); $off += 64)
	{
		return $clog + $off if unpack('Q<', substr($data, $off, 8)) == $xid;
	}
	return undef;
}

# damage_entry OFFSET - flip a bit of the entry's stored checksum
sub damage_entry
{
	my ($at) = @_;
	my $crc = unpack('L<', read_bytes($pool, $at + 12, 4));
	write_bytes($pool, $at + 12, pack('L<', $crc ^ 1));
	return;
}

my $xid = sql(q{BEGIN; INSERT INTO n VALUES (4001, 'torn'); SELECT txid_current(); COMMIT;});
my $xid2 = sql(q{BEGIN; INSERT INTO n VALUES (4002, 'kept'); SELECT txid_current(); COMMIT;});
$node->stop('fast');
my $torn_at = find_entry($xid);
ok(defined $torn_at && defined find_entry($xid2),
	'commit-log entries of the two transactions found in the pool');
damage_entry($torn_at) if defined $torn_at;
$node->start;
# After a clean stop both commits are in clog: the intact entry needs
# nothing, the damaged one is dropped, and neither changes anything.
is(sql(q{SELECT string_agg(v, ',' ORDER BY id) FROM n WHERE id IN (4001, 4002)}), 'torn,kept',
	'commits known to clog are kept whatever their commit-log entries say');
is(nvm_stat($node, 'frozen_winners'), 0, 'no winner restored from a damaged or already committed entry');

# a damaged entry of a transaction whose PostgreSQL commit record was lost:
# its commit never completed, it must not become visible
# (the first write after a start logs a new xid batch, which makes its
# transaction commit through WAL: write something first)
sql(q{INSERT INTO n VALUES (4000, 'warm-up')});
$xid = sql(q{BEGIN; INSERT INTO n VALUES (4003, 'torn-lost'); SELECT txid_current(); COMMIT;});
ok(kill_server($node), 'server gone after SIGKILL');
$torn_at = find_entry($xid);
ok(defined $torn_at, 'commit-log entry of the lost commit found');
damage_entry($torn_at) if defined $torn_at;
$node->start;
is(sql(qq{SELECT txid_status($xid)}), 'aborted', 'its PostgreSQL commit record was lost');
is(sql(q{SELECT count(*) FROM n WHERE id = 4003}), 0,
	'a damaged commit record does not make its transaction visible');
is(sql('SELECT count(*) FROM nvm_am.nvm_am_check(\'n\')'), 0, 'nvm_am_check finds nothing');

# --- two-phase commit ----------------------------------------------------------
sql(q{BEGIN; INSERT INTO n VALUES (5001, 'p1'); PREPARE TRANSACTION 'p1'});
sql(q{BEGIN; INSERT INTO n VALUES (5002, 'p2'); PREPARE TRANSACTION 'p2'});
crash_restart($node, 'prepared transactions');
is(sql(q{SELECT count(*) FROM n WHERE id IN (5001, 5002)}), 0, 'prepared rows invisible after the crash');
is(sql(q{SELECT count(*) FROM pg_prepared_xacts}), 2, 'both prepared transactions survive');
sql(q{COMMIT PREPARED 'p1'});
sql(q{ROLLBACK PREPARED 'p2'});
is(sql(q{SELECT string_agg(id::text, ',') FROM n WHERE id IN (5001, 5002)}), '5001',
	'COMMIT PREPARED and ROLLBACK PREPARED decide them');

# --- damaged page tables and frames ----------------------------------------------
# leaf_entry RELNODE BLKNO - pool offset of the page-table entry of a block
sub leaf_entry { return pool_pte($pool, @_); }

# frame_offset RELNODE BLKNO - pool offset of the frame of that block
sub frame_offset
{
	my $entry = leaf_entry(@_);
	return undef unless defined $entry;
	my $frames_off = unpack('Q<', read_bytes($pool, 48, 8));
	return $frames_off + (unpack('Q<', read_bytes($pool, $entry, 8)) - 1) * 8192;
}

sql(q{CREATE TABLE pt (id int, pad text) USING nvm_am;
      INSERT INTO pt SELECT g, repeat('p', 200) FROM generate_series(1, 100) g;
      CREATE TABLE ck (id int, pad text) USING nvm_am;
      INSERT INTO ck SELECT g, repeat('c', 200) FROM generate_series(1, 100) g;});
my $pt_node = sql(q{SELECT pg_relation_filenode('pt')});
my $ck_node = sql(q{SELECT pg_relation_filenode('ck')});
my $before_n = sql('SELECT count(*) FROM n');
$node->stop('fast');
my $entry = leaf_entry($pt_node, 1);
ok(defined $entry, 'page table of the first table found');
# block 1's frame number: far beyond the end of the pool
write_bytes($pool, $entry, pack('Q<', 1 << 40)) if defined $entry;
# a byte of a tuple on block 0 of the second table (tuples fill a page from
# its end; block 0 was left full, so its base holds them all)
my $frame = frame_offset($ck_node, 0);
ok(defined $frame, 'frame of the second table found');
if (defined $frame)
{
	my $byte = read_bytes($pool, $frame + 8150, 1);
	write_bytes($pool, $frame + 8150, chr(ord($byte) ^ 0x20));
}
$node->start;
my ($ret, $out, $err) = $node->psql('postgres', 'SELECT count(*) FROM pt');
isnt($ret, 0, 'reading the table with the damaged page table fails');
like($err, qr/ERROR:  nvm_am page table of relation \d+ is corrupt at block 1/, 'with a clear error');
like(slurp_file($node->logfile), qr/WARNING:  nvm_am pool entry \d+ references frame \d+ outside the pool/,
	'the start warns about the entry');
($ret, $out, $err) = $node->psql('postgres', 'SELECT count(*) FROM ck');
isnt($ret, 0, 'reading the table with the damaged frame fails');
like($err, qr/ERROR:  nvm_am page 0 of relation with relfilenode $ck_node has a bad checksum/,
	'with a clear error');
like(sql(q{SELECT string_agg(blkno || ':' || problem, ',') FROM nvm_am.nvm_am_check('ck')}),
	qr/^0:page checksum mismatch: stored \d+, computed \d+$/, 'nvm_am_check reports the damaged page');
cmp_ok(nvm_stat($node, 'checksum_failures'), '>=', 1, 'checksum_failures counts it');
is(sql(q{SELECT count(*) > 0 FROM ck WHERE ctid >= '(1,0)'}), 't',
	'the other pages of that table stay readable (a TID range scan past block 0)');
is(sql('SELECT count(*) FROM n'), $before_n, 'the other tables stay readable');
sql('DROP TABLE pt, ck');
is(sql('SELECT count(*) FROM n'), $before_n, 'the damaged tables can be dropped');

# --- the recovery worker ------------------------------------------------------------
crash_restart($node, 'worker');
my $ok = 0;
for (1 .. 100)
{
	$ok = 1, last if sql(q{SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'nvm_am recovery'}) == 1;
	select(undef, undef, undef, 0.1);
}
ok($ok, 'the recovery worker runs after a crash');
my $log = slurp_file($node->logfile);
unlike($log, qr/TRAP:|PANIC:|terminated by signal (6|11)/, 'no assertion failure, PANIC or crash by signal 6/11');

$node->stop;
done_testing();
