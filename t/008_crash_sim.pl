# 008_crash_sim.pl - power failures at many points of a workload, simulated.
#
# pmemcheck and pmreorder are not available, so the pool layer traces every
# flush and drain (nvm_am.persist_trace) and test/crashsim/make_image.py
# builds the pool a power failure at a chosen event would leave: what a
# drain made durable is there, what was flushed but not yet drained is
# there or not at random, what was never flushed is not.  WAL is cut at the
# position that was flushed at that event.  The data directory is a copy
# taken (after a checkpoint, server stopped without a shutdown checkpoint)
# before the traced run, so recovery replays exactly the durable WAL.
#
# The workload: transfer transactions over accounts, tellers and history
# (nvm_am) and branches (heap), so that a commit touches both kinds of
# storage, plus inserts and deletes of an nvm_am table, COPYs of 300 rows
# into an existing one (new pages written whole), and VACUUM; and a
# client whose storage is new in its transaction (persisted at pre-commit,
# not change by change): CREATE TABLE AS, some through two-phase commit,
# TRUNCATE and a reload, some rolled back.  On
# every image the server must start, and then: every balance equals the sum
# of its history deltas, in both kinds of storage (a transaction is there
# in all of them or in none); every table made by CREATE TABLE AS, and the
# reloaded table, holds all of its rows; sequential and index scans agree;
# nvm_am_check finds nothing; the log shows no PANIC or crash.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use File::Path qw(rmtree);
use IPC::Run;
use Time::HiRes qw(usleep);
use FindBin;

my $seed = $ENV{NVM_TAP_SEED} || (time() ^ $$) % 1000000;
srand($seed);
note "random seed $seed (set NVM_TAP_SEED to repeat)";

$ENV{PMEM_IS_PMEM_FORCE} = 1;
my $pool = "/dev/shm/nvm_am_tap_008_$$.pool";
my $work = PostgreSQL::Test::Utils::tempdir;
my $base_pool = "$work/base.pool";
my $img_pool = "$work/image.pool";
my $traces = "$work/traces";
END { unlink $pool if defined $pool; }
mkdir $traces or die "mkdir $traces: $!";

my $node = PostgreSQL::Test::Cluster->new('sim');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'nvm_am'
nvm_am.pool_path = '$pool'
nvm_am.pool_size = '64MB'
nvm_am.ipl_log_size = '512B'
autovacuum = off
max_prepared_transactions = 4
checkpoint_timeout = '1h'
max_wal_size = '4GB'
synchronous_commit = on
});
$node->start;
$node->safe_psql('postgres', q{
CREATE EXTENSION nvm_am;
CREATE TABLE accounts (aid int PRIMARY KEY, abalance bigint NOT NULL, filler char(80)) USING nvm_am;
CREATE TABLE tellers (tid int PRIMARY KEY, tbalance bigint NOT NULL, filler char(80)) USING nvm_am;
CREATE TABLE branches (bid int PRIMARY KEY, bbalance bigint NOT NULL, filler char(80)) USING heap;
CREATE TABLE history (id bigint PRIMARY KEY, aid int, tid int, bid int, delta int, filler char(20)) USING nvm_am;
CREATE TABLE misc (id bigint PRIMARY KEY, v int NOT NULL, pad text) USING nvm_am;
CREATE TABLE bulk (k int NOT NULL, id int NOT NULL, pad text) USING nvm_am;
CREATE INDEX ON bulk (k, id);
INSERT INTO accounts SELECT g, 0, '' FROM generate_series(1, 300) g;
INSERT INTO tellers SELECT g, 0, '' FROM generate_series(1, 10) g;
INSERT INTO branches SELECT g, 0, '' FROM generate_series(1, 3) g;
CREATE TABLE reload (id int, k int, pad text) USING nvm_am;
INSERT INTO reload SELECT g, 0, '' FROM generate_series(1, 300) g;
-- the tables ctas_<k> whose rows are not ids 1..300, all k, or that
-- nvm_am_check finds a problem in
CREATE FUNCTION ctas_problems() RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  r record;
  got text;
  bad text := '';
BEGIN
  FOR r IN SELECT relname FROM pg_class WHERE relname LIKE 'ctas\_%' AND relkind = 'r' LOOP
    EXECUTE format('SELECT count(*) || '','' || sum(id) || '','' || count(*) FILTER (WHERE k = %s) FROM %I',
                   substr(r.relname, 6), r.relname) INTO got;
    got := got || ',' || (SELECT count(*) FROM nvm_am.nvm_am_check(r.relname::regclass));
    IF got <> '300,45150,300,0' THEN
      bad := bad || r.relname || ':' || got || ' ';
    END IF;
  END LOOP;
  RETURN bad;
END $$;
CHECKPOINT;
});
# not a clean shutdown: a copy of a cleanly shut down data directory would
# start without replaying the WAL written after it
$node->stop('immediate');

# the state before the traced run: data directory and pool
my $pgdata = $node->data_dir;
my $snap = "$work/snap";
system('cp', '-a', $pgdata, $snap) == 0 or die "cp $pgdata: $?";
system('cp', $pool, $base_pool) == 0 or die "cp $pool: $?";

# ---------------------------------------------------------------------
# the traced run
# ---------------------------------------------------------------------
$node->append_conf('postgresql.conf', "nvm_am.persist_trace = '$traces'\n");
$node->start;

sub client_script
{
	my ($c) = @_;
	my $s = '';
	if ($c == 4)
	{
		# storage new in its transaction
		for my $i (1 .. 2000)
		{
			my $end = $i % 4 == 0 ? "ROLLBACK;\n" : "COMMIT;\n";
			if ($i % 3 == 0)
			{
				$s .= "BEGIN;\nTRUNCATE reload;\nINSERT INTO reload SELECT g, $i, repeat('r', 40) "
				  . "FROM generate_series(1, 300) g;\n$end";
			}
			else
			{
				# one in eight through two-phase commit (persisted at PREPARE)
				$end = "PREPARE TRANSACTION 'ctas_$i';\nCOMMIT PREPARED 'ctas_$i';\n"
				  if $i % 8 == 1;
				$s .= "BEGIN;\nCREATE TABLE ctas_$i USING nvm_am AS SELECT g AS id, $i AS k, "
				  . "repeat('c', 60) AS pad FROM generate_series(1, 300) g;\n$end";
			}
			$s .= "DROP TABLE IF EXISTS ctas_" . ($i - 8) . ";\n" if $i > 8;
		}
		return $s;
	}
	for my $i (1 .. 3000)
	{
		my $id = $c * 1_000_000 + $i;
		my ($aid, $tid, $bid) = (1 + int(rand(300)), 1 + int(rand(10)), 1 + int(rand(3)));
		my $delta = int(rand(2001)) - 1000;
		$s .= "BEGIN;\nUPDATE accounts SET abalance = abalance + $delta WHERE aid = $aid;\n"
		  . "UPDATE tellers SET tbalance = tbalance + $delta WHERE tid = $tid;\n"
		  . "UPDATE branches SET bbalance = bbalance + $delta WHERE bid = $bid;\n"
		  . "INSERT INTO history VALUES ($id, $aid, $tid, $bid, $delta, '');\n"
		  . ($i % 11 == 0 ? "ROLLBACK;\n" : "COMMIT;\n");
		$s .= "INSERT INTO misc VALUES ($id, $i, repeat('m', " . (20 + int(rand(200))) . "));\n"
		  if $c == 3;
		$s .= "DELETE FROM misc WHERE id = " . ($id - 40) . ";\n" if $c == 3 && $i > 40 && $i % 2;
		# COPY of 300 rows into an existing table: new pages written whole
		$s .= ($i % 300 == 0 ? "BEGIN;\n" : '')
		  . "COPY bulk FROM PROGRAM 'seq 1 300 | sed \"s/^/$i\\t/; s/\$/\\t"
		  . ('b' x 50) . "/\"';\n" . ($i % 300 == 0 ? "ROLLBACK;\n" : '')
		  if $c == 2 && $i % 25 == 0;
		$s .= "VACUUM accounts; VACUUM tellers; VACUUM misc;\n" if $c == 1 && $i % 200 == 0;
	}
	return $s;
}

my @clients;
for my $c (1 .. 4)
{
	my $file = "$work/client$c.sql";
	open my $fh, '>', $file or die "$file: $!";
	print $fh client_script($c);
	close $fh;
	push @clients, IPC::Run::start(
		[ 'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-o', '/dev/null', '-d', $node->connstr('postgres'), '-f', $file ],
		'<', \undef, '>', \my $out, '2>', \my $err);
}
usleep(3_000_000);
# the "power failure": stop without writing anything more
$node->stop('immediate');
$_->finish for @clients;

my $wal_final = "$work/wal_final";
system('cp', '-a', "$pgdata/pg_wal", $wal_final) == 0 or die "cp pg_wal: $?";

my ($nevents, $first, $last) = split ' ', `python3 $FindBin::RealBin/../test/crashsim/make_image.py $traces --events`;
cmp_ok($nevents, '>', 1000, "the traced run made persist events ($nevents)");

# cut the WAL copied into pgdata at lsn (X/Y): zero the rest of its
# segment, remove later segments
sub cut_wal
{
	my ($lsn) = @_;
	my ($hi, $lo) = map { hex } split m{/}, $lsn;
	my $pos = $hi * 4294967296 + $lo;
	my $segsize = 16 * 1024 * 1024;
	my $segno = int($pos / $segsize);
	for my $f (glob("$pgdata/pg_wal/0*"))
	{
		my ($name) = $f =~ m{/([0-9A-F]{24})$} or next;
		my $n = hex(substr($name, 8, 8)) * 256 + hex(substr($name, 16, 8));
		if ($n > $segno) { unlink $f; }
		elsif ($n == $segno)
		{
			my $off = $pos % $segsize;
			open my $fh, '+<:raw', $f or die "$f: $!";
			sysseek($fh, $off, 0);
			syswrite($fh, "\0" x ($segsize - $off));
			close $fh;
		}
	}
	return;
}

# The points: half of them inside each kind of step in turn (a flush of a
# directory entry, a transaction slot, the commit log, a whole page or
# page-table frame, an 8-byte publish into a frame, an in-page log record),
# at the flush itself or the event before it; the other half at random;
# and the end.  NVM_CRASH_POINTS sets how many (the test command: 9).
my $npoints = $ENV{NVM_CRASH_POINTS} || 9;
my %classes;
for (split /\n/, `python3 $FindBin::RealBin/../test/crashsim/make_image.py $base_pool $traces --classes`)
{
	my ($class, @seqs) = split ' ';
	$classes{$class} = \@seqs if @seqs;
}
my @kinds = sort keys %classes;
note "flushes by kind: " . join(', ', map { "$_ " . scalar(@{ $classes{$_} }) } @kinds);
my @points;
for my $k (0 .. int(($npoints - 1) / 2) - 1)
{
	my $seqs = $classes{ $kinds[ $k % @kinds ] };
	my $seq = $seqs->[ int(rand(@$seqs)) ] - int(rand(2));
	push @points, [ $seq < $first ? $first : $seq, $kinds[ $k % @kinds ] ];
}
push @points, [ $first + int(rand($last - $first + 1)), 'random' ]
  while @points < $npoints - 1;
@points = sort { $a->[0] <=> $b->[0] } @points;
push @points, [ $last, 'end' ];    # everything that was flushed, undrained flushes at random
my %failed_by_kind;
for my $p (@points)
{
	my ($point, $kind) = @$p;
	my $name = "power failure at event $point of $first..$last ($kind)";
	my $failures_before = grep { !$_ } Test::More->builder->summary;
	rmtree($pgdata);
	system('cp', '-a', $snap, $pgdata) == 0 or die "cp snap: $?";
	rmtree("$pgdata/pg_wal");
	system('cp', '-a', $wal_final, "$pgdata/pg_wal") == 0 or die "cp wal: $?";
	my $lsn = `python3 $FindBin::RealBin/../test/crashsim/make_image.py $base_pool $traces $pool --point $point --seed $point 2>/dev/null`;
	chomp $lsn;
	like($lsn, qr{^[0-9A-F]+/[0-9A-F]+$}, "$name: image built, WAL durable up to $lsn");
	cut_wal($lsn);
	$node->append_conf('postgresql.conf', "nvm_am.persist_trace = ''\n");
	my $off = -s $node->logfile;
	ok($node->start(fail_ok => 1), "$name: the server starts on the image")
	  or do { $failed_by_kind{$kind}++; next; };

	my $q = q{
SELECT (SELECT coalesce(sum(abalance), 0) FROM accounts) || ' ' || (SELECT coalesce(sum(tbalance), 0) FROM tellers)
       || ' ' || (SELECT coalesce(sum(bbalance), 0) FROM branches) || ' ' || (SELECT coalesce(sum(delta), 0) FROM history);
SELECT count(*) FROM accounts a FULL JOIN (SELECT aid, sum(delta) s FROM history GROUP BY aid) h USING (aid)
 WHERE a.aid IS NULL OR a.abalance <> coalesce(h.s, 0);
SELECT count(*) FROM branches b FULL JOIN (SELECT bid, sum(delta) s FROM history GROUP BY bid) h USING (bid)
 WHERE b.bid IS NULL OR b.bbalance <> coalesce(h.s, 0);
};
	my @r = split /\n/, $node->safe_psql('postgres', $q);
	if ($point == $last)
	{
		# not vacuous: the image after the last event holds the run's commits
		cmp_ok($node->safe_psql('postgres', 'SELECT count(*) FROM history'), '>', 100,
			"$name: the transfers committed during the traced run are there");
	}
	my @sums = split / /, $r[0];
	ok($sums[0] == $sums[3] && $sums[1] == $sums[3] && $sums[2] == $sums[3],
		"$name: accounts, tellers, branches (heap) and history agree") or diag("sums @sums");
	# on a mismatch, show which rows disagree
	diag($node->safe_psql('postgres', q{
SELECT a.aid, a.abalance, h.s, a.ctid, a.xmin, a.xmax FROM accounts a
  FULL JOIN (SELECT aid, sum(delta) s FROM history GROUP BY aid) h USING (aid)
 WHERE a.aid IS NULL OR a.abalance <> coalesce(h.s, 0)}))
	  unless $sums[0] == $sums[3] && $sums[1] == $sums[3] && $sums[2] == $sums[3];
	is("$r[1] $r[2]", '0 0', "$name: every account and branch balance is the sum of its history");
	is($node->safe_psql('postgres', 'SELECT ctas_problems()'), '',
		"$name: every table made by CREATE TABLE AS holds its rows");
	is($node->safe_psql('postgres', q{SELECT count(*) || ' ' || count(DISTINCT k) || ' ' || sum(id) FROM reload}),
		'300 1 45150', "$name: the table truncated and reloaded holds one whole load");
	cmp_ok($node->safe_psql('postgres', q{SELECT count(*) FROM pg_class WHERE relname LIKE 'ctas\_%'}),
		'>', 0, "$name: tables made by CREATE TABLE AS are there")
	  if $point == $last;
	is($node->safe_psql('postgres', q{SELECT count(*) FROM (SELECT k FROM bulk GROUP BY k HAVING count(*) <> 300 OR sum(id) <> 45150) s}),
		'0', "$name: every COPY into an existing table is there whole or not at all");
	cmp_ok($node->safe_psql('postgres', q{SELECT count(*) FROM bulk}), '>=', 300,
		"$name: COPYs into an existing table are there") if $point == $last;
	my $agg = q{SELECT count(*) || ':' || md5(coalesce(string_agg(id::text, ',' ORDER BY id), '')) FROM };
	is($node->safe_psql('postgres', "SET enable_seqscan = off; SET enable_bitmapscan = off; $agg history WHERE id > 0; $agg misc WHERE id > 0"),
		$node->safe_psql('postgres', "SET enable_indexscan = off; SET enable_bitmapscan = off; $agg history; $agg misc"),
		"$name: index scans and sequential scans agree");
	my $problems = $node->safe_psql('postgres', q{
SELECT t, blkno, offnum, problem FROM (
  SELECT 'accounts' t, * FROM nvm_am.nvm_am_check('accounts') UNION ALL SELECT 'tellers', * FROM nvm_am.nvm_am_check('tellers')
  UNION ALL SELECT 'history', * FROM nvm_am.nvm_am_check('history') UNION ALL SELECT 'misc', * FROM nvm_am.nvm_am_check('misc')
  UNION ALL SELECT 'bulk', * FROM nvm_am.nvm_am_check('bulk')) c
 LIMIT 20});
	is($problems, '', "$name: nvm_am_check finds no problem");
	$node->stop('immediate');
	my $log = substr(slurp_file($node->logfile), $off);
	unlike($log, qr/PANIC|TRAP|terminated by signal/, "$name: no crash in the server log");
	$failed_by_kind{$kind}++
	  if (grep { !$_ } Test::More->builder->summary) > $failures_before;
}
note sprintf("%d power failures simulated (%s); kinds with a failure: %s",
	scalar(@points),
	join(', ', map { my $k = $_; "$k " . scalar(grep { $_->[1] eq $k } @points) } (@kinds, 'random', 'end')),
	%failed_by_kind ? join(', ', sort keys %failed_by_kind) : 'none');

done_testing();
