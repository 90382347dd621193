# 017_cache_stale_slot.pl - the merge cache keeps all its slots usable when
# frames that still have a stale image in the cache are reused as the new
# frames of merges.
#
# The cache is not told when a frame is freed (a dropped table), so an
# image of a freed frame F can stay in a slot, with the map still naming
# that slot for F.  When F is taken again as the new frame of a merge (a
# page whose in-page log is full is written to a new frame), the remap must
# free the stale slot; before 0f4c13d it overwrote the map entry of F and
# left the slot holding F with no map entry naming it: never evicted, never
# reused, lost until a restart.  Here rounds of "create a table, change
# every page of it (images cached), drop it (frames freed, images stay),
# update a long-lived table whose 256-byte logs fill (merges take the freed
# frames)" lost about ten slots each of the 128 of a 1MB cache; afterwards
# the cache could not hold images of more than a handful of pages at once
# ("nvm_am merge cache has no free slot"), and the rounds' small working
# set was evicted over and over.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use NvmProc;

# the smallest merge cache (nvm_guc.c: 1MB, 128 slots) and the smallest
# in-page logs, so that logs fill after a few changes and pages merge often
my $node = nvm_node('staleslot',
	"nvm_am.merge_cache_size = '1MB'\nnvm_am.ipl_log_size = '256B'\n");

sub sql { return $node->safe_psql('postgres', $_[0]); }

my $ROUNDS = 20;
my $LROWS  = 200;

sql(qq{
CREATE EXTENSION nvm_am;
CREATE TABLE l (id int PRIMARY KEY, v int, pad text) USING nvm_am;
INSERT INTO l SELECT g, 0, repeat('l', 200) FROM generate_series(1, $LROWS) g;
});
my $nslots = sql(q{SELECT setting::bigint * 1024 / current_setting('block_size')::int
  FROM pg_settings WHERE name = 'nvm_am.merge_cache_size'});
is($nslots, 128, 'the merge cache has 128 slots');

my $evict0 = nvm_stat($node, 'merge_cache_evictions');
my $merge0 = nvm_stat($node, 'merges_on_full');

# the rounds: x's pages get images in the cache (its UPDATE changes each of
# them); DROP frees x's frames and leaves the images; the updates of l merge
# its pages into new frames, taken mostly from those just freed
my ($failed, $err) = (0, '');
for my $round (1 .. $ROUNDS)
{
	my ($ret, $out);
	($ret, $out, $err) = $node->psql('postgres', q{
CREATE TABLE x (id int, v int, pad text) USING nvm_am;
INSERT INTO x SELECT g, 0, repeat('x', 200) FROM generate_series(1, 300) g;
UPDATE x SET v = v + 1;
DROP TABLE x;
UPDATE l SET v = v + 1;
VACUUM l;
UPDATE l SET v = v + 1;
VACUUM l;
UPDATE l SET v = v + 1;
VACUUM l;
}, on_error_stop => 1);
	if ($ret != 0)
	{
		$failed = $round;
		last;
	}
}
is($failed, 0, "$ROUNDS rounds of create, change, drop, and merges of l run")
  or diag($err);
my $merges = nvm_stat($node, 'merges_on_full') - $merge0;
cmp_ok($merges, '>', 50 * $ROUNDS, "the rounds merged pages into new frames ($merges merges)");

# l and the tables of a round use a few dozen pages: they fit in the cache,
# which needs to evict little or nothing (with slots lost, it evicted the
# same pages again and again: 800 evictions)
my $evictions = nvm_stat($node, 'merge_cache_evictions') - $evict0;
cmp_ok($evictions, '<', $nslots / 2,
	"the rounds' pages fit in the cache ($evictions evictions)");

# every slot can still hold an image: open a cursor on each of nslots - 8
# one-page tables whose page has a log record (so it is read merged, from
# the cache); each cursor keeps its page's image pinned.  With slots lost,
# only a few could be held at once.  (nvm_am.read_mode = copy would copy
# the pages instead of pinning them: the probe sets redirect, whatever
# PGOPTIONS says.)
my $NCUR = $nslots - 8;

# one_page_tables FROM, TO - tables hFROM .. hTO of one row each, whose page
# has a log record
sub one_page_tables
{
	my ($from, $to) = @_;
	sql(qq{DO \$\$BEGIN
  FOR i IN $from..$to LOOP
    EXECUTE format('CREATE TABLE h%s (a int, b int) USING nvm_am', i);
    EXECUTE format('INSERT INTO h%s VALUES (%s, 0)', i, i);
    EXECUTE format('UPDATE h%s SET b = 1', i);
  END LOOP;
END\$\$;});
	return;
}

# cursors N - a transaction that keeps a cursor on each of h1 .. hN, each
# having fetched its row
sub cursors
{
	my ($n) = @_;
	my $s = "SET nvm_am.read_mode = redirect;\nBEGIN;\n";
	$s .= "DECLARE c$_ CURSOR FOR SELECT a FROM h$_;\nFETCH 1 FROM c$_;\n" for 1 .. $n;
	return $s . "COMMIT;\n";
}

sql('DROP TABLE IF EXISTS x');
one_page_tables(1, $NCUR);
my $script = cursors($NCUR);
my ($ret, $out);
($ret, $out, $err) = $node->psql('postgres', $script, on_error_stop => 1);
my $held = grep { /^\d+$/ } split /\n/, $out;
is($held, $NCUR, "$NCUR page images held in the cache at once ($held)");
unlike($err, qr/merge cache has no free slot/, 'no "merge cache has no free slot"');
is($ret, 0, 'the cursors\' transaction commits');

# more cursors than the cache has slots: the image that finds every slot
# pinned is an ERROR that says what to raise (as heap's "no unpinned
# buffers available"), and once that transaction is gone every slot is free
# again: the same nslots - 8 cursors hold their pages
my $NMORE = $nslots + 8;
one_page_tables($NCUR + 1, $NMORE);
($ret, $out, $err) = $node->psql('postgres', cursors($NMORE), on_error_stop => 1);
isnt($ret, 0, "$NMORE cursors holding pages with log records: more than the cache holds");
like($err, qr/ERROR:  nvm_am merge cache has no free slot\nDETAIL:  All $nslots page images of the cache are in use\.\nHINT:  Raise nvm_am\.merge_cache_size\./,
	'the error says the cache is full of pinned images and what to raise');
($ret, $out, $err) = $node->psql('postgres', $script, on_error_stop => 1);
$held = grep { /^\d+$/ } split /\n/, $out;
is($held, $NCUR, "after it, $NCUR page images held in the cache at once again ($held)");
sql(qq{DO \$\$BEGIN
  FOR i IN @{[ $NCUR + 1 ]}..$NMORE LOOP
    EXECUTE format('DROP TABLE h%s', i);
  END LOOP;
END\$\$;});

# the rows are all there and the pages sound
sub verify
{
	my ($when) = @_;
	is(sql(q{SELECT count(*), sum(v), min(v), max(v) FROM l}),
		"$LROWS|" . (3 * $ROUNDS * $LROWS) . "|" . (3 * $ROUNDS) . "|" . (3 * $ROUNDS),
		"$when: every row of l has all its updates");
	is(sql(q{SELECT count(*) FROM nvm_am.nvm_am_check('l')}), '0',
		"$when: nvm_am_check('l') clean");
	my $all = join(' UNION ALL ', map { "SELECT a, b FROM h$_" } 1 .. $NCUR);
	is(sql("SELECT count(*), sum(a), sum(b) FROM ($all) s"),
		"$NCUR|" . ($NCUR * ($NCUR + 1) / 2) . "|$NCUR",
		"$when: the one-page tables hold their rows");
	is(sql(qq{SELECT count(*) FROM generate_series(1, $NCUR) i,
  nvm_am.nvm_am_check(format('h%s', i)::regclass)}), '0',
		"$when: nvm_am_check clean on the one-page tables");
}
verify('before a restart');
$node->restart;
verify('after a restart');

unlike(slurp_file($node->logfile), qr/PANIC|TRAP/, 'no PANIC or TRAP in the server log');
$node->stop;

done_testing();
