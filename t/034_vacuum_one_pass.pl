# 034_vacuum_one_pass.pl - VACUUM of a table without indexes frees the dead
# line pointers of a page in the same visit that prunes it, as heap's
# VACUUM does for such a table (no index entry can point to them): the
# page is merged once, not again for a second pass over the table.
#
# - a table larger than the merge cache (1 MB: 128 images) with dead rows
#   on every page: VACUUM merges about one image per page (two with a
#   second pass, which finds the images evicted);
# - VACUUM VERBOSE's lines on dead line pointers are heap's;
# - the freed line pointers take new rows: the table does not grow;
# - the same VACUUM with an index still takes two passes and gives heap's
#   lines;
# - pg_stat_progress_vacuum's max_dead_tuples is heap's, with and without
#   an index;
# - after a crash the rows are there and nvm_am_check is clean.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use NvmProc;

my $node = nvm_node('onepass', qq{
nvm_am.merge_cache_size = '1MB'
});

sub sql { return $node->safe_psql('postgres', $_[0]); }

sub vacuum_lines { return vacuum_index_lines($node, @_); }

sql(q{CREATE EXTENSION nvm_am});
for my $am ('heap', 'nvm_am')
{
	my $t = $am eq 'heap' ? 'h' : 'n';
	sql(qq{CREATE TABLE $t (id int, v int, pad text) USING $am;
		   INSERT INTO $t SELECT g, g, repeat('x', 60) FROM generate_series(1, 60000) g;
		   VACUUM $t;
		   DELETE FROM $t WHERE id % 3 = 0;});
}
my $pages = sql(q{SELECT pg_relation_size('n') / 8192});
cmp_ok($pages, '>', 4 * 128, "the table ($pages pages) is several times the merge cache");

my $before = nvm_stat($node, 'merges_on_read');
my %lines = map { $_ => vacuum_lines($_) } ('h', 'n');
my $merges = nvm_stat($node, 'merges_on_read') - $before;
cmp_ok($merges, '<=', $pages * 1.2,
	"VACUUM merged $merges images for $pages pages: one visit per page");
is($lines{n}, $lines{h}, "VERBOSE's lines are heap's: $lines{n}");
like($lines{n}, qr/index scans: 0\nindex scan not needed: .* had 20000 dead item identifiers removed/,
	'every dead line pointer was freed');

# the freed line pointers take new rows (three quarters of the 20,000
# freed): the table does not grow
sql(qq{INSERT INTO $_ SELECT g, g, repeat('y', 60) FROM generate_series(60001, 75000) g})
  for ('h', 'n');
is(sql(q{SELECT pg_relation_size('n') / 8192}), $pages, 'new rows go where the dead ones were');
is(sql(q{SELECT count(*), sum(v) FROM n}), sql(q{SELECT count(*), sum(g) FROM generate_series(1, 75000) g WHERE g % 3 <> 0 OR g > 60000}),
	'the rows are the live ones and the new ones');

# with an index the dead line pointers wait for the index pass, as in heap
for my $t ('h', 'n')
{
	sql(qq{CREATE INDEX ON $t (id); DELETE FROM $t WHERE id % 5 = 1;});
}
%lines = map { $_ => vacuum_lines($_) } ('h', 'n');
is($lines{n}, $lines{h}, "with an index, VERBOSE's lines are heap's: $lines{n}");
like($lines{n}, qr/index scans: 1\nindex scan needed: /, 'and an index pass ran');

# new rows take the freed line pointers: an index entry left behind for a
# deleted row would lead a lookup of its id to one of them
sql(q{INSERT INTO n SELECT g, g, repeat('z', 60) FROM generate_series(80001, 92000) g});
is(sql(q{SET enable_seqscan = off; SET enable_bitmapscan = off; SET enable_hashjoin = off;
		 SET enable_mergejoin = off;
		 SELECT count(*) FROM generate_series(1, 80000, 5) g JOIN n ON n.id = g}), '0',
	'index lookups of the deleted ids find nothing, with their line pointers reused');
is(sql(q{SET enable_seqscan = off; SET enable_bitmapscan = off;
		 SELECT count(*) FROM n WHERE id BETWEEN 80001 AND 92000}), '12000',
	'and find the new rows');

# pg_stat_progress_vacuum's max_dead_tuples is heap's: a page's worth for a
# table without indexes, else what maintenance_work_mem holds, capped by
# what the table's pages can hold.  Read while a VACUUM slowed by the cost
# delay runs, then cancelled.
sub progress_max_dead
{
	my ($t) = @_;
	my ($h) = throttled_vacuum($node, 100, $t);
	$node->poll_query_until('postgres',
		qq{SELECT count(*) = 1 FROM pg_stat_progress_vacuum WHERE relid = '$t'::regclass})
	  or die "no VACUUM of $t seen in progress";
	my $v = sql(qq{SELECT max_dead_tuples FROM pg_stat_progress_vacuum WHERE relid = '$t'::regclass});
	sql(qq{SELECT pg_cancel_backend(pid) FROM pg_stat_progress_vacuum WHERE relid = '$t'::regclass});
	$h->finish;
	return $v;
}
my %maxdead;
for my $am ('heap', 'nvm_am')
{
	my $t = $am eq 'heap' ? 'ph' : 'pn';
	sql(qq{CREATE TABLE $t (id int, pad text) USING $am;
		   INSERT INTO $t SELECT g, repeat('p', 60) FROM generate_series(1, 20000) g;
		   DELETE FROM $t WHERE id % 2 = 0;});
	$maxdead{$am}{noindex} = progress_max_dead($t);
	sql(qq{CREATE INDEX ON $t (id); DELETE FROM $t WHERE id % 3 = 0;});
	$maxdead{$am}{index} = progress_max_dead($t);
}
is($maxdead{nvm_am}{noindex}, '291', 'max_dead_tuples without indexes: one page of TIDs');
is($maxdead{nvm_am}{noindex}, $maxdead{heap}{noindex}, '... as heap shows');
is($maxdead{nvm_am}{index}, $maxdead{heap}{index},
	"max_dead_tuples with an index: heap's ($maxdead{heap}{index})");

my $want = sql(q{SELECT count(*), sum(v) FROM n});
is(sql(q{SELECT count(*) FROM nvm_am.nvm_am_check('n')}), '0', 'nvm_am_check is clean');
kill_server($node);
$node->start;
is(sql(q{SELECT count(*), sum(v) FROM n}), $want, 'the rows after a crash');
is(sql(q{SELECT count(*) FROM nvm_am.nvm_am_check('n')}), '0', 'nvm_am_check after the crash: clean');

done_testing();
