# 033_update_retry.pl - an update whose new version goes to another page
# places it first, with no page lock held, then marks and links the old
# version in one record if nobody changed the old version meanwhile; if
# somebody did (a row lock, another update), the new version is
# super-deleted and the update starts over (update_retries).  Under
# updaters and lockers of a few rows, whose pages are full and cannot be
# pruned (a REPEATABLE READ snapshot stays open), every committed update
# is there exactly once: one live version per row, whatever the access
# path, its balance the number of committed updates of it; nvm_am_check
# is clean, before and after a crash.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use NvmProc;

my $node = nvm_node('retry', "nvm_am.pool_size = '512MB'\nmax_connections = 40\nautovacuum = off\n");
sub sql { return $node->safe_psql('postgres', $_[0]); }

# rows of ~1,900 bytes (no TOAST work: under the threshold, stored plain),
# four to a page: a new version never fits on a page of the table
sql(q{CREATE EXTENSION nvm_am;
      CREATE TABLE acc (id int PRIMARY KEY, balance int NOT NULL, pad text) USING nvm_am
        WITH (fillfactor = 100);
      ALTER TABLE acc ALTER pad SET STORAGE PLAIN;
      INSERT INTO acc SELECT g, 0, repeat('p', 1850) FROM generate_series(1, 12) g;
      CREATE TABLE ledger (id int NOT NULL);});

# an old snapshot keeps every version: nothing is pruned
my $rr = $node->background_psql('postgres');
$rr->query_safe(q{BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT count(*) FROM acc;});

my %script = (
	upd => q{\set id random(1, 12)
BEGIN;
UPDATE acc SET balance = balance + 1 WHERE id = :id;
INSERT INTO ledger VALUES (:id);
END;
},
	upd2 => q{\set id random(1, 6)
BEGIN;
UPDATE acc SET balance = balance + 1, pad = repeat(chr(97 + :id), 1850) WHERE id = :id * 2;
INSERT INTO ledger VALUES (:id * 2);
END;
},
	lock_share => q{\set id random(1, 12)
BEGIN;
SELECT balance FROM acc WHERE id = :id FOR SHARE;
END;
},
	lock_key => q{\set id random(1, 12)
BEGIN;
SELECT balance FROM acc WHERE id = :id FOR KEY SHARE;
SELECT pg_sleep(0.0001);
END;
},
	lock_upd => q{\set id random(1, 12)
BEGIN;
SELECT balance FROM acc WHERE id = :id FOR NO KEY UPDATE;
END;
},
);
my $dir = pgbench_scripts(%script);

my $retries0 = nvm_stat($node, 'update_retries');
my $updated0 = nvm_stat($node, 'tuples_updated');
my @runs = (
	start_pgbench($node, $dir, 'updaters', 4, 12, 'upd', 'upd2'),
	start_pgbench($node, $dir, 'lockers', 4, 12, 'lock_share', 'lock_key', 'lock_upd'));
finish_pgbench($_) for @runs;
my $updates = nvm_stat($node, 'tuples_updated') - $updated0;
my $retries = nvm_stat($node, 'update_retries') - $retries0;
cmp_ok($updates, '>', 1000, "$updates updates");
cmp_ok($retries, '>', 0, "updates that found the old version changed after placing the new one started over ($retries)");

# pg_stat's dead tuples: one per update, committed (the old version) or
# not (the new one), as for heap, and one per new version super-deleted
# by a retry (nothing was pruned: the snapshot above holds every version);
# a backend reports its counts when it exits, before it leaves
# pg_stat_activity
$node->poll_query_until('postgres',
	q{SELECT count(*) = 0 FROM pg_stat_activity WHERE application_name = 'pgbench'})
  or die 'pgbench backends did not exit';
is(sql(q{SELECT n_dead_tup - n_tup_upd - n_tup_del FROM pg_stat_user_tables WHERE relname = 'acc'}),
	$retries, 'the super-deleted versions count as dead tuples');

sub check
{
	my ($when) = @_;
	is(sql(q{SELECT count(*) FROM acc}), '12', "$when: one live version per row (sequential scan)");
	is(sql(q{SET enable_seqscan = off; SET enable_bitmapscan = off;
	         SELECT count(*) FROM acc WHERE id BETWEEN 1 AND 12}), '12',
		"$when: one live version per row (index scan)");
	is(sql(q{SELECT count(*) FROM acc a
	         WHERE balance <> (SELECT count(*) FROM ledger l WHERE l.id = a.id)}), '0',
		"$when: each row's balance is the number of its committed updates");
	is(sql(q{SELECT (SELECT sum(balance) FROM acc) = (SELECT count(*) FROM ledger)}), 't',
		"$when: no update lost, none twice");
	is(sql(q{SELECT count(*) FROM nvm_am.nvm_am_check('acc')}), '0', "$when: nvm_am_check is clean");
}
check('after the load');

# the old snapshot sees the rows as they were
is($rr->query_safe(q{SELECT count(*), sum(balance) FROM acc}), '12|0',
	'the REPEATABLE READ snapshot still sees the rows as they were');
$rr->quit;

sql('VACUUM acc');
check('after VACUUM');

kill_server($node);
$node->start;
check('after a crash');

$node->stop;
done_testing();
