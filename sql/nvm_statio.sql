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
-- EXPLAIN (ANALYZE, BUFFERS) and pg_stat_statements see the same pages in
-- the query's buffer usage as shared blocks (local ones for a temporary
-- table), as heap's: a sequential scan, one block per page (the visibility
-- map's page may add one)
CREATE FUNCTION pg_temp.scan_blocks(q text, kind text) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
  j json;
BEGIN
  EXECUTE 'EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF, SUMMARY OFF, FORMAT JSON) ' || q INTO j;
  RETURN (j->0->'Plan'->>(kind || ' Hit Blocks'))::bigint
       + (j->0->'Plan'->>(kind || ' Read Blocks'))::bigint;
END $$;
SELECT pg_temp.scan_blocks('SELECT * FROM nvm_sio', 'Shared')
       BETWEEN pg_relation_size('nvm_sio') / 8192 AND pg_relation_size('nvm_sio') / 8192 + 1
       AS shared_blocks_per_page;
CREATE TEMP TABLE nvm_sio_tmp USING nvm_am AS SELECT * FROM nvm_sio;
SELECT pg_temp.scan_blocks('SELECT * FROM nvm_sio_tmp', 'Local')
       BETWEEN pg_relation_size('nvm_sio_tmp') / 8192 AND pg_relation_size('nvm_sio_tmp') / 8192 + 1
       AS local_blocks_per_page,
       pg_relation_size('nvm_sio_tmp') > 8192 AS several_pages;
DROP TABLE nvm_sio_tmp;
-- an insert, update or delete counts the page it changes, as heap counts
-- the buffer it reads: the ModifyTable node has more blocks than its input
CREATE FUNCTION pg_temp.change_blocks(q text) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
  j json;
  p json;
BEGIN
  EXECUTE 'EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF, SUMMARY OFF, FORMAT JSON) ' || q INTO j;
  p := j->0->'Plan';
  RETURN (p->>'Shared Hit Blocks')::bigint + (p->>'Shared Read Blocks')::bigint
       - (p->'Plans'->0->>'Shared Hit Blocks')::bigint - (p->'Plans'->0->>'Shared Read Blocks')::bigint;
END $$;
CREATE TABLE nvm_sio_chg (id int, v int) USING nvm_am;
INSERT INTO nvm_sio_chg SELECT g, 0 FROM generate_series(1, 1000) g;
SELECT pg_temp.change_blocks('INSERT INTO nvm_sio_chg VALUES (0, 0)') >= 1 AS insert_counts,
       pg_temp.change_blocks('UPDATE nvm_sio_chg SET v = 1 WHERE id <= 3') >= 3 AS update_counts,
       pg_temp.change_blocks('DELETE FROM nvm_sio_chg WHERE id <= 3') >= 3 AS delete_counts;
DROP TABLE nvm_sio_chg;
-- the pages COPY builds whole and adds count too, as reads (heap's new
-- buffers count so); the rows it places one by one count as changes
CREATE TABLE nvm_sio_copy (id int) USING nvm_am;
COPY nvm_sio_copy FROM PROGRAM 'seq 1 3000';
SELECT pg_stat_force_next_flush();
SELECT heap_blks_read >= pg_relation_size('nvm_sio_copy') / 8192 AS new_pages_counted,
       pg_relation_size('nvm_sio_copy') > 8 * 8192 AS several_pages
FROM pg_statio_user_tables WHERE relname = 'nvm_sio_copy';
DROP TABLE nvm_sio_copy;
DROP TABLE nvm_sio;
-- pg_stat_user_tables' scan and row counters are heap's, whatever scans the
-- plans use: a sequential scan counts once more each time it is started
-- again (the inner side of a nested loop: nvm_am counted it once), and
-- sample, TID, bitmap, index and index-only scans count as heap's do
CREATE TABLE sc_heap (id int PRIMARY KEY, v int) USING heap;
CREATE TABLE sc_nvm (id int PRIMARY KEY, v int) USING nvm_am;
CREATE TABLE sc_outer (id int) USING heap;
INSERT INTO sc_heap SELECT g, g FROM generate_series(1, 200) g;
INSERT INTO sc_nvm SELECT g, g FROM generate_series(1, 200) g;
INSERT INTO sc_outer SELECT generate_series(1, 5);
VACUUM (ANALYZE) sc_heap;
VACUUM (ANALYZE) sc_nvm;
VACUUM (ANALYZE) sc_outer;
SELECT pg_stat_force_next_flush();
CREATE FUNCTION pg_temp.scans(t text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  SET LOCAL enable_hashjoin = off;
  SET LOCAL enable_mergejoin = off;
  SET LOCAL enable_material = off;
  SET LOCAL enable_indexscan = off;
  SET LOCAL enable_bitmapscan = off;
  EXECUTE format('SELECT count(*) FROM sc_outer o JOIN %I x ON x.v = o.id', t);
  EXECUTE format('SELECT count(*) FROM %I TABLESAMPLE SYSTEM (100) REPEATABLE (1)', t);
  EXECUTE format('SELECT count(*) FROM %I WHERE ctid = ''(0,3)''', t);
  EXECUTE format('SELECT count(*) FROM %I WHERE ctid < ''(0,10)''', t);
  SET LOCAL enable_seqscan = off;
  SET LOCAL enable_bitmapscan = on;
  EXECUTE format('SELECT count(*) FROM %I WHERE id BETWEEN 10 AND 30', t);
  SET LOCAL enable_bitmapscan = off;
  SET LOCAL enable_indexscan = on;
  EXECUTE format('SELECT v FROM %I WHERE id = 7', t);
  EXECUTE format('SELECT count(id) FROM %I WHERE id < 50', t);
  EXECUTE format('UPDATE %I SET v = v + 1 WHERE id = 9', t);
  EXECUTE format('DELETE FROM %I WHERE id = 11', t);
END $$;
SELECT pg_temp.scans('sc_heap');
SELECT pg_temp.scans('sc_nvm');
SELECT pg_stat_force_next_flush();
SELECT pg_stat_clear_snapshot();
SELECT relname, seq_scan, seq_tup_read, idx_scan, idx_tup_fetch, n_tup_upd, n_tup_del,
       n_tup_hot_upd
  FROM pg_stat_user_tables WHERE relname IN ('sc_heap', 'sc_nvm') ORDER BY relname;
DROP TABLE sc_heap, sc_nvm, sc_outer;
