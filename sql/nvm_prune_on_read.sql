CREATE EXTENSION IF NOT EXISTS nvm_am;
-- A page with no room for another row and a dead version on it is pruned by the
-- next index fetch or scan that comes to it (as heap_page_prune_opt), before the
-- fetch pins it; nobody has it pinned, so it is compacted in place.
SET enable_seqscan = off;
SET enable_bitmapscan = off;
CREATE TABLE prune_read (id int PRIMARY KEY, v int, pad text) USING nvm_am
  WITH (fillfactor = 100);
INSERT INTO prune_read SELECT g, 0, repeat('x', 90) FROM generate_series(1, 60) g;
-- one page, with room for one more row
SELECT count(DISTINCT (ctid::text::point)[0]) AS pages FROM prune_read;
UPDATE prune_read SET v = 1 WHERE id = 1;
UPDATE prune_read SET v = 2 WHERE id = 1;
SELECT value AS pruned_before, (SELECT value FROM nvm_am.nvm_am_stats
        WHERE name = 'pages_pruned_in_place') AS in_place_before
  FROM nvm_am.nvm_am_stats WHERE name = 'pages_pruned' \gset
SELECT id, v FROM prune_read WHERE id = 2;
SELECT s.value > :pruned_before AS pruned_by_the_read
  FROM nvm_am.nvm_am_stats s WHERE s.name = 'pages_pruned';
SELECT s.value > :in_place_before AS in_place
  FROM nvm_am.nvm_am_stats s WHERE s.name = 'pages_pruned_in_place';
-- the rows are all there, the updated one once, with its last value
SELECT count(*), sum(v) FROM prune_read;
SELECT id, v FROM prune_read WHERE id = 1;
SELECT * FROM nvm_am.nvm_am_check('prune_read');
RESET enable_seqscan;
SELECT count(*), sum(v) FROM prune_read;
-- a sequential scan coming to such a page prunes it too (as heapgetpage)
SET enable_indexscan = off;
UPDATE prune_read SET v = 3 WHERE id = 3;
UPDATE prune_read SET v = 4 WHERE id = 3;
SELECT value AS pruned_before FROM nvm_am.nvm_am_stats WHERE name = 'pages_pruned' \gset
SELECT count(*), sum(v) FROM prune_read;
SELECT s.value > :pruned_before AS pruned_by_the_scan
  FROM nvm_am.nvm_am_stats s WHERE s.name = 'pages_pruned';
SELECT * FROM nvm_am.nvm_am_check('prune_read');
RESET enable_indexscan;
RESET enable_bitmapscan;
DROP TABLE prune_read;
