# 015_pool_damage.pl - damage in the pool is reported, never read as data
# and never acted on.  Each case damages the pool file while the server is
# stopped, starts it, and checks that the damage ends in an error naming
# the relation (and block), that nvm_am_check() reports it where it can,
# and that undoing the damage gives back every row:
#   - a bad in-page log record followed by valid ones (only a torn last
#     record may be ignored: that is what a crash leaves); reading such a
#     page again and again takes nothing from the merge cache (a 1MB cache
#     of 128 images: every failed merge kept its slot reserved, and after
#     128 errors no page with log records could be read any more);
#   - a page-table entry pointing at another table's page (the checksum of
#     a page includes its relation and block);
#   - a directory entry with a smaller or impossible block count, or a
#     stray CREATING flag (the entry's words carry checks; a damaged entry
#     is left as it is: nothing reclaimed, nothing freed).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use NvmProc;

my $node = nvm_node('damage', "nvm_am.ipl_log_size = '1kB'\nnvm_am.merge_cache_size = '1MB'\n");
sub sql { return $node->safe_psql('postgres', $_[0]); }

sql('CREATE EXTENSION nvm_am');
my $pool = sql(q{SELECT path FROM nvm_am.nvm_am_pool_info()});

sub pte
{
	my ($relnode, $blkno) = @_;
	return pool_pte($pool, $relnode, $blkno) // die "no page-table entry for $relnode/$blkno";
}

sub dir_entry
{
	my ($relnode) = @_;
	return pool_dir_entry($pool, $relnode) // die "no directory entry for $relnode";
}

sub log_records
{
	my ($relnode, $blkno) = @_;
	return pool_log_records($pool, unpack('Q<', read_bytes($pool, pte($relnode, $blkno), 8)));
}

sub flip
{
	my ($off) = @_;
	my $b = read_bytes($pool, $off, 1);
	write_bytes($pool, $off, chr(ord($b) ^ 0x10));
	return;
}

# query SQL - (exit code, stdout, stderr)
sub query
{
	my ($ret, $out, $err) = $node->psql('postgres', $_[0]);
	return ($ret, $out, $err);
}

# ---------------------------------------------------------------------------
# in-page log records: ten single-row inserts, each one record of page 0
for my $t (qw(lfirst lmid llast lfine))
{
	sql(qq{CREATE TABLE $t (id int, v text) USING nvm_am});
	sql(qq{INSERT INTO $t VALUES ($_, 'row $_')}) for 1 .. 10;
}
my %node_of = map { $_ => sql(qq{SELECT pg_relation_filenode('$_')}) } qw(lfirst lmid llast);
$node->stop;
my %recs;
for my $t (qw(lfirst lmid llast))
{
	my ($log, @r) = log_records($node_of{$t}, 0);
	is(scalar(@r), 10, "$t: ten log records on page 0");
	$recs{$t} = [ $log, @r ];
}
# a byte of the first record's body, of a middle one's, of the last one's
flip($recs{lfirst}[0] + $recs{lfirst}[1][0] + 20);
flip($recs{lmid}[0] + $recs{lmid}[5][0] + 20);
flip($recs{llast}[0] + $recs{llast}[10][0] + 20);
$node->start;

for my $t (qw(lfirst lmid))
{
	my ($ret, $out, $err) = query("SELECT count(*) FROM $t");
	isnt($ret, 0, "$t: reading the page with a damaged log record fails");
	like($err, qr/ERROR:  nvm_am page 0 of relation with relfilenode $node_of{$t} has a damaged in-page log/,
		"$t: the error names the relation and the block");
	like(sql(qq{SELECT string_agg(blkno || ':' || problem, ',') FROM nvm_am.nvm_am_check('$t')}),
		qr/^0:in-page log damaged: the record at byte \d+ fails its check and valid records follow$/,
		"$t: nvm_am_check reports the page");
}
# a failed merge gives its merge-cache slot back: 300 failed reads (more
# than the cache's 128 images), then a page with log records still reads
sql(q{DO $$ BEGIN FOR i IN 1 .. 300 LOOP
        BEGIN PERFORM count(*) FROM lmid; EXCEPTION WHEN data_corrupted THEN NULL; END;
      END LOOP; END $$});
my ($ret0, $out0, $err0) = query("SELECT count(*) FROM lmid");
like($err0, qr/ERROR:  nvm_am page 0 of relation with relfilenode $node_of{lmid} has a damaged in-page log/,
	'after 300 failed reads the damaged page still fails as damaged');
is(sql(q{SELECT count(*) FROM lfine}), '10', 'after 300 failed reads another page with log records reads');
# a bad last record is what a crash leaves: it never happened
is(sql(q{SELECT count(*), max(id) FROM llast}), '9|9', 'llast: a bad last record is dropped, the rest read');
is(sql(q{SELECT count(*) FROM nvm_am.nvm_am_check('llast')}), '0', 'llast: nvm_am_check clean');
sql('DROP TABLE llast');

# undo the damage: every row is back
$node->stop;
flip($recs{lfirst}[0] + $recs{lfirst}[1][0] + 20);
flip($recs{lmid}[0] + $recs{lmid}[5][0] + 20);
$node->start;
is(sql(q{SELECT count(*) FROM lfirst}) . '|' . sql(q{SELECT count(*) FROM lmid}), '10|10',
	'with the bytes restored all rows are back');

# ---------------------------------------------------------------------------
# a page-table entry pointing at another table's page
sql(q{CREATE TABLE pub (id int, v text) USING nvm_am;
      INSERT INTO pub SELECT g, 'public ' || g FROM generate_series(1, 20) g;
      CREATE TABLE secret (id int, v text) USING nvm_am;
      INSERT INTO secret SELECT g, 'secret ' || g FROM generate_series(1, 20) g;
      CHECKPOINT;});
my $pub = sql(q{SELECT pg_relation_filenode('pub')});
my $secret = sql(q{SELECT pg_relation_filenode('secret')});
$node->stop;
my $pub_pte = pte($pub, 0);
my $pub_frame = read_bytes($pool, $pub_pte, 8);
write_bytes($pool, $pub_pte, read_bytes($pool, pte($secret, 0), 8));
$node->start;
my ($ret, $out, $err) = query(q{SELECT v FROM pub});
isnt($ret, 0, 'reading pub through an entry pointing at secret\'s page fails');
unlike($out, qr/secret/, 'no row of secret is returned');
like($err, qr/ERROR:  nvm_am page 0 of relation with relfilenode $pub has a bad checksum/,
	'the error names pub and its block');
like(sql(q{SELECT string_agg(blkno || ':' || problem, ',') FROM nvm_am.nvm_am_check('pub')}),
	qr/^0:page checksum mismatch/, 'nvm_am_check reports the page');
is(sql(q{SELECT count(*) FROM secret}), '20', 'secret reads as before');
$node->stop;
write_bytes($pool, $pub_pte, $pub_frame);
$node->start;
is(sql(q{SELECT count(*), min(v) FROM pub}), '20|public 1', 'with the entry restored pub reads again');

# ---------------------------------------------------------------------------
# directory entries
sql(q{CREATE TABLE d (id int, pad text) USING nvm_am;
      INSERT INTO d SELECT g, repeat('d', 500) FROM generate_series(1, 60) g;});
my $d = sql(q{SELECT pg_relation_filenode('d')});
my $d_rows = sql(q{SELECT count(*), sum(id) FROM d});
my $d_blocks = sql(q{SELECT pg_relation_size('d') / 8192});
cmp_ok($d_blocks, '>=', 4, "d has $d_blocks blocks");
$node->stop;
my $entry = dir_entry($d);
my $last_pte = pte($d, $d_blocks - 1);
my $orig = read_bytes($pool, $entry, 64);
my $last_frame = read_bytes($pool, $last_pte, 8);
my ($state) = unpack('Q<', substr($orig, 0, 8));
my ($nblocks) = unpack('Q<', substr($orig, 32, 8));
for my $case (
	[ 'a smaller block count', 32, pack('Q<', $nblocks - 1) ],
	[ 'a block count above 2^32', 32, pack('Q<', 4294967296 + 5) ],
	[ 'a stray CREATING flag', 0, pack('Q<', $state | (2 << 32)) ])
{
	my ($name, $off, $bytes) = @$case;
	write_bytes($pool, $entry + $off, $bytes);
	my $logoff = -s $node->logfile;
	$node->start;
	like(substr(slurp_file($node->logfile), $logoff),
		qr/WARNING:  nvm_am pool directory entry \d+ of relation \d+\/\d+\/$d is damaged: its (block count|state word) fails its check/,
		"$name: the start warns, naming the relation");
	($ret, $out, $err) = query(q{SELECT count(*) FROM d});
	isnt($ret, 0, "$name: reading the table fails");
	like($err, qr/ERROR:  nvm_am pool directory entry \d+ of relation \d+\/\d+\/$d is damaged/,
		"$name: the error names the relation");
	($ret, $out, $err) = query(q{INSERT INTO d VALUES (0, 'x')});
	isnt($ret, 0, "$name: writing the table fails");
	is(sql(q{SELECT count(*) FROM lfirst}), '10', "$name: other tables read as before");
	# give the recovery worker time to act, should it
	sleep 2;
	$node->stop;
	is(read_bytes($pool, $last_pte, 8), $last_frame,
		"$name: the page-table entry of the last block was not reclaimed");
	is(substr(read_bytes($pool, $entry, 64), 24, 8), substr($orig, 24, 8),
		"$name: the entry's root was not touched");
	write_bytes($pool, $entry, $orig);
	$node->start;
	is(sql(q{SELECT count(*), sum(id) FROM d}), $d_rows, "$name: with the entry restored every row is back");
	is(sql(q{SELECT count(*) FROM nvm_am.nvm_am_check('d')}), '0', "$name: nvm_am_check clean");
	$node->stop;
}

# a damaged table can be dropped; its space comes back at the next start
write_bytes($pool, $entry + 32, pack('Q<', $nblocks - 1));
$node->start;
my $frames = sql(q{SELECT frames_used FROM nvm_am.nvm_am_pool_info()});
sql(q{DROP TABLE d});
$node->restart;
cmp_ok(sql(q{SELECT frames_used FROM nvm_am.nvm_am_pool_info()}), '<', $frames,
	'dropping the damaged table gave its frames back after the restart');
is(sql(q{SELECT count(*) FROM lfirst}) . '|' . sql(q{SELECT count(*) FROM pub}), '10|20',
	'the other tables are intact');
unlike(slurp_file($node->logfile), qr/PANIC|TRAP|terminated by signal/, 'no PANIC, TRAP or crash');
$node->stop;

done_testing();
