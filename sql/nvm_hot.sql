--
-- HOT updates and pruning: updates that change no indexed column keep the
-- new version on the same page without new index entries; versions no one
-- can see any more are pruned, so a table of hot rows stays small.  Index,
-- bitmap and sequential scans, index builds (also CONCURRENTLY) and CLUSTER
-- see the right versions through HOT chains.
--
CREATE EXTENSION IF NOT EXISTS nvm_am;
CREATE TABLE hot (id int PRIMARY KEY, v int, w text) USING nvm_am;
INSERT INTO hot SELECT g, 0, 'w' || g FROM generate_series(1, 20) g;
CREATE TEMP TABLE hot_before AS
  SELECT max(value) FILTER (WHERE name = 'hot_updates') AS hot,
         max(value) FILTER (WHERE name = 'pages_pruned') AS pruned
  FROM nvm_am.nvm_am_stats;
-- 3000 single-row updates, each its own transaction
DO $$
BEGIN
  FOR g IN 1..3000 LOOP
    UPDATE hot SET v = v + 1 WHERE id = 1 + g % 20;
    COMMIT;
  END LOOP;
END $$;
SELECT count(*), sum(v) FROM hot;
SELECT s.hot - b.hot AS hot_updates, s.pruned > b.pruned AS pruned
  FROM (SELECT max(value) FILTER (WHERE name = 'hot_updates') AS hot,
               max(value) FILTER (WHERE name = 'pages_pruned') AS pruned
        FROM nvm_am.nvm_am_stats) s, hot_before b;
VACUUM hot;
SELECT relpages < 5 AS stays_small FROM pg_class WHERE relname = 'hot';

-- every access path sees exactly the newest versions
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT id, v FROM hot WHERE id IN (1, 10, 20) ORDER BY id;
SET enable_indexscan = off;
SET enable_bitmapscan = on;
SELECT id, v FROM hot WHERE id IN (1, 10, 20) ORDER BY id;
RESET enable_seqscan;
RESET enable_indexscan;
RESET enable_bitmapscan;
SELECT count(*), sum(v) FROM hot WHERE v = 150;
SELECT * FROM nvm_am.nvm_am_check('hot');

-- indexes built over HOT chains point at their roots
CREATE INDEX hot_v ON hot (v);
CREATE INDEX CONCURRENTLY hot_w ON hot (w);
SET enable_seqscan = off;
SELECT count(*) FROM hot WHERE v = 150;
SELECT id FROM hot WHERE w = 'w7';
RESET enable_seqscan;
-- now v is indexed: updating it is no longer HOT, and still correct
UPDATE hot SET v = v + 1 WHERE id <= 5;
SET enable_seqscan = off;
SELECT id, v FROM hot WHERE v = 151 ORDER BY id;
RESET enable_seqscan;

-- a row updated in an open transaction, seen by another statement's index scan
BEGIN;
UPDATE hot SET w = 'changed' WHERE id = 3;
SET LOCAL enable_seqscan = off;
SELECT id, w FROM hot WHERE id = 3;
ROLLBACK;
SELECT id, w FROM hot WHERE id = 3;

-- CLUSTER and VACUUM FULL break the chains and keep the rows
CLUSTER hot USING hot_pkey;
SELECT count(*), sum(v) FROM hot;
UPDATE hot SET w = 'after cluster' WHERE id = 4;
VACUUM FULL hot;
SET enable_seqscan = off;
SELECT id, w FROM hot WHERE id = 4;
RESET enable_seqscan;
SELECT * FROM nvm_am.nvm_am_check('hot');
DROP TABLE hot;
