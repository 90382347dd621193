CREATE EXTENSION IF NOT EXISTS nvm_am;
-- Storage a transaction creates (CREATE TABLE AS, CREATE TABLE then
-- INSERT, TRUNCATE then INSERT, ALTER TABLE rewrites) is not persisted
-- change by change but once, at pre-commit: nobody else can reach it
-- before the commit, and an abort or a crash frees it.  So its rows cost no
-- drain each (only its page table does, a few per page); an existing
-- table's rows still do.  With nvm_am.wal_log
-- (WAL replay applies records to the frames) every change is persisted.
CREATE FUNCTION drains() RETURNS bigint LANGUAGE sql AS
$$ SELECT value FROM nvm_am.nvm_am_stats WHERE name = 'pmem_drains' $$;
CREATE FUNCTION few_drains(since bigint, nrows int) RETURNS bool LANGUAGE sql AS
$$ SELECT CASE WHEN current_setting('nvm_am.wal_log')::bool
               THEN drains() - since >= nrows
               ELSE drains() - since < nrows / 10 END $$;

-- CREATE TABLE AS
SELECT drains() AS d \gset
CREATE TABLE ns_ctas USING nvm_am AS
  SELECT g AS id, g % 7 AS k, repeat('n', 80) AS pad FROM generate_series(1, 4000) g;
SELECT few_drains(:d, 4000) AS ctas_few_drains;
SELECT count(*), sum(id), sum(k) FROM ns_ctas;

-- CREATE TABLE, then rows in the same transaction, with a savepoint
SELECT drains() AS d \gset
BEGIN;
CREATE TABLE ns_new (id int, pad text) USING nvm_am;
INSERT INTO ns_new SELECT g, repeat('a', 60) FROM generate_series(1, 2000) g;
SAVEPOINT s;
INSERT INTO ns_new SELECT g, 'rolled back' FROM generate_series(2001, 2500) g;
ROLLBACK TO s;
INSERT INTO ns_new SELECT g, repeat('b', 60) FROM generate_series(2501, 4000) g;
UPDATE ns_new SET pad = 'updated' WHERE id % 100 = 0;
DELETE FROM ns_new WHERE id % 100 = 1;
COMMIT;
SELECT few_drains(:d, 3500) AS create_insert_few_drains;
SELECT count(*), sum(id), count(*) FILTER (WHERE pad = 'updated') AS updated FROM ns_new;

-- storage created in a subtransaction that aborts is freed; the table
-- created after it is persisted at commit
BEGIN;
SAVEPOINT a;
CREATE TABLE ns_gone USING nvm_am AS SELECT g AS id FROM generate_series(1, 1000) g;
ROLLBACK TO a;
CREATE TABLE ns_kept USING nvm_am AS SELECT g AS id FROM generate_series(1, 1000) g;
COMMIT;
SELECT count(*) FROM pg_class WHERE relname = 'ns_gone';
SELECT count(*), sum(id) FROM ns_kept;

-- a directory entry that a subtransaction's abort freed and the same
-- transaction takes again: the new storage follows its own rule (with
-- nvm_am.wal_log a logged table's changes are persisted one by one even
-- though the unlogged table before it in that entry was not)
BEGIN;
SAVEPOINT u;
CREATE UNLOGGED TABLE ns_unlogged (id int) USING nvm_am;
ROLLBACK TO u;
SELECT drains() AS d \gset
CREATE TABLE ns_reused USING nvm_am AS SELECT g AS id FROM generate_series(1, 2000) g;
SELECT few_drains(:d, 2000) AS reused_entry_follows_its_rule;
COMMIT;
SELECT count(*), sum(id) FROM ns_reused;
DROP TABLE ns_reused;

-- TRUNCATE, then rows in the same transaction: a new relfilenode
SELECT drains() AS d \gset
BEGIN;
TRUNCATE ns_ctas;
INSERT INTO ns_ctas SELECT g, 1, 'reloaded' FROM generate_series(1, 3000) g;
COMMIT;
SELECT few_drains(:d, 3000) AS truncate_insert_few_drains;
SELECT count(*), sum(id), min(pad) FROM ns_ctas;

-- an ALTER TABLE that rewrites the table
SELECT drains() AS d \gset
ALTER TABLE ns_new ALTER COLUMN id TYPE bigint;
SELECT few_drains(:d, 3000) AS rewrite_few_drains;
SELECT count(*), sum(id) FROM ns_new;

-- an existing table: each row is persisted (a drain at least per row)
SELECT drains() AS d \gset
INSERT INTO ns_kept SELECT g FROM generate_series(1001, 1500) g;
SELECT drains() - :d >= 500 AS existing_table_drains_per_row;

-- nothing above left a damaged page
SELECT count(*) FROM nvm_am.nvm_am_check('ns_ctas');
SELECT count(*) FROM nvm_am.nvm_am_check('ns_new');
SELECT count(*) FROM nvm_am.nvm_am_check('ns_kept');

DROP TABLE ns_ctas, ns_new, ns_kept;
DROP FUNCTION few_drains(bigint, int);
DROP FUNCTION drains();

-- one transaction creating more relations than the page layer keeps track
-- of (32): the ones beyond are persisted change by change, all are whole
BEGIN;
DO $$
BEGIN
  FOR i IN 1..40 LOOP
    EXECUTE format('CREATE TABLE ns_many_%s USING nvm_am AS SELECT g AS id FROM generate_series(1, 100) g', i);
  END LOOP;
END $$;
COMMIT;
SELECT sum((xpath('/row/c/text()', query_to_xml(format('SELECT count(*) AS c FROM %I', relname), false, true, '')))[1]::text::int) AS rows,
       count(*) AS tables
  FROM pg_class WHERE relname LIKE 'ns\_many\_%' AND relkind = 'r';
SELECT count(*) FROM pg_class c, nvm_am.nvm_am_check(c.oid) WHERE c.relname LIKE 'ns\_many\_%' AND c.relkind = 'r';
DO $$
BEGIN
  FOR i IN 1..40 LOOP
    EXECUTE format('DROP TABLE ns_many_%s', i);
  END LOOP;
END $$;
