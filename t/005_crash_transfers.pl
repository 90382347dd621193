# 005_crash_transfers.pl - SIGKILL during concurrent money transfers.
#
# Several psql clients run pgbench-like transfer transactions against two
# schema variants in one database: (a) accounts, tellers, branches and
# history all nvm_am; (b) accounts and history nvm_am, tellers and branches
# heap.  Each transfer updates one account (balance not indexed: HOT
# updates), one teller and one branch by the same delta and inserts a
# history row whose id the client generated; some transfers roll back a
# savepoint that changed a balance, some whole transactions roll back.
# Other clients insert and delete rows of a third nvm_am table, and one runs
# VACUUM (pruning, index bulk-delete, line pointer reuse) all the time.
#
# Each client prints "S <id>" before it starts a transaction and "A <id>"
# after its COMMIT returned; so afterwards we know which ids were started,
# which commits were acknowledged and which transactions rolled back.  One
# transfer client commits asynchronously (synchronous_commit = off): its
# commits may be lost, but never in part (balances and history agree) -
# hint bits written into the pool must not outlive a lost commit.
#
# After 1-4 s the server is SIGKILLed (postmaster and all children; in one
# round only one backend, so that the postmaster runs crash recovery by
# itself) and restarted.  Then:
#   - in both variants: every account, teller and branch balance equals the
#     sum of the deltas of its history rows (so the totals agree too);
#   - every acknowledged history id is there, with the delta, account,
#     teller and branch the client used (no acknowledged commit lost);
#   - every history id there was started by a client in a transaction that
#     meant to commit (nothing uncommitted or rolled back is visible);
#   - acknowledged inserts into the insert/delete table are there unless a
#     delete of them was started; acknowledged deletes stay deleted; every
#     row there was started;
#   - sequential, index and bitmap scans agree; every row is found through
#     its primary key;
#   - nvm_am.nvm_am_stats counts as many relations as before;
#   - the server log has no PANIC, TRAP or crash by signal 6 or 11, and the
#     clients failed only because the server went away.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use NvmProc;
use IPC::Run;
use Time::HiRes qw(usleep time);

my $seed = $ENV{NVM_TAP_SEED} || (time() ^ $$) % 1000000;
srand($seed);
note "random seed $seed (set NVM_TAP_SEED to repeat)";

my $pool = "/dev/shm/nvm_am_tap_005_$$.pool";
END { unlink $pool if defined $pool; }

my $node = PostgreSQL::Test::Cluster->new('xfer');
$node->init;
$node->append_conf(
	'postgresql.conf', qq{
shared_preload_libraries = 'nvm_am'
nvm_am.pool_path = '$pool'
nvm_am.pool_size = '256MB'
max_connections = 40
autovacuum = off
restart_after_crash = on
synchronous_commit = on
});
$ENV{PMEM_IS_PMEM_FORCE} = 1;
$node->start;

my $dir = PostgreSQL::Test::Utils::tempdir;

my $n_accounts = 500;
my $n_tellers  = 20;
my $n_branches = 4;
my @variants = ('a', 'b');

sub sql { return $node->safe_psql('postgres', $_[0]); }

# ---------------------------------------------------------------------
# Schema
# ---------------------------------------------------------------------
sql('CREATE EXTENSION nvm_am');
for my $v (@variants)
{
	my $small = $v eq 'a' ? 'nvm_am' : 'heap';
	sql(qq{
CREATE TABLE branches_$v (bid int PRIMARY KEY, bbalance bigint NOT NULL, filler char(88)) USING $small;
CREATE TABLE tellers_$v (tid int PRIMARY KEY, bid int NOT NULL, tbalance bigint NOT NULL, filler char(84)) USING $small;
CREATE TABLE accounts_$v (aid int PRIMARY KEY, bid int NOT NULL, abalance bigint NOT NULL, filler char(84)) USING nvm_am;
CREATE TABLE history_$v (id bigint PRIMARY KEY, tid int NOT NULL, bid int NOT NULL, aid int NOT NULL,
                         delta int NOT NULL, mtime timestamptz NOT NULL DEFAULT now(), filler char(22)) USING nvm_am;
INSERT INTO branches_$v SELECT g, 0, '' FROM generate_series(1, $n_branches) g;
INSERT INTO tellers_$v SELECT g, (g - 1) % $n_branches + 1, 0, '' FROM generate_series(1, $n_tellers) g;
INSERT INTO accounts_$v SELECT g, (g - 1) % $n_branches + 1, 0, '' FROM generate_series(1, $n_accounts) g;
});
}
sql(q{
CREATE TABLE misc (id bigint PRIMARY KEY, v int NOT NULL, pad text) USING nvm_am;
CREATE INDEX misc_v ON misc (v);
});
is( sql(q{SELECT string_agg(c.relname || ':' || a.amname, ',' ORDER BY c.relname)
            FROM pg_class c JOIN pg_am a ON a.oid = c.relam
           WHERE c.relkind = 'r' AND c.relnamespace = 'public'::regnamespace}),
	'accounts_a:nvm_am,accounts_b:nvm_am,branches_a:nvm_am,branches_b:heap,'
	  . 'history_a:nvm_am,history_b:nvm_am,misc:nvm_am,tellers_a:nvm_am,tellers_b:heap',
	'schema: variant a all nvm_am, variant b mixed');

sub stats
{
	my %s = map { split /\|/ } split /\n/, sql('SELECT name, value FROM nvm_am.nvm_am_stats');
	return \%s;
}
my $base_stats = stats();
note "relations in the pool: $base_stats->{relations}";


# SIGKILL the postmaster and all its children, wait until they are gone
# (a killed postmaster lingers as a zombie for a moment).  The postmaster is
# stopped first: a backend that sees the postmaster die before its own
# SIGKILL arrives exits through FATAL and aborts its transaction cleanly,
# which is not a crash of that backend.
sub crash
{
	my ($name) = @_;
	my $pm = postmaster_pid($node);
	kill 'STOP', $pm;
	my @children = children_of($pm);
	ok(scalar(@children) > 0, "$name: server has child processes before the crash");
	kill 'KILL', @children;
	$node->kill9;

	ok(wait_gone($pm, @children), "$name: all server processes gone after SIGKILL");
	return;
}

# ---------------------------------------------------------------------
# What the clients did, over all rounds
# ---------------------------------------------------------------------
# history id -> [variant, aid, tid, bid, delta, commit (1) or rollback (0)]
my %xfer;
my %xfer_started;    # history id -> 1
my %xfer_acked;      # history id -> 1
# misc ids
my %ins_started;
my %ins_acked;
my %del_started;
my %del_acked;

my $misc_v = 0;

# a transfer client's script
sub xfer_script
{
	my ($round, $client, $count, $async) = @_;
	# an asynchronous commit may be lost; its client prints "N" instead of
	# "A" after COMMIT, so it counts as started, not as acknowledged
	my $s = $async ? "SET synchronous_commit = off;\n" : '';
	my $ack = $async ? 'N' : 'A';
	for my $seq (1 .. $count)
	{
		my $id = ($round * 100 + $client) * 1_000_000 + $seq;
		my $v = $variants[ int(rand(2)) ];
		my $aid = 1 + int(rand($n_accounts));
		my $tid = 1 + int(rand($n_tellers));
		my $bid = 1 + int(rand($n_branches));
		my $delta = int(rand(10001)) - 5000;
		my $commit = rand() < 0.9 ? 1 : 0;
		$xfer{$id} = [ $v, $aid, $tid, $bid, $delta, $commit ];
		$s .= "\\echo S $id\nBEGIN;\n"
		  . "UPDATE accounts_$v SET abalance = abalance + $delta WHERE aid = $aid;\n";
		if ($seq % 7 == 0)
		{
			# a rolled-back subtransaction that changes balances too
			my $other = 1 + int(rand($n_accounts));
			$s .= "SAVEPOINT s;\n"
			  . "UPDATE accounts_$v SET abalance = abalance + 1000000000 WHERE aid = $other;\n"
			  . "UPDATE tellers_$v SET tbalance = tbalance + 1000000000 WHERE tid = $tid;\n"
			  . "INSERT INTO history_$v (id, tid, bid, aid, delta) VALUES (-$id, $tid, $bid, $other, 1000000000);\n"
			  . "ROLLBACK TO s;\n";
		}
		$s .= "UPDATE tellers_$v SET tbalance = tbalance + $delta WHERE tid = $tid;\n"
		  . "UPDATE branches_$v SET bbalance = bbalance + $delta WHERE bid = $bid;\n"
		  . "INSERT INTO history_$v (id, tid, bid, aid, delta) VALUES ($id, $tid, $bid, $aid, $delta);\n"
		  . ($commit ? "COMMIT;\n\\echo $ack $id\n" : "ROLLBACK;\n");
	}
	return $s;
}

# an insert/delete client's script: inserts rows, deletes about half of
# them a little later (VACUUM frees their line pointers for reuse)
sub insdel_script
{
	my ($round, $client, $count) = @_;
	my $s = '';
	my @mine;
	for my $seq (1 .. $count)
	{
		my $id = ($round * 100 + $client) * 1_000_000 + $seq;
		$misc_v = ($misc_v + 1) % 1000;
		$s .= "\\echo SI $id\nINSERT INTO misc VALUES ($id, $misc_v, repeat('m', " . (50 + int(rand(300))) . "));\n\\echo AI $id\n";
		push @mine, $id;
		if (@mine > 20 && rand() < 0.5)
		{
			my $victim = splice(@mine, int(rand(@mine - 10)), 1);
			$s .= "\\echo SD $victim\nDELETE FROM misc WHERE id = $victim;\n\\echo AD $victim\n";
		}
		if ($seq % 50 == 0)
		{
			# a transaction that inserts and deletes and rolls back
			$s .= "BEGIN;\nINSERT INTO misc VALUES (-$id, 0, 'rolled back');\n"
			  . "DELETE FROM misc WHERE id = $mine[0];\nROLLBACK;\n";
		}
	}
	return $s;
}

sub vacuum_script
{
	my $s = '';
	for (1 .. 500)
	{
		$s .= "VACUUM accounts_a;\nVACUUM history_a;\nVACUUM misc;\n"
		  . "VACUUM tellers_a;\nVACUUM branches_a;\nVACUUM accounts_b;\nSELECT pg_sleep(0.05);\n"
		  . "VACUUM history_b;\nSELECT pg_sleep(0.05);\n"
		  # freezing: only tuples whose inserter committed may be frozen
		  . "VACUUM (FREEZE) accounts_a;\nVACUUM (FREEZE) misc;\nVACUUM (FREEZE) tellers_a;\n"
		  . "VACUUM (FREEZE) history_b;\nSELECT pg_sleep(0.05);\n";
	}
	return $s;
}

# start one psql client on a script; its "\echo" markers go to a file
# (query results to /dev/null)
sub start_client
{
	my ($kind, $round, $client, $script) = @_;
	my $base = "$dir/r${round}_${kind}_$client";
	open my $fh, '>', "$base.sql" or die "$base.sql: $!";
	print $fh $script;
	close $fh;
	my $err = '';
	my $conn = 'host=' . $node->host . ' port=' . $node->port
	  . " dbname=postgres application_name=$kind";
	my $h = IPC::Run::start(
		[ 'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-o', '/dev/null', '-d', $conn, '-f', "$base.sql" ],
		'<', \undef, '>', "$base.out", '2>', \$err,
		IPC::Run::timeout(300));
	return { kind => $kind, name => "round $round $kind client $client", h => $h, out => "$base.out", err => \$err };
}

# wait for a client to exit (it does when the server goes away) and
# collect its markers
sub finish_client
{
	my ($c) = @_;
	eval { $c->{h}->finish; };
	my $rc = $c->{h}->result(0);
	my $err = ${ $c->{err} };
	# the only way a client may stop: the server went away.  (A VACUUM that
	# asked for a WAL flush past the end of the inserted WAL - "xlog flush
	# request ... is not satisfied" when the insert position was exactly at
	# a WAL page boundary - stopped the VACUUM client here before 80c2146.)
	my @errors = grep {
		!/^\s*$/
		  && !/^\s*(?:DETAIL|HINT):/
		  && !/^\s*(?:This probably means the server terminated abnormally|before or while processing the request)/
		  && !/(?:server closed the connection unexpectedly|connection to server was lost|no connection to the server|terminating connection because of crash of another server process)$/
	} map { s/^psql:[^:]+:\d+: //r } split /\n/, $err;
	is(scalar(@errors), 0, "$c->{name}: stopped only because the server went away")
	  or diag("exit code $rc:\n$err");
	open my $fh, '<', $c->{out} or die "$c->{out}: $!";
	my ($starts, $acks) = (0, 0);
	while (my $line = <$fh>)
	{
		if ($line =~ /^S (\d+)$/) { $xfer_started{$1} = 1; $starts++; }
		elsif ($line =~ /^A (\d+)$/) { $xfer_acked{$1} = 1; $acks++; }
		elsif ($line =~ /^N (\d+)$/) { $acks++; }
		elsif ($line =~ /^SI (\d+)$/) { $ins_started{$1} = 1; $starts++; }
		elsif ($line =~ /^AI (\d+)$/) { $ins_acked{$1} = 1; $acks++; }
		elsif ($line =~ /^SD (\d+)$/) { $del_started{$1} = 1; $starts++; }
		elsif ($line =~ /^AD (\d+)$/) { $del_acked{$1} = 1; $acks++; }
		elsif ($line !~ /^\s*$/) { diag("$c->{name}: unexpected output: $line"); }
	}
	close $fh;
	note "$c->{name}: exit code $rc, $starts started, $acks acknowledged";
	return $acks;
}

# ---------------------------------------------------------------------
# Checks after a restart
# ---------------------------------------------------------------------
sub check_all
{
	my ($name) = @_;

	# balances, in one query: per variant the four totals and the number
	# of accounts, tellers and branches whose balance is not the sum of
	# the deltas of their history rows
	my @q;
	for my $v (@variants)
	{
		my @mismatch = map {
			my ($tab, $key, $bal) = @$_;
			qq{(SELECT count(*) FROM ${tab}_$v x
			     FULL JOIN (SELECT $key, sum(delta) AS s FROM history_$v GROUP BY $key) h USING ($key)
			    WHERE x.$key IS NULL OR x.$bal <> coalesce(h.s, 0))}
		} ([ 'accounts', 'aid', 'abalance' ], [ 'tellers', 'tid', 'tbalance' ], [ 'branches', 'bid', 'bbalance' ]);
		push @q, qq{SELECT '$v',
			(SELECT coalesce(sum(abalance), 0) FROM accounts_$v), (SELECT coalesce(sum(tbalance), 0) FROM tellers_$v),
			(SELECT coalesce(sum(bbalance), 0) FROM branches_$v), (SELECT coalesce(sum(delta), 0) FROM history_$v),
			} . join(', ', @mismatch) . qq{,
			(SELECT count(*) || '/' || count(DISTINCT aid) FROM accounts_$v)};
	}
	for my $row (split /\n/, sql(join(";\n", @q)))
	{
		my ($v, $sa, $st, $sb, $sh, $ma, $mt, $mb, $n) = split /\|/, $row;
		ok($sa == $sh && $st == $sh && $sb == $sh,
			"$name: variant $v: sum(abalance) = sum(tbalance) = sum(bbalance) = sum(delta)")
		  or diag("accounts $sa, tellers $st, branches $sb, history $sh");
		is("$ma $mt $mb", '0 0 0',
			"$name: variant $v: every account, teller and branch balance is the sum of its history deltas");
		is($n, "$n_accounts/$n_accounts", "$name: variant $v: every account once");
	}

	# history rows against what the clients did
	my %seen;
	my @bad;
	for my $row (split /\n/, sql(join(' UNION ALL ', map { "SELECT '$_', id, aid, tid, bid, delta FROM history_$_" } @variants)))
	{
		my ($v, $id, $aid, $tid, $bid, $delta) = split /\|/, $row;
		push @bad, "history id $id appears twice" if $seen{$id}++;
		my $x = $xfer{$id};
		if (!$xfer_started{$id} || !$x)
		{
			push @bad, "history_$v id $id was never started";
		}
		elsif (!$x->[5])
		{
			push @bad, "history_$v id $id belongs to a transaction that rolled back";
		}
		elsif ("$x->[0] $x->[1] $x->[2] $x->[3] $x->[4]" ne "$v $aid $tid $bid $delta")
		{
			push @bad, "history_$v id $id is ($v $aid $tid $bid $delta), the client wrote (@$x[0..4])";
		}
	}
	my @lost = grep { !$seen{$_} } sort { $a <=> $b } keys %xfer_acked;
	is(scalar(@bad), 0, "$name: every history row was written by a started transaction that meant to commit")
	  or diag(join("\n", @bad[0 .. ($#bad < 20 ? $#bad : 20)]));
	is(scalar(@lost), 0, "$name: no acknowledged transfer lost (" . scalar(keys %xfer_acked) . " acknowledged)")
	  or diag("lost: @lost[0 .. ($#lost < 20 ? $#lost : 20)]");
	cmp_ok(scalar(keys %seen), '<=', scalar(keys %xfer_started),
		"$name: no more history rows than started transfers");

	# misc against what the clients did
	my %present = map { $_ => 1 } split /\n/, sql('SELECT id FROM misc');
	my @misc_bad;
	for my $id (sort { $a <=> $b } keys %present)
	{
		push @misc_bad, "misc id $id was never inserted" unless $ins_started{$id};
		push @misc_bad, "misc id $id was deleted (acknowledged) but is there" if $del_acked{$id};
	}
	for my $id (sort { $a <=> $b } keys %ins_acked)
	{
		push @misc_bad, "misc id $id inserted (acknowledged) is missing"
		  if !$present{$id} && !$del_started{$id};
	}
	is(scalar(@misc_bad), 0,
		"$name: misc holds acknowledged inserts, not acknowledged deletes, nothing never inserted")
	  or diag(join("\n", @misc_bad[0 .. ($#misc_bad < 20 ? $#misc_bad : 20)]));

	# all access paths agree: the same aggregates by sequential, index and
	# bitmap scan, each kind in one psql call
	my @paths = (
		[ 'accounts_a', 'aid', q{aid || ':' || abalance}, 'aid > 0' ],
		[ 'accounts_b', 'aid', q{aid || ':' || abalance}, 'aid > 0' ],
		[ 'tellers_a', 'tid', q{tid || ':' || tbalance}, 'tid > 0' ],
		[ 'branches_a', 'bid', q{bid || ':' || bbalance}, 'bid > 0' ],
		[ 'history_a', 'id', q{id || ':' || delta}, 'id > 0' ],
		[ 'history_b', 'id', q{id || ':' || delta}, 'id > 0' ],
		[ 'misc', 'id', q{id || ':' || v}, 'id > 0' ],
		[ 'misc', 'id', q{id || ':' || v}, 'v >= 0' ]);
	my $agg = sub {
		my ($where) = @_;
		return join(";\n", map {
			my ($tab, $key, $expr, $w) = @$_;
			"SELECT count(*) || ' ' || md5(coalesce(string_agg($expr, ',' ORDER BY $key), '')) FROM $tab"
			  . ($where ? " WHERE $w" : '')
		} @paths);
	};
	my @seq = split /\n/, sql("SET enable_indexscan = off; SET enable_bitmapscan = off;\n" . $agg->(0));
	my @idx = split /\n/, sql("SET enable_seqscan = off; SET enable_bitmapscan = off;\n" . $agg->(1));
	my @bmp = split /\n/, sql("SET enable_seqscan = off; SET enable_indexscan = off;\n" . $agg->(1));
	my @point = split /\n/, sql("SET enable_seqscan = off; SET enable_bitmapscan = off;\n"
		  . "SET enable_hashjoin = off; SET enable_mergejoin = off;\n"
		  . join(";\n", map {
			my ($tab, $key) = @$_;
			qq{SELECT count(*) FROM (SELECT $key FROM $tab OFFSET 0) s
			    WHERE (SELECT count(*) FROM $tab t WHERE t.$key = s.$key) <> 1}
		  } @paths));
	for my $i (0 .. $#paths)
	{
		my ($tab, $key, $expr, $where) = @{ $paths[$i] };
		is($idx[$i], $seq[$i], "$name: $tab: index scan ($where) returns what a sequential scan returns");
		is($bmp[$i], $seq[$i], "$name: $tab: bitmap scan ($where) returns what a sequential scan returns");
		is($point[$i], '0', "$name: $tab: every row found exactly once through its primary key")
		  if $i == 0 || $paths[ $i - 1 ][0] ne $tab;
	}

	# nvm_am's own checker: pages, tuple headers, HOT chains, index entries
	my @nvm_tables = qw(accounts_a tellers_a branches_a history_a accounts_b history_b misc);
	my $problems = sql(join(' UNION ALL ', map {
		"SELECT '$_', blkno, offnum, problem FROM nvm_am.nvm_am_check('$_')"
	} @nvm_tables));
	is($problems, '', "$name: nvm_am_check finds no problem in " . join(', ', @nvm_tables));

	is(stats()->{relations}, $base_stats->{relations}, "$name: nvm_am.nvm_am_stats relations as before");
	return;
}

sub check_log
{
	my ($name, $offset) = @_;
	open my $fh, '<', $node->logfile or die "log: $!";
	seek $fh, $offset, 0;
	my $log = do { local $/; <$fh> };
	close $fh;
	my @bad = ($log =~ /^.*(?:PANIC|TRAP|was terminated by signal (?:6|11)\b).*$/mg);
	is(scalar(@bad), 0, "$name: no PANIC, TRAP or crash by signal 6/11 in the server log")
	  or diag(join("\n", @bad[0 .. ($#bad < 20 ? $#bad : 20)]));
	# errors other than those of the crash itself
	my @err = grep { !/terminating connection because of crash|the database system is (?:in recovery mode|starting up|shutting down)/ }
	  ($log =~ /^.*\b(?:ERROR|FATAL):.*$/mg);
	is(scalar(@err), 0, "$name: no unexpected ERROR or FATAL in the server log")
	  or diag(join("\n", @err[0 .. ($#err < 20 ? $#err : 20)]));
	return;
}

# ---------------------------------------------------------------------
# Rounds
# ---------------------------------------------------------------------
my $rounds = 4;
my $backend_only_round = 1 + int(rand($rounds - 1)) + 1;    # one of rounds 2..4
my $log_offset = 0;
my %load_total;
check_all('before any crash');

for my $round (1 .. $rounds)
{
	my $backend_only = $round == $backend_only_round;
	my $name = "round $round" . ($backend_only ? ' (one backend SIGKILLed)' : '');

	my @clients;
	push @clients, start_client('xfer', $round, $_, xfer_script($round, $_, 8000, 0)) for 1 .. 4;
	push @clients, start_client('xfer', $round, 5, xfer_script($round, 5, 8000, 1));
	push @clients, start_client('insdel', $round, 10 + $_, insdel_script($round, 10 + $_, 25000)) for 1 .. 2;
	push @clients, start_client('vacuum', $round, 20, vacuum_script());

	my $delay = 1 + rand(3);
	note sprintf("%s: crash after %.2f s", $name, $delay);
	usleep(int($delay * 1_000_000));

	# the counters live in shared memory: read them before the crash
	my $load = stats();
	$load_total{$_} += $load->{$_} for qw(hot_updates pages_pruned);
	note "$name: nvm_am.nvm_am_stats before the crash: "
	  . join(', ', map { "$_=$load->{$_}" } qw(hot_updates pages_pruned frames_reclaimed frames_allocated));

	if ($backend_only)
	{
		my $pm = postmaster_pid($node);
		my @victims = split /\n/, sql(q{SELECT pid FROM pg_stat_activity
		                                 WHERE application_name = 'xfer' AND pid <> pg_backend_pid()});
		ok(scalar(@victims) > 0, "$name: transfer backends running");
		my $victim = $victims[ int(rand(@victims)) ];
		my $off = -s $node->logfile;
		kill 'KILL', $victim;
		$node->wait_for_log(qr/all server processes terminated; reinitializing/, $off);
		$_->{acks} = finish_client($_) for @clients;
		$node->poll_query_until('postgres', 'SELECT true')
		  or die "server did not come back after the backend crash";
		is(postmaster_pid($node), $pm, "$name: same postmaster, no full restart");
	}
	else
	{
		crash($name);
		$_->{acks} = finish_client($_) for @clients;
		$node->start;
	}

	for my $kind ('xfer', 'insdel')
	{
		my $acks = 0;
		$acks += $_->{acks} for grep { $_->{kind} eq $kind } @clients;
		cmp_ok($acks, '>', 0, "$name: $kind clients had commits acknowledged ($acks)");
	}

	check_all($name);
	check_log($name, $log_offset);
	$log_offset = -s $node->logfile;
}

cmp_ok($load_total{hot_updates}, '>', 1000, "the load made HOT updates ($load_total{hot_updates})");
cmp_ok($load_total{pages_pruned}, '>', 0, "the load pruned pages ($load_total{pages_pruned})");

# a clean shutdown and restart at the end: the same answers
$node->restart;
check_all('after a clean restart');
check_log('at the end', $log_offset);
$node->stop;

unlink $pool;
done_testing();
