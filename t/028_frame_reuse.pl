# Free frames are taken lowest first: a table loaded after another one
# was dropped goes to the lowest free frames, below a table loaded before
# it, instead of after everything allocated so far (a rover going round the
# pool put it there).  Every backend maps each page of the pool it touches
# (a page fault per page, per backend), so the frames in use should stay in
# as small a part of the mapping as they can.  The test reads the pool file
# itself: in which 8 kB blocks the rows of each table lie.  (A loaded page
# moves between frames while it fills, so the frames the first table
# freed are not where its last copies were, but below them.)
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use NvmProc;

my $node = nvm_node('reuse');
my $pool = $node->safe_psql('postgres', 'SHOW nvm_am.pool_path');
$node->safe_psql('postgres', 'CREATE EXTENSION nvm_am');

# about 7 rows of 1000 bytes per page: 1400 rows fill some 200 pages
sub load
{
	my ($table, $char, $rows) = @_;
	$node->safe_psql('postgres', "CREATE TABLE $table (n int, b text) USING nvm_am");
	$node->safe_psql('postgres',
		"INSERT INTO $table SELECT g, repeat('$char', 1000) FROM generate_series(1, $rows) g");
}

load('first', 'F', 1400);
load('second', 'S', 1400);
$node->safe_psql('postgres', 'DROP TABLE first');
load('third', 'T', 700);
is($node->safe_psql('postgres', 'SELECT count(*) FROM second'), '1400', 'second intact');
is($node->safe_psql('postgres', 'SELECT count(*) FROM third'), '700', 'third intact');
$node->stop;

# the 8 kB blocks of the pool file that hold a row of each table
my %blocks = (F => [], S => [], T => []);
open(my $fh, '<:raw', $pool) or die "open $pool: $!";
my $buf;
my $block = 0;
while (read($fh, $buf, 8192) == 8192)
{
	for my $c (keys %blocks)
	{
		push @{ $blocks{$c} }, $block if index($buf, $c x 1000) >= 0;
	}
	$block++;
}
close($fh);

# the blocks of each table as ranges, for the log
for my $c (qw(F S T))
{
	my (@r, $st, $pr);
	for my $x (@{ $blocks{$c} })
	{
		if (defined $pr && $x == $pr + 1) { $pr = $x; next; }
		push @r, "$st-$pr" if defined $st;
		$st = $pr = $x;
	}
	push @r, "$st-$pr" if defined $st;
	note("$c: " . join(' ', @r));
}
cmp_ok(scalar @{ $blocks{S} }, '>=', 150, 'the rows of "second" are found in the pool file');
cmp_ok(scalar @{ $blocks{T} }, '>=', 75, 'the rows of "third" are found in the pool file');
my @s = sort { $a <=> $b } @{ $blocks{S} };
my $median_s = $s[ int(@s / 2) ];
my $below = grep { $_ < $median_s } @{ $blocks{T} };
cmp_ok($below, '>=', 0.9 * scalar @{ $blocks{T} },
	"\"third\" went to the lowest free frames, below \"second\" ($below of "
	  . scalar(@{ $blocks{T} }) . " blocks below block $median_s)");

$node->start;
is($node->safe_psql('postgres', 'SELECT count(*), sum(n) FROM third'), '700|245350',
	'third reads back after a restart');
$node->stop;
done_testing();
