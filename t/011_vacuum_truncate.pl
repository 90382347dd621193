# 011_vacuum_truncate.pl - VACUUM giving back the empty pages at the end of
# an nvm_am table when the table's main-fork file is shorter than the table.
#
# The file is kept at the table's size only as information (for
# pg_relation_size and prefetching); a crash between the pool's extension
# of a table and the file's can leave it shorter.  VACUUM's truncation must
# then still work: no PANIC ("could not truncate file ... it's only N
# blocks now" inside a critical section), the rows are intact, the file
# and the table end at the same size.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use NvmProc;

my $node = nvm_node('vactrunc');

sub sql { return $node->safe_psql('postgres', $_[0]); }

sql(q{
CREATE EXTENSION nvm_am;
CREATE TABLE t (id int, pad text) USING nvm_am;
INSERT INTO t SELECT g, repeat('x', 300) FROM generate_series(1, 200) g;
});
my $pages = sql(q{SELECT pg_relation_size('t') / 8192});
cmp_ok($pages, '>=', 5, "the table has $pages pages");
my $kept = sql(q{SELECT count(DISTINCT (ctid::text::point)[0]) FROM t WHERE id <= 40});

# the file as a crash during an extension can leave it: one block long
my $path = $node->data_dir . '/' . sql(q{SELECT pg_relation_filepath('t')});
truncate($path, 8192) or die "truncate $path: $!";
is(-s $path, 8192, 'the main-fork file is one block long');

sql(q{DELETE FROM t WHERE id > 40});
my ($ret, $out, $err) = $node->psql('postgres', 'VACUUM t');
is($ret, 0, 'VACUUM succeeds');
is($err, '', 'VACUUM reports nothing');
like($node->safe_psql('postgres', 'SELECT 1'), qr/^1$/, 'the server is up');
unlike(slurp_file($node->logfile), qr/PANIC|TRAP|terminated by signal/,
	'no PANIC, TRAP or crash in the server log');

is(sql(q{SELECT count(*), min(id), max(id) FROM t}), '40|1|40', 'the rows are intact');
is(sql(q{SELECT pg_relation_size('t') / 8192}), $kept,
	'the table was cut to the pages its rows use');
is(-s $path, $kept * 8192, 'the file ends where the table ends');
is(sql(q{SELECT count(*) FROM nvm_am.nvm_am_check('t')}), '0', 'nvm_am_check clean');

# and it grows again
sql(q{INSERT INTO t SELECT g, repeat('y', 300) FROM generate_series(41, 200) g});
is(sql(q{SELECT count(*) FROM t}), '200', 'the table grows again');
is(sql(q{SELECT count(*) FROM nvm_am.nvm_am_check('t')}), '0', 'nvm_am_check clean after growing');

done_testing();
