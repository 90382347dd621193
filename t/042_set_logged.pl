# 042_set_logged.pl - ALTER TABLE ... SET LOGGED / SET UNLOGGED of nvm_am
# tables, in WAL mode with a streaming standby, and a crash.
#
# As heap: a table made logged is in WAL from then on, so the standby has
# its rows (those written while it was unlogged too: the rewrite into its
# new storage is logged) and a crash keeps them; a table made unlogged is
# empty after a crash, on the standby it cannot be read, and a promoted
# standby has it empty.
#
# The crash of the primary also checks that a hot standby follows the
# primary past it: after a crash the primary hands out xids from the end of
# its last XID_IN_USE batch, and the standby takes the ids skipped for
# running transactions.  With batches of 4096 ids and this test's small
# max_connections that overflowed the standby's KnownAssignedXids ("too
# many KnownAssignedXids"): its startup process stopped, for good.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use NvmProc;

my $primary = wal_node('sl_primary', 1);
sub psql_p { return $primary->safe_psql('postgres', $_[0]); }

psql_p(q{CREATE UNLOGGED TABLE u2l (id int PRIMARY KEY, v text);
         INSERT INTO u2l SELECT g, md5(g::text) FROM generate_series(1, 3000) g;
         CREATE TABLE l2u (id int PRIMARY KEY, v text);
         INSERT INTO l2u SELECT g, md5(g::text) FROM generate_series(1, 3000) g;});
$primary->backup('bkp');
my $standby = PostgreSQL::Test::Cluster->new('sl_standby');
$standby->init_from_backup($primary, 'bkp', has_streaming => 1);
$standby->start;

psql_p(q{ALTER TABLE u2l SET LOGGED;
         UPDATE u2l SET v = 'changed' WHERE id % 10 = 0;
         INSERT INTO u2l SELECT g, 'new' FROM generate_series(3001, 3500) g;
         ALTER TABLE l2u SET UNLOGGED;
         DELETE FROM l2u WHERE id > 2000;});
is(psql_p(q{SELECT relpersistence FROM pg_class WHERE relname = 'u2l'}), 'p', 'u2l is logged');
is(psql_p(q{SELECT relpersistence FROM pg_class WHERE relname = 'l2u'}), 'u', 'l2u is unlogged');
is(psql_p(q{SELECT amname FROM pg_class c JOIN pg_am a ON a.oid = c.relam WHERE relname IN ('u2l', 'l2u') GROUP BY 1}),
	'nvm_am', 'both still nvm_am tables');
my $u2l = psql_p(q{SELECT count(*), md5(string_agg(id || v, ',' ORDER BY id)) FROM u2l});
$primary->wait_for_catchup($standby);
is($standby->safe_psql('postgres', q{SELECT count(*), md5(string_agg(id || v, ',' ORDER BY id)) FROM u2l}),
	$u2l, 'the standby has every row of the table made logged, also those written while it was unlogged');
my ($ret, $out, $err) = $standby->psql('postgres', 'SELECT count(*) FROM l2u');
isnt($ret, 0, 'the table made unlogged cannot be read on the standby');
like($err, qr/cannot access temporary or unlogged relations during recovery/, "as heap's: $err");
is($standby->safe_psql('postgres', q{SELECT count(*) FROM nvm_am.nvm_am_check('u2l')}), '0',
	'nvm_am_check clean on the standby');

# a crash: the logged table keeps its rows, the unlogged one is emptied
$primary->stop('immediate');
$primary->start;
is(psql_p(q{SELECT count(*), md5(string_agg(id || v, ',' ORDER BY id)) FROM u2l}), $u2l,
	'after a crash the table made logged has every row');
is(psql_p(q{SELECT count(*) FROM l2u}), '0', 'after a crash the table made unlogged is empty');
psql_p(q{INSERT INTO l2u VALUES (1, 'again'); INSERT INTO u2l VALUES (4000, 'after')});
is(psql_p(q{SELECT count(*) FROM nvm_am.nvm_am_check('u2l')}) . psql_p(q{SELECT count(*) FROM nvm_am.nvm_am_check('l2u')}),
	'00', 'nvm_am_check clean on both');

# the standby, promoted: the logged table with every row, the unlogged one empty
$primary->wait_for_catchup($standby);
is($standby->safe_psql('postgres', q{SELECT count(*) FROM u2l}), '3501',
	'the standby replayed past the crash of the primary');
unlike(slurp_file($standby->logfile), qr/too many KnownAssignedXids/,
	"and did not stop for the xids the primary skipped");
$standby->promote;
is($standby->safe_psql('postgres', q{SELECT count(*) FROM u2l}), '3501',
	'the promoted standby has the logged table, with the row written after the crash');
is($standby->safe_psql('postgres', q{SELECT count(*) FROM l2u}), '0',
	'and the unlogged one, empty');
$standby->safe_psql('postgres', q{INSERT INTO l2u VALUES (7, 'on the new primary')});
is($standby->safe_psql('postgres', q{SELECT count(*) FROM l2u}), '1', 'which takes rows');

$standby->stop;
$primary->stop;
done_testing();
