# 038_large_relation.pl - an nvm_am table larger than 8 GB, as heap allows.
# A relation's page table starts with two levels (a root frame naming
# leaves, each naming 1,024 pages: 8 GB); the extension past it gives the
# table a third level, a new root whose first entry is the old one.  The
# test loads 1,049,600 one-row pages (8.2 GB) with COPY (the last 2,048
# while another session reads the end of the table), then reads
# rows on both sides of the 8 GB line after a clean restart and after a
# crash (the postmaster's rebuild walks the three levels), checks that the
# pool's accounting agrees with that rebuild, cuts the table back below 8
# GB with VACUUM and grows it past the line again, and drops it: every
# frame comes back.  On builds before the third level the load fails with
# "cannot grow beyond 1048576 blocks".
#
# The pool takes 9.8 GB of /dev/shm (memory); with less room the test
# skips.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use NvmProc;

my $pool_mb = 9800;
my $free_mb = (split /\s+/, (`df -Pm /dev/shm`)[1])[3];
plan skip_all => "/dev/shm has $free_mb MB free, the test needs " . ($pool_mb + 1024)
  if !defined $free_mb || $free_mb < $pool_mb + 1024;

my $two_levels = 1024 * 1024;	# blocks a two-level page table maps
my $n = $two_levels + 1024;		# rows, one per page
my $node = nvm_node('large', "nvm_am.pool_size = '${pool_mb}MB'\nrestart_after_crash = on\n");
my $pool = $node->safe_psql('postgres', 'SHOW nvm_am.pool_path');

sub sql { return $node->safe_psql('postgres', $_[0]); }
sub frames_used { return sql(q{SELECT frames_used FROM nvm_am.nvm_am_pool_info()}); }

# id of the row on page blkno, '' when there is none
sub row_at { return sql("SELECT id FROM big WHERE ctid = '($_[0],1)'"); }

# the number of levels of big's page table, from its directory entry
sub levels
{
	my (undef, $levels) =
	  pool_pt_root($pool, sql(q{SELECT relfilenode FROM pg_class WHERE relname = 'big'}));
	return $levels;
}

sql(q{CREATE EXTENSION nvm_am});
my $frames_empty = frames_used();

# gen.pl FROM TO SIGN CHAR: rows SIGN FROM .. SIGN TO of 7,900 CHARs, one
# per page, stored inline, in COPY's binary format (the text format's
# parsing of 8.2 GB took 94 of the test's 120 s)
my $gen = $node->basedir . '/gen.pl';
open(my $fh, '>', $gen) or die "$gen: $!";
print $fh 'my ($from, $to, $sign, $c) = @ARGV; my $p = $c x 7900; binmode STDOUT; '
  . 'print "PGCOPY\n\377\r\n\0", pack("NN", 0, 0); '
  . 'print pack("nNN", 2, 4, $sign eq "-" ? -$_ : $_), pack("N", 7900), $p for $from .. $to; '
  . 'print pack("n", 0xffff);', "\n";
close($fh);
chmod 0644, $gen;

# the load, in two parts: up to 1,024 pages short of the line ...
my $first = $two_levels - 1024;
my ($ret, $out, $err) = $node->psql('postgres', qq{
BEGIN;
CREATE TABLE big (id int, pad text) USING nvm_am;
ALTER TABLE big ALTER COLUMN pad SET STORAGE PLAIN;
COPY big FROM PROGRAM 'perl $gen 1 $first "" x' WITH (FORMAT binary, FREEZE);
COMMIT;
CREATE TABLE reads (n int, seen bigint, err text);
});
is($ret, 0, 'COPY of 1,047,552 one-row pages (8.2 GB) into one table succeeds');
is(levels(), 2, 'its page table has two levels');

# ... then past it, while another session reads the pages at the end over
# and over, through the page table as it gains its third level
my $tail = $first - 1000;
my $bg = $node->background_psql('postgres');
$bg->query_until(qr/reading/, qq{\\echo reading
DO \$\$
DECLARE
	c bigint := 0;
	i int := 0;
BEGIN
	LOOP
		SELECT count(*) INTO c FROM big WHERE ctid >= '($tail,0)';
		i := i + 1;
		EXIT WHEN c = 1000 + 2048 OR i > 1000000;
	END LOOP;
	INSERT INTO reads VALUES (i, c, NULL);
EXCEPTION WHEN OTHERS THEN
	INSERT INTO reads VALUES (i, c, SQLERRM);
END
\$\$;
});
($ret, $out, $err) = $node->psql('postgres',
	"COPY big FROM PROGRAM 'perl $gen " . ($first + 1) . " $n \"\" x' WITH (FORMAT binary)");
is($ret, 0, 'COPY of 2,048 more pages, past 8 GB, succeeds');
is($err, '', 'without an error');
$bg->query_safe('SELECT 1');
$bg->quit;
my ($n_reads, $seen, $read_err) = split /\|/, sql(q{SELECT n, seen, coalesce(err, '') FROM reads});
is($read_err, '', 'the concurrent reads of the end of the table raised no error');
is($seen, 3048, "and the last of them ($n_reads) saw every row of the end");
is(sql(q{SELECT pg_relation_size('big') / 8192}), $n, 'the table has 1,049,600 pages');
is(levels(), 3, 'its page table grew a third level');
cmp_ok(frames_used() - $frames_empty, '>=', $n, 'the pool holds a frame per page');

# rows on both sides of the line, and the last
sub check_rows
{
	my ($when) = @_;
	is(join(',', row_at(0), row_at($two_levels - 1), row_at($two_levels + 1), row_at($n - 1)),
		"1,$two_levels," . ($two_levels + 2) . ",$n",
		"$when: rows on the first page, on both sides of 8 GB and on the last page");
}
check_rows('after the load');
is(row_at($two_levels), $two_levels + 1, 'the row on the first page past 8 GB');

# an update of a row past the line; its new version goes to a new page
my $newctid = sql(qq{UPDATE big SET id = -id WHERE ctid = '($two_levels,1)' RETURNING ctid});
is($newctid, "($n,1)", 'an update past 8 GB moves the row to a new last page');
is(sql(qq{SELECT id FROM big WHERE ctid = '$newctid'}), -($two_levels + 1), 'which holds the new version');
is(row_at($two_levels), '', 'the old version is not visible');

my $frames_loaded = frames_used();
$node->restart;
check_rows('after a clean restart');
is(sql(qq{SELECT id FROM big WHERE ctid = '$newctid'}), -($two_levels + 1), 'after a clean restart: the updated row');
is(frames_used(), $frames_loaded, 'after a clean restart: the rebuild finds the frames in use before it');

crash_restart($node, 'crash');
check_rows('after a crash');
is(sql(qq{SELECT id FROM big WHERE ctid = '$newctid'}), -($two_levels + 1), 'after a crash: the updated row');
is(frames_used(), $frames_loaded, 'after a crash: the rebuild finds the same frames in use');
is(levels(), 3, 'the page table keeps three levels');

# VACUUM gives the empty pages at the end back, down below 8 GB: the
# leaves and the page-table frame past the cut go too
my $cut = $two_levels - 8576;
sql(qq{DELETE FROM big WHERE ctid >= '($cut,0)'});
sql(q{VACUUM big});
is(sql(q{SELECT pg_relation_size('big') / 8192}), $cut, 'VACUUM cut the table back to 1,040,000 pages');
is(row_at($cut - 1), $cut, 'the last page kept holds its row');
is(row_at($cut), '', 'the first page cut is gone');
my $frames_cut = frames_used();
cmp_ok($frames_loaded - $frames_cut, '>=', $n + 1 - $cut, 'the pages cut went back to the pool');
$node->restart;
is(frames_used(), $frames_cut, 'after a restart: the rebuild agrees with what the cut freed');

# and past 8 GB once more, through the third level kept
($ret, $out, $err) = $node->psql('postgres',
	"COPY big FROM PROGRAM 'perl $gen 1 10000 - y' WITH (FORMAT binary)");
is($ret, 0, 'COPY of 10,000 more pages succeeds');
my $end = $cut + 10000;
is(sql(q{SELECT pg_relation_size('big') / 8192}), $end, 'the table is past 8 GB again');
is(join(',', row_at($two_levels - 1), row_at($two_levels), row_at($end - 1)),
	join(',', -($two_levels - 1 - $cut + 1), -($two_levels - $cut + 1), -10000),
	'rows on both sides of the line and on the last page');
is(sql(q{SELECT count(*) FROM nvm_am.nvm_am_check('big')}), '0', 'nvm_am_check finds nothing wrong');

sql(q{DROP TABLE big});
is(frames_used(), $frames_empty, 'DROP TABLE gives every frame back');
$node->restart;
is(frames_used(), $frames_empty, 'after a restart too');

$node->stop;
done_testing();
