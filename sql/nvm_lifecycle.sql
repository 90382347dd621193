--
-- Storage lifecycle: every way a relation's storage is created, replaced
-- or dropped, with commit, abort and savepoints.  After each step the
-- pool's space must be exactly what the live tables need: nothing leaks.
--
CREATE EXTENSION IF NOT EXISTS nvm_am;
CREATE FUNCTION nvm_usage(OUT rels bigint, OUT frames bigint) LANGUAGE sql AS $$
  SELECT max(value) FILTER (WHERE name = 'relations'),
         max(value) FILTER (WHERE name = 'frames_allocated')
  FROM nvm_am.nvm_am_stats $$;
CREATE TABLE base AS SELECT * FROM nvm_usage();
-- extra relations and frames compared to the baseline
CREATE FUNCTION nvm_extra(OUT rels bigint, OUT frames bigint) LANGUAGE sql AS $$
  SELECT u.rels - b.rels, u.frames - b.frames FROM nvm_usage() u, base b $$;

-- ROLLBACK of CREATE TABLE
BEGIN;
CREATE TABLE l1 (a int, b text) USING nvm_am;
INSERT INTO l1 SELECT g, repeat('x', 100) FROM generate_series(1, 5000) g;
SELECT rels, frames > 0 AS has_frames FROM nvm_extra();
ROLLBACK;
SELECT * FROM nvm_extra();

-- CREATE in a subtransaction rolled back, the outer one committed
BEGIN;
CREATE TABLE l1 (a int) USING nvm_am;
SAVEPOINT s;
CREATE TABLE l2 (a int) USING nvm_am;
INSERT INTO l2 VALUES (1);
ROLLBACK TO s;
INSERT INTO l1 VALUES (1), (2);
COMMIT;
SELECT rels FROM nvm_extra();
SELECT count(*) FROM l1;

-- TRUNCATE rolled back, by ROLLBACK and by ROLLBACK TO SAVEPOINT
INSERT INTO l1 SELECT g FROM generate_series(3, 3000) g;
CREATE TEMP TABLE snap AS SELECT * FROM nvm_extra();
BEGIN;
TRUNCATE l1;
SELECT count(*) FROM l1;
ROLLBACK;
SELECT count(*) FROM l1;
SELECT e.rels = s.rels AND e.frames = s.frames AS unchanged FROM nvm_extra() e, snap s;
BEGIN;
SAVEPOINT s;
TRUNCATE l1;
INSERT INTO l1 VALUES (-1);
ROLLBACK TO s;
SELECT count(*) FROM l1;
COMMIT;
SELECT e.rels = s.rels AND e.frames = s.frames AS unchanged FROM nvm_extra() e, snap s;

-- committed TRUNCATE frees the old storage
TRUNCATE l1;
SELECT count(*) FROM l1;
SELECT rels, frames FROM nvm_extra();

-- TRUNCATE of a table created in the same transaction (non-transactional)
BEGIN;
CREATE TABLE l2 (a int) USING nvm_am;
INSERT INTO l2 SELECT generate_series(1, 3000);
TRUNCATE l2;
INSERT INTO l2 VALUES (42);
COMMIT;
SELECT * FROM l2;
DROP TABLE l2;

-- CREATE and DROP in one transaction; DROP rolled back; DROP committed
BEGIN;
CREATE TABLE l2 (a int) USING nvm_am;
INSERT INTO l2 VALUES (1);
DROP TABLE l2;
COMMIT;
INSERT INTO l1 SELECT generate_series(1, 1000);
BEGIN;
DROP TABLE l1;
ROLLBACK;
SELECT count(*) FROM l1;
BEGIN;
SAVEPOINT s;
DROP TABLE l1;
ROLLBACK TO s;
COMMIT;
SELECT count(*) FROM l1;
DROP TABLE l1;
SELECT * FROM nvm_extra();

-- DROP SCHEMA ... CASCADE
CREATE SCHEMA ls;
CREATE TABLE ls.a (x int) USING nvm_am;
CREATE TABLE ls.b (x int PRIMARY KEY, y text) USING nvm_am;
CREATE TABLE ls.c (x int) USING heap;
INSERT INTO ls.a SELECT generate_series(1, 1000);
INSERT INTO ls.b SELECT g, repeat('y', 3000) FROM generate_series(1, 100) g;
SELECT rels FROM nvm_extra();
BEGIN;
DROP SCHEMA ls CASCADE;
ROLLBACK;
SELECT count(*) FROM ls.a;
DROP SCHEMA ls CASCADE;
SELECT * FROM nvm_extra();

-- ALTER TABLE ... SET ACCESS METHOD both ways, and rewriting ALTERs
CREATE TABLE lh (a int PRIMARY KEY, b text) USING heap;
INSERT INTO lh SELECT g, 'r' || g FROM generate_series(1, 2000) g;
ALTER TABLE lh SET ACCESS METHOD nvm_am;
SELECT amname FROM pg_class c JOIN pg_am a ON a.oid = c.relam WHERE c.relname = 'lh';
SELECT count(*), sum(a) FROM lh;
SELECT rels FROM nvm_extra();
BEGIN;
ALTER TABLE lh SET ACCESS METHOD heap;
ROLLBACK;
SELECT count(*) FROM lh;
ALTER TABLE lh ADD COLUMN c float8 DEFAULT random();
ALTER TABLE lh ALTER COLUMN a TYPE bigint;
SELECT count(*), count(c) FROM lh;
SELECT rels FROM nvm_extra();
ALTER TABLE lh SET ACCESS METHOD heap;
SELECT count(*), sum(a) FROM lh;
SELECT * FROM nvm_extra();
DROP TABLE lh;

-- VACUUM FULL and CLUSTER rewrite into new storage and free the old
CREATE TABLE lv (a int PRIMARY KEY, b text) USING nvm_am;
INSERT INTO lv SELECT g, repeat('v', 200) FROM generate_series(1, 3000) g;
DELETE FROM lv WHERE a % 2 = 0;
CREATE TEMP TABLE before_full AS SELECT * FROM nvm_extra();
VACUUM FULL lv;
SELECT count(*), sum(a) FROM lv;
SELECT e.rels = b.rels AS same_rels, e.frames < b.frames AS smaller FROM nvm_extra() e, before_full b;
CLUSTER lv USING lv_pkey;
SELECT count(*), sum(a) FROM lv;
SELECT a FROM lv LIMIT 3;
VACUUM lv;
VACUUM (ANALYZE) lv;
SELECT e.rels = b.rels AS same_rels FROM nvm_extra() e, before_full b;
DROP TABLE lv;
SELECT * FROM nvm_extra();

-- SET TABLESPACE copies the pages into new storage
SET allow_in_place_tablespaces = on;
CREATE TABLESPACE nvm_ts LOCATION '';
CREATE TABLE lt (a int) USING nvm_am;
INSERT INTO lt SELECT generate_series(1, 4000);
ALTER TABLE lt SET TABLESPACE nvm_ts;
SELECT count(*), sum(a) FROM lt;
INSERT INTO lt VALUES (0);
ALTER TABLE lt SET TABLESPACE pg_default;
SELECT count(*) FROM lt;
DROP TABLE lt;
DROP TABLESPACE nvm_ts;
SELECT * FROM nvm_extra();

-- materialized views, CREATE TABLE AS, temporary and unlogged tables
CREATE TABLE lsrc (a int) USING nvm_am;
INSERT INTO lsrc SELECT generate_series(1, 500);
CREATE MATERIALIZED VIEW lmv USING nvm_am AS SELECT a, a * 2 AS b FROM lsrc;
CREATE UNIQUE INDEX ON lmv (a);
INSERT INTO lsrc VALUES (1000);
REFRESH MATERIALIZED VIEW lmv;
REFRESH MATERIALIZED VIEW CONCURRENTLY lmv;
SELECT count(*), max(b) FROM lmv;
CREATE TABLE lctas USING nvm_am AS SELECT * FROM lsrc WHERE a <= 100;
SELECT count(*) FROM lctas;
CREATE TEMP TABLE ltemp (a int) USING nvm_am;
INSERT INTO ltemp SELECT generate_series(1, 10);
SELECT count(*) FROM ltemp;
DROP TABLE ltemp;
CREATE UNLOGGED TABLE lunl (a int) USING nvm_am;
INSERT INTO lunl SELECT generate_series(1, 10);
SELECT count(*) FROM lunl;
DROP MATERIALIZED VIEW lmv;
DROP TABLE lsrc, lctas, lunl;
SELECT * FROM nvm_extra();

-- DROP DATABASE frees the storage of every nvm_am table in it
CREATE DATABASE nvm_lifecycle_db;
\c nvm_lifecycle_db
CREATE EXTENSION nvm_am;
CREATE TABLE d1 (a int) USING nvm_am;
CREATE TABLE d2 (a text) USING nvm_am;
INSERT INTO d1 SELECT generate_series(1, 2000);
INSERT INTO d2 SELECT repeat('d', 500) FROM generate_series(1, 200);
\c contrib_regression
SELECT rels FROM nvm_extra();
DROP DATABASE nvm_lifecycle_db;
SELECT * FROM nvm_extra();

-- two-phase commit: DML, and creations and drops, which COMMIT PREPARED
-- carries out and ROLLBACK PREPARED undoes, storage included
CREATE TABLE l2pc (a int) USING nvm_am;
BEGIN;
INSERT INTO l2pc VALUES (1);
PREPARE TRANSACTION 'nvm_2pc';
COMMIT PREPARED 'nvm_2pc';
SELECT * FROM l2pc;
BEGIN;
CREATE TABLE l2pc_new (a int) USING nvm_am;
INSERT INTO l2pc_new SELECT g FROM generate_series(1, 3000) g;
PREPARE TRANSACTION 'nvm_2pc_ddl';
SELECT count(*) FROM pg_prepared_xacts WHERE gid = 'nvm_2pc_ddl';
SELECT rels FROM nvm_extra();
COMMIT PREPARED 'nvm_2pc_ddl';
SELECT count(*), sum(a) FROM l2pc_new;
CREATE TEMP TABLE snap2 AS SELECT * FROM nvm_extra();
-- rolled back: the drop is undone, the new table's storage freed
BEGIN;
DROP TABLE l2pc_new;
CREATE TABLE l2pc_gone (a int) USING nvm_am;
INSERT INTO l2pc_gone SELECT g FROM generate_series(1, 3000) g;
PREPARE TRANSACTION 'nvm_2pc_rb';
ROLLBACK PREPARED 'nvm_2pc_rb';
SELECT count(*) FROM l2pc_new;
SELECT e.rels = s.rels AS same_rels, e.frames = s.frames AS same_frames
FROM nvm_extra() e, snap2 s;
-- committed: the drop frees the table's storage
BEGIN;
DROP TABLE l2pc_new;
PREPARE TRANSACTION 'nvm_2pc_drop';
COMMIT PREPARED 'nvm_2pc_drop';
SELECT s.rels - e.rels AS rels_freed, s.frames > e.frames AS frames_freed
FROM nvm_extra() e, snap2 s;
DROP TABLE snap2;
DROP TABLE l2pc;
SELECT * FROM nvm_extra();

DROP TABLE base;
DROP FUNCTION nvm_extra();
DROP FUNCTION nvm_usage();
