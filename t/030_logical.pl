# 030_logical.pl - logical decoding of nvm_am tables, in both modes of
# nvm_am.wal_log: the same statements run against heap tables and against
# nvm_am tables decode (test_decoding) to the same changes, row by row —
# inserts, COPY, multi-row and speculative inserts, HOT and non-HOT
# updates (of an unchanged key too), key changes, deletes, values stored out of line, replica
# identity DEFAULT / FULL / USING INDEX / NOTHING, rolled-back
# subtransactions, rows moved between partitions, a transaction larger
# than logical_decoding_work_mem (spilled to disk), a table rewrite and
# VACUUM FULL (whose copies are not changes); then logical
# replication (pgoutput, CREATE SUBSCRIPTION) of nvm_am tables under
# pgbench: after catch-up the subscriber's tables equal the publisher's.
# pg_walinspect describes nvm_am's LOGICAL records (rm_desc, rm_identify):
# the change, the relation, the sizes of the new row and the old key.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Digest::MD5 qw(md5_hex);
use FindBin;
use lib $FindBin::RealBin;
use NvmProc;

my $LOGICAL = qq{
wal_level = logical
max_replication_slots = 4
max_wal_senders = 4
logical_decoding_work_mem = 64kB
};

# the tables of one access method, their names prefixed with $p
sub schema
{
	my ($p, $am) = @_;
	return qq{
CREATE TABLE ${p}kv (k int PRIMARY KEY, v text, big text) USING $am;
CREATE TABLE ${p}full (a int, b text) USING $am;
ALTER TABLE ${p}full REPLICA IDENTITY FULL;
CREATE TABLE ${p}byidx (a int NOT NULL, b int, c text) USING $am;
CREATE UNIQUE INDEX ${p}byidx_a ON ${p}byidx (a);
CREATE INDEX ${p}byidx_b ON ${p}byidx (b);
ALTER TABLE ${p}byidx REPLICA IDENTITY USING INDEX ${p}byidx_a;
CREATE TABLE ${p}nothing (a int PRIMARY KEY, b text) USING $am;
ALTER TABLE ${p}nothing REPLICA IDENTITY NOTHING;
CREATE TABLE ${p}nokey (a int, b text) USING $am;
CREATE TABLE ${p}part (k int, v text) PARTITION BY RANGE (k);
CREATE TABLE ${p}part1 PARTITION OF ${p}part FOR VALUES FROM (0) TO (100) USING $am;
CREATE TABLE ${p}part2 PARTITION OF ${p}part FOR VALUES FROM (100) TO (200) USING $am;
};
}

# the statements, each its own transaction unless grouped
sub workload
{
	my ($p) = @_;
	# a value of about 20 kB that does not compress: stored out of line
	my $big = sub { "(SELECT string_agg(md5(g::text || ($_[0])::text), '') FROM generate_series(1, 600) g)" };
	return (
		qq{INSERT INTO ${p}kv SELECT s, 'v' || s, NULL FROM generate_series(1, 5) s},
		qq{INSERT INTO ${p}kv SELECT s, 'big', @{[ $big->('s') ]} FROM generate_series(6, 7) s},
		qq{COPY ${p}kv FROM PROGRAM 'printf "20\\tcopied\\t\\\\N\\n21\\tcopied too\\t\\\\N\\n"'},
		qq{UPDATE ${p}kv SET v = 'hot' WHERE k = 1},
		qq{UPDATE ${p}kv SET k = 101 WHERE k = 2},
		qq{UPDATE ${p}kv SET v = 'keeps big' WHERE k = 6},
		qq{UPDATE ${p}kv SET k = 107 WHERE k = 7},
		qq{UPDATE ${p}kv SET big = 'small now' WHERE k = 101},
		qq{DELETE FROM ${p}kv WHERE k IN (3, 107)},
		qq{INSERT INTO ${p}kv VALUES (4, 'conflict') ON CONFLICT (k) DO UPDATE SET v = excluded.v || ' updated'},
		qq{INSERT INTO ${p}kv VALUES (4, 'nothing') ON CONFLICT DO NOTHING},
		qq{INSERT INTO ${p}kv VALUES (30, 'speculative') ON CONFLICT DO NOTHING},
		qq{BEGIN; INSERT INTO ${p}kv VALUES (40, 'kept');
		   SAVEPOINT s; INSERT INTO ${p}kv VALUES (41, 'rolled back'); UPDATE ${p}kv SET v = 'rolled back' WHERE k = 40; ROLLBACK TO s;
		   SAVEPOINT t; UPDATE ${p}kv SET v = 'sub' WHERE k = 5; RELEASE t; COMMIT},
		qq{BEGIN; INSERT INTO ${p}kv VALUES (50, 'aborted'); ROLLBACK},
		qq{INSERT INTO ${p}full VALUES (1, 'one'), (2, 'two'), (3, @{[ $big->(3) ]})},
		qq{UPDATE ${p}full SET b = 'uno' WHERE a = 1},
		qq{UPDATE ${p}full SET a = 30 WHERE a = 3},
		qq{DELETE FROM ${p}full WHERE a = 2},
		qq{INSERT INTO ${p}byidx VALUES (1, 10, 'x'), (2, 20, 'y')},
		qq{UPDATE ${p}byidx SET b = 11 WHERE a = 1},
		qq{UPDATE ${p}byidx SET a = 3 WHERE a = 2},
		qq{DELETE FROM ${p}byidx WHERE a = 1},
		qq{INSERT INTO ${p}nothing VALUES (1, 'n')},
		qq{UPDATE ${p}nothing SET b = 'm' WHERE a = 1},
		qq{DELETE FROM ${p}nothing WHERE a = 1},
		qq{INSERT INTO ${p}nokey VALUES (1, 'k'), (2, 'l')},
		qq{UPDATE ${p}nokey SET b = 'kk' WHERE a = 1},
		qq{DELETE FROM ${p}nokey WHERE a = 2},
		qq{INSERT INTO ${p}part VALUES (1, 'low'), (150, 'high')},
		qq{UPDATE ${p}part SET k = 160 WHERE k = 1},
		qq{UPDATE ${p}part SET v = 'still high' WHERE k = 150},
		qq{DELETE FROM ${p}part WHERE k = 160},
		qq{INSERT INTO ${p}kv SELECT s, repeat('spilled', 10), NULL FROM generate_series(1000, 3999) s},
		qq{ALTER TABLE ${p}byidx ADD COLUMN d int DEFAULT length(random()::text)},
		qq{VACUUM FULL ${p}kv},
		qq{UPDATE ${p}kv SET v = 'after vacuum full' WHERE k = 1000},
		qq{TRUNCATE ${p}nokey});
}

for my $mode ('off', 'on')
{
	my $node = $mode eq 'on'
	  ? wal_node("dec_$mode", 1, $LOGICAL)
	  : nvm_node("dec_$mode", $LOGICAL);
	$node->safe_psql('postgres', 'CREATE EXTENSION IF NOT EXISTS nvm_am');
	$node->safe_psql('postgres', schema('h_', 'heap') . schema('n_', 'nvm_am'));
	$node->safe_psql('postgres',
		q{SELECT pg_create_logical_replication_slot('dec', 'test_decoding')});
	my $get = q{SELECT string_agg(data, E'\n' ORDER BY ord) FROM
		pg_logical_slot_get_changes('dec', NULL, NULL, 'include-xids', '0',
		'skip-empty-xacts', '1') WITH ORDINALITY AS c(lsn, xid, data, ord)};
	$node->safe_psql('postgres', $get);    # the schema's changes: none
	my %out;
	my %lsn;
	my %kv;    # (kv's file before the workload rewrites it)
	for my $p ('h_', 'n_')
	{
		$lsn{$p} = $node->safe_psql('postgres', 'SELECT pg_current_wal_insert_lsn()');
		$kv{$p} = $node->safe_psql('postgres', "SELECT pg_relation_filenode('${p}kv')");
		$node->safe_psql('postgres', $_) for workload($p);
		($out{$p} = $node->safe_psql('postgres', $get)) =~ s/\b${p}/X_/g;
		# long values as their length and digest, for a readable diff
		$out{$p} =~ s/'([0-9a-f]{200,})'/"'<" . length($1) . ' bytes, md5 ' . md5_hex($1) . ">'"/ge;
	}
	note($out{"n_"}) if $ENV{NVM_TAP_SHOW};
	my $nvm_rows = () = $out{'n_'} =~ /^table /mg;
	cmp_ok($nvm_rows, '>=', 40, "wal_log $mode: nvm_am changes are decoded ($nvm_rows)");
	is($out{'n_'}, $out{'h_'},
		"wal_log $mode: nvm_am tables decode to the same changes as heap tables");
	like($out{'n_'}, qr/table public\.X_kv: UPDATE: old-key: k\[integer\]:2 new-tuple: k\[integer\]:101/,
		"wal_log $mode: a key change carries the old key");
	like($out{'n_'}, qr/table public\.X_kv: UPDATE: k\[integer\]:6 v\[text\]:'keeps big' big\[text\]:unchanged-toast-datum/,
		"wal_log $mode: an unchanged value out of line is not carried");
	like($out{'n_'}, qr/table public\.X_full: DELETE: a\[integer\]:2 b\[text\]:'two'/,
		"wal_log $mode: REPLICA IDENTITY FULL carries the whole old row");
	unlike($out{'n_'}, qr/rolled back|aborted/,
		"wal_log $mode: rolled-back changes are not decoded");
	# the LOGICAL records of the nvm_am workload, as pg_walinspect (rm_desc,
	# rm_identify) describes them: the change, the relation, the row sizes
	$node->safe_psql('postgres', 'CREATE EXTENSION IF NOT EXISTS pg_walinspect; CHECKPOINT');
	my $kv = $kv{'n_'};
	my $desc = $node->safe_psql('postgres', qq{SELECT string_agg(DISTINCT
		regexp_replace(description, '[0-9]+ bytes', 'N bytes', 'g'), E'\n')
		FROM pg_get_wal_records_info('$lsn{"n_"}', pg_current_wal_flush_lsn())
		WHERE resource_manager = 'nvm_am' AND record_type = 'LOGICAL'
		  AND description LIKE '%/$kv%'});
	like($desc, qr{^insert in rel \d+/\d+/$kv, new row N bytes$}m,
		"wal_log $mode: pg_walinspect describes an nvm_am insert's LOGICAL record");
	like($desc, qr{^update in rel \d+/\d+/$kv, new row N bytes, old row's identity N bytes$}m,
		"wal_log $mode: and a key change's, with the old key");
	like($desc, qr{^delete in rel \d+/\d+/$kv, old row's identity N bytes$}m,
		"wal_log $mode: and a delete's");
	is($node->safe_psql('postgres',
			q{SELECT spill_txns > 0 FROM pg_stat_replication_slots WHERE slot_name = 'dec'}),
		't', "wal_log $mode: the large transactions were spilled to disk");
	$node->safe_psql('postgres', q{SELECT pg_drop_replication_slot('dec')});
	$node->stop;
}

# logical replication of nvm_am tables under pgbench
my $pub = wal_node('pub', 1, $LOGICAL);
my $sub = nvm_node('sub', $LOGICAL);
$sub->safe_psql('postgres', q{CREATE EXTENSION IF NOT EXISTS nvm_am;
	SET default_table_access_method = nvm_am;
	CREATE TABLE pgbench_accounts (aid int PRIMARY KEY, bid int, abalance int, filler char(84));
	CREATE TABLE pgbench_branches (bid int PRIMARY KEY, bbalance int, filler char(88));
	CREATE TABLE pgbench_tellers (tid int PRIMARY KEY, bid int, tbalance int, filler char(84));
	CREATE TABLE pgbench_history (tid int, bid int, aid int, delta int, mtime timestamp, filler char(22));});
$pub->safe_psql('postgres', q{CREATE PUBLICATION p FOR TABLE pgbench_accounts,
	pgbench_branches, pgbench_tellers, pgbench_history});
my $am = $pub->safe_psql('postgres',
	q{SELECT string_agg(DISTINCT amname, ',') FROM pg_class c JOIN pg_am a ON a.oid = c.relam
	  WHERE relname LIKE 'pgbench_%' AND relkind = 'r'});
is($am, 'nvm_am', 'the published tables are nvm_am tables');
$sub->safe_psql('postgres', 'CREATE SUBSCRIPTION s CONNECTION $$'
	  . $pub->connstr('postgres') . '$$ PUBLICATION p');
$sub->wait_for_subscription_sync($pub, 's');
$pub->command_ok([ 'pgbench', '-n', '-c', '2', '-t', '500', '-h', $pub->host,
	'-p', $pub->port, 'postgres' ], 'pgbench on the publisher');
$pub->safe_psql('postgres', q{DELETE FROM pgbench_accounts WHERE aid % 97 = 0;
	UPDATE pgbench_accounts SET aid = aid + 1000000 WHERE aid % 89 = 0;});
$pub->wait_for_catchup('s');
my %q = (
	accounts => q{SELECT count(*) || ':' || md5(string_agg(aid || ',' || bid || ',' || abalance, ';' ORDER BY aid)) FROM pgbench_accounts},
	branches => q{SELECT md5(string_agg(bid || ',' || bbalance, ';' ORDER BY bid)) FROM pgbench_branches},
	tellers => q{SELECT md5(string_agg(tid || ',' || tbalance, ';' ORDER BY tid)) FROM pgbench_tellers},
	history => q{SELECT count(*) || ':' || sum(delta) || ':' || md5(string_agg(aid || ',' || delta, ';' ORDER BY mtime, aid, delta)) FROM pgbench_history});
for my $t (sort keys %q)
{
	is($sub->safe_psql('postgres', $q{$t}), $pub->safe_psql('postgres', $q{$t}),
		"subscriber's $t equals the publisher's");
}
like($sub->safe_psql('postgres', $q{history}), qr/^1000:/,
	'the 1000 transactions reached the subscriber');
is($sub->safe_psql('postgres', q{SELECT count(*) FROM nvm_am.nvm_am_check('pgbench_accounts')}),
	'0', 'nvm_am_check is clean on the subscriber');

done_testing();
