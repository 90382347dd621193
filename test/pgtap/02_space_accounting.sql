-- 02_space_accounting.sql: pool space (nvm_am.nvm_am_stats relations and
-- frames_allocated) returns exactly to its baseline after every way of
-- dropping, rolling back or rewriting nvm_am storage.
--
-- Space is freed at commit, and VACUUM FULL / CLUSTER cannot run in a
-- transaction block, so this file is not wrapped in one transaction: it
-- runs plain statements, captures values with psql's \gset where a
-- transaction is later rolled back, and cleans up at the end.
-- It assumes no other session creates or drops nvm_am storage meanwhile
-- (the counters are cluster-wide).

\set ON_ERROR_STOP 1
SET client_min_messages = warning;
SELECT plan(54);

CREATE FUNCTION pg_temp.frames() RETURNS bigint LANGUAGE sql VOLATILE
  AS $$ SELECT value FROM nvm_am.nvm_am_stats WHERE name = 'frames_allocated' $$;
CREATE FUNCTION pg_temp.rels() RETURNS bigint LANGUAGE sql VOLATILE
  AS $$ SELECT value FROM nvm_am.nvm_am_stats WHERE name = 'relations' $$;

DROP SCHEMA IF EXISTS sa CASCADE;
CREATE SCHEMA sa;

SELECT pg_temp.frames() AS base_f, pg_temp.rels() AS base_r \gset

-- 1. DROP TABLE ---------------------------------------------------------
CREATE TABLE sa.t1 (id int PRIMARY KEY, pad text) USING nvm_am;
INSERT INTO sa.t1 SELECT g, repeat('x', 200) FROM generate_series(1, 5000) g;
SELECT is(pg_temp.rels(), :base_r::bigint + 1, 'CREATE TABLE adds one relation');
SELECT cmp_ok(pg_temp.frames(), '>', :base_f::bigint + 100, 'INSERT of 5000 rows allocates frames');
DROP TABLE sa.t1;
SELECT is(pg_temp.rels(), :base_r::bigint, 'DROP TABLE: relations back to baseline');
SELECT is(pg_temp.frames(), :base_f::bigint, 'DROP TABLE: frames_allocated back to baseline');

-- a DROP TABLE rolled back keeps the table and its space
CREATE TABLE sa.t1b (id int, pad text) USING nvm_am;
INSERT INTO sa.t1b SELECT g, repeat('x', 200) FROM generate_series(1, 2000) g;
SELECT pg_temp.frames() AS f_t1b \gset
BEGIN;
DROP TABLE sa.t1b;
ROLLBACK;
SELECT is((SELECT count(*) FROM sa.t1b), 2000::bigint, 'rolled back DROP TABLE: data intact');
SELECT is(pg_temp.frames(), :f_t1b::bigint, 'rolled back DROP TABLE: frames unchanged');
DROP TABLE sa.t1b;
SELECT is(pg_temp.frames(), :base_f::bigint, 'then DROP TABLE: frames back to baseline');

-- 2. ROLLBACK of CREATE TABLE + INSERT ------------------------------------
BEGIN;
CREATE TABLE sa.t2 (id int PRIMARY KEY, pad text) USING nvm_am;
INSERT INTO sa.t2 SELECT g, repeat('x', 200) FROM generate_series(1, 5000) g;
SELECT pg_temp.frames() AS f_in, pg_temp.rels() AS r_in \gset
ROLLBACK;
SELECT cmp_ok(:f_in::bigint, '>', :base_f::bigint, 'inside the transaction frames were allocated');
SELECT is(:r_in::bigint, :base_r::bigint + 1, 'inside the transaction the relation existed');
SELECT is(pg_temp.rels(), :base_r::bigint, 'ROLLBACK of CREATE TABLE: relations back to baseline');
SELECT is(pg_temp.frames(), :base_f::bigint, 'ROLLBACK of CREATE TABLE + INSERT: frames back to baseline');

-- 3. ROLLBACK TO SAVEPOINT of a CREATE TABLE ------------------------------
BEGIN;
CREATE TABLE sa.keep (id int) USING nvm_am;
INSERT INTO sa.keep SELECT generate_series(1, 1000);
SELECT pg_temp.frames() AS f_keep \gset
SAVEPOINT s1;
CREATE TABLE sa.t3 (id int, pad text) USING nvm_am;
INSERT INTO sa.t3 SELECT g, repeat('y', 300) FROM generate_series(1, 3000) g;
SELECT pg_temp.frames() AS f_sp, pg_temp.rels() AS r_sp \gset
ROLLBACK TO SAVEPOINT s1;
SELECT pg_temp.frames() AS f_after_rb, pg_temp.rels() AS r_after_rb \gset
COMMIT;
SELECT cmp_ok(:f_sp::bigint, '>', :f_keep::bigint, 'the subtransaction allocated frames');
SELECT is(:r_sp::bigint, :base_r::bigint + 2, 'inside the subtransaction both relations existed');
SELECT is(:f_after_rb::bigint, :f_keep::bigint, 'ROLLBACK TO SAVEPOINT frees the subtransaction''s frames at once');
SELECT is(:r_after_rb::bigint, :base_r::bigint + 1, 'ROLLBACK TO SAVEPOINT frees the subtransaction''s relation at once');
SELECT is(pg_temp.frames(), :f_keep::bigint, 'after COMMIT only the kept table''s frames remain');
SELECT is(pg_temp.rels(), :base_r::bigint + 1, 'after COMMIT only the kept relation remains');
SELECT is((SELECT count(*) FROM sa.keep), 1000::bigint, 'the kept table has its rows');
SELECT is((SELECT count(*) FROM pg_class WHERE relname = 't3' AND relnamespace = 'sa'::regnamespace),
          0::bigint, 'the rolled back table does not exist');
DROP TABLE sa.keep;
SELECT is(pg_temp.frames(), :base_f::bigint, 'savepoint case: frames back to baseline');

-- 4. ROLLBACK TO SAVEPOINT of a TRUNCATE; committed TRUNCATE ---------------
CREATE TABLE sa.empty (id int, pad text) USING nvm_am;
SELECT pg_temp.frames() - :base_f AS f_empty \gset
DROP TABLE sa.empty;
CREATE TABLE sa.t4 (id int PRIMARY KEY, pad text) USING nvm_am;
INSERT INTO sa.t4 SELECT g, repeat('z', 200) FROM generate_series(1, 4000) g;
SELECT pg_temp.frames() AS f_t4 \gset
BEGIN;
SAVEPOINT s1;
TRUNCATE sa.t4;
INSERT INTO sa.t4 SELECT g, 'new' FROM generate_series(1, 100) g;
SELECT count(*) AS n_in FROM sa.t4 \gset
ROLLBACK TO SAVEPOINT s1;
SELECT count(*) AS n_rb, sum(id) AS s_rb FROM sa.t4 \gset
SELECT pg_temp.frames() AS f_rb \gset
COMMIT;
SELECT is(:n_in::bigint, 100::bigint, 'inside the savepoint the table was truncated and refilled');
SELECT is(:n_rb::bigint, 4000::bigint, 'ROLLBACK TO SAVEPOINT of TRUNCATE: the rows are back');
SELECT is(:s_rb::bigint, 8002000::bigint, 'ROLLBACK TO SAVEPOINT of TRUNCATE: the same rows');
SELECT is(:f_rb::bigint, :f_t4::bigint, 'ROLLBACK TO SAVEPOINT of TRUNCATE: the new storage is freed');
SELECT is(pg_temp.frames(), :f_t4::bigint, 'after COMMIT: no leak');
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT is((SELECT pad FROM sa.t4 WHERE id = 4000), repeat('z', 200),
          'rows readable through the index after the rollback');
RESET enable_seqscan;
RESET enable_bitmapscan;
TRUNCATE sa.t4;
SELECT is((SELECT count(*) FROM sa.t4), 0::bigint, 'committed TRUNCATE empties the table');
SELECT is(pg_temp.frames(), :base_f::bigint + :f_empty, 'committed TRUNCATE frees the old storage (frames = an empty table)');
SELECT is(pg_temp.rels(), :base_r::bigint + 1, 'committed TRUNCATE: still one relation');
INSERT INTO sa.t4 VALUES (1, 'after');
SELECT is((SELECT pad FROM sa.t4), 'after', 'the truncated table is usable');
DROP TABLE sa.t4;
SELECT is(pg_temp.frames(), :base_f::bigint, 'TRUNCATE case: frames back to baseline');

-- 5. DROP SCHEMA ... CASCADE ---------------------------------------------
CREATE SCHEMA sa2;
CREATE TABLE sa2.a (id int PRIMARY KEY, pad text) USING nvm_am;
CREATE TABLE sa2.b (id int, big text) USING nvm_am;
CREATE TABLE sa2.c (LIKE sa2.a) USING nvm_am;
CREATE TABLE sa2.h (id int) USING heap;
INSERT INTO sa2.a SELECT g, repeat('a', 100) FROM generate_series(1, 3000) g;
INSERT INTO sa2.b SELECT g, repeat(md5(g::text), 100) FROM generate_series(1, 300) g;
INSERT INTO sa2.c SELECT * FROM sa2.a;
SELECT is(pg_temp.rels(), :base_r::bigint + 3, 'three nvm_am relations in the schema');
DROP SCHEMA sa2 CASCADE;
SELECT is(pg_temp.rels(), :base_r::bigint, 'DROP SCHEMA CASCADE: relations back to baseline');
SELECT is(pg_temp.frames(), :base_f::bigint, 'DROP SCHEMA CASCADE: frames back to baseline');

-- 6. ALTER TABLE ... SET ACCESS METHOD heap and back -----------------------
CREATE TABLE sa.t6 (id int PRIMARY KEY, pad text) USING nvm_am;
INSERT INTO sa.t6 SELECT g, repeat('q', 150) FROM generate_series(1, 3000) g;
DELETE FROM sa.t6 WHERE id % 3 = 0;
ALTER TABLE sa.t6 SET ACCESS METHOD heap;
SELECT is((SELECT amname::text FROM pg_am WHERE oid = (SELECT relam FROM pg_class WHERE oid = 'sa.t6'::regclass)),
          'heap', 'SET ACCESS METHOD heap');
SELECT is((SELECT count(*) FROM sa.t6), 2000::bigint, 'row count preserved in heap');
SELECT is(pg_temp.rels(), :base_r::bigint, 'as heap: no nvm relation left');
SELECT is(pg_temp.frames(), :base_f::bigint, 'as heap: frames back to baseline');
ALTER TABLE sa.t6 SET ACCESS METHOD nvm_am;
SELECT is((SELECT amname::text FROM pg_am WHERE oid = (SELECT relam FROM pg_class WHERE oid = 'sa.t6'::regclass)),
          'nvm_am', 'SET ACCESS METHOD nvm_am');
SELECT is((SELECT count(*) || '/' || sum(id) FROM sa.t6), '2000/3000000', 'rows preserved back in nvm_am');
SELECT is(pg_temp.rels(), :base_r::bigint + 1, 'back in nvm_am: one relation');
DROP TABLE sa.t6;
SELECT is(pg_temp.frames(), :base_f::bigint, 'SET ACCESS METHOD case: frames back to baseline');

-- 7. VACUUM FULL and CLUSTER ----------------------------------------------
CREATE TABLE sa.t7 (id int PRIMARY KEY, pad text) USING nvm_am;
INSERT INTO sa.t7 SELECT g, repeat('v', 200) FROM generate_series(1, 6000) g;
SELECT pg_temp.frames() AS f_full \gset
DELETE FROM sa.t7 WHERE id % 4 <> 0;
VACUUM FULL sa.t7;
SELECT is((SELECT count(*) || '/' || sum(id) FROM sa.t7), '1500/4503000', 'VACUUM FULL keeps the live rows');
SELECT cmp_ok(pg_temp.frames(), '<', :f_full::bigint, 'VACUUM FULL shrinks the table');
SELECT is(pg_temp.rels(), :base_r::bigint + 1, 'VACUUM FULL: still one relation (old storage freed)');
SELECT pg_temp.frames() AS f_vf \gset
-- a fresh table with the same rows takes the same number of frames
CREATE TABLE sa.t7ref (id int PRIMARY KEY, pad text) USING nvm_am;
INSERT INTO sa.t7ref SELECT * FROM sa.t7 ORDER BY id;
SELECT is(pg_temp.frames() - :f_vf, :f_vf::bigint - :base_f, 'after VACUUM FULL the table takes no more frames than a fresh copy');
DROP TABLE sa.t7ref;
CLUSTER sa.t7 USING t7_pkey;
SELECT is((SELECT count(*) || '/' || sum(id) FROM sa.t7), '1500/4503000', 'CLUSTER keeps the rows');
SELECT is(pg_temp.frames(), :f_vf::bigint, 'CLUSTER: frames unchanged (old storage freed)');
SELECT is(pg_temp.rels(), :base_r::bigint + 1, 'CLUSTER: still one relation');
SELECT is((SELECT array_agg(id) FROM (SELECT id FROM sa.t7 LIMIT 5) s), ARRAY[4, 8, 12, 16, 20],
          'CLUSTER ordered the rows');
DROP TABLE sa.t7;
SELECT is(pg_temp.frames(), :base_f::bigint, 'VACUUM FULL / CLUSTER case: frames back to baseline');

-- 8. CREATE TABLE + DROP TABLE in the same transaction ----------------------
BEGIN;
CREATE TABLE sa.t8 (id int, pad text) USING nvm_am;
INSERT INTO sa.t8 SELECT g, repeat('w', 200) FROM generate_series(1, 3000) g;
DROP TABLE sa.t8;
COMMIT;
SELECT is(pg_temp.rels(), :base_r::bigint, 'CREATE + DROP in one transaction: relations back to baseline');
SELECT is(pg_temp.frames(), :base_f::bigint, 'CREATE + DROP in one transaction: frames back to baseline');

-- cleanup
DROP SCHEMA sa CASCADE;
SELECT is(pg_temp.frames(), :base_f::bigint, 'end: frames back to baseline');
SELECT * FROM finish();
