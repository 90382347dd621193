# 002_crash_lifecycle.pl - storage lifecycle and committed data across
# crashes (SIGKILL).
#
# Invariants checked after every crash and restart:
#   - committed data is all there, uncommitted changes are not;
#   - the pool holds storage for exactly the committed relations: the
#     'relations' and 'frames_allocated' rows of nvm_am.nvm_am_stats equal those
#     of a baseline taken before the interrupted transaction;
#   - 'pending_resolved' shows how many interrupted lifecycle changes the
#     restart resolved, so a test cannot pass because the backend cleaned
#     up after itself instead of the crash resolution doing it.
#
# A "server crash" SIGKILLs the backends holding the open transactions, the
# postmaster and all its other children.  Killing only the postmaster would
# let each backend notice the postmaster's death and exit through FATAL,
# which aborts its transaction cleanly: that is not a crash of the backend.

use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use NvmProc;

my $pool = "/dev/shm/nvm_am_tap_002_$$.pool";
END { unlink $pool; }

my $node = PostgreSQL::Test::Cluster->new('crash');
$node->init;
$node->append_conf(
	'postgresql.conf', qq{
shared_preload_libraries = 'nvm_am'
nvm_am.pool_path = '$pool'
nvm_am.pool_size = '64MB'
# nothing but the test may touch the tables or take xids
autovacuum = off
restart_after_crash = on
});
$node->start;

# ---------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------

sub sql { return $node->safe_psql('postgres', $_[0]); }

sub stats
{
	my %s = map { split /\|/ } split /\n/,
	  sql('SELECT name, value FROM nvm_am.nvm_am_stats');
	return \%s;
}


# SIGKILL the given backends, then the postmaster and all its other
# children; wait until they are gone and start the server again (crash
# recovery).  With postmaster_only, SIGKILL just the postmaster and let the
# children exit by themselves.
sub crash_and_restart
{
	my (%opt) = @_;
	my $pm = postmaster_pid($node);
	my @children = children_of($pm);
	ok(scalar(@children) > 0, 'server has child processes before the crash');

	if ($opt{postmaster_only})
	{
		$node->kill9;
	}
	else
	{
		kill 'KILL', @{ $opt{backends} || [] };
		$node->kill9;
		kill 'KILL', @children;
	}

	ok(wait_gone($pm, @children), 'all server processes gone after SIGKILL');

	$node->start;
	return;
}

sub check_stats
{
	my ($base, $name, $resolved) = @_;
	my $now = stats();
	is($now->{relations}, $base->{relations}, "$name: relations as before");
	is($now->{frames_allocated}, $base->{frames_allocated},
		"$name: frames_allocated as before");
	is($now->{pending_resolved}, $resolved,
		"$name: $resolved interrupted lifecycle change(s) resolved at restart")
	  if defined $resolved;
	return;
}

sub table_exists
{
	return sql("SELECT to_regclass('$_[0]') IS NOT NULL") eq 't';
}

sub relam
{
	return sql("SELECT a.amname FROM pg_class c JOIN pg_am a ON a.oid = c.relam WHERE c.oid = '$_[0]'::regclass");
}

# count, sum and a digest of a table's rows, by sequential scan and by
# index scan (both must agree)
sub contents
{
	my ($table) = @_;
	my $q = "SELECT count(*), coalesce(sum(id), 0), md5(coalesce(string_agg(id || ':' || v, ',' ORDER BY id), '')) FROM $table";
	my $seq = sql("SET enable_indexscan = off; SET enable_bitmapscan = off; $q");
	my $idx = sql("SET enable_seqscan = off; SET enable_bitmapscan = off; $q WHERE id > 0");
	return $seq eq $idx ? $seq : "seqscan $seq <> indexscan $idx";
}

# ---------------------------------------------------------------------
# Committed data that every crash must leave alone
# ---------------------------------------------------------------------

sql(q{
	CREATE EXTENSION nvm_am;
	CREATE TABLE keep (id int PRIMARY KEY, v text) USING nvm_am;
	INSERT INTO keep SELECT g, 'keep ' || g FROM generate_series(1, 2000) g;
	UPDATE keep SET v = 'updated' WHERE id % 5 = 0;
	DELETE FROM keep WHERE id % 11 = 0;
	CREATE TABLE keep2 (id int PRIMARY KEY, v text) USING nvm_am;
	INSERT INTO keep2 SELECT g, 'keep2 ' || g FROM generate_series(1, 1000) g;
	CREATE TABLE keep3 (id int PRIMARY KEY, v text) USING nvm_am;
	INSERT INTO keep3 SELECT g, 'keep3 ' || g FROM generate_series(1, 300) g;
	CREATE TABLE heapt (id int PRIMARY KEY, v text) USING heap;
	INSERT INTO heapt SELECT g, 'heap ' || g FROM generate_series(1, 300) g;
});
my %committed = map { $_ => contents($_) } qw(keep keep2 keep3 heapt);
like($committed{keep}, qr/^1819\|/, 'committed rows in keep');

sub check_committed
{
	my ($name) = @_;
	is(contents($_), $committed{$_}, "$name: committed rows of $_ intact")
	  for sort keys %committed;
	is(relam('keep2'), 'nvm_am', "$name: keep2 still nvm_am");
	is(relam('keep3'), 'nvm_am', "$name: keep3 still nvm_am");
	is(relam('heapt'), 'heap',   "$name: heapt still heap");
	return;
}

# ---------------------------------------------------------------------
# 1. uncommitted CREATE TABLE + INSERT
# ---------------------------------------------------------------------
{
	my $name = 'uncommitted CREATE TABLE';
	my $base = stats();
	my $s = $node->background_psql('postgres');
	$s->query_safe(q{
		BEGIN;
		CREATE TABLE newt (id int PRIMARY KEY, v text) USING nvm_am;
		INSERT INTO newt SELECT g, repeat('n', 100) FROM generate_series(1, 5000) g;
	});
	my $during = stats();
	is($during->{relations}, $base->{relations} + 1, "$name: storage exists before the crash");
	cmp_ok($during->{frames_allocated}, '>', $base->{frames_allocated} + 50,
		"$name: frames allocated before the crash");

	crash_and_restart(backends => [ $s->query_safe('SELECT pg_backend_pid()') ]);
	$s->quit;

	check_stats($base, $name, 1);
	ok(!table_exists('newt'), "$name: table does not exist");
	check_committed($name);
}

# ---------------------------------------------------------------------
# 1b. the same with only the postmaster SIGKILLed: the backends exit by
# themselves (aborting or not, the storage must be gone)
# ---------------------------------------------------------------------
{
	my $name = 'uncommitted CREATE TABLE, postmaster SIGKILL';
	my $base = stats();
	my $s = $node->background_psql('postgres');
	$s->query_safe(q{
		BEGIN;
		CREATE TABLE newt (id int PRIMARY KEY, v text) USING nvm_am;
		INSERT INTO newt SELECT g, repeat('n', 100) FROM generate_series(1, 5000) g;
	});
	crash_and_restart(postmaster_only => 1);
	$s->quit;

	check_stats($base, $name);
	ok(!table_exists('newt'), "$name: table does not exist");
	check_committed($name);
}

# ---------------------------------------------------------------------
# 2. uncommitted DROP TABLE
# ---------------------------------------------------------------------
{
	my $name = 'uncommitted DROP TABLE';
	my $base = stats();
	my $s = $node->background_psql('postgres');
	$s->query_safe('BEGIN; DROP TABLE keep2;');
	crash_and_restart(backends => [ $s->query_safe('SELECT pg_backend_pid()') ]);
	$s->quit;

	check_stats($base, $name, 1);
	ok(table_exists('keep2'), "$name: table exists");
	check_committed($name);
}

# ---------------------------------------------------------------------
# 3. uncommitted TRUNCATE, with rows inserted into the new storage
# ---------------------------------------------------------------------
{
	my $name = 'uncommitted TRUNCATE';
	my $base = stats();
	my $s = $node->background_psql('postgres');
	$s->query_safe(q{
		BEGIN;
		TRUNCATE keep2;
		INSERT INTO keep2 SELECT g, 'after truncate' FROM generate_series(1, 3000) g;
	});
	is(stats()->{relations}, $base->{relations} + 1,
		"$name: old and new storage exist before the crash");
	crash_and_restart(backends => [ $s->query_safe('SELECT pg_backend_pid()') ]);
	$s->quit;

	check_stats($base, $name, 2);
	check_committed($name);
}

# ---------------------------------------------------------------------
# 4. uncommitted ALTER TABLE SET ACCESS METHOD, both directions
# ---------------------------------------------------------------------
{
	my $name = 'uncommitted SET ACCESS METHOD';
	my $base = stats();
	my $s1 = $node->background_psql('postgres');
	my $s2 = $node->background_psql('postgres');
	$s1->query_safe('BEGIN; ALTER TABLE heapt SET ACCESS METHOD nvm_am;');
	$s2->query_safe('BEGIN; ALTER TABLE keep3 SET ACCESS METHOD heap;');
	is(stats()->{relations}, $base->{relations} + 1,
		"$name: rewritten heap table has nvm storage before the crash");
	crash_and_restart(backends => [ map { $_->query_safe('SELECT pg_backend_pid()') } $s1, $s2 ]);
	$s1->quit;
	$s2->quit;

	check_stats($base, $name, 2);
	check_committed($name);
}

# ---------------------------------------------------------------------
# 5. committed lifecycle changes right before a crash
# ---------------------------------------------------------------------
{
	my $name = 'committed lifecycle changes';
	sql(q{
		CREATE TABLE d5 (id int PRIMARY KEY, v text) USING nvm_am;
		INSERT INTO d5 SELECT g, repeat('d', 400) FROM generate_series(1, 2000) g;
		CREATE TABLE t5 (id int PRIMARY KEY, v text) USING nvm_am;
		INSERT INTO t5 SELECT g, repeat('t', 400) FROM generate_series(1, 2000) g;
		CREATE TABLE h5 (id int PRIMARY KEY, v text) USING heap;
		INSERT INTO h5 SELECT g, 'h5 ' || g FROM generate_series(1, 500) g;
		CREATE TABLE n5 (id int PRIMARY KEY, v text) USING nvm_am;
		INSERT INTO n5 SELECT g, 'n5 ' || g FROM generate_series(1, 500) g;
	});
	my $h5 = contents('h5');
	my $n5 = contents('n5');
	my $base = stats();

	sql('DROP TABLE d5');
	my $after_drop = stats();
	is($after_drop->{relations}, $base->{relations} - 1, "$name: DROP frees the relation");
	cmp_ok($after_drop->{frames_allocated}, '<', $base->{frames_allocated} - 50,
		"$name: DROP frees its frames");

	sql(q{TRUNCATE t5; INSERT INTO t5 VALUES (1, 'one'), (2, 'two');});
	my $after_truncate = stats();
	is($after_truncate->{relations}, $after_drop->{relations},
		"$name: TRUNCATE keeps one relation");
	cmp_ok($after_truncate->{frames_allocated}, '<', $after_drop->{frames_allocated} - 50,
		"$name: TRUNCATE frees the old frames");

	sql('ALTER TABLE h5 SET ACCESS METHOD nvm_am');
	sql('ALTER TABLE n5 SET ACCESS METHOD heap');
	sql(q{
		CREATE TABLE c5 (id int PRIMARY KEY, v text) USING nvm_am;
		INSERT INTO c5 SELECT g, 'c5 ' || g FROM generate_series(1, 1000) g;
	});
	my $c5 = contents('c5');
	my $before_crash = stats();
	is($before_crash->{relations}, $base->{relations} - 1 + 1 - 1 + 1,
		"$name: relations after drop, SET ACCESS METHOD both ways and create");

	crash_and_restart();

	check_stats($before_crash, $name, 0);
	ok(!table_exists('d5'), "$name: dropped table stays dropped");
	is(sql('SELECT count(*), sum(id) FROM t5'), '2|3', "$name: truncated table has its new rows only");
	is(relam('h5'), 'nvm_am', "$name: h5 is nvm_am");
	is(relam('n5'), 'heap', "$name: n5 is heap");
	is(contents('h5'), $h5, "$name: h5 rows after rewrite into nvm_am");
	is(contents('n5'), $n5, "$name: n5 rows after rewrite into heap");
	is(contents('c5'), $c5, "$name: created table has its rows");
	check_committed($name);

	sql('DROP TABLE t5, h5, n5, c5');
}

# ---------------------------------------------------------------------
# 6. a single backend SIGKILLed: the postmaster's own crash recovery
# ---------------------------------------------------------------------
{
	my $name = 'backend SIGKILL';
	my $base = stats();
	my $pm = postmaster_pid($node);
	my $s1 = $node->background_psql('postgres', on_error_stop => 0);
	my $s2 = $node->background_psql('postgres', on_error_stop => 0);
	$s1->query_safe(q{
		BEGIN;
		CREATE TABLE newt6 (id int PRIMARY KEY, v text) USING nvm_am;
		INSERT INTO newt6 SELECT g, repeat('x', 100) FROM generate_series(1, 3000) g;
	});
	$s2->query_safe(q{
		BEGIN;
		DROP TABLE keep2;
	});
	my $victim = $s1->query_safe('SELECT pg_backend_pid()');
	my $other = $s2->query_safe('SELECT pg_backend_pid()');

	my $log_offset = -s $node->logfile;
	kill 'KILL', $victim;
	$node->wait_for_log(qr/all server processes terminated; reinitializing/, $log_offset);
	$node->poll_query_until('postgres', 'SELECT true')
	  or die "server did not come back after the backend crash";
	ok(!-e "/proc/$other" || (proc_stat($other))[0] eq 'Z',
		"$name: the other backend was terminated too");
	is(postmaster_pid($node), $pm, "$name: same postmaster, no full restart");
	$s1->quit;
	$s2->quit;

	check_stats($base, $name, 2);
	ok(!table_exists('newt6'), "$name: created table does not exist");
	check_committed($name);
}

# ---------------------------------------------------------------------
# 7. many small acknowledged commits, and one open transaction, then crash
# ---------------------------------------------------------------------
{
	my $name = 'acknowledged commits';
	sql('CREATE TABLE acks (id int PRIMARY KEY, v text) USING nvm_am');
	my $s = $node->background_psql('postgres');
	my $open = $node->background_psql('postgres');
	$open->query_safe(q{
		BEGIN;
		INSERT INTO keep SELECT g, 'uncommitted' FROM generate_series(100001, 100500) g;
		UPDATE keep SET v = 'uncommitted update' WHERE id <= 100;
		DELETE FROM keep WHERE id BETWEEN 101 AND 200;
	});
	for my $i (1 .. 200)
	{
		# each call returns only once the commit is acknowledged
		$s->query_safe("INSERT INTO acks VALUES ($i, 'ack $i')");
		if ($i == 100)
		{
			$open->query_safe("INSERT INTO acks VALUES (100001, 'uncommitted')");
		}
	}
	my $expected = sql(q{SELECT count(*), sum(g), md5(string_agg(g || ':ack ' || g, ',' ORDER BY g))
						  FROM generate_series(1, 200) g});
	crash_and_restart(backends => [ map { $_->query_safe('SELECT pg_backend_pid()') } $s, $open ]);
	$s->quit;
	$open->quit;

	is(contents('acks'), $expected, "$name: all 200 acknowledged rows, nothing else");
	check_committed($name);
	sql("INSERT INTO acks VALUES (201, 'after crash')");
	is(sql('SELECT count(*) FROM acks'), '201', "$name: table writable after the crash");
	sql('DROP TABLE acks');
}

# ---------------------------------------------------------------------
# 8. transaction ids of uncommitted DDL reused after the crash
#
# A DROP or a CREATE without any row written publishes its xid in the
# pool's directory, but the xid need not have reached WAL on disk.  After
# the crash the same xid can be handed out again and commit before any
# backend touches nvm_am; the resolution then takes the dead transaction
# for committed.
# ---------------------------------------------------------------------
{
	my $name = 'xid reused after crash';
	sql(q{
		CREATE TABLE victim (id int PRIMARY KEY, v text) USING nvm_am;
		INSERT INTO victim SELECT g, 'victim ' || g FROM generate_series(1, 500) g;
	});
	my $victim_rows = contents('victim');
	# touch the catalog pages once more so that the DDL below writes small
	# WAL records (no full-page images) that stay in the WAL buffers
	sql('CREATE TABLE warmup () USING nvm_am; DROP TABLE warmup;');
	my $base = stats();

	my $s1 = $node->background_psql('postgres');
	my $s2 = $node->background_psql('postgres');
	$s1->query_safe('BEGIN; DROP TABLE victim;');
	$s2->query_safe('BEGIN; CREATE TABLE orphan (id int) USING nvm_am;');
	my %dead_xid = map { $_->query_safe('SELECT txid_current()') => 1 } ($s1, $s2);
	crash_and_restart(backends => [ map { $_->query_safe('SELECT pg_backend_pid()') } $s1, $s2 ]);
	$s1->quit;
	$s2->quit;

	# committed transactions that take xids, before anything touches nvm_am
	my @new_xids = map {
		sql("BEGIN; CREATE TABLE heap_after_$_ (i int); SELECT txid_current(); COMMIT;")
	} 1 .. 3;
	my $reused = grep { $dead_xid{$_} } @new_xids;
	note "xids of the dead transactions: " . join(', ', sort keys %dead_xid)
	  . "; committed after restart: @new_xids; reused: $reused";

	my ($ret, $out, $err) = $node->psql('postgres', 'SELECT count(*) FROM victim');
	is($err, '', "$name: table whose DROP did not commit is readable");
	is(eval { contents('victim') } // 'error', $victim_rows, "$name: its rows are intact");
	is(stats()->{frames_allocated}, $base->{frames_allocated},
		"$name: frames_allocated as before");
	# (a kept orphan and a freed victim cancel out in this count)
	is(stats()->{relations}, $base->{relations}, "$name: relations as before");
	check_committed($name);
}

$node->stop;
done_testing();
