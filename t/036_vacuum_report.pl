# 036_vacuum_report.pl - VACUUM VERBOSE's report on an nvm_am table has
# heap's lines in heap's order (what reads heap's reports, or autovacuum's
# log lines, which are the same text, reads these): pages, tuples removed,
# the removable cutoff, relfrozenxid, the dead line pointers, a line per
# index, read and write rates, buffer usage, WAL usage, system usage.
#
# The same statements run on a heap and an nvm_am table, without and with
# an index; the two reports are compared with names and figures blanked.
# VACUUM (FULL, VERBOSE) and CLUSTER VERBOSE count the same removable and
# nonremovable row versions as heap's.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use NvmProc;

my $node = nvm_node('vacreport');
sub sql { return $node->safe_psql('postgres', $_[0]); }

# report TABLE - VACUUM (VERBOSE) TABLE's report on the table itself (not
# its TOAST table's), and the same with names and figures blanked
sub report
{
	my ($t) = @_;
	my ($ret, $out, $err) = $node->psql('postgres', "VACUUM (VERBOSE) $t");
	is($ret, 0, "VACUUM (VERBOSE) $t succeeds") or diag($err);
	my ($report) = $err =~ /INFO:  (finished vacuuming "postgres\.public\.$t".*?)(?:\n[^\n]*INFO:|\z)/s;
	$report //= '';
	my $shape = $report;
	$shape =~ s/"[^"]*"/"X"/g;
	$shape =~ s/-?\d+(\.\d+)?/N/g;
	return ($report, $shape);
}

sql(q{CREATE EXTENSION nvm_am});
for my $am ('heap', 'nvm_am')
{
	my $t = $am eq 'heap' ? 'h' : 'n';
	sql(qq{CREATE TABLE $t (id int, v int, pad text) USING $am;
		   INSERT INTO $t SELECT g, g, repeat('x', 60) FROM generate_series(1, 20000) g;
		   DELETE FROM $t WHERE id % 4 = 0;
		   UPDATE $t SET v = v + 1 WHERE id % 4 = 1;});
}
my %r = map { $_ => [ report($_) ] } ('h', 'n');
like($r{n}[0], qr/^finished vacuuming .*\npages: .*\ntuples: \d+ removed, .*\nremovable cutoff: \d+, which was \d+ XIDs old when operation ended\n/,
	'nvm_am: pages, tuples removed, removable cutoff');
like($r{n}[0], qr/\navg read rate: .*\nbuffer usage: \d+ hits, \d+ misses, \d+ dirtied\nWAL usage: \d+ records, \d+ full page images, \d+ bytes\nsystem usage: CPU: /,
	'nvm_am: rates, buffer, WAL and system usage');
is($r{n}[1], $r{h}[1], "without an index the report has heap's lines:\n$r{n}[0]");

for my $t ('h', 'n')
{
	sql(qq{CREATE INDEX ${t}_id ON $t (id); DELETE FROM $t WHERE id % 4 = 1;});
}
%r = map { $_ => [ report($_) ] } ('h', 'n');
like($r{n}[0], qr/\nindex scan needed: .*\nindex "n_id": pages: \d+ in total, \d+ newly deleted, \d+ currently deleted, \d+ reusable\n/,
	'nvm_am: the index pass and a line for the index');
is($r{n}[1], $r{h}[1], "with an index the report has heap's lines:\n$r{n}[0]");

# VACUUM (FULL, VERBOSE) and CLUSTER: the copy reads the table with a
# non-MVCC snapshot and, as heap's, does not prune the pages it reads (a
# table about to be replaced), so it finds the same removable and
# nonremovable row versions in the same pages as heap's
sub full_report
{
	my ($t, $cmd) = @_;
	my ($ret, $out, $err) = $node->psql('postgres', $cmd);
	is($ret, 0, "$cmd succeeds") or diag($err);
	my ($line) = $err =~ /INFO:  "public\.$t": (found .*)/;
	return $line // '';
}
for my $t ('h', 'n')
{
	sql(qq{CREATE TABLE f$t (id int, pad text) USING } . ($t eq 'h' ? 'heap' : 'nvm_am') . qq{;
		INSERT INTO f$t SELECT g, repeat('v', 50) FROM generate_series(1, 10000) g;
		DELETE FROM f$t WHERE id % 3 = 0;});
}
my $fh = full_report('fh', 'VACUUM (FULL, VERBOSE) fh');
like($fh, qr/^found 3333 removable, 6667 nonremovable row versions in \d+ pages$/, "heap: $fh");
is(full_report('fn', 'VACUUM (FULL, VERBOSE) fn'), $fh, 'VACUUM FULL of nvm_am: the same');
for my $t ('h', 'n')
{
	sql(qq{CREATE INDEX f${t}_id ON f$t (id); DELETE FROM f$t WHERE id % 5 = 0;});
}
$fh = full_report('fh', 'CLUSTER VERBOSE fh USING fh_id');
like($fh, qr/^found \d+ removable, 5333 nonremovable row versions in \d+ pages$/, "heap, CLUSTER: $fh");
is(full_report('fn', 'CLUSTER VERBOSE fn USING fn_id'), $fh, 'CLUSTER of nvm_am: the same');
is(sql(q{SELECT count(*) FROM nvm_am.nvm_am_check('fn')}), '0', 'nvm_am_check clean after the copies');
is(sql(q{SELECT count(*), sum(id) FROM fn}), sql(q{SELECT count(*), sum(id) FROM fh}), 'the same rows');

# the opening line says whether the VACUUM is aggressive (FREEZE makes it
# one: every page not all-frozen is visited; DISABLE_PAGE_SKIPPING too), as
# heap's does
for my $opts ('VERBOSE', 'VERBOSE, FREEZE', 'VERBOSE, DISABLE_PAGE_SKIPPING')
{
	my %open;
	for my $t ('h', 'n')
	{
		my ($ret, $out, $err) = $node->psql('postgres', "VACUUM ($opts) $t");
		($open{$t}) = $err =~ /INFO:  ((?:aggressively )?vacuuming) "postgres\.public\.$t"/;
	}
	is($open{n} // '', $open{h} // 'heap', "VACUUM ($opts): the opening line is heap's, \"$open{h}\"");
}

# VACUUM's row counts are heap's: versions a snapshot still needs are in
# "remain" and in the row count the indexes' cleanup is given (which caps
# their reltuples), and rows a transaction is still inserting are not
# counted live (its commit counts them), deletes in progress are
sub counts
{
	my ($t, $am) = @_;
	sql(qq{CREATE TABLE $t (id int PRIMARY KEY, k int, pad text) USING $am
		     WITH (autovacuum_enabled = off);
		   CREATE INDEX ${t}_k ON $t (k);
		   INSERT INTO $t SELECT g, g, repeat('x', 100) FROM generate_series(1, 1000) g;
		   UPDATE $t SET k = k + 1 WHERE id % 3 = 0;});
	my $snap = $node->background_psql('postgres');
	$snap->query_safe("BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT count(*) FROM $t");
	sql(qq{UPDATE $t SET k = k + 1 WHERE id % 3 = 1});
	my $busy = $node->background_psql('postgres');
	$busy->query_safe(qq{BEGIN; INSERT INTO $t SELECT g, g, 'z' FROM generate_series(2001, 2300) g;
		DELETE FROM $t WHERE id <= 50});
	my ($ret, $out, $err) = $node->psql('postgres', "VACUUM (VERBOSE) $t");
	my ($tuples) = $err =~ /\n(tuples: [^\n]*)/;
	my $rel = sql(qq{SELECT string_agg(relname || ' ' || reltuples, ', ' ORDER BY relname)
		FROM pg_class WHERE relname IN ('$t', '${t}_k', '${t}_pkey')});
	my $stat = sql(qq{SELECT n_live_tup || ' live, ' || n_dead_tup || ' dead'
		FROM pg_stat_user_tables WHERE relname = '$t'});
	$snap->query_safe('COMMIT');
	$snap->quit;
	$busy->query_safe('ROLLBACK');
	$busy->quit;
	$rel =~ s/\b$t/T/g;
	return ($tuples // '') . "; $rel; $stat";
}
my $ch = counts('ch', 'heap');
like($ch, qr/^tuples: \d+ removed, 1334 remain, 334 are dead but not yet removable; T 1000, T_k 1334, T_pkey 1334; 1000 live, 334 dead$/,
	"heap: $ch");
is(counts('cn', 'nvm_am'), $ch, "VACUUM of nvm_am: the same counts");

$node->stop;
done_testing();
