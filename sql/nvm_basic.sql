--
-- Basic use of an nvm_am table: DML, scans of every kind, indexes, TOAST,
-- ANALYZE, COPY, cursors, constraints and triggers.
--
CREATE EXTENSION IF NOT EXISTS nvm_am;

CREATE TABLE nb (id int PRIMARY KEY, v text, n numeric) USING nvm_am;
SELECT amname FROM pg_class c JOIN pg_am a ON a.oid = c.relam WHERE c.relname = 'nb';
INSERT INTO nb SELECT g, 'v' || g, g * 1.5 FROM generate_series(1, 2000) g;
SELECT count(*), sum(id), sum(n) FROM nb;
INSERT INTO nb VALUES (5000, 'five thousand', NULL) RETURNING *;
UPDATE nb SET v = 'updated ' || id WHERE id % 100 = 0 RETURNING id, v;
DELETE FROM nb WHERE id % 7 = 0 AND id < 50 RETURNING id;
SELECT count(*), count(n), sum(id) FROM nb;

-- index scans, bitmap scans, index-only scans give the same answers
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT v FROM nb WHERE id = 1200;
SELECT v FROM nb WHERE id = 1200;
SELECT count(*) FROM nb WHERE id BETWEEN 100 AND 199;
SET enable_indexscan = off;
SET enable_bitmapscan = on;
EXPLAIN (COSTS OFF) SELECT count(*) FROM nb WHERE id BETWEEN 100 AND 199;
SELECT count(*) FROM nb WHERE id BETWEEN 100 AND 199;
RESET enable_seqscan;
RESET enable_indexscan;
RESET enable_bitmapscan;

-- TID scans
SELECT id FROM nb WHERE ctid = '(0,1)';
SELECT count(*) FROM nb WHERE ctid < '(1,0)' AND id < 10;

-- updates see their own changes and the newest version
BEGIN;
UPDATE nb SET n = 0 WHERE id = 1;
UPDATE nb SET n = n + 1 WHERE id = 1;
UPDATE nb SET n = n + 1 WHERE id = 1;
SELECT id, n FROM nb WHERE id = 1;
ROLLBACK;
SELECT id, n FROM nb WHERE id = 1;

-- savepoints
BEGIN;
INSERT INTO nb VALUES (6001, 'a', 1);
SAVEPOINT s1;
INSERT INTO nb VALUES (6002, 'b', 2);
DELETE FROM nb WHERE id = 6001;
ROLLBACK TO s1;
INSERT INTO nb VALUES (6003, 'c', 3);
COMMIT;
SELECT id, v FROM nb WHERE id > 6000 ORDER BY id;

-- unique violations and ON CONFLICT
INSERT INTO nb VALUES (1, 'dup', 0);
INSERT INTO nb VALUES (1, 'dup', 0) ON CONFLICT DO NOTHING;
INSERT INTO nb VALUES (1, 'conflict', 0) ON CONFLICT (id) DO UPDATE SET v = excluded.v RETURNING id, v;
INSERT INTO nb VALUES (7000, 'fresh', 0) ON CONFLICT (id) DO UPDATE SET v = excluded.v RETURNING id, v;

-- row locks
BEGIN;
SELECT id FROM nb WHERE id IN (2, 3) ORDER BY id FOR UPDATE;
SELECT id FROM nb WHERE id = 4 FOR SHARE;
SELECT id FROM nb WHERE id = 5 FOR KEY SHARE;
SELECT id FROM nb WHERE id = 6 FOR NO KEY UPDATE;
UPDATE nb SET v = 'locked and updated' WHERE id = 2;
COMMIT;
SELECT v FROM nb WHERE id = 2;

-- TOAST: large values round-trip
CREATE TABLE nt (id int, doc text, b bytea) USING nvm_am;
INSERT INTO nt SELECT g, repeat(md5(g::text), 2000 * g), decode(repeat('ab', 5000), 'hex')
  FROM generate_series(1, 5) g;
SELECT id, length(doc), md5(doc) = md5(repeat(md5(id::text), 2000 * id)) AS ok, length(b) FROM nt ORDER BY id;
UPDATE nt SET doc = doc || 'x' WHERE id = 3;
SELECT length(doc) FROM nt WHERE id = 3;
DELETE FROM nt WHERE id = 4;
SELECT count(*) FROM nt;
SELECT reltoastrelid <> 0 AS has_toast FROM pg_class WHERE relname = 'nt';

-- ANALYZE and planner estimates
ANALYZE nb;
SELECT relpages > 0 AS has_pages, reltuples BETWEEN 1990 AND 2010 AS tuples_ok FROM pg_class WHERE relname = 'nb';
SELECT n_distinct < 0 AS distinct_ok FROM pg_stats WHERE tablename = 'nb' AND attname = 'id';
EXPLAIN (COSTS OFF) SELECT * FROM nb WHERE id < 3;

-- COPY out and in
COPY (SELECT * FROM nb WHERE id <= 5 ORDER BY id) TO STDOUT;
CREATE TABLE nc (LIKE nb) USING nvm_am;
COPY nc FROM STDIN;
1	one	1.0
2	two	\N
3	three	3.5
\.
SELECT * FROM nc ORDER BY id;

-- cursors, including scrolling backwards over a sequential scan
BEGIN;
DECLARE c SCROLL CURSOR FOR SELECT id FROM nc;
FETCH ALL FROM c;
FETCH BACKWARD 2 FROM c;
FETCH FIRST FROM c;
FETCH LAST FROM c;
CLOSE c;
COMMIT;

-- TABLESAMPLE
SELECT count(*) FROM nb TABLESAMPLE SYSTEM (100);
SELECT count(*) FROM nb TABLESAMPLE BERNOULLI (100);
SELECT count(*) < 2000 AS fewer FROM nb TABLESAMPLE BERNOULLI (10) REPEATABLE (42);

-- parallel sequential scan
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT count(*) FROM nb;
SELECT count(*), sum(id) FROM nb;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;

-- constraints, foreign keys, triggers
CREATE TABLE np (id int PRIMARY KEY) USING nvm_am;
CREATE TABLE nf (id int PRIMARY KEY, pid int REFERENCES np ON DELETE CASCADE, CHECK (id > 0)) USING nvm_am;
INSERT INTO np VALUES (1), (2);
INSERT INTO nf VALUES (10, 1), (20, 2);
INSERT INTO nf VALUES (30, 3);
INSERT INTO nf VALUES (-1, 1);
DELETE FROM np WHERE id = 1;
SELECT * FROM nf ORDER BY id;
CREATE FUNCTION nb_trg() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN NEW.v := upper(NEW.v); RETURN NEW; END $$;
CREATE TRIGGER nb_upper BEFORE INSERT OR UPDATE ON nc FOR EACH ROW EXECUTE FUNCTION nb_trg();
INSERT INTO nc VALUES (4, 'four', 4);
UPDATE nc SET v = 'one again' WHERE id = 1;
SELECT * FROM nc ORDER BY id;

-- partitioned table with nvm_am partitions, rows moving between partitions
CREATE TABLE npart (k int, v text) PARTITION BY RANGE (k);
CREATE TABLE npart1 PARTITION OF npart FOR VALUES FROM (0) TO (100) USING nvm_am;
CREATE TABLE npart2 PARTITION OF npart FOR VALUES FROM (100) TO (200) USING nvm_am;
INSERT INTO npart SELECT g, 'p' || g FROM generate_series(0, 199, 10) g;
UPDATE npart SET k = k + 100 WHERE k = 50;
SELECT tableoid::regclass, count(*) FROM npart GROUP BY 1 ORDER BY 1;

-- CREATE INDEX on existing data, including unique, partial and expression
CREATE UNIQUE INDEX nb_v ON nb (v);
CREATE INDEX nb_part ON nb (n) WHERE n > 2000;
CREATE INDEX nb_expr ON nb (lower(v));
CREATE INDEX CONCURRENTLY nb_conc ON nb (n);
SET enable_seqscan = off;
SELECT id FROM nb WHERE lower(v) = 'v1500';
SELECT count(*) FROM nb WHERE n > 2990;
RESET enable_seqscan;
CREATE INDEX nb_hash ON nb USING hash (id);
CREATE INDEX nb_brin ON nb USING brin (id);
SELECT count(*) FROM nb WHERE id = 77;

-- relation size through the access method
SELECT pg_size_pretty(8192::bigint * relpages) IS NOT NULL AS ok FROM pg_class WHERE relname = 'nb';

-- the verification function finds nothing wrong
SELECT c.relname, count(k.*) AS problems
  FROM pg_class c LEFT JOIN LATERAL nvm_am.nvm_am_check(c.oid) k ON true
  WHERE c.relname IN ('nb', 'nt', 'nc', 'nf', 'np', 'npart1', 'npart2')
  GROUP BY c.relname ORDER BY c.relname;
DROP TABLE nb, nt, nc, nf, np, npart;
DROP FUNCTION nb_trg();
