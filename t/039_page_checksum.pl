# 039_page_checksum.pl - the checksum of a base page image is part of the
# pool format (docs/design.md, "Page checksums"): CRC-32C of the page's
# identity (tablespace, database and relfilenode, block number), pd_lower
# to pd_pagesize_version, the line pointers, each tuple of a normal line
# pointer in line-pointer order with its hint bits masked, and the special
# space, folded to 16 bits.  This test computes that checksum in Perl, byte
# by byte, for pages written whole (CREATE TABLE AS, rows of every length
# from 1 to 300 bytes of text) and for pages whose logs were sealed into
# new base images (updates, prunes), and compares it with the pd_checksum
# nvm_am stored.  However the server computes the CRC (folded with
# carry-less multiplication on CPUs that have it, else PostgreSQL's
# COMP_CRC32C), a pool it writes must carry these values.  Then a restart,
# after which every page's checksum is checked again at its first read
# (sequential scans, nvm_am_check).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use NvmProc;

my $node = nvm_node('cksum');
sub sql { return $node->safe_psql('postgres', $_[0]); }

# page_checksum PAGE, SPC, DB, REL, BLKNO - the checksum of a base image
sub page_checksum
{
	my ($page, $spc, $db, $rel, $blkno) = @_;
	my ($lower, $upper, $special) = unpack('v3', substr($page, 12, 6));
	my $crc = 0xFFFFFFFF;

	$crc = crc32c_add($crc, pack('V4', $spc, $db, $rel, $blkno));
	$crc = crc32c_add($crc, substr($page, 12, 8));
	$crc = crc32c_add($crc, substr($page, 24, $lower - 24));
	for (my $at = 24; $at < $lower; $at += 4)
	{
		my $lp = unpack('V', substr($page, $at, 4));
		next unless (($lp >> 15) & 3) == 1;    # LP_NORMAL
		my $tuple = substr($page, $lp & 0x7fff, $lp >> 17);
		# t_infomask without HEAP_XMIN_COMMITTED, _INVALID, HEAP_XMAX_...
		my $infomask = unpack('v', substr($tuple, 20, 2)) & ~0x0F00;
		substr($tuple, 20, 2) = pack('v', $infomask & 0xFFFF);
		$crc = crc32c_add($crc, $tuple);
	}
	$crc = crc32c_add($crc, substr($page, $special));
	$crc ^= 0xFFFFFFFF;
	return ($crc ^ ($crc >> 16)) & 0xFFFF;
}

# check_pages TABLE, WHAT - compare the stored and the computed checksum of
# every page of TABLE whose in-page log is empty (the image readers see is
# then the base image); returns how many pages were compared
sub check_pages
{
	my ($table, $what) = @_;
	my ($spc, $db, $rel) = split /\|/, sql(qq{
		SELECT CASE WHEN reltablespace = 0 THEN (SELECT oid FROM pg_tablespace
		       WHERE spcname = 'pg_default') ELSE reltablespace END,
		       (SELECT oid FROM pg_database WHERE datname = current_database()),
		       pg_relation_filenode(oid)
		FROM pg_class WHERE oid = '$table'::regclass});
	my @rows = split /\n/, sql(qq{
		SELECT b, encode(nvm_am.nvm_am_get_raw_page('$table', b), 'hex')
		FROM generate_series(0, pg_relation_size('$table') / 8192 - 1) b
		WHERE NOT EXISTS (SELECT FROM nvm_am.nvm_am_page_log('$table', b))});
	my @bad;
	for my $row (@rows)
	{
		my ($blkno, $hex) = split /\|/, $row;
		my $page = pack('H*', $hex);
		my $stored = unpack('v', substr($page, 8, 2));
		my $computed = page_checksum($page, $spc, $db, $rel, $blkno);
		push @bad, "block $blkno: stored $stored, computed $computed"
		  if $stored != $computed;
	}
	is(join("\n", @bad), '', "$what: every stored checksum is the format's CRC-32C ("
		  . scalar(@rows) . ' pages)');
	return scalar @rows;
}

sql(q{CREATE EXTENSION nvm_am});

# pages written whole: rows of every text length from 1 to 300 bytes, so
# tuple lengths fall on every remainder of the copy and fold granularities
sql(q{CREATE TABLE whole USING nvm_am AS
	SELECT g AS id, repeat(chr(65 + g % 26), 1 + g % 300) AS t
	FROM generate_series(1, 6000) g});
cmp_ok(check_pages('whole', 'CREATE TABLE AS'), '>', 100, 'more than 100 pages written whole');

# pages whose logs were sealed into new base images: HOT updates fill the
# logs with updates and prunes (redirects, unused line pointers), VACUUM
# prunes the rest
sql(q{CREATE TABLE sealed (id int PRIMARY KEY, v int, t text) USING nvm_am;
	INSERT INTO sealed SELECT g, 0, repeat('y', g % 200) FROM generate_series(1, 3000) g});
sql(q{UPDATE sealed SET v = v + 1}) for 1 .. 8;
sql(q{VACUUM sealed});
my $sealed = sql(q{SELECT value FROM nvm_am.nvm_am_stats WHERE name = 'merges_on_full'});
cmp_ok($sealed, '>', 0, "logs were sealed into new base images ($sealed)");
cmp_ok(check_pages('sealed', 'updated, pruned and sealed'), '>', 0, 'some sealed pages compared');
is(sql(q{SELECT count(*) FROM sealed WHERE v <> 8}), '0', 'every row updated 8 times');

# after a restart every frame's checksum is checked at its first read
$node->restart;
is(sql(q{SELECT count(*), sum(length(t)) FROM whole}), '6000|903000',
	'after a restart: the rows written whole (their checksums checked)');
is(sql(q{SELECT count(*), sum(v) FROM sealed}), '3000|24000', 'and the updated rows');
is(sql(q{SELECT count(*) FROM nvm_am.nvm_am_check('whole')}), '0', 'nvm_am_check: sound');
is(sql(q{SELECT count(*) FROM nvm_am.nvm_am_check('sealed')}), '0', 'nvm_am_check: sound');
is(sql(q{SELECT value FROM nvm_am.nvm_am_stats WHERE name = 'checksum_failures'}), '0',
	'no checksum failures');

$node->stop;
done_testing();
