# 027_wal_async_index_kill.pl - nvm_am.wal_log = on with synchronous_commit
# = off: an index fetch does not tell the index that a chain is dead while
# that rests on a commit not yet flushed.  The index would mark its entries
# dead (LP_DEAD, a hint that is not WAL-logged and does not move the page's
# LSN), and the page could reach disk before the commit: after a crash that
# loses the commit the rows are back, but index scans would skip them.
# Heap's HeapTupleIsSurelyDead has the same rule (it looks at hint bits,
# which are not set for such a commit).
#
# The WAL writer is stopped (SIGSTOP) so that nothing flushes the commit;
# shared_buffers is small, and a scan of another table evicts the index
# pages, which are written without a WAL flush: with wal_log_hints off (the
# test cluster turns it on for streaming) a hint leaves a page's LSN older
# than the flushed WAL.  Each nvm_am table has a heap twin changed alike;
# another session keeps the heap twin's changed pages pinned, since writing
# one out would flush WAL, and a VACUUM before the checkpoint prunes the
# catalogs (the extension's GRANTs leave dead pg_proc rows, whose prune by
# a later read is WAL-logged: the test failed when they became more).
# Without the rule (NvmCommitReliedPending), test 13 fails: the index scan
# finds 500 of the 1000 rows.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use NvmProc;

my $node = wal_node('kill', 1, "wal_writer_delay = '10s'\ncheckpoint_timeout = '1h'\n"
	  . "shared_buffers = '1MB'\nwal_buffers = '16MB'\nbgwriter_lru_maxpages = 0\n"
	  . "wal_log_hints = off\n");
sub sql { return $node->safe_psql('postgres', $_[0]); }

# half-full pages (no prune on read pays, which would flush the commit)
for my $am (qw(heap nvm_am))
{
	my $s = $am eq 'heap' ? 'h' : 'n';
	sql(qq{
		CREATE TABLE ${s}_k (id int PRIMARY KEY, v int) USING $am WITH (fillfactor = 50);
		INSERT INTO ${s}_k SELECT g, g FROM generate_series(1, 2000) g;});
}
sql(q{CREATE TABLE big (id int PRIMARY KEY, pad text) USING heap;
      INSERT INTO big SELECT g, repeat('x', 200) FROM generate_series(1, 30000) g;});
# catalog pages that a read would prune later write WAL, and writing them
# out flushes it: VACUUM prunes them now, before the checkpoint
sql(q{VACUUM});
sql(q{CHECKPOINT});

my $walwriter = sql(q{SELECT pid FROM pg_stat_activity WHERE backend_type = 'walwriter'});
ok($walwriter > 0, 'the WAL writer runs');
kill 'STOP', $walwriter;

my $flushes = nvm_stat($node, 'relied_commit_flushes');
my $commit = sql(q{
	SET synchronous_commit = off;
	BEGIN;
	DELETE FROM h_k WHERE id <= 1000 AND id % 2 = 0;
	DELETE FROM n_k WHERE id <= 1000 AND id % 2 = 0;
	COMMIT;
	SELECT pg_current_wal_insert_lsn();});

# The heap twin's pages the delete changed carry its WAL position: writing
# one out flushes WAL, the commit with it.  Another session keeps them in
# shared buffers: a cursor on a row left on each holds its page pinned.
my @pages = split /\n/, sql(q{SELECT DISTINCT (ctid::text::point)[0]::int FROM h_k
	WHERE id <= 1000 ORDER BY 1});
my $pinner = $node->background_psql('postgres');
$pinner->query_safe('BEGIN');
for my $p (@pages)
{
	$pinner->query_safe(qq{DECLARE c$p CURSOR FOR SELECT id FROM h_k
		WHERE ctid >= '($p,1)' AND ctid < '(@{[$p + 1]},1)'});
	$pinner->query_safe(qq{FETCH FROM c$p});
}

# index scans that fetch every deleted row: where the index is told the
# chains are dead, it marks its entries
my $scan = q{SET enable_seqscan = off; SET enable_bitmapscan = off;
	SET enable_indexonlyscan = off;
	SELECT count(v) FROM %s WHERE id BETWEEN 1 AND 1000};
like(sql(q{SET enable_seqscan = off; SET enable_bitmapscan = off; SET enable_indexonlyscan = off;
	EXPLAIN SELECT count(v) FROM n_k WHERE id BETWEEN 1 AND 1000}),
	qr/Index Scan using n_k_pkey/, 'an index scan');
for (1 .. 2)
{
	is(sql(sprintf($scan, 'n_k')), '500', 'the deleted rows are not seen (nvm_am)');
	is(sql(sprintf($scan, 'h_k')), '500', 'the deleted rows are not seen (heap)');
}
is(nvm_stat($node, 'relied_commit_flushes'), $flushes, 'no prune flushed WAL');

# evict the index pages: written out with no WAL flush (the heap twin's
# changed pages stay, pinned)
sql(q{SET enable_seqscan = off; SET enable_bitmapscan = off;
	SELECT count(pad) FROM big WHERE id > 0});
is(sql(qq{SELECT pg_current_wal_flush_lsn() < '$commit'}), 't',
	'the delete\'s commit is still not flushed');

kill_server($node) or die 'the server did not go away';
eval { $pinner->quit; };
$node->start;
my $seq = q{SET enable_indexscan = off; SET enable_bitmapscan = off;
	SELECT count(v) FROM %s WHERE id BETWEEN 1 AND 1000};
is(sql(sprintf($seq, 'h_k')), '1000', 'the crash lost the delete (heap, sequential scan)');
is(sql(sprintf($seq, 'n_k')), '1000', 'the crash lost the delete (nvm_am, sequential scan)');
is(sql(sprintf($scan, 'h_k')), '1000', 'an index scan finds every row again (heap)');
is(sql(sprintf($scan, 'n_k')), '1000',
	'an index scan finds every row again (nvm_am): the index marked none of them dead');
is(sql(q{SELECT count(*) FROM nvm_am.nvm_am_check('n_k')}), '0', 'nvm_am_check is clean');
$node->stop;
done_testing();
