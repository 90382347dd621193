# 040_prune_fill.pl - a prune closes the holes its removed versions leave by
# moving the tuple at pd_upper into each (a PRUNE_FILL record), falling back
# to PageRepairFragmentation when lengths differ; the same record is
# replayed at every merge of the page from its log, after a restart, after
# a crash, and by nvm_am_check.  Here: HOT updates of a table of fixed-width
# rows (the fill path) and of one whose updates change the row length (the
# fallback), each beside a heap table given the same statements, with a
# merge cache of 1 MB so that pages leave it and are merged again from
# their logs.  After every phase the two tables hold the same rows and
# nvm_am_check finds nothing; the tuples of every page fill the space from
# pd_upper to its end without a gap.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use NvmProc;

my $node = nvm_node('fill', "nvm_am.merge_cache_size = '1MB'\nrestart_after_crash = on\n");
sub sql { return $node->safe_psql('postgres', $_[0]); }

sql(q{CREATE EXTENSION nvm_am});
for my $am ('nvm_am', 'heap')
{
	sql(qq{
		CREATE TABLE fixed_$am (id int PRIMARY KEY, v int, pad char(80)) USING $am;
		INSERT INTO fixed_$am SELECT g, 0, 'p' || g FROM generate_series(1, 6000) g;
		CREATE TABLE varied_$am (id int PRIMARY KEY, v int, pad text) USING $am;
		INSERT INTO varied_$am SELECT g, 0, repeat('q', g % 50) FROM generate_series(1, 6000) g;
	});
}

# the statements, given to both tables of a pair; round r touches a
# different tenth of the rows, several times, so pages fill up and prune
sub run_round
{
	my ($r) = @_;
	for my $am ('nvm_am', 'heap')
	{
		sql(qq{UPDATE fixed_$am SET v = v + 1 WHERE id % 10 = $r % 10}) for 1 .. 3;
		sql(qq{UPDATE varied_$am SET v = v + 1, pad = repeat('q', (id * 7 + $r * 13) % 60)
			   WHERE id % 10 = $r % 10}) for 1 .. 3;
	}
}

# compare PHASE - the pairs hold the same rows, nvm_am_check is clean
sub compare
{
	my ($phase) = @_;
	for my $t ('fixed', 'varied')
	{
		is(sql(qq{SELECT count(*) FROM
			((SELECT * FROM ${t}_nvm_am EXCEPT ALL SELECT * FROM ${t}_heap)
			 UNION ALL
			 (SELECT * FROM ${t}_heap EXCEPT ALL SELECT * FROM ${t}_nvm_am)) d}),
			'0', "$phase: $t rows equal heap's");
		is(sql(qq{SELECT count(*) FROM nvm_am.nvm_am_check('${t}_nvm_am')}), '0',
			"$phase: nvm_am_check of $t finds nothing");
	}
	return;
}

run_round($_) for 1 .. 6;
my $prunes = sql(q{SELECT value FROM nvm_am.nvm_am_stats WHERE name = 'pages_pruned'});
cmp_ok($prunes, '>', 100, "the updates pruned pages ($prunes)");
my $logged = sql(q{
	SELECT count(*) FROM generate_series(0, pg_relation_size('fixed_nvm_am') / 8192 - 1) b,
	     nvm_am.nvm_am_page_log('fixed_nvm_am', b) l WHERE l.kind = 'prune_fill'});
cmp_ok($logged, '>', 0, "prune records wait in the logs of the fixed-width table ($logged)");
compare('after the updates');

# no gap left: on every page the tuples fill [pd_upper, pd_special), as
# after PageRepairFragmentation (pageinspect reads the pages that
# nvm_am_get_raw_page gives)
sql(q{CREATE EXTENSION pageinspect});
sub gaps
{
	my ($t) = @_;
	return sql(qq{SELECT count(*) FROM generate_series(0, pg_relation_size('$t') / 8192 - 1) b,
		LATERAL (SELECT nvm_am.nvm_am_get_raw_page('$t', b) AS p) r
		WHERE (SELECT special - upper FROM page_header(r.p))
		   <> (SELECT coalesce(sum((lp_len + 7) / 8 * 8), 0) FROM heap_page_items(r.p)
		       WHERE lp_flags = 1)});
}
is(gaps('fixed_nvm_am'), '0', 'fixed-width table: no page has a gap among its tuples');
is(gaps('varied_nvm_am'), '0', 'varied table: no page has a gap among its tuples');

# a prune that frees the last line pointers of a page cuts them off its
# array, as heap's PageRepairFragmentation does: an aborted HOT update
# leaves its version in the last line pointer of a page that then has no
# room for another row, the next read prunes it (nvm_am prunes on a read
# only then, heap below a tenth free), and pd_lower and pd_upper then equal
# heap's
for my $am ('nvm_am', 'heap')
{
	sql(qq{CREATE TABLE tail_$am (id int, pad char(200)) USING $am;
		INSERT INTO tail_$am SELECT g, 'x' FROM generate_series(1, 33) g});
	sql(qq{BEGIN; UPDATE tail_$am SET id = -id WHERE id = 1; ROLLBACK});
	sql(qq{SELECT count(*) FROM tail_$am});
}
is(sql(q{SELECT lower || ',' || upper FROM page_header(nvm_am.nvm_am_get_raw_page('tail_nvm_am', 0))}),
	sql(q{SELECT lower || ',' || upper FROM page_header(get_raw_page('tail_heap', 0))}),
	'a prune that frees the last line pointer leaves the page header as heap\'s');
is(sql(q{SELECT count(*) FROM heap_page_items(nvm_am.nvm_am_get_raw_page('tail_nvm_am', 0))}),
	'33', 'the line pointer array is 33 long again');

# a clean restart: the merge cache starts empty, every page with a log is
# merged again, its prune records replayed
$node->restart;
compare('after a restart');
run_round($_) for 7 .. 9;
compare('after more updates');

# a crash in the middle of more rounds: the rounds done on both tables of a
# pair stay (they are committed), so the pairs stay equal
run_round(10);
kill_server($node);
$node->start;
compare('after a crash');

# VACUUM prunes the rest, and the tables still agree
sql(q{VACUUM fixed_nvm_am, fixed_heap, varied_nvm_am, varied_heap});
compare('after VACUUM');

$node->stop;
done_testing();
