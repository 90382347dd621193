-- 03_dml.sql: DML results on nvm_am tables, compared with heap where
-- possible: INSERT/UPDATE/DELETE/RETURNING, index vs sequential scans,
-- TOAST, NULLs, wide rows, dropped and added columns.
BEGIN;
SET LOCAL client_min_messages = warning;
SELECT plan(59);

-- the plan of a query, as one text
CREATE FUNCTION pg_temp.plan_of(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE r text; res text := '';
BEGIN
  FOR r IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP res := res || r || E'\n'; END LOOP;
  RETURN res;
END $$;

-- INSERT / UPDATE / DELETE / RETURNING ---------------------------------
CREATE TABLE d (id int PRIMARY KEY, v text, n numeric) USING nvm_am;
SELECT results_eq(
  $$ INSERT INTO d VALUES (1, 'one', 1.5), (2, 'two', 2.5), (3, 'three', NULL) RETURNING id, v, n $$,
  $$ VALUES (1, 'one', 1.5), (2, 'two', 2.5), (3, 'three', NULL::numeric) $$,
  'INSERT ... RETURNING returns the inserted rows');
SELECT results_eq(
  $$ WITH i AS (INSERT INTO d SELECT g, 'g' || g, g / 10.0 FROM generate_series(4, 1000) g RETURNING id)
     SELECT count(*), sum(id) FROM i $$,
  $$ VALUES (997::bigint, 500494::bigint) $$,
  'INSERT ... SELECT inserts 997 rows');
SELECT is((SELECT count(*) FROM d), 1000::bigint, '1000 rows');
SELECT results_eq(
  $$ UPDATE d SET v = v || '!', n = coalesce(n, 0) + 1 WHERE id <= 3 RETURNING id, v, n $$,
  $$ VALUES (1, 'one!', 2.5), (2, 'two!', 3.5), (3, 'three!', 1::numeric) $$,
  'UPDATE ... RETURNING returns the new versions');
SELECT results_eq(
  $$ UPDATE d SET id = id + 10000 WHERE id BETWEEN 998 AND 1000 RETURNING id $$,
  $$ VALUES (10998), (10999), (11000) $$,
  'UPDATE of the key RETURNING');
SELECT results_eq(
  $$ DELETE FROM d WHERE id % 100 = 0 AND id < 10000 RETURNING id $$,
  $$ SELECT g * 100 FROM generate_series(1, 9) g $$,
  'DELETE ... RETURNING returns the deleted rows');
SELECT is((SELECT count(*) FROM d), 991::bigint, '991 rows left');
SELECT is((SELECT v FROM d WHERE id = 2), 'two!', 'the updated value is read back');
SELECT is((SELECT count(*) FROM d WHERE id = 1000), 0::bigint, 'the old key version is gone');
-- several updates of the same row in one transaction
UPDATE d SET n = n + 1 WHERE id = 5;
UPDATE d SET n = n + 1 WHERE id = 5;
UPDATE d SET n = n + 1 WHERE id = 5;
SELECT is((SELECT n FROM d WHERE id = 5), 3.5, 'three updates of one row in one transaction');
-- savepoints
SAVEPOINT sp;
DELETE FROM d;
SELECT is((SELECT count(*) FROM d), 0::bigint, 'DELETE all inside a savepoint');
ROLLBACK TO SAVEPOINT sp;
SELECT is((SELECT count(*) FROM d), 991::bigint, 'ROLLBACK TO SAVEPOINT brings the rows back');
SAVEPOINT sp2;
UPDATE d SET v = 'x' WHERE id = 7;
ROLLBACK TO SAVEPOINT sp2;
SELECT is((SELECT v FROM d WHERE id = 7), 'g7', 'rolled back UPDATE not visible');
SELECT throws_ok($$ INSERT INTO d VALUES (1, 'dup', 0) $$, '23505', NULL,
                 'unique violation on the primary key');
SELECT results_eq(
  $$ INSERT INTO d VALUES (1, 'dup', 0) ON CONFLICT (id) DO UPDATE SET v = excluded.v RETURNING id, v $$,
  $$ VALUES (1, 'dup') $$, 'ON CONFLICT DO UPDATE');
SELECT is_empty($$ INSERT INTO d VALUES (1, 'dup2', 0) ON CONFLICT DO NOTHING RETURNING id $$,
                'ON CONFLICT DO NOTHING inserts nothing');
SELECT results_eq(
  $$ WITH m AS (DELETE FROM d WHERE id BETWEEN 10 AND 12 RETURNING *)
     INSERT INTO d SELECT id + 20000, v, n FROM m RETURNING id $$,
  $$ VALUES (20010), (20011), (20012) $$, 'data-modifying CTE moves rows');
SELECT results_eq($$ SELECT id FROM d WHERE ctid = (SELECT ctid FROM d WHERE id = 20011) $$,
                  $$ VALUES (20011) $$, 'TID scan');

-- the same DML on nvm_am and heap gives the same contents ----------------
CREATE TABLE cn (id int PRIMARY KEY, a int, b text, c float8) USING nvm_am;
CREATE TABLE ch (id int PRIMARY KEY, a int, b text, c float8) USING heap;
CREATE INDEX ON cn (a);
CREATE INDEX ON ch (a);
CREATE FUNCTION pg_temp.dml(t regclass) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format($q$INSERT INTO %s SELECT g, g %% 97, repeat(chr(65 + g %% 26), g %% 50), g * 1.5 FROM generate_series(1, 5000) g$q$, t);
  EXECUTE format('UPDATE %s SET a = a + 1000, b = b || ''u'' WHERE id %% 7 = 0', t);
  EXECUTE format('DELETE FROM %s WHERE id %% 11 = 0', t);
  EXECUTE format('UPDATE %s SET c = NULL WHERE a BETWEEN 10 AND 20', t);
  EXECUTE format('INSERT INTO %s SELECT id + 100000, a, b, c FROM %s WHERE id %% 13 = 0', t, t);
  EXECUTE format('UPDATE %s SET id = -id WHERE id %% 17 = 0', t);
  EXECUTE format('UPDATE %s SET a = a + 1 WHERE id %% 3 = 0', t);
  EXECUTE format('UPDATE %s SET a = a + 1 WHERE id %% 3 = 0', t);
  EXECUTE format('DELETE FROM %s WHERE b = ''''', t);
END $$;
SELECT pg_temp.dml('cn');
SELECT pg_temp.dml('ch');
SELECT results_eq('SELECT * FROM cn ORDER BY id', 'SELECT * FROM ch ORDER BY id',
                  'nvm_am table equals heap table after the same DML');
SELECT results_eq('SELECT count(*), sum(a), sum(length(b)), sum(c) FROM cn',
                  'SELECT count(*), sum(a), sum(length(b)), sum(c) FROM ch',
                  'aggregates equal');
SELECT results_eq('SELECT a, count(*) FROM cn GROUP BY a ORDER BY a',
                  'SELECT a, count(*) FROM ch GROUP BY a ORDER BY a',
                  'GROUP BY equal');

-- index scans return the same as sequential scans -------------------------
CREATE TEMP TABLE seq_res ON COMMIT DROP AS
  SELECT id, a, b FROM cn WHERE a BETWEEN 1000 AND 1050 ORDER BY id;
CREATE TEMP TABLE seq_pk ON COMMIT DROP AS
  SELECT id, b FROM cn WHERE id BETWEEN -2000 AND 300 ORDER BY id;
SET LOCAL enable_indexscan = off;
SET LOCAL enable_bitmapscan = off;
SELECT results_eq('SELECT id, a, b FROM cn WHERE a BETWEEN 1000 AND 1050 ORDER BY id',
                  'SELECT * FROM seq_res', 'seq scan result (sanity)');
SELECT matches(pg_temp.plan_of('SELECT id, a, b FROM cn WHERE a BETWEEN 1000 AND 1050'),
               'Seq Scan', 'the reference query uses a seq scan');
SET LOCAL enable_seqscan = off;
SET LOCAL enable_indexscan = on;
SELECT matches(pg_temp.plan_of('SELECT id, a, b FROM cn WHERE a BETWEEN 1000 AND 1050 ORDER BY id'),
               'Index Scan', 'with enable_seqscan off an index scan is used');
SELECT results_eq('SELECT id, a, b FROM cn WHERE a BETWEEN 1000 AND 1050 ORDER BY id',
                  'SELECT * FROM seq_res', 'index scan on a secondary index = seq scan');
SELECT results_eq('SELECT id, b FROM cn WHERE id BETWEEN -2000 AND 300 ORDER BY id',
                  'SELECT * FROM seq_pk', 'primary key index scan = seq scan');
SELECT results_eq('SELECT id, b FROM cn WHERE id BETWEEN -2000 AND 300 ORDER BY id DESC',
                  'SELECT * FROM seq_pk ORDER BY id DESC', 'backward index scan = seq scan');
SELECT results_eq('SELECT id FROM cn WHERE id = ANY (ARRAY[-17, 1, 7, 11, 14, 100013]) ORDER BY id',
                  'VALUES (-17), (1), (7), (14), (100013)', 'index lookups of updated, deleted and inserted keys');
SET LOCAL enable_indexscan = off;
SET LOCAL enable_bitmapscan = on;
SELECT matches(pg_temp.plan_of('SELECT id, a, b FROM cn WHERE a BETWEEN 1000 AND 1050'),
               'Bitmap Heap Scan', 'a bitmap heap scan is used');
SELECT results_eq('SELECT id, a, b FROM cn WHERE a BETWEEN 1000 AND 1050 ORDER BY id',
                  'SELECT * FROM seq_res', 'bitmap heap scan = seq scan');
SET LOCAL enable_bitmapscan = off;
SET LOCAL enable_indexscan = on;
SELECT results_eq('SELECT count(*) FROM cn WHERE a >= 0', 'SELECT count(*) FROM ch',
                  'a full index scan counts all rows');
RESET enable_seqscan;
RESET enable_indexscan;
RESET enable_bitmapscan;

-- TOAST -------------------------------------------------------------------
CREATE TABLE tt (id int PRIMARY KEY, big text, bb bytea) USING nvm_am;
CREATE TEMP TABLE src ON COMMIT DROP AS
  SELECT (SELECT string_agg(md5(g::text || 'a'), '') FROM generate_series(1, 32768) g) AS hex,
         repeat('abcdefgh', 131072) AS rep;
SELECT is((SELECT length(hex) FROM src), 1048576, 'source value is 1 MB');
INSERT INTO tt SELECT 1, hex, decode(hex, 'hex') FROM src;
INSERT INTO tt SELECT 2, rep, convert_to(rep, 'UTF8') FROM src;
SELECT is((SELECT md5(big) FROM tt WHERE id = 1), (SELECT md5(hex) FROM src),
          '1 MB text value round-trips (md5 equal)');
SELECT is((SELECT md5(bb) FROM tt WHERE id = 1), (SELECT md5(decode(hex, 'hex')) FROM src),
          '512 kB bytea value round-trips (md5 equal)');
SELECT is((SELECT md5(big) FROM tt WHERE id = 2), (SELECT md5(rep) FROM src),
          '1 MB compressible value round-trips');
SELECT cmp_ok((SELECT pg_column_size(big) FROM tt WHERE id = 2), '<', 100000,
              'the compressible value is stored compressed');
SELECT ok((SELECT reltoastrelid <> 0 FROM pg_class WHERE oid = 'tt'::regclass),
          'the nvm_am table has a TOAST table');
SELECT cmp_ok((SELECT count(*) FROM pg_class c WHERE c.oid = (SELECT reltoastrelid FROM pg_class WHERE oid = 'tt'::regclass)
                 AND pg_relation_size(c.oid) > 1000000), '=', 1::bigint,
              'the out-of-line data is in the TOAST table');
ALTER TABLE tt ALTER COLUMN big SET STORAGE EXTERNAL;
INSERT INTO tt SELECT 3, rep, NULL FROM src;
SELECT is((SELECT md5(big) FROM tt WHERE id = 3), (SELECT md5(rep) FROM src),
          'uncompressed external (STORAGE EXTERNAL) 1 MB value round-trips');
UPDATE tt SET id = 10 WHERE id = 1;
SELECT is((SELECT md5(big) FROM tt WHERE id = 10), (SELECT md5(hex) FROM src),
          'UPDATE of another column keeps the toasted value');
UPDATE tt SET big = big || 'tail' WHERE id = 10;
SELECT is((SELECT md5(big) FROM tt WHERE id = 10), (SELECT md5(hex || 'tail') FROM src),
          'UPDATE of the toasted value');
SELECT is((SELECT substr(big, 500001, 10) FROM tt WHERE id = 3), (SELECT substr(rep, 500001, 10) FROM src),
          'substring of an external value');
DELETE FROM tt WHERE id = 2;
SELECT is((SELECT count(*) FROM tt), 2::bigint, 'DELETE of a toasted row');

-- NULLs ---------------------------------------------------------------------
CREATE TABLE nl (a int, b text, c bool, d numeric, e int[]) USING nvm_am;
INSERT INTO nl VALUES (NULL, NULL, NULL, NULL, NULL), (1, NULL, true, NULL, ARRAY[1, NULL]),
                      (NULL, 'b', NULL, 2.5, NULL), (3, 'c', false, 3, '{}');
SELECT results_eq($$ SELECT count(*) FILTER (WHERE a IS NULL), count(*) FILTER (WHERE b IS NULL),
                            count(*) FILTER (WHERE c IS NULL), count(*) FILTER (WHERE d IS NULL),
                            count(*) FILTER (WHERE e IS NULL) FROM nl $$,
                  $$ VALUES (2::bigint, 2::bigint, 2::bigint, 2::bigint, 2::bigint) $$,
                  'NULL counts per column');
SELECT is((SELECT count(*) FROM nl WHERE nl IS NULL), 1::bigint, 'one all-NULL row');
SELECT is((SELECT e FROM nl WHERE a = 1), ARRAY[1, NULL], 'array with a NULL element');
UPDATE nl SET b = 'set' WHERE b IS NULL;
UPDATE nl SET a = NULL WHERE a = 3;
SELECT results_eq('SELECT a, b FROM nl ORDER BY b, a NULLS FIRST',
                  $$ VALUES (NULL::int, 'b'), (NULL, 'c'), (NULL, 'set'), (1, 'set') $$,
                  'NULLs after updates');

-- many columns ------------------------------------------------------------------
DO $$
BEGIN
  EXECUTE 'CREATE TABLE wide (' ||
    (SELECT string_agg(format('c%s %s', g, CASE WHEN g % 3 = 0 THEN 'text' ELSE 'int' END), ', ')
       FROM generate_series(1, 400) g) || ') USING nvm_am';
  EXECUTE 'CREATE TABLE wide_h (LIKE wide) USING heap';
  EXECUTE 'INSERT INTO wide SELECT ' ||
    (SELECT string_agg(CASE WHEN g % 3 = 0 THEN format('CASE WHEN r %% %s = 0 THEN NULL ELSE r::text || ''_%s'' END', g % 7 + 2, g)
                            ELSE format('r * %s', g) END, ', ')
       FROM generate_series(1, 400) g) || ' FROM generate_series(1, 200) r';
  INSERT INTO wide_h SELECT * FROM wide;
END $$;
SELECT is((SELECT count(*) FROM pg_attribute WHERE attrelid = 'wide'::regclass AND attnum > 0), 400::bigint,
          'a table with 400 columns');
SELECT results_eq('SELECT * FROM wide ORDER BY c1', 'SELECT * FROM wide_h ORDER BY c1',
                  '400-column rows with NULLs equal heap');
UPDATE wide SET c399 = 'upd', c400 = -1 WHERE c1 % 2 = 0;
UPDATE wide_h SET c399 = 'upd', c400 = -1 WHERE c1 % 2 = 0;
SELECT results_eq('SELECT * FROM wide ORDER BY c1', 'SELECT * FROM wide_h ORDER BY c1',
                  'after UPDATE of the last columns');
SELECT is((SELECT sum(c400) FROM wide), (SELECT sum(c400) FROM wide_h), 'last column sums equal');

-- dropped columns and ADD COLUMN with a default ---------------------------------
CREATE TABLE dc (a int, b text, c int, d text) USING nvm_am;
INSERT INTO dc SELECT g, 'b' || g, g * 2, 'd' || g FROM generate_series(1, 100) g;
ALTER TABLE dc DROP COLUMN b;
SELECT results_eq('SELECT * FROM dc WHERE a <= 2 ORDER BY a',
                  $$ VALUES (1, 2, 'd1'), (2, 4, 'd2') $$, 'rows after DROP COLUMN');
INSERT INTO dc VALUES (101, 202, 'd101');
UPDATE dc SET d = d || '!' WHERE a % 10 = 1;
SELECT results_eq('SELECT * FROM dc WHERE a IN (1, 2, 101) ORDER BY a',
                  $$ VALUES (1, 2, 'd1!'), (2, 4, 'd2'), (101, 202, 'd101!') $$,
                  'INSERT and UPDATE after DROP COLUMN');
ALTER TABLE dc ADD COLUMN e int DEFAULT 42;
ALTER TABLE dc ADD COLUMN f text DEFAULT 'def' NOT NULL;
SELECT results_eq('SELECT count(*), sum(e), min(f), max(f) FROM dc',
                  $$ VALUES (101::bigint, 4242::bigint, 'def', 'def') $$,
                  'ADD COLUMN with a constant default fills old rows');
INSERT INTO dc (a, c, d) VALUES (102, 0, 'x');
INSERT INTO dc VALUES (103, 0, 'y', 7, 'own');
UPDATE dc SET e = e + 1 WHERE a = 1;
SELECT results_eq('SELECT a, e, f FROM dc WHERE a IN (1, 2, 102, 103) ORDER BY a',
                  $$ VALUES (1, 43, 'def'), (2, 42, 'def'), (102, 42, 'def'), (103, 7, 'own') $$,
                  'defaults on new and updated rows');
ALTER TABLE dc ADD COLUMN g float8 DEFAULT random();
SELECT is((SELECT count(DISTINCT g) FROM dc), 103::bigint,
          'ADD COLUMN with a volatile default rewrites the table, one value per row');
SELECT is((SELECT amname::text FROM pg_am WHERE oid = (SELECT relam FROM pg_class WHERE oid = 'dc'::regclass)),
          'nvm_am', 'still nvm_am after the rewrite');
ALTER TABLE dc ALTER COLUMN c TYPE bigint;
SELECT is((SELECT sum(c) FROM dc), 10302::numeric, 'ALTER COLUMN TYPE keeps the values');
SELECT results_eq('SELECT a, c, d, e, f FROM dc WHERE a IN (1, 101, 103) ORDER BY a',
                  $$ VALUES (1, 2::bigint, 'd1!', 43, 'def'), (101, 202, 'd101!', 42, 'def'), (103, 0, 'y', 7, 'own') $$,
                  'rows after the rewrites');

SELECT * FROM finish();
ROLLBACK;
