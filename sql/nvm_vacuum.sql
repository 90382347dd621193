--
-- VACUUM: dead rows are pruned, their index entries removed, their line
-- pointers and space reused by later inserts; old rows are frozen and
-- relfrozenxid advances.
--
CREATE EXTENSION IF NOT EXISTS nvm_am;
CREATE TABLE vac (id int PRIMARY KEY, k int, pad text) USING nvm_am;
CREATE INDEX vac_k ON vac (k);
INSERT INTO vac SELECT g, g % 100, repeat('p', 200) FROM generate_series(1, 4000) g;
DELETE FROM vac WHERE id % 2 = 0;
UPDATE vac SET k = k + 1000 WHERE id % 10 = 1;
VACUUM vac;
CREATE TEMP TABLE vac_size AS SELECT relpages FROM pg_class WHERE relname = 'vac';
SELECT reltuples FROM pg_class WHERE relname = 'vac';
-- new rows go into the reclaimed space and reuse line pointers
INSERT INTO vac SELECT g, g % 100, repeat('q', 200) FROM generate_series(4001, 5500) g;
VACUUM vac;
SELECT c.relpages <= s.relpages + 1 AS space_reused FROM pg_class c, vac_size s WHERE c.relname = 'vac';
-- the table's size as PostgreSQL's size functions see it
SELECT pg_relation_size('vac') = 8192 * relpages AS size_matches,
       pg_table_size('vac') >= pg_relation_size('vac') AS table_size_ok
  FROM pg_class WHERE relname = 'vac';
BEGIN;
CREATE TABLE vac_t (a int) USING nvm_am;
INSERT INTO vac_t SELECT generate_series(1, 10000);
SELECT pg_relation_size('vac_t') > 0 AS has_size;
TRUNCATE vac_t;
SELECT pg_relation_size('vac_t') AS size_after_truncate;
ROLLBACK;
-- every access path agrees, deleted keys are gone, new keys are found
SELECT count(*), sum(id), sum(k) FROM vac;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT count(*), sum(id), sum(k) FROM vac WHERE id > 0;
SELECT count(*) FROM vac WHERE id IN (2, 4, 3998, 4000);
SELECT id, k FROM vac WHERE id IN (3, 4001, 5500) ORDER BY id;
SELECT count(*) FROM vac WHERE k = 1001;
SET enable_indexscan = off;
SET enable_bitmapscan = on;
SELECT count(*), sum(id) FROM vac WHERE k BETWEEN 1000 AND 1100;
RESET enable_seqscan;
RESET enable_indexscan;
RESET enable_bitmapscan;
-- freezing advances relfrozenxid to about now
VACUUM (FREEZE) vac;
SELECT age(relfrozenxid) < 100 AS frozen FROM pg_class WHERE relname = 'vac';
SELECT count(*) FROM vac;
SELECT * FROM nvm_am.nvm_am_check('vac');
-- VACUUM of a table without indexes, and VACUUM ANALYZE
CREATE TABLE vac2 (a int) USING nvm_am;
INSERT INTO vac2 SELECT generate_series(1, 1000);
DELETE FROM vac2 WHERE a > 10;
VACUUM (ANALYZE) vac2;
SELECT count(*), sum(a) FROM vac2;
SELECT reltuples FROM pg_class WHERE relname = 'vac2';
-- more dead rows than maintenance_work_mem holds: several index passes
CREATE TABLE vac3 (a int PRIMARY KEY) USING nvm_am;
INSERT INTO vac3 SELECT generate_series(1, 200000);
DELETE FROM vac3 WHERE a > 10;
SET maintenance_work_mem = '1MB';
VACUUM vac3;
RESET maintenance_work_mem;
SET enable_seqscan = off;
SELECT count(*), sum(a) FROM vac3 WHERE a > 0;
RESET enable_seqscan;
SELECT * FROM nvm_am.nvm_am_check('vac3');
INSERT INTO vac3 SELECT generate_series(11, 1000);
SELECT count(*) FROM vac3;
DROP TABLE vac, vac2, vac3;
-- an aborted update's new version on a page of its own: VACUUM prunes it
-- and cuts the page off; the old version keeps the aborted updater (as
-- heap's) and its ctid, beyond the table now, and nvm_am_check finds
-- nothing (it reported such a ctid once)
CREATE TABLE vac4 (id int PRIMARY KEY, pad text) USING nvm_am;
ALTER TABLE vac4 ALTER pad SET STORAGE PLAIN;
INSERT INTO vac4 SELECT g, repeat('p', 100) FROM generate_series(1, 140) g;
BEGIN;
UPDATE vac4 SET pad = repeat('q', 7000) WHERE id = 1;
SELECT ctid FROM vac4 WHERE id = 1;
ROLLBACK;
SELECT * FROM nvm_am.nvm_am_check('vac4');
VACUUM vac4;
SELECT pg_relation_size('vac4') / 8192 AS pages, ctid, xmax <> '0' AS has_xmax FROM vac4 WHERE id = 1;
SELECT * FROM nvm_am.nvm_am_check('vac4');
INSERT INTO vac4 VALUES (1000, repeat('r', 7000));
SELECT ctid FROM vac4 WHERE id = 1000;
SELECT * FROM nvm_am.nvm_am_check('vac4');
DROP TABLE vac4;
-- rows locked by transactions that have ended: VACUUM clears a multixact
-- whose members all finished (a FOR SHARE lock and a FOR UPDATE lock of
-- row 1 in a released subtransaction), and keeps a plain locker's xid
-- (FOR UPDATE of row 2, FOR KEY SHARE of row 3, as a foreign-key check
-- locks) until the freeze limit passes it; VACUUM FREEZE clears them.
-- Heap's answers, every one.
CREATE TABLE vac5 (id int PRIMARY KEY, v int) USING nvm_am;
INSERT INTO vac5 SELECT g, g FROM generate_series(1, 4) g;
BEGIN;
SELECT id FROM vac5 WHERE id = 1 FOR SHARE;
SAVEPOINT a;
SELECT id FROM vac5 WHERE id = 1 FOR UPDATE;
RELEASE a;
COMMIT;
BEGIN;
SELECT id FROM vac5 WHERE id = 2 FOR UPDATE;
COMMIT;
BEGIN;
SELECT id FROM vac5 WHERE id = 3 FOR KEY SHARE;
COMMIT;
SELECT count(*) AS members FROM pg_get_multixact_members((SELECT xmax FROM vac5 WHERE id = 1));
SELECT id, xmax <> '0' AS has_xmax FROM vac5 ORDER BY id;
VACUUM vac5;
SELECT id, xmax <> '0' AS has_xmax FROM vac5 ORDER BY id;
SELECT * FROM nvm_am.nvm_am_check('vac5');
VACUUM (FREEZE) vac5;
SELECT id, xmax FROM vac5 ORDER BY id;
DROP TABLE vac5;
-- the xmax of a row whose updater aborted is heap's: VACUUM keeps the
-- aborted xid, hinted invalid, until the freeze limit passes it (before,
-- nvm_am's VACUUM cleared it at once), with the ctid and the HOT flags
-- the update left; VACUUM FREEZE clears it, and so does VACUUM FULL (its
-- freeze limit is OldestXmin), the ctid back at the row.  A twin heap
-- table, the same statements, and the two pages' fields side by side
-- (pageinspect).
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS pageinspect;
RESET client_min_messages;
CREATE FUNCTION vac6_page(heap bytea, xh xid, nvm bytea, xn xid)
RETURNS TABLE (lp smallint, lp_flags smallint, xmax text, ctid tid,
               xmax_invalid boolean, hot_updated boolean, keys_updated boolean,
               heap_only boolean, same boolean)
LANGUAGE sql AS $$
  WITH h AS (SELECT * FROM heap_page_items(heap)),
       n AS (SELECT * FROM heap_page_items(nvm))
  SELECT h.lp, h.lp_flags,
         CASE WHEN h.t_xmax = xh THEN 'aborted' ELSE h.t_xmax::text END,
         h.t_ctid, (h.t_infomask & 2048) <> 0, (h.t_infomask2 & 16384) <> 0,
         (h.t_infomask2 & 8192) <> 0, (h.t_infomask2 & 32768) <> 0,
         h.lp_flags IS NOT DISTINCT FROM n.lp_flags AND
         (h.t_xmax = xh) IS NOT DISTINCT FROM (n.t_xmax = xn) AND
         (h.t_xmax = xh OR h.t_xmax IS NOT DISTINCT FROM n.t_xmax) AND
         h.t_ctid IS NOT DISTINCT FROM n.t_ctid AND
         (h.t_infomask & 2048) IS NOT DISTINCT FROM (n.t_infomask & 2048) AND
         (h.t_infomask2 & 57344) IS NOT DISTINCT FROM (n.t_infomask2 & 57344)
    FROM h FULL JOIN n USING (lp) ORDER BY 1
$$;
CREATE TABLE vac6_heap (id int PRIMARY KEY, v int) USING heap;
CREATE TABLE vac6_nvm (id int PRIMARY KEY, v int) USING nvm_am;
INSERT INTO vac6_heap SELECT g, g FROM generate_series(1, 3) g;
INSERT INTO vac6_nvm SELECT g, g FROM generate_series(1, 3) g;
-- row 1 updated HOT, row 2 given another key (not HOT), both rolled back
BEGIN;
UPDATE vac6_heap SET v = 0 WHERE id = 1;
UPDATE vac6_heap SET id = 20 WHERE id = 2;
SELECT pg_current_xact_id()::xid AS xh \gset
ROLLBACK;
BEGIN;
UPDATE vac6_nvm SET v = 0 WHERE id = 1;
UPDATE vac6_nvm SET id = 20 WHERE id = 2;
SELECT pg_current_xact_id()::xid AS xn \gset
ROLLBACK;
VACUUM vac6_heap;
VACUUM vac6_nvm;
SELECT * FROM vac6_page(get_raw_page('vac6_heap', 0), :'xh',
                        nvm_am.nvm_am_get_raw_page('vac6_nvm', 0), :'xn');
SELECT id, v, xmax = :'xn' AS aborted_xmax FROM vac6_nvm ORDER BY id;
SELECT * FROM nvm_am.nvm_am_check('vac6_nvm');
-- the rows can be changed as before; VACUUM again keeps what it kept
UPDATE vac6_heap SET v = v + 10 WHERE id = 3;
UPDATE vac6_nvm SET v = v + 10 WHERE id = 3;
VACUUM vac6_heap;
VACUUM vac6_nvm;
SELECT * FROM vac6_page(get_raw_page('vac6_heap', 0), :'xh',
                        nvm_am.nvm_am_get_raw_page('vac6_nvm', 0), :'xn');
VACUUM (FREEZE) vac6_heap;
VACUUM (FREEZE) vac6_nvm;
SELECT * FROM vac6_page(get_raw_page('vac6_heap', 0), :'xh',
                        nvm_am.nvm_am_get_raw_page('vac6_nvm', 0), :'xn');
SELECT * FROM nvm_am.nvm_am_check('vac6_nvm');
-- again, then VACUUM FULL
BEGIN;
UPDATE vac6_heap SET v = 0 WHERE id = 1;
UPDATE vac6_heap SET id = 20 WHERE id = 2;
SELECT pg_current_xact_id()::xid AS xh \gset
ROLLBACK;
BEGIN;
UPDATE vac6_nvm SET v = 0 WHERE id = 1;
UPDATE vac6_nvm SET id = 20 WHERE id = 2;
SELECT pg_current_xact_id()::xid AS xn \gset
ROLLBACK;
VACUUM vac6_heap;
VACUUM vac6_nvm;
VACUUM FULL vac6_heap;
VACUUM FULL vac6_nvm;
SELECT * FROM vac6_page(get_raw_page('vac6_heap', 0), :'xh',
                        nvm_am.nvm_am_get_raw_page('vac6_nvm', 0), :'xn');
SELECT id, v FROM vac6_nvm ORDER BY id;
SELECT * FROM nvm_am.nvm_am_check('vac6_nvm');
DROP TABLE vac6_heap, vac6_nvm;
DROP FUNCTION vac6_page(bytea, xid, bytea, xid);
-- VACUUM always looks at the table's last page, as heap's, and decides
-- whether to cut pages off as heap's does: pages it skipped count as empty
-- then, and the pages really empty at the end go.  40 pages, the last
-- emptied and vacuumed; the next VACUUM skips the 39 all-visible pages
-- and cuts the last one off (before, nvm_am's skipped it as well and kept
-- it).  Heap's table first, then nvm_am's, the same statements.
CREATE TABLE vtr_heap (id int, pad text) USING heap;
INSERT INTO vtr_heap SELECT g, repeat('p', 400) FROM generate_series(1, 720) g;
DELETE FROM vtr_heap WHERE (ctid::text::point)[0] = 39;
VACUUM vtr_heap;
SELECT pg_relation_size('vtr_heap') / 8192 AS heap_pages;
VACUUM vtr_heap;
SELECT pg_relation_size('vtr_heap') / 8192 AS heap_pages;
CREATE TABLE vtr_nvm (id int, pad text) USING nvm_am;
INSERT INTO vtr_nvm SELECT g, repeat('p', 400) FROM generate_series(1, 720) g;
DELETE FROM vtr_nvm WHERE (ctid::text::point)[0] = 39;
VACUUM vtr_nvm;
SELECT pg_relation_size('vtr_nvm') / 8192 AS nvm_pages;
VACUUM vtr_nvm;
SELECT pg_relation_size('vtr_nvm') / 8192 AS nvm_pages, count(*) AS rows FROM vtr_nvm;
SELECT * FROM nvm_am.nvm_am_check('vtr_nvm');
DROP TABLE vtr_heap, vtr_nvm;
