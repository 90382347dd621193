# 045_async_commit_order.pl - a commit through a pmem commit record keeps
# PostgreSQL's order of durability: a transaction that saw another's
# commit is never kept by a crash that loses that other one.
#
# With synchronous_commit = off PostgreSQL may lose the last transactions
# in a crash, but only from the end: a synchronous commit flushes WAL up to
# its own record and with it every commit it could have seen, and an
# asynchronous one is lost whenever an earlier one is.  A transaction that
# changed nvm_am data only commits through its pmem commit record, durable
# at once, without a WAL flush: it outlived an asynchronous heap
# transaction it had read from (here it copied that transaction's row), and
# after the crash the copy was there and the original was not.  Likewise a
# sequence value handed out by an asynchronous transaction, or covered by
# the sequence's WAL record of a transaction still open (nextval logs
# values ahead), was given out again after the crash, beside the row that
# kept it, also when another session had taken the value.  And the flush
# such a commit makes first must aim at a position WAL can be flushed to,
# also when the insert position is at the start of a WAL page.
#
# The WAL writer is stopped (SIGSTOP) around the transactions, so nothing
# flushes them behind the test's back, and the server is SIGKILLed.  Heap
# runs the same steps first; its synchronous commit flushes WAL, so it goes
# before nvm_am's steps, whose WAL must not be flushed by anything else.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use NvmProc;

my $node = nvm_node('order', $WALWRITER_IDLE_CONF);
sub sql { return $node->safe_psql('postgres', $_[0]); }

# (no indexes on the copies: an index entry is WAL and makes any commit go
# through WAL)
sql(q{
CREATE EXTENSION nvm_am;
CREATE TABLE src (id int, v text) USING heap;
CREATE TABLE copy_n (id int, v text) USING nvm_am;
CREATE TABLE copy_h (id int, v text) USING heap;
CREATE SEQUENCE seq_h;
CREATE SEQUENCE seq_n;
CREATE TABLE kept_n (id int) USING nvm_am;
CREATE TABLE kept_h (id int) USING heap;
CHECKPOINT;
});
# the first nvm_am write after a start writes the WAL record covering a
# batch of xids and so commits through WAL
sql(q{INSERT INTO copy_n VALUES (0, 'warm-up')});

my $records = nvm_stat($node, 'commit_records');
my $flushes = nvm_stat($node, 'async_commit_flushes');
my ($seq_h, $seq_n);
with_walwriter_stopped($node, sub {
	for my $t (qw(h n))
	{
		# an asynchronous heap commit, then a transaction that copies its row
		sql(qq{SET synchronous_commit = off; INSERT INTO src VALUES (1, '$t')});
		sql(qq{INSERT INTO copy_$t SELECT * FROM src WHERE v = '$t'});
		# a sequence's first value, taken by an asynchronous transaction
		# (the sequence's WAL record is part of it), then stored by another
		my $v = sql(qq{SET synchronous_commit = off; BEGIN; SELECT nextval('seq_$t'); COMMIT;});
		sql(qq{INSERT INTO kept_$t VALUES ($v)});
		if ($t eq 'h') { $seq_h = $v } else { $seq_n = $v }
	}
	is(nvm_stat($node, 'commit_records'), $records + 2,
		'the two nvm_am transactions committed through pmem commit records');
	is(nvm_stat($node, 'async_commit_flushes'), $flushes + 2,
		'each flushed WAL past the asynchronous commit before it');
	crash_restart($node, 'asynchronous commits');
});

for my $t (qw(h n))
{
	my $src = sql(qq{SELECT count(*) FROM src WHERE v = '$t'});
	my $copy = sql(qq{SELECT count(*) FROM copy_$t WHERE id = 1});
	ok($copy == 0 || $src == 1,
		"$t: the copied row is kept only with its original (original $src, copy $copy)");
}
# heap's copy flushed the original with its own commit record
is(sql(q{SELECT count(*) FROM src}) . ' ' . sql(q{SELECT count(*) FROM copy_h WHERE id = 1}), '2 1',
	'both originals and the heap copy are kept');
is(sql(q{SELECT count(*) FROM copy_n WHERE id = 1}), '1', 'the nvm_am copy is kept');

# each sequence goes on past the value a kept row holds
cmp_ok(sql(q{SELECT nextval('seq_h')}), '>', $seq_h,
	'heap: the sequence does not hand out the value the row keeps again');
cmp_ok(sql(q{SELECT nextval('seq_n')}), '>', $seq_n,
	'nvm_am: the sequence does not hand out the value the row keeps again');
is(sql(q{SELECT count(*) FROM kept_n}) . ' ' . sql(q{SELECT count(*) FROM kept_h}), '1 1',
	'both stored sequence values are kept');

# logged_case NAME, LABEL, STORE - sequences NAME_h and NAME_n, each logged
# by a transaction left open (nextval logs values ahead; the values other
# sessions take meanwhile are covered by that record, which the open
# transaction has not flushed), and STORE (TABLE, SEQUENCE) storing values
# of the sequence in NAME_kept_h and NAME_kept_n (nvm_am: through pmem
# commits) and returning them.  After a crash every row is kept and each
# sequence goes on past them, as heap's, whose commits flush WAL past the
# sequence's record.
sub logged_case
{
	my ($name, $label, $store) = @_;
	sql(qq{
CREATE SEQUENCE ${name}_h;
CREATE SEQUENCE ${name}_n;
CREATE TABLE ${name}_kept_n (id int) USING nvm_am;
CREATE TABLE ${name}_kept_h (id int) USING heap;
CHECKPOINT;
INSERT INTO copy_n VALUES (0, 'warm-up');
});
	my $records = nvm_stat($node, 'commit_records');
	my $flushes = nvm_stat($node, 'async_commit_flushes');
	my (%stored, @loggers);
	with_walwriter_stopped($node, sub {
		for my $t (qw(h n))
		{
			push @loggers, $node->background_psql('postgres');
			$loggers[-1]->query_safe("BEGIN; SELECT nextval('${name}_$t')");
			$stored{$t} = [ $store->("${name}_kept_$t", "${name}_$t") ];
		}
		is(nvm_stat($node, 'commit_records'), $records + @{ $stored{n} },
			"$label: the nvm_am rows committed through pmem commit records");
		cmp_ok(nvm_stat($node, 'async_commit_flushes'), '>', $flushes,
			"$label: which flushed the sequence's record first");
		crash_restart($node, $label);
	});
	$_->quit for @loggers;
	for my $t (qw(h n))
	{
		my @v = sort { $a <=> $b } @{ $stored{$t} };
		is(sql(qq{SELECT count(*) || ' ' || max(id) FROM ${name}_kept_$t}),
			scalar(@v) . " $v[-1]", "$label, $t: the rows are kept");
		cmp_ok(sql(qq{SELECT nextval('${name}_$t')}), '>', $v[-1],
			"$label, $t: the sequence does not hand out the kept rows' values again");
	}
}

# one row takes its value in the inserting transaction, one in a
# transaction before it (as an application that asks for the next id
# first)
logged_case('open', 'sequence logged by an open transaction', sub {
	my ($table, $seq) = @_;
	my $in = sql(qq{INSERT INTO $table VALUES (nextval('$seq')) RETURNING id});
	my $before = sql(qq{SELECT nextval('$seq')});
	sql(qq{INSERT INTO $table VALUES ($before)});
	return ($in, $before);
});

# the value is taken by a session whose transaction ends without a WAL
# flush (it has no xid) and stored by another session only (as an
# application that asks for the next id on one connection of its pool and
# inserts it on another)
logged_case('pass', 'sequence value passed between sessions', sub {
	my ($table, $seq) = @_;
	my $v = sql(qq{SELECT nextval('$seq')});
	sql(qq{INSERT INTO $table VALUES ($v)});
	return ($v);
});

# a value taken in a subtransaction that is rolled back, then stored by the
# same transaction (the lock on the sequence, which the pre-commit looks
# for, belongs to the top transaction)
logged_case('subabort', 'sequence value of a rolled-back subtransaction', sub {
	my ($table, $seq) = @_;
	my $v = sql(qq{BEGIN;
SAVEPOINT a;
SELECT nextval('$seq') AS v \\gset
ROLLBACK TO a;
INSERT INTO $table VALUES (:v) RETURNING id;
COMMIT;});
	return ($v);
});

# The WAL insert position right at the start of a WAL page reads as the
# position after the page's header, where nothing is written yet: a pmem
# commit that flushed WAL to a published insert position failed with
# "xlog flush request ... is not satisfied --- flushed only to ..."
# (t/004's upserts found it, with a version that published it at every
# abort).  The WAL is padded with logical messages until its insert
# position is at a page boundary, then a transaction that holds more locks
# than the fast-path slots (a sequence's lock may be out of sight: the
# insert position is published) ends without a flush, and a pmem commit
# follows.
my $pad = q{
DO $$
DECLARE
	pos bigint;
	room int;
BEGIN
	FOR i IN 1 .. 20 LOOP
		pos := pg_current_wal_insert_lsn() - '0/0'::pg_lsn;
		room := 8192 - pos % 8192;
		-- at a page boundary: the page's header (24 bytes, 40 in the first
		-- page of a segment) is counted
		EXIT WHEN room IN (8192 - 24, 8192 - 40);
		-- a message record is 50 bytes and its data's 2-byte header (5
		-- bytes for data of 256 bytes or more) before the message itself
		IF room >= 52 AND room - 52 < 230 THEN
			PERFORM pg_logical_emit_message(false, 'p', repeat('x', room - 52));
		ELSIF room >= 55 + 230 THEN
			PERFORM pg_logical_emit_message(false, 'p', repeat('x', room - 55));
		ELSE
			PERFORM pg_logical_emit_message(false, 'p', 'x');
		END IF;
	END LOOP;
END $$;
SELECT (pg_current_wal_insert_lsn() - '0/0'::pg_lsn) % 8192 IN (24, 40);
};
my $locked = join(', ', map { "lk$_" } 1 .. 17);
sql(join('', map { "CREATE TABLE lk$_ (id int) USING heap;" } 1 .. 17));
sql(q{INSERT INTO copy_n VALUES (0, 'warm-up')});
my ($at_boundary, $boundary_insert) = (0, '');
for my $try (1 .. 5)
{
	$node->psql('postgres', $pad . qq{
BEGIN; LOCK TABLE $locked IN ROW EXCLUSIVE MODE; COMMIT;
SELECT (pg_current_wal_insert_lsn() - '0/0'::pg_lsn) % 8192 IN (24, 40);
INSERT INTO copy_n VALUES (4, 'at a page boundary');
}, stdout => \my $out, stderr => \my $err);
	$boundary_insert = $err;
	if ($out eq "t\nt")
	{
		$at_boundary = 1;
		last;
	}
	# something else wrote WAL in between: try again
	sql(q{DELETE FROM copy_n WHERE id = 4});
}
ok($at_boundary, 'the WAL insert position was at a page boundary at the publication');
is($boundary_insert, '', 'a pmem commit after a publication at a WAL page boundary succeeds');
is(sql(q{SELECT count(*) FROM copy_n WHERE id = 4}), '1', 'and its row is there');

# the check costs a pmem commit nothing when no asynchronous commit waits
$flushes = nvm_stat($node, 'async_commit_flushes');
sql(q{INSERT INTO copy_n VALUES (2, 'sync')});
sql(q{INSERT INTO copy_n VALUES (3, 'sync')});
is(nvm_stat($node, 'async_commit_flushes'), $flushes,
	'no WAL flush for pmem commits while no asynchronous commit is unflushed');
is(sql(q{SELECT count(*) FROM nvm_am.nvm_am_check('copy_n')}), 0, 'nvm_am_check finds nothing');

$node->stop;
done_testing();
