-- The visibility map of nvm_am tables: VACUUM marks pages all-visible and
-- all-frozen, index-only scans answer from the index alone, every change to
-- a page clears its bits first (a row lock clears all-frozen only), and
-- pg_class.relallvisible follows.  Same results as heap.
CREATE EXTENSION IF NOT EXISTS nvm_am;
CREATE EXTENSION IF NOT EXISTS pg_visibility;
CREATE TABLE nvm_vm (a int PRIMARY KEY, b text) USING nvm_am
  WITH (autovacuum_enabled = off);
INSERT INTO nvm_vm SELECT g, 'row ' || g FROM generate_series(1, 2000) g;
SET enable_seqscan = off;
SET enable_bitmapscan = off;

-- before VACUUM nothing is all-visible: every row is fetched from the table
SELECT count(*) FILTER (WHERE all_visible) AS visible FROM pg_visibility_map('nvm_vm');
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
SELECT a FROM nvm_vm WHERE a <= 100;

VACUUM nvm_vm;
SELECT relpages > 0 AS has_pages, relallvisible = relpages AS all_visible
FROM pg_class WHERE relname = 'nvm_vm';
SELECT count(*) = count(*) FILTER (WHERE all_visible) AS every_page_visible
FROM pg_visibility_map('nvm_vm');
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
SELECT a FROM nvm_vm WHERE a <= 100;
SELECT count(*), sum(a) FROM nvm_vm WHERE a <= 100;

-- a delete, an update and an insert clear the bits of the pages they change,
-- and the index-only scan sees each change
DELETE FROM nvm_vm WHERE a = 10;
UPDATE nvm_vm SET b = 'changed' WHERE a = 20;
UPDATE nvm_vm SET a = 3000 WHERE a = 30;
INSERT INTO nvm_vm VALUES (2001, 'new');
SELECT blkno, all_visible, all_frozen FROM pg_visibility_map('nvm_vm')
WHERE NOT all_visible ORDER BY blkno;
SELECT count(*), sum(a) FROM nvm_vm WHERE a <= 100 OR a > 2000;
SELECT a FROM nvm_vm WHERE a IN (10, 20, 30, 2001, 3000) ORDER BY a;

-- VACUUM sets them again
VACUUM nvm_vm;
SELECT count(*) FILTER (WHERE NOT all_visible) AS not_visible FROM pg_visibility_map('nvm_vm');
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
SELECT a FROM nvm_vm WHERE a <= 100;

-- all-frozen after VACUUM FREEZE; a row lock clears all-frozen, not all-visible
VACUUM FREEZE nvm_vm;
SELECT count(*) FILTER (WHERE NOT all_frozen) AS not_frozen FROM pg_visibility_map('nvm_vm');
BEGIN;
SELECT a FROM nvm_vm WHERE a = 1 FOR SHARE;
COMMIT;
SELECT all_visible, all_frozen FROM pg_visibility_map('nvm_vm', 0);

-- a row inserted by a transaction still open keeps its page out of the map
BEGIN;
INSERT INTO nvm_vm VALUES (5000, 'open');
SELECT all_visible FROM pg_visibility_map('nvm_vm', (SELECT (ctid::text::point)[0]::int FROM nvm_vm WHERE a = 5000));
ROLLBACK;

-- truncation empties the map with the table
TRUNCATE nvm_vm;
INSERT INTO nvm_vm VALUES (1, 'one');
SELECT count(*) FILTER (WHERE all_visible) AS visible FROM pg_visibility_map('nvm_vm');
SELECT a FROM nvm_vm WHERE a = 1;
SELECT count(*) AS problems FROM nvm_am.nvm_am_check('nvm_vm');
RESET enable_seqscan;
RESET enable_bitmapscan;
DROP TABLE nvm_vm;
