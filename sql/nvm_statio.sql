CREATE EXTENSION IF NOT EXISTS nvm_am;
-- pg_statio_*_tables counts the pages scans and index fetches read, as for
-- heap: a page whose image is in the merge cache is a hit, one read from
-- the pool a read.
CREATE TABLE nvm_sio (id int PRIMARY KEY, v text) USING nvm_am;
INSERT INTO nvm_sio SELECT g, repeat('s', 50) FROM generate_series(1, 2000) g;
SELECT pg_stat_force_next_flush();
CREATE TEMP TABLE sio0 AS
  SELECT heap_blks_read + heap_blks_hit AS blks FROM pg_statio_user_tables
  WHERE relname = 'nvm_sio';
-- a sequential scan reads every page once
SELECT count(*) FROM nvm_sio;
SELECT pg_stat_force_next_flush();
SELECT s.heap_blks_read + s.heap_blks_hit - b.blks = pg_relation_size('nvm_sio') / 8192
         AS one_per_page
FROM pg_statio_user_tables s, sio0 b WHERE s.relname = 'nvm_sio';
-- an index fetch reads one page more
UPDATE sio0 SET blks = (SELECT heap_blks_read + heap_blks_hit FROM pg_statio_user_tables
                        WHERE relname = 'nvm_sio');
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT v FROM nvm_sio WHERE id = 1000;
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT pg_stat_force_next_flush();
SELECT s.heap_blks_read + s.heap_blks_hit - b.blks AS pages, s.idx_blks_read + s.idx_blks_hit > 0 AS index_counted
FROM pg_statio_user_tables s, sio0 b WHERE s.relname = 'nvm_sio';
-- pages changed since (their images are in the merge cache) are hits
UPDATE nvm_sio SET v = 'changed' WHERE id <= 10;
UPDATE sio0 SET blks = (SELECT heap_blks_hit FROM pg_statio_user_tables
                        WHERE relname = 'nvm_sio');
SELECT count(*) FROM nvm_sio WHERE v = 'changed';
SELECT pg_stat_force_next_flush();
SELECT s.heap_blks_hit > b.blks AS hits
FROM pg_statio_user_tables s, sio0 b WHERE s.relname = 'nvm_sio';
DROP TABLE sio0;
DROP TABLE nvm_sio;
