# 047_wal_mixed_standby.pl - nvm_am.wal_log = on: a mixed concurrent
# workload reaches a streaming hot standby intact, also across a crash of
# either server.
#
# The primary runs, with 8 pgbench clients: transfers between 100 accounts
# (a savepoint, sometimes rolled back; some HOT updates, some that change
# an indexed column), upserts into 20 counters (INSERT ... ON CONFLICT DO
# UPDATE), a delete and re-insert of 30 unique keys (ON CONFLICT DO
# NOTHING: speculative insertions that lose), foreign-key inserts of
# children while parents are deleted and inserted again, and REPEATABLE
# READ readers that take FOR SHARE and FOR KEY SHARE locks and check that
# the balances sum to their total; one more client runs VACUUM on every
# table five times a second (prunes, index clean-up, line pointers freed,
# all in WAL).  Meanwhile pgbench clients on the standby check the same
# sum with hot-standby snapshots.
#
# Three rounds: undisturbed, with a SIGKILL of the standby in the middle
# (then started again: it catches up from where its replay was), and with
# a SIGKILL of the primary (crash recovery; the standby reconnects).  After
# each the standby catches up and its five tables equal the primary's row
# by row; on both the sum holds, no child row lacks its parent, no unique
# key is there twice, sequential and index scans agree, and nvm_am_check()
# is clean.  No server log has an assertion failure or a PANIC.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use NvmProc;

my $primary = wal_node('primary', 1);
$primary->safe_psql('postgres', q{
CREATE TABLE acct (id int PRIMARY KEY, bal bigint NOT NULL, pad text);
INSERT INTO acct SELECT g, 1000, repeat('x', g % 50) FROM generate_series(1, 100) g;
CREATE INDEX ON acct (bal);
CREATE TABLE ctr (k int PRIMARY KEY, n bigint NOT NULL);
CREATE TABLE churn (k int NOT NULL UNIQUE, v text);
CREATE TABLE parent (id int PRIMARY KEY, note text);
INSERT INTO parent SELECT g, 'p' FROM generate_series(1, 50) g;
CREATE TABLE child (id bigserial PRIMARY KEY,
                    pid int NOT NULL REFERENCES parent, t text);
CREATE INDEX ON child (pid);
CREATE FUNCTION add_child(p int) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO child (pid, t) VALUES (p, 'c');
EXCEPTION WHEN foreign_key_violation THEN NULL;
END $$;
CREATE FUNCTION drop_parent(p int) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM child WHERE pid = p;
  DELETE FROM parent WHERE id = p;
EXCEPTION WHEN foreign_key_violation THEN NULL;
END $$;
});
$primary->backup('bkp');
my $standby = PostgreSQL::Test::Cluster->new('standby');
$standby->init_from_backup($primary, 'bkp', has_streaming => 1);
$standby->append_conf('postgresql.conf', "max_standby_streaming_delay = -1\n");
$standby->start;
$primary->wait_for_catchup($standby);

# the scripts
my %script = (
	xfer => q{\set a random(1, 100)
\set b random(1, 100)
\set x random(1, 50)
BEGIN;
UPDATE acct SET bal = bal - :x WHERE id = :a;
SAVEPOINT s1;
UPDATE acct SET bal = bal + :x, pad = repeat('y', :x) WHERE id = :b;
\if :x > 45
ROLLBACK TO SAVEPOINT s1;
UPDATE acct SET bal = bal + :x WHERE id = :a;
\endif
END;
},
	upsert => q{\set k random(1, 20)
INSERT INTO ctr VALUES (:k, 1) ON CONFLICT (k) DO UPDATE SET n = ctr.n + 1;
},
	churn => q{\set k random(1, 30)
BEGIN;
DELETE FROM churn WHERE k = :k;
INSERT INTO churn VALUES (:k, md5(random()::text)) ON CONFLICT (k) DO NOTHING;
END;
},
	fk => q{\set p random(1, 60)
\set r random(1, 10)
\if :r <= 6
SELECT add_child(:p);
\elif :r <= 8
SELECT drop_parent(:p);
\else
INSERT INTO parent VALUES (:p, 'again') ON CONFLICT (id) DO UPDATE SET note = parent.note || '.';
\endif
},
	lock => q{\set a random(1, 100)
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT bal FROM acct WHERE id = :a FOR SHARE;
SELECT sum(bal) AS total FROM acct \gset
\if :total != 100000
SELECT 'the balances do not add up' :: int;
\endif
SELECT id FROM acct WHERE id = :a FOR KEY SHARE;
END;
},
	vacuum => q{VACUUM acct;
VACUUM ctr;
VACUUM churn;
VACUUM child;
VACUUM parent;
\sleep 200 ms
},
	read => q{SELECT sum(bal) AS total, count(*) AS n FROM acct \gset
\if :total != 100000 or :n != 100
SELECT 'the standby sees balances that do not add up' :: int;
\endif
},);
my $dir = pgbench_scripts(%script);

my $compare = q{
SELECT 'acct', sum(bal), count(*), md5(string_agg(format('%s/%s/%s', id, bal, pad), ',' ORDER BY id)) FROM acct;
SELECT 'ctr', md5(string_agg(format('%s/%s', k, n), ',' ORDER BY k)) FROM ctr;
SELECT 'churn', md5(string_agg(format('%s/%s', k, v), ',' ORDER BY k)) FROM churn;
SELECT 'parent', md5(string_agg(format('%s/%s', id, note), ',' ORDER BY id)) FROM parent;
SELECT 'child', count(*), md5(string_agg(format('%s/%s', id, pid), ',' ORDER BY id)) FROM child;
};

# check NODE, LABEL - the invariants, scans agreeing and nvm_am_check()
sub check
{
	my ($node, $label) = @_;
	my $q = sub { return $node->safe_psql('postgres', $_[0]); };
	is($q->(q{SELECT sum(bal) || '/' || count(*) FROM acct}), '100000/100',
		"$label: the balances add up");
	is($q->(q{SELECT count(*) FROM child c WHERE NOT EXISTS
	           (SELECT 1 FROM parent p WHERE p.id = c.pid)}), '0',
		"$label: every child has its parent");
	my $seq = $q->(q{SET enable_indexscan = off; SET enable_bitmapscan = off;
		SET enable_indexonlyscan = off;
		SELECT (SELECT count(*) FROM (SELECT k FROM churn GROUP BY k HAVING count(*) > 1) d)
		    || '/' || (SELECT count(*) FROM (SELECT k FROM ctr GROUP BY k HAVING count(*) > 1) d)
		    || '/' || (SELECT count(*) FROM churn) || '/' || (SELECT count(*) FROM child)
		    || '/' || (SELECT count(*) FROM parent) || '/' || (SELECT sum(bal) FROM acct)});
	like($seq, qr{^0/0/}, "$label: no unique key twice");
	my $idx = $q->(q{SET enable_seqscan = off;
		SELECT '0/0/' || (SELECT count(*) FROM churn WHERE k > 0)
		    || '/' || (SELECT count(*) FROM child WHERE id > 0)
		    || '/' || (SELECT count(*) FROM parent WHERE id > 0)
		    || '/' || (SELECT sum(bal) FROM acct WHERE id > 0)});
	is($idx, $seq, "$label: index scans find what sequential scans find");
	is($q->(q{SELECT count(*) FROM pg_class c, LATERAL nvm_am.nvm_am_check(c.oid)
	           WHERE c.relname IN ('acct', 'ctr', 'churn', 'parent', 'child')}), '0',
		"$label: nvm_am_check() is clean");
	return;
}

for my $round ('undisturbed', 'standby killed', 'primary killed')
{
	my $work = start_pgbench($primary, $dir, "$round, primary", 8, 8,
		'xfer@4', 'upsert@2', 'churn@2', 'fk@2', 'lock@1', '--jobs=2', '--max-tries=50');
	my $vac = start_pgbench($primary, $dir, "$round, VACUUM", 1, 8, 'vacuum', '--max-tries=50');
	my $read;
	$read = start_pgbench($standby, $dir, "$round, standby readers", 2, 8, 'read',
		'--max-tries=50')
	  if $round eq 'undisturbed';
	if ($round ne 'undisturbed')
	{
		sleep 4;
		my $victim = $round eq 'standby killed' ? $standby : $primary;
		ok(kill_server($victim), "$round: server gone after SIGKILL");
		$victim->start;
	}
	if ($round eq 'primary killed')
	{
		# their server went away under them: they end, with errors
		$_->{h}->finish for ($work, $vac);
	}
	else
	{
		finish_pgbench($_) for ($work, $vac);
	}
	finish_pgbench($read) if $read;

	$primary->wait_for_catchup($standby, 'replay', $primary->lsn('insert'));
	is($standby->safe_psql('postgres', $compare), $primary->safe_psql('postgres', $compare),
		"$round: the standby's tables equal the primary's");
	check($primary, "$round, primary");
	check($standby, "$round, standby");
}

for my $node ($primary, $standby)
{
	my $log = slurp_file($node->logfile);
	unlike($log, qr/TRAP:|PANIC:|was terminated by signal (6|11)/,
		$node->name . ': no assertion failure, PANIC or crash by signal in the log');
}

$standby->stop;
$primary->stop;
done_testing();
