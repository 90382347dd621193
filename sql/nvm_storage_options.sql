CREATE EXTENSION IF NOT EXISTS nvm_am;
-- Storage parameters and VACUUM options act as they do on heap.

-- fillfactor leaves room on each page: 10 % full pages hold few rows
CREATE TABLE nvm_ff (id int, pad text) USING nvm_am WITH (fillfactor = 10);
INSERT INTO nvm_ff SELECT g, repeat('x', 100) FROM generate_series(1, 200) g;
SELECT count(DISTINCT (ctid::text::point)[0]) AS pages,
       max(cnt) AS most_rows_on_a_page
FROM (SELECT ctid, count(*) OVER (PARTITION BY (ctid::text::point)[0]) AS cnt FROM nvm_ff) s;
-- so TABLESAMPLE SYSTEM picks whole pages of few rows
SELECT count(*) > 0 AND count(*) < 200 AS some_rows
FROM nvm_ff TABLESAMPLE SYSTEM (50) REPEATABLE (0);
-- an update that fits on its page stays there (HOT ignores the fillfactor)
UPDATE nvm_ff SET pad = repeat('y', 100) WHERE id = 1;
SELECT (ctid::text::point)[0] AS page FROM nvm_ff WHERE id = 1;
DROP TABLE nvm_ff;

-- VACUUM gives back empty pages at the end of a table ...
CREATE TABLE nvm_trunc (id int, pad text) USING nvm_am;
INSERT INTO nvm_trunc SELECT g, repeat('x', 200) FROM generate_series(1, 1000) g;
SELECT pg_relation_size('nvm_trunc') / 8192 AS pages;
DELETE FROM nvm_trunc WHERE id > 100;
-- ... unless told not to
VACUUM (TRUNCATE false) nvm_trunc;
SELECT pg_relation_size('nvm_trunc') / 8192 AS pages;
ALTER TABLE nvm_trunc SET (vacuum_truncate = false);
VACUUM nvm_trunc;
SELECT pg_relation_size('nvm_trunc') / 8192 AS pages;
ALTER TABLE nvm_trunc RESET (vacuum_truncate);
VACUUM nvm_trunc;
SELECT pg_relation_size('nvm_trunc') / 8192 AS pages, relpages
FROM pg_class WHERE relname = 'nvm_trunc';
SELECT count(*), min(id), max(id) FROM nvm_trunc;
-- the table grows again from there
INSERT INTO nvm_trunc SELECT g, repeat('z', 200) FROM generate_series(101, 300) g;
SELECT count(*), max(id) FROM nvm_trunc;
SELECT count(*) FROM nvm_am.nvm_am_check('nvm_trunc');
-- a table whose rows all died is cut to nothing
DELETE FROM nvm_trunc;
VACUUM nvm_trunc;
SELECT pg_relation_size('nvm_trunc') AS bytes;
INSERT INTO nvm_trunc VALUES (1, 'again');
SELECT * FROM nvm_trunc;
DROP TABLE nvm_trunc;

-- the main-fork file follows each table's size when one transaction grows
-- several tables in turn, and after a savepoint's table is rolled back
BEGIN;
CREATE TABLE nvm_grow_a (id int, pad text) USING nvm_am;
CREATE TABLE nvm_grow_b (id int, pad text) USING nvm_am;
INSERT INTO nvm_grow_a SELECT g, repeat('a', 200) FROM generate_series(1, 300) g;
INSERT INTO nvm_grow_b SELECT g, repeat('b', 200) FROM generate_series(1, 100) g;
SAVEPOINT s;
CREATE TABLE nvm_grow_c (id int, pad text) USING nvm_am;
INSERT INTO nvm_grow_c SELECT g, repeat('c', 200) FROM generate_series(1, 500) g;
ROLLBACK TO s;
INSERT INTO nvm_grow_a SELECT g, repeat('a', 200) FROM generate_series(301, 600) g;
INSERT INTO nvm_grow_b SELECT g, repeat('b', 200) FROM generate_series(101, 200) g;
SELECT t, pg_relation_size(t) / 8192 AS file_pages,
       (SELECT max((ctid::text::point)[0]) + 1 FROM nvm_grow_a) AS a_pages,
       (SELECT max((ctid::text::point)[0]) + 1 FROM nvm_grow_b) AS b_pages
FROM unnest(ARRAY['nvm_grow_a', 'nvm_grow_b']::regclass[]) t;
COMMIT;
INSERT INTO nvm_grow_b SELECT g, repeat('b', 200) FROM generate_series(201, 300) g;
SELECT pg_relation_size('nvm_grow_a') / 8192 AS a_file_pages,
       pg_relation_size('nvm_grow_b') / 8192 AS b_file_pages,
       (SELECT max((ctid::text::point)[0]) + 1 FROM nvm_grow_b) AS b_pages;
DROP TABLE nvm_grow_a, nvm_grow_b;

-- parallel VACUUM is not possible for a temporary table: heap's warning
CREATE TEMP TABLE nvm_tmpvac (a int, b int) USING nvm_am;
CREATE INDEX ON nvm_tmpvac (a);
CREATE INDEX ON nvm_tmpvac (b);
INSERT INTO nvm_tmpvac SELECT g, g FROM generate_series(1, 10) g;
VACUUM (PARALLEL 1) nvm_tmpvac;
VACUUM (PARALLEL 0) nvm_tmpvac;
DROP TABLE nvm_tmpvac;
