# 048_random_dml.pl - random DML on an nvm_am table and its heap twin: the
# two must hold the same rows, through merges, restarts, crashes and replay.
#
# A procedure draws statements at random — inserts, deletes, updates that
# change a column's start, end or middle, make it longer or shorter, NULL or
# not NULL, move a row to another key, rewrite a row as a long compressed
# value, several rows at once — and runs each on both tables, some in
# subtransactions that fail, some transactions rolled back, committing now
# and then.  These take every path of the compact in-page records
# (docs/design.md, "DELTA records": a prefix or suffix shared with the old
# version or not, header changes, new tuples) with logs of 256 bytes and a
# merge cache of 1MB, so that logs fill and images are merged again from
# their logs.  Node A (no WAL mode): after a run, a clean restart, and a
# SIGKILL during a run.  Node B (WAL mode, 512-byte logs) with a streaming
# standby: after each run the standby's table equals the primary's, system
# columns included; the standby is killed once, the primary once.
# nvm_am_check() is clean everywhere.  The seed is random (noted; set
# NVM_TAP_SEED to repeat a run).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(usleep);
use FindBin;
use lib $FindBin::RealBin;
use NvmProc;

my $seed = $ENV{NVM_TAP_SEED} || (time() ^ $$) % 1000000;
note "random seed $seed (set NVM_TAP_SEED to repeat)";
srand($seed);

my $setup = q{
CREATE TABLE fh (k int PRIMARY KEY, a text, b int, c text, d bytea, e int8) USING heap;
CREATE TABLE fn (k int PRIMARY KEY, a text, b int, c text, d bytea, e int8) USING nvm_am;
-- random_dml(seed, iters, maxk): iters random statements, each on fh and fn
CREATE PROCEDURE random_dml(seed float8, iters int, maxk int) LANGUAGE plpgsql AS $$
DECLARE
  op int; k int; s text; col text; v text; tab text;
BEGIN
  PERFORM setseed(seed);
  FOR i IN 1 .. iters LOOP
    op := (random() * 100)::int;
    k := 1 + (random() * (maxk - 1))::int;
    col := (ARRAY['a', 'c', 'd'])[1 + (random() * 2)::int];
    v := md5(random()::text);
    s := CASE
      WHEN op < 8 THEN format('INSERT INTO @ VALUES (%s, %L, %s, %L, %L, %s) ON CONFLICT (k) DO NOTHING',
             k, repeat(v, (random() * 4)::int), (random() * 1000)::int,
             CASE WHEN random() < 0.2 THEN NULL ELSE repeat('x', (random() * 300)::int) END,
             decode(v, 'hex'), (random() * 1e12)::int8)
      WHEN op < 12 THEN format('DELETE FROM @ WHERE k = %s', k)
      WHEN op < 20 THEN format('UPDATE @ SET b = b + 1, e = coalesce(e, 0) - 7 WHERE k = %s', k)
      WHEN op < 30 THEN format('UPDATE @ SET %I = NULL WHERE k = %s', col, k)
      -- a new start, a new end
      WHEN op < 45 AND col = 'd' THEN format('UPDATE @ SET d = %L::bytea || coalesce(d, ''\x'') WHERE k = %s', v, k)
      WHEN op < 45 THEN format('UPDATE @ SET %I = %L || coalesce(%I, '''') WHERE k = %s', col, v, col, k)
      WHEN op < 60 AND col = 'd' THEN format('UPDATE @ SET d = coalesce(d, ''\x'') || %L::bytea WHERE k = %s', v, k)
      WHEN op < 60 THEN format('UPDATE @ SET %I = coalesce(%I, '''') || %L WHERE k = %s', col, col, v, k)
      -- a change in the middle, a shorter value
      WHEN op < 75 AND col = 'd' THEN format('UPDATE @ SET d = overlay(coalesce(d, ''\x00'') placing ''\xff''::bytea FROM %s FOR 1) WHERE k = %s',
             1 + (random() * 10)::int, k)
      WHEN op < 75 THEN format('UPDATE @ SET %I = overlay(coalesce(%I, ''z'') placing %L FROM %s FOR %s) WHERE k = %s',
             col, col, chr(65 + (random() * 25)::int), 1 + (random() * 40)::int, (random() * 3)::int, k)
      WHEN op < 82 AND col = 'd' THEN format('UPDATE @ SET d = substring(d FROM 2) WHERE k = %s', k)
      WHEN op < 82 THEN format('UPDATE @ SET %I = substr(%I, 1 + length(%I) / 3) WHERE k = %s', col, col, col, k)
      -- a new key (a non-HOT update), several rows, a long compressed value
      WHEN op < 86 THEN format('UPDATE @ SET k = k + %s WHERE k = %s AND NOT EXISTS (SELECT FROM @ WHERE k = %s)',
             maxk, k, k + maxk)
      WHEN op < 90 THEN format('UPDATE @ SET a = %L, b = NULL, c = %L WHERE k BETWEEN %s AND %s',
             v, repeat('q', (random() * 50)::int), k, k + 5)
      WHEN op < 94 THEN format('UPDATE @ SET c = repeat(%L, %s) WHERE k = %s',
             chr(97 + (random() * 25)::int), (random() * 2500)::int, k)
    END;
    IF s IS NOT NULL THEN
      FOREACH tab IN ARRAY ARRAY['fh', 'fn'] LOOP
        IF op >= 98 THEN
          BEGIN
            EXECUTE replace(s, '@', tab);
            RAISE EXCEPTION 'undone';
          EXCEPTION WHEN raise_exception THEN NULL;
          END;
        ELSE
          EXECUTE replace(s, '@', tab);
        END IF;
      END LOOP;
    END IF;
    IF op BETWEEN 94 AND 95 THEN COMMIT; END IF;
    IF op = 96 THEN ROLLBACK; END IF;
  END LOOP;
END $$;
};

my $diff = q{SELECT (SELECT count(*) FROM (TABLE fh EXCEPT ALL TABLE fn) x) || ' '
              || (SELECT count(*) FROM (TABLE fn EXCEPT ALL TABLE fh) y) || ' '
              || (SELECT count(*) > 200 FROM fn)};
my $rows = q{SELECT md5(string_agg(format('%s %s %s %s', ctid, xmin, xmax, fn), E'\n' ORDER BY ctid))
              FROM fn};
my $round = 0;

# a setseed() argument, different in every round
sub next_seed { $round++; return sprintf('%.6f', (($seed + $round * 7919) % 1000000) / 1000000); }

sub run_dml
{
	my ($node, $iters) = @_;
	$node->safe_psql('postgres', sprintf('CALL random_dml(%s, %d, 3000)', next_seed(), $iters));
	return;
}

# run_dml_killed NODE - random DML killed (the whole server) after 0.5-2 s, then a start
sub run_dml_killed
{
	my ($node) = @_;
	my ($out, $err) = ('', '');
	my $h = IPC::Run::start(
		[ 'psql', '-X', '-d', $node->connstr('postgres'),
		  '-c', sprintf('CALL random_dml(%s, 1000000, 3000)', next_seed()) ],
		'>', \$out, '2>', \$err);
	usleep(500_000 + int(rand(1_500_000)));
	ok(kill_server($node), $node->name . ': server gone after SIGKILL during random DML');
	$h->finish;
	$node->start;
	return;
}

sub same_as_heap
{
	my ($node, $what) = @_;
	is($node->safe_psql('postgres', $diff), '0 0 true', $node->name . ": fn equals its heap twin $what");
	return;
}

sub check_clean
{
	my ($node) = @_;
	is($node->safe_psql('postgres', q{SELECT count(*) FROM nvm_am.nvm_am_check('fn')}), '0',
		$node->name . ': nvm_am_check(fn) is clean');
	return;
}

# ---- node A: no WAL mode ----
my $na = nvm_node('rdml_a', qq{nvm_am.pool_size = '128MB'
nvm_am.ipl_log_size = '256B'
nvm_am.merge_cache_size = '1MB'
});
$na->safe_psql('postgres', "CREATE EXTENSION nvm_am; $setup");
run_dml($na, 20000);
same_as_heap($na, 'after a run');
cmp_ok($na->safe_psql('postgres', q{SELECT count(*) FROM
		generate_series(0, pg_relation_size('fn') / 8192 - 1) b, nvm_am.nvm_am_page_log('fn', b) l
		WHERE l.kind = 'delta'}), '>', 0, 'rdml_a: the logs hold DELTA records');
$na->restart;
same_as_heap($na, 'after a clean restart');
cmp_ok(nvm_stat($na, 'merges_on_read'), '>', 20, 'rdml_a: pages were merged from their logs when read');
run_dml($na, 20000);
same_as_heap($na, 'after a second run');
run_dml_killed($na);
same_as_heap($na, 'after a SIGKILL during a run');
run_dml($na, 10000);
same_as_heap($na, 'after a run after the crash');
check_clean($na);
$na->stop;

# ---- node B: WAL mode, with a streaming standby ----
my $nb = wal_node('rdml_b', 1, qq{nvm_am.pool_size = '128MB'
nvm_am.ipl_log_size = '512B'
nvm_am.merge_cache_size = '1MB'
});
$nb->safe_psql('postgres', $setup);
$nb->backup('bkp');
my $s = PostgreSQL::Test::Cluster->new('rdml_b_standby');
$s->init_from_backup($nb, 'bkp', has_streaming => 1);
$s->start;

sub standby_equal
{
	my ($what) = @_;
	$nb->wait_for_catchup($s);
	is($s->safe_psql('postgres', $rows), $nb->safe_psql('postgres', $rows),
		"rdml_b: the standby's fn equals the primary's, system columns included, $what");
	return;
}

run_dml($nb, 20000);
same_as_heap($nb, 'after a run');
standby_equal('after a run');
ok(kill_server($s), 'rdml_b_standby: gone after SIGKILL');
$s->start;
run_dml($nb, 20000);
same_as_heap($nb, 'after a run while the standby restarted');
standby_equal('after the standby was killed');
run_dml_killed($nb);
same_as_heap($nb, 'after a SIGKILL during a run');
standby_equal('after the primary was killed');
check_clean($nb);
check_clean($s);
$s->stop;
$nb->stop;
done_testing();
