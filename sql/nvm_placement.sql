CREATE EXTENSION IF NOT EXISTS nvm_am;
-- Rows go where heap puts them.  The same statements run against an nvm_am
-- table and a heap table, alternately, and after each one every row must
-- have the same ctid in both: the same prunes (heap_page_prune_opt's rule:
-- a reader prunes a page low on space, or one an update found full, when
-- nobody else has it pinned; an insert or an update never prunes), the same
-- free space map answers, the same index deletions (bottom-up deletion
-- visits heap's few blocks), and with them the same order of scans without
-- ORDER BY.  The statement mixes are those of
-- scripts/placement_fuzz.py with seeds 5, 7, 110, 101, 107 and 138 (60
-- statements each: inserts, COPY, rows stored with TOAST, updates, updates
-- rolled back, deletes, scans, VACUUM), and of its second mix, which adds
-- row locks, upserts, subtransactions rolled back, ANALYZE, RETURNING,
-- VACUUM FULL and CLUSTER, with seeds 1011, 1013 and 1022 (`placement_fuzz.py
-- SEED 60 --regress` writes a section).  Seed 101 needs VACUUM to skip the index
-- pass only below heap's threshold of pages with dead line pointers (2 %,
-- rounded down); seed 107 needs a page left to a new frame while a scan
-- was on it to count as pinned only while that old frame is; seed 138
-- needs VACUUM to leave the free space map alone for a page whose dead
-- line pointers wait for the index pass (which then was bypassed); seeds
-- 1011 and 1013 need a prune to free the versions a rolled-back
-- subtransaction left behind a version still live; seed 1022 needs the row
-- ON CONFLICT DO UPDATE locked to keep its page pinned while the update's
-- unique checks run, as heap's slot keeps it.
-- (the seeds' statements run each in a session of their own: the setting
-- is the database's for this test)
SELECT format('ALTER DATABASE %I SET max_parallel_workers_per_gather = 0',
              current_database()) \gexec
-- autovacuum's ANALYZE of a catalog holds a snapshot, and with it the
-- horizon that decides what a prune removes: at a moment of its choosing,
-- for one twin and not the other.  It is off for this test, once the
-- workers running are done.
ALTER SYSTEM SET autovacuum = off;
SELECT pg_reload_conf();
DO $$
BEGIN
  PERFORM pg_sleep(0.2);
  FOR i IN 1..600 LOOP
    EXIT WHEN NOT EXISTS (SELECT FROM pg_stat_activity
                          WHERE backend_type = 'autovacuum worker');
    PERFORM pg_sleep(0.1);
  END LOOP;
END $$;
SET max_parallel_workers_per_gather = 0;
CREATE TABLE placement_log (mix text, step int, differing bigint);
CREATE FUNCTION placement_differs(a regclass, b regclass) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE n bigint;
BEGIN
  EXECUTE format('SELECT count(*) FROM (SELECT ctid, id FROM %s) x
                  FULL JOIN (SELECT ctid, id FROM %s) y ON x.ctid = y.ctid AND x.id = y.id
                  WHERE x.id IS NULL OR y.id IS NULL', a, b) INTO n;
  RETURN n;
END $$;
-- an UPDATE moves rows when they no longer fit; heap extends the table
-- when the free space map offers none (round 5), and from round 6 on a
-- scan returned them in another order than heap's
CREATE TABLE pr_nvm (id int PRIMARY KEY, v int, pad char(80)) USING nvm_am
  WITH (autovacuum_enabled = false);
CREATE TABLE pr_heap (id int PRIMARY KEY, v int, pad char(80)) USING heap
  WITH (autovacuum_enabled = false);
INSERT INTO pr_nvm SELECT g, 0, 'p' || g FROM generate_series(1, 6000) g;
INSERT INTO pr_heap SELECT g, 0, 'p' || g FROM generate_series(1, 6000) g;
UPDATE pr_nvm SET v = v + 1 WHERE id % 10 = 1;
UPDATE pr_heap SET v = v + 1 WHERE id % 10 = 1;
UPDATE pr_nvm SET v = v + 1 WHERE id % 10 = 1;
UPDATE pr_heap SET v = v + 1 WHERE id % 10 = 1;
UPDATE pr_nvm SET v = v + 1 WHERE id % 10 = 1;
UPDATE pr_heap SET v = v + 1 WHERE id % 10 = 1;
INSERT INTO placement_log SELECT 'rounds', 1, placement_differs('pr_nvm', 'pr_heap');
UPDATE pr_nvm SET v = v + 1 WHERE id % 10 = 2;
UPDATE pr_heap SET v = v + 1 WHERE id % 10 = 2;
UPDATE pr_nvm SET v = v + 1 WHERE id % 10 = 2;
UPDATE pr_heap SET v = v + 1 WHERE id % 10 = 2;
UPDATE pr_nvm SET v = v + 1 WHERE id % 10 = 2;
UPDATE pr_heap SET v = v + 1 WHERE id % 10 = 2;
INSERT INTO placement_log SELECT 'rounds', 2, placement_differs('pr_nvm', 'pr_heap');
UPDATE pr_nvm SET v = v + 1 WHERE id % 10 = 3;
UPDATE pr_heap SET v = v + 1 WHERE id % 10 = 3;
UPDATE pr_nvm SET v = v + 1 WHERE id % 10 = 3;
UPDATE pr_heap SET v = v + 1 WHERE id % 10 = 3;
UPDATE pr_nvm SET v = v + 1 WHERE id % 10 = 3;
UPDATE pr_heap SET v = v + 1 WHERE id % 10 = 3;
INSERT INTO placement_log SELECT 'rounds', 3, placement_differs('pr_nvm', 'pr_heap');
UPDATE pr_nvm SET v = v + 1 WHERE id % 10 = 4;
UPDATE pr_heap SET v = v + 1 WHERE id % 10 = 4;
UPDATE pr_nvm SET v = v + 1 WHERE id % 10 = 4;
UPDATE pr_heap SET v = v + 1 WHERE id % 10 = 4;
UPDATE pr_nvm SET v = v + 1 WHERE id % 10 = 4;
UPDATE pr_heap SET v = v + 1 WHERE id % 10 = 4;
INSERT INTO placement_log SELECT 'rounds', 4, placement_differs('pr_nvm', 'pr_heap');
UPDATE pr_nvm SET v = v + 1 WHERE id % 10 = 5;
UPDATE pr_heap SET v = v + 1 WHERE id % 10 = 5;
UPDATE pr_nvm SET v = v + 1 WHERE id % 10 = 5;
UPDATE pr_heap SET v = v + 1 WHERE id % 10 = 5;
UPDATE pr_nvm SET v = v + 1 WHERE id % 10 = 5;
UPDATE pr_heap SET v = v + 1 WHERE id % 10 = 5;
INSERT INTO placement_log SELECT 'rounds', 5, placement_differs('pr_nvm', 'pr_heap');
UPDATE pr_nvm SET v = v + 1 WHERE id % 10 = 6;
UPDATE pr_heap SET v = v + 1 WHERE id % 10 = 6;
UPDATE pr_nvm SET v = v + 1 WHERE id % 10 = 6;
UPDATE pr_heap SET v = v + 1 WHERE id % 10 = 6;
UPDATE pr_nvm SET v = v + 1 WHERE id % 10 = 6;
UPDATE pr_heap SET v = v + 1 WHERE id % 10 = 6;
INSERT INTO placement_log SELECT 'rounds', 6, placement_differs('pr_nvm', 'pr_heap');
UPDATE pr_nvm SET v = v + 1 WHERE id % 10 = 7;
UPDATE pr_heap SET v = v + 1 WHERE id % 10 = 7;
UPDATE pr_nvm SET v = v + 1 WHERE id % 10 = 7;
UPDATE pr_heap SET v = v + 1 WHERE id % 10 = 7;
UPDATE pr_nvm SET v = v + 1 WHERE id % 10 = 7;
UPDATE pr_heap SET v = v + 1 WHERE id % 10 = 7;
INSERT INTO placement_log SELECT 'rounds', 7, placement_differs('pr_nvm', 'pr_heap');
UPDATE pr_nvm SET v = v + 1 WHERE id % 10 = 8;
UPDATE pr_heap SET v = v + 1 WHERE id % 10 = 8;
UPDATE pr_nvm SET v = v + 1 WHERE id % 10 = 8;
UPDATE pr_heap SET v = v + 1 WHERE id % 10 = 8;
UPDATE pr_nvm SET v = v + 1 WHERE id % 10 = 8;
UPDATE pr_heap SET v = v + 1 WHERE id % 10 = 8;
INSERT INTO placement_log SELECT 'rounds', 8, placement_differs('pr_nvm', 'pr_heap');
UPDATE pr_nvm SET v = v + 1 WHERE id % 10 = 9;
UPDATE pr_heap SET v = v + 1 WHERE id % 10 = 9;
UPDATE pr_nvm SET v = v + 1 WHERE id % 10 = 9;
UPDATE pr_heap SET v = v + 1 WHERE id % 10 = 9;
UPDATE pr_nvm SET v = v + 1 WHERE id % 10 = 9;
UPDATE pr_heap SET v = v + 1 WHERE id % 10 = 9;
INSERT INTO placement_log SELECT 'rounds', 9, placement_differs('pr_nvm', 'pr_heap');
UPDATE pr_nvm SET v = v + 1 WHERE id % 10 = 0;
UPDATE pr_heap SET v = v + 1 WHERE id % 10 = 0;
UPDATE pr_nvm SET v = v + 1 WHERE id % 10 = 0;
UPDATE pr_heap SET v = v + 1 WHERE id % 10 = 0;
UPDATE pr_nvm SET v = v + 1 WHERE id % 10 = 0;
UPDATE pr_heap SET v = v + 1 WHERE id % 10 = 0;
INSERT INTO placement_log SELECT 'rounds', 10, placement_differs('pr_nvm', 'pr_heap');
SELECT (SELECT string_agg(id::text, ',') FROM pr_nvm) =
       (SELECT string_agg(id::text, ',') FROM pr_heap) AS same_scan_order;
-- the mix of seed 5 (fillfactor 90)
CREATE TABLE m5_nvm (id int PRIMARY KEY, k int, v int, pad text) USING nvm_am
  WITH (fillfactor = 90, autovacuum_enabled = false);
CREATE INDEX ON m5_nvm (k);
CREATE TABLE m5_heap (id int PRIMARY KEY, k int, v int, pad text) USING heap
  WITH (fillfactor = 90, autovacuum_enabled = false);
CREATE INDEX ON m5_heap (k);
\o /dev/null
COPY m5_nvm FROM PROGRAM 'seq 1 1000 | sed "s/.*/&,1,0,cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc/"' WITH (FORMAT csv);
\c
COPY m5_heap FROM PROGRAM 'seq 1 1000 | sed "s/.*/&,1,0,cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc/"' WITH (FORMAT csv);
\c
INSERT INTO placement_log SELECT 'seed 5', 1, placement_differs('m5_nvm', 'm5_heap');
\c
INSERT INTO m5_nvm SELECT g, g % 97, 0, repeat('x', 128 + g % 7) FROM generate_series(1001, 1300) g;
\c
INSERT INTO m5_heap SELECT g, g % 97, 0, repeat('x', 128 + g % 7) FROM generate_series(1001, 1300) g;
\c
INSERT INTO placement_log SELECT 'seed 5', 2, placement_differs('m5_nvm', 'm5_heap');
\c
VACUUM m5_nvm;
\c
VACUUM m5_heap;
\c
INSERT INTO placement_log SELECT 'seed 5', 3, placement_differs('m5_nvm', 'm5_heap');
\c
INSERT INTO m5_nvm SELECT g, g % 97, 0, repeat('x', 58 + g % 7) FROM generate_series(1301, 1305) g;
\c
INSERT INTO m5_heap SELECT g, g % 97, 0, repeat('x', 58 + g % 7) FROM generate_series(1301, 1305) g;
\c
INSERT INTO placement_log SELECT 'seed 5', 4, placement_differs('m5_nvm', 'm5_heap');
\c
UPDATE m5_nvm SET k = k + 1 WHERE id % 20 = 7;
\c
UPDATE m5_heap SET k = k + 1 WHERE id % 20 = 7;
\c
INSERT INTO placement_log SELECT 'seed 5', 5, placement_differs('m5_nvm', 'm5_heap');
\c
DELETE FROM m5_nvm WHERE id % 40 = 6 AND id > 1175;
\c
DELETE FROM m5_heap WHERE id % 40 = 6 AND id > 1175;
\c
INSERT INTO placement_log SELECT 'seed 5', 6, placement_differs('m5_nvm', 'm5_heap');
\c
UPDATE m5_nvm SET v = v + 1, pad = CASE WHEN -3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + -3)) END WHERE id % 2 = 0;
\c
UPDATE m5_heap SET v = v + 1, pad = CASE WHEN -3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + -3)) END WHERE id % 2 = 0;
\c
INSERT INTO placement_log SELECT 'seed 5', 7, placement_differs('m5_nvm', 'm5_heap');
\c
UPDATE m5_nvm SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 5 = 3;
\c
UPDATE m5_heap SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 5 = 3;
\c
INSERT INTO placement_log SELECT 'seed 5', 8, placement_differs('m5_nvm', 'm5_heap');
\c
COPY m5_nvm FROM PROGRAM 'seq 1306 1315 | sed "s/.*/&,1,0,cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc/"' WITH (FORMAT csv);
\c
COPY m5_heap FROM PROGRAM 'seq 1306 1315 | sed "s/.*/&,1,0,cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc/"' WITH (FORMAT csv);
\c
INSERT INTO placement_log SELECT 'seed 5', 9, placement_differs('m5_nvm', 'm5_heap');
\c
SELECT count(*) FROM (SELECT v FROM m5_nvm WHERE id BETWEEN 1264 AND 961) s;
\c
SELECT count(*) FROM (SELECT v FROM m5_heap WHERE id BETWEEN 1264 AND 961) s;
\c
INSERT INTO placement_log SELECT 'seed 5', 10, placement_differs('m5_nvm', 'm5_heap');
\c
UPDATE m5_nvm SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 5 = 0;
\c
UPDATE m5_heap SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 5 = 0;
\c
INSERT INTO placement_log SELECT 'seed 5', 11, placement_differs('m5_nvm', 'm5_heap');
\c
UPDATE m5_nvm SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 5 = 1;
\c
UPDATE m5_heap SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 5 = 1;
\c
INSERT INTO placement_log SELECT 'seed 5', 12, placement_differs('m5_nvm', 'm5_heap');
\c
UPDATE m5_nvm SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 10 = 3;
\c
UPDATE m5_heap SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 10 = 3;
\c
INSERT INTO placement_log SELECT 'seed 5', 13, placement_differs('m5_nvm', 'm5_heap');
\c
UPDATE m5_nvm SET v = v + 1, pad = CASE WHEN 3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 3)) END WHERE id % 5 = 3;
\c
UPDATE m5_heap SET v = v + 1, pad = CASE WHEN 3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 3)) END WHERE id % 5 = 3;
\c
INSERT INTO placement_log SELECT 'seed 5', 14, placement_differs('m5_nvm', 'm5_heap');
\c
INSERT INTO m5_nvm SELECT g, g % 97, 0, repeat('x', 213 + g % 7) FROM generate_series(1316, 1365) g;
\c
INSERT INTO m5_heap SELECT g, g % 97, 0, repeat('x', 213 + g % 7) FROM generate_series(1316, 1365) g;
\c
INSERT INTO placement_log SELECT 'seed 5', 15, placement_differs('m5_nvm', 'm5_heap');
\c
UPDATE m5_nvm SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 5 = 2;
\c
UPDATE m5_heap SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 5 = 2;
\c
INSERT INTO placement_log SELECT 'seed 5', 16, placement_differs('m5_nvm', 'm5_heap');
\c
UPDATE m5_nvm SET k = k + 1 WHERE id % 20 = 19;
\c
UPDATE m5_heap SET k = k + 1 WHERE id % 20 = 19;
\c
INSERT INTO placement_log SELECT 'seed 5', 17, placement_differs('m5_nvm', 'm5_heap');
\c
SELECT count(*) FROM (SELECT v FROM m5_nvm WHERE id BETWEEN 6 AND 1270) s;
\c
SELECT count(*) FROM (SELECT v FROM m5_heap WHERE id BETWEEN 6 AND 1270) s;
\c
INSERT INTO placement_log SELECT 'seed 5', 18, placement_differs('m5_nvm', 'm5_heap');
\c
VACUUM m5_nvm;
\c
VACUUM m5_heap;
\c
INSERT INTO placement_log SELECT 'seed 5', 19, placement_differs('m5_nvm', 'm5_heap');
\c
BEGIN; UPDATE m5_nvm SET v = v + 1, pad = pad || 'z' WHERE id % 5 = 0; ROLLBACK;
\c
BEGIN; UPDATE m5_heap SET v = v + 1, pad = pad || 'z' WHERE id % 5 = 0; ROLLBACK;
\c
INSERT INTO placement_log SELECT 'seed 5', 20, placement_differs('m5_nvm', 'm5_heap');
\c
UPDATE m5_nvm SET v = v + 1, pad = CASE WHEN -3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + -3)) END WHERE id % 10 = 4;
\c
UPDATE m5_heap SET v = v + 1, pad = CASE WHEN -3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + -3)) END WHERE id % 10 = 4;
\c
INSERT INTO placement_log SELECT 'seed 5', 21, placement_differs('m5_nvm', 'm5_heap');
\c
BEGIN; UPDATE m5_nvm SET v = v + 1, pad = pad || 'z' WHERE id % 5 = 1; ROLLBACK;
\c
BEGIN; UPDATE m5_heap SET v = v + 1, pad = pad || 'z' WHERE id % 5 = 1; ROLLBACK;
\c
INSERT INTO placement_log SELECT 'seed 5', 22, placement_differs('m5_nvm', 'm5_heap');
\c
SELECT count(*), sum(v) FROM m5_nvm;
\c
SELECT count(*), sum(v) FROM m5_heap;
\c
INSERT INTO placement_log SELECT 'seed 5', 23, placement_differs('m5_nvm', 'm5_heap');
\c
SELECT count(*), sum(v) FROM m5_nvm;
\c
SELECT count(*), sum(v) FROM m5_heap;
\c
INSERT INTO placement_log SELECT 'seed 5', 24, placement_differs('m5_nvm', 'm5_heap');
\c
BEGIN; UPDATE m5_nvm SET v = v + 1, pad = pad || 'z' WHERE id % 2 = 0; ROLLBACK;
\c
BEGIN; UPDATE m5_heap SET v = v + 1, pad = pad || 'z' WHERE id % 2 = 0; ROLLBACK;
\c
INSERT INTO placement_log SELECT 'seed 5', 25, placement_differs('m5_nvm', 'm5_heap');
\c
UPDATE m5_nvm SET v = v + 1, pad = CASE WHEN -3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + -3)) END WHERE id % 2 = 1;
\c
UPDATE m5_heap SET v = v + 1, pad = CASE WHEN -3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + -3)) END WHERE id % 2 = 1;
\c
INSERT INTO placement_log SELECT 'seed 5', 26, placement_differs('m5_nvm', 'm5_heap');
\c
INSERT INTO m5_nvm SELECT g, g % 97, 0, repeat('x', 188 + g % 7) FROM generate_series(1366, 1665) g;
\c
INSERT INTO m5_heap SELECT g, g % 97, 0, repeat('x', 188 + g % 7) FROM generate_series(1366, 1665) g;
\c
INSERT INTO placement_log SELECT 'seed 5', 27, placement_differs('m5_nvm', 'm5_heap');
\c
DELETE FROM m5_nvm WHERE id % 40 = 0 AND id > 927;
\c
DELETE FROM m5_heap WHERE id % 40 = 0 AND id > 927;
\c
INSERT INTO placement_log SELECT 'seed 5', 28, placement_differs('m5_nvm', 'm5_heap');
\c
INSERT INTO m5_nvm SELECT g, g % 97, 0, repeat('x', 101 + g % 7) FROM generate_series(1666, 1670) g;
\c
INSERT INTO m5_heap SELECT g, g % 97, 0, repeat('x', 101 + g % 7) FROM generate_series(1666, 1670) g;
\c
INSERT INTO placement_log SELECT 'seed 5', 29, placement_differs('m5_nvm', 'm5_heap');
\c
INSERT INTO m5_nvm SELECT g, g % 97, 0, repeat('x', 237 + g % 7) FROM generate_series(1671, 1675) g;
\c
INSERT INTO m5_heap SELECT g, g % 97, 0, repeat('x', 237 + g % 7) FROM generate_series(1671, 1675) g;
\c
INSERT INTO placement_log SELECT 'seed 5', 30, placement_differs('m5_nvm', 'm5_heap');
\c
UPDATE m5_nvm SET k = k + 1 WHERE id % 20 = 16;
\c
UPDATE m5_heap SET k = k + 1 WHERE id % 20 = 16;
\c
INSERT INTO placement_log SELECT 'seed 5', 31, placement_differs('m5_nvm', 'm5_heap');
\c
UPDATE m5_nvm SET v = v + 1, pad = CASE WHEN 3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 3)) END WHERE id % 50 = 6;
\c
UPDATE m5_heap SET v = v + 1, pad = CASE WHEN 3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 3)) END WHERE id % 50 = 6;
\c
INSERT INTO placement_log SELECT 'seed 5', 32, placement_differs('m5_nvm', 'm5_heap');
\c
INSERT INTO m5_nvm SELECT g, 1, 0, (SELECT string_agg(md5(g::text || i::text), '') FROM generate_series(1, 20) i) FROM generate_series(1676, 1680) g;
\c
INSERT INTO m5_heap SELECT g, 1, 0, (SELECT string_agg(md5(g::text || i::text), '') FROM generate_series(1, 20) i) FROM generate_series(1676, 1680) g;
\c
INSERT INTO placement_log SELECT 'seed 5', 33, placement_differs('m5_nvm', 'm5_heap');
\c
DELETE FROM m5_nvm WHERE id % 3 = 0 AND id > 697;
\c
DELETE FROM m5_heap WHERE id % 3 = 0 AND id > 697;
\c
INSERT INTO placement_log SELECT 'seed 5', 34, placement_differs('m5_nvm', 'm5_heap');
\c
SELECT count(*), sum(v) FROM m5_nvm;
\c
SELECT count(*), sum(v) FROM m5_heap;
\c
INSERT INTO placement_log SELECT 'seed 5', 35, placement_differs('m5_nvm', 'm5_heap');
\c
SELECT count(*) FROM (SELECT v FROM m5_nvm WHERE id BETWEEN 742 AND 353) s;
\c
SELECT count(*) FROM (SELECT v FROM m5_heap WHERE id BETWEEN 742 AND 353) s;
\c
INSERT INTO placement_log SELECT 'seed 5', 36, placement_differs('m5_nvm', 'm5_heap');
\c
UPDATE m5_nvm SET k = k + 1 WHERE id % 20 = 17;
\c
UPDATE m5_heap SET k = k + 1 WHERE id % 20 = 17;
\c
INSERT INTO placement_log SELECT 'seed 5', 37, placement_differs('m5_nvm', 'm5_heap');
\c
INSERT INTO m5_nvm SELECT g, g % 97, 0, repeat('x', 163 + g % 7) FROM generate_series(1681, 1730) g;
\c
INSERT INTO m5_heap SELECT g, g % 97, 0, repeat('x', 163 + g % 7) FROM generate_series(1681, 1730) g;
\c
INSERT INTO placement_log SELECT 'seed 5', 38, placement_differs('m5_nvm', 'm5_heap');
\c
UPDATE m5_nvm SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 5 = 0;
\c
UPDATE m5_heap SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 5 = 0;
\c
INSERT INTO placement_log SELECT 'seed 5', 39, placement_differs('m5_nvm', 'm5_heap');
\c
BEGIN; UPDATE m5_nvm SET v = v + 1, pad = pad || 'z' WHERE id % 10 = 4; ROLLBACK;
\c
BEGIN; UPDATE m5_heap SET v = v + 1, pad = pad || 'z' WHERE id % 10 = 4; ROLLBACK;
\c
INSERT INTO placement_log SELECT 'seed 5', 40, placement_differs('m5_nvm', 'm5_heap');
\c
SELECT count(*), sum(v) FROM m5_nvm;
\c
SELECT count(*), sum(v) FROM m5_heap;
\c
INSERT INTO placement_log SELECT 'seed 5', 41, placement_differs('m5_nvm', 'm5_heap');
\c
UPDATE m5_nvm SET v = v + 1, pad = CASE WHEN -3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + -3)) END WHERE id % 2 = 0;
\c
UPDATE m5_heap SET v = v + 1, pad = CASE WHEN -3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + -3)) END WHERE id % 2 = 0;
\c
INSERT INTO placement_log SELECT 'seed 5', 42, placement_differs('m5_nvm', 'm5_heap');
\c
INSERT INTO m5_nvm SELECT g, g % 97, 0, repeat('x', 177 + g % 7) FROM generate_series(1731, 1735) g;
\c
INSERT INTO m5_heap SELECT g, g % 97, 0, repeat('x', 177 + g % 7) FROM generate_series(1731, 1735) g;
\c
INSERT INTO placement_log SELECT 'seed 5', 43, placement_differs('m5_nvm', 'm5_heap');
\c
INSERT INTO m5_nvm SELECT g, 1, 0, (SELECT string_agg(md5(g::text || i::text), '') FROM generate_series(1, 100) i) FROM generate_series(1736, 1740) g;
\c
INSERT INTO m5_heap SELECT g, 1, 0, (SELECT string_agg(md5(g::text || i::text), '') FROM generate_series(1, 100) i) FROM generate_series(1736, 1740) g;
\c
INSERT INTO placement_log SELECT 'seed 5', 44, placement_differs('m5_nvm', 'm5_heap');
\c
VACUUM m5_nvm;
\c
VACUUM m5_heap;
\c
INSERT INTO placement_log SELECT 'seed 5', 45, placement_differs('m5_nvm', 'm5_heap');
\c
DELETE FROM m5_nvm WHERE id % 3 = 0 AND id > 1307;
\c
DELETE FROM m5_heap WHERE id % 3 = 0 AND id > 1307;
\c
INSERT INTO placement_log SELECT 'seed 5', 46, placement_differs('m5_nvm', 'm5_heap');
\c
INSERT INTO m5_nvm SELECT g, g % 97, 0, repeat('x', 172 + g % 7) FROM generate_series(1741, 2040) g;
\c
INSERT INTO m5_heap SELECT g, g % 97, 0, repeat('x', 172 + g % 7) FROM generate_series(1741, 2040) g;
\c
INSERT INTO placement_log SELECT 'seed 5', 47, placement_differs('m5_nvm', 'm5_heap');
\c
INSERT INTO m5_nvm SELECT g, 1, 0, (SELECT string_agg(md5(g::text || i::text), '') FROM generate_series(1, 20) i) FROM generate_series(2041, 2041) g;
\c
INSERT INTO m5_heap SELECT g, 1, 0, (SELECT string_agg(md5(g::text || i::text), '') FROM generate_series(1, 20) i) FROM generate_series(2041, 2041) g;
\c
INSERT INTO placement_log SELECT 'seed 5', 48, placement_differs('m5_nvm', 'm5_heap');
\c
BEGIN; UPDATE m5_nvm SET v = v + 1, pad = pad || 'z' WHERE id % 10 = 2; ROLLBACK;
\c
BEGIN; UPDATE m5_heap SET v = v + 1, pad = pad || 'z' WHERE id % 10 = 2; ROLLBACK;
\c
INSERT INTO placement_log SELECT 'seed 5', 49, placement_differs('m5_nvm', 'm5_heap');
\c
VACUUM m5_nvm;
\c
VACUUM m5_heap;
\c
INSERT INTO placement_log SELECT 'seed 5', 50, placement_differs('m5_nvm', 'm5_heap');
\c
COPY m5_nvm FROM PROGRAM 'seq 2042 2241 | sed "s/.*/&,1,0,ccccccccccccccccccccccccccccccccccccccccccccccccccccccc/"' WITH (FORMAT csv);
\c
COPY m5_heap FROM PROGRAM 'seq 2042 2241 | sed "s/.*/&,1,0,ccccccccccccccccccccccccccccccccccccccccccccccccccccccc/"' WITH (FORMAT csv);
\c
INSERT INTO placement_log SELECT 'seed 5', 51, placement_differs('m5_nvm', 'm5_heap');
\c
UPDATE m5_nvm SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 50 = 23;
\c
UPDATE m5_heap SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 50 = 23;
\c
INSERT INTO placement_log SELECT 'seed 5', 52, placement_differs('m5_nvm', 'm5_heap');
\c
INSERT INTO m5_nvm SELECT g, g % 97, 0, repeat('x', 151 + g % 7) FROM generate_series(2242, 2541) g;
\c
INSERT INTO m5_heap SELECT g, g % 97, 0, repeat('x', 151 + g % 7) FROM generate_series(2242, 2541) g;
\c
INSERT INTO placement_log SELECT 'seed 5', 53, placement_differs('m5_nvm', 'm5_heap');
\c
UPDATE m5_nvm SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 50 = 39;
\c
UPDATE m5_heap SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 50 = 39;
\c
INSERT INTO placement_log SELECT 'seed 5', 54, placement_differs('m5_nvm', 'm5_heap');
\c
SELECT count(*), sum(v) FROM m5_nvm;
\c
SELECT count(*), sum(v) FROM m5_heap;
\c
INSERT INTO placement_log SELECT 'seed 5', 55, placement_differs('m5_nvm', 'm5_heap');
\c
SELECT count(*), sum(v) FROM m5_nvm;
\c
SELECT count(*), sum(v) FROM m5_heap;
\c
INSERT INTO placement_log SELECT 'seed 5', 56, placement_differs('m5_nvm', 'm5_heap');
\c
SELECT count(*), sum(v) FROM m5_nvm;
\c
SELECT count(*), sum(v) FROM m5_heap;
\c
INSERT INTO placement_log SELECT 'seed 5', 57, placement_differs('m5_nvm', 'm5_heap');
\c
BEGIN; UPDATE m5_nvm SET v = v + 1, pad = pad || 'z' WHERE id % 10 = 5; ROLLBACK;
\c
BEGIN; UPDATE m5_heap SET v = v + 1, pad = pad || 'z' WHERE id % 10 = 5; ROLLBACK;
\c
INSERT INTO placement_log SELECT 'seed 5', 58, placement_differs('m5_nvm', 'm5_heap');
\c
SELECT count(*), sum(v) FROM m5_nvm;
\c
SELECT count(*), sum(v) FROM m5_heap;
\c
INSERT INTO placement_log SELECT 'seed 5', 59, placement_differs('m5_nvm', 'm5_heap');
\c
UPDATE m5_nvm SET v = v + 1, pad = CASE WHEN -3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + -3)) END WHERE id % 10 = 7;
\c
UPDATE m5_heap SET v = v + 1, pad = CASE WHEN -3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + -3)) END WHERE id % 10 = 7;
\c
INSERT INTO placement_log SELECT 'seed 5', 60, placement_differs('m5_nvm', 'm5_heap');
\c
\o
-- the mix of seed 7 (fillfactor 90)
CREATE TABLE m7_nvm (id int PRIMARY KEY, k int, v int, pad text) USING nvm_am
  WITH (fillfactor = 90, autovacuum_enabled = false);
CREATE INDEX ON m7_nvm (k);
CREATE TABLE m7_heap (id int PRIMARY KEY, k int, v int, pad text) USING heap
  WITH (fillfactor = 90, autovacuum_enabled = false);
CREATE INDEX ON m7_heap (k);
\o /dev/null
DELETE FROM m7_nvm WHERE id % 40 = 3 AND id > 0;
\c
DELETE FROM m7_heap WHERE id % 40 = 3 AND id > 0;
\c
INSERT INTO placement_log SELECT 'seed 7', 1, placement_differs('m7_nvm', 'm7_heap');
\c
INSERT INTO m7_nvm SELECT g, 1, 0, (SELECT string_agg(md5(g::text || i::text), '') FROM generate_series(1, 100) i) FROM generate_series(1, 1) g;
\c
INSERT INTO m7_heap SELECT g, 1, 0, (SELECT string_agg(md5(g::text || i::text), '') FROM generate_series(1, 100) i) FROM generate_series(1, 1) g;
\c
INSERT INTO placement_log SELECT 'seed 7', 2, placement_differs('m7_nvm', 'm7_heap');
\c
SELECT count(*) FROM (SELECT v FROM m7_nvm WHERE id BETWEEN 0 AND 50) s;
\c
SELECT count(*) FROM (SELECT v FROM m7_heap WHERE id BETWEEN 0 AND 50) s;
\c
INSERT INTO placement_log SELECT 'seed 7', 3, placement_differs('m7_nvm', 'm7_heap');
\c
INSERT INTO m7_nvm SELECT g, g % 97, 0, repeat('x', 56 + g % 7) FROM generate_series(2, 2) g;
\c
INSERT INTO m7_heap SELECT g, g % 97, 0, repeat('x', 56 + g % 7) FROM generate_series(2, 2) g;
\c
INSERT INTO placement_log SELECT 'seed 7', 4, placement_differs('m7_nvm', 'm7_heap');
\c
DELETE FROM m7_nvm WHERE id % 3 = 0 AND id > 0;
\c
DELETE FROM m7_heap WHERE id % 3 = 0 AND id > 0;
\c
INSERT INTO placement_log SELECT 'seed 7', 5, placement_differs('m7_nvm', 'm7_heap');
\c
SELECT count(*), sum(v) FROM m7_nvm;
\c
SELECT count(*), sum(v) FROM m7_heap;
\c
INSERT INTO placement_log SELECT 'seed 7', 6, placement_differs('m7_nvm', 'm7_heap');
\c
DELETE FROM m7_nvm WHERE id % 3 = 2 AND id > 0;
\c
DELETE FROM m7_heap WHERE id % 3 = 2 AND id > 0;
\c
INSERT INTO placement_log SELECT 'seed 7', 7, placement_differs('m7_nvm', 'm7_heap');
\c
UPDATE m7_nvm SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 2 = 1;
\c
UPDATE m7_heap SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 2 = 1;
\c
INSERT INTO placement_log SELECT 'seed 7', 8, placement_differs('m7_nvm', 'm7_heap');
\c
UPDATE m7_nvm SET v = v + 1, pad = CASE WHEN 3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 3)) END WHERE id % 2 = 0;
\c
UPDATE m7_heap SET v = v + 1, pad = CASE WHEN 3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 3)) END WHERE id % 2 = 0;
\c
INSERT INTO placement_log SELECT 'seed 7', 9, placement_differs('m7_nvm', 'm7_heap');
\c
DELETE FROM m7_nvm WHERE id % 3 = 2 AND id > 0;
\c
DELETE FROM m7_heap WHERE id % 3 = 2 AND id > 0;
\c
INSERT INTO placement_log SELECT 'seed 7', 10, placement_differs('m7_nvm', 'm7_heap');
\c
SELECT count(*) FROM (SELECT v FROM m7_nvm WHERE id BETWEEN 1 AND 52) s;
\c
SELECT count(*) FROM (SELECT v FROM m7_heap WHERE id BETWEEN 1 AND 52) s;
\c
INSERT INTO placement_log SELECT 'seed 7', 11, placement_differs('m7_nvm', 'm7_heap');
\c
INSERT INTO m7_nvm SELECT g, 1, 0, (SELECT string_agg(md5(g::text || i::text), '') FROM generate_series(1, 20) i) FROM generate_series(3, 3) g;
\c
INSERT INTO m7_heap SELECT g, 1, 0, (SELECT string_agg(md5(g::text || i::text), '') FROM generate_series(1, 20) i) FROM generate_series(3, 3) g;
\c
INSERT INTO placement_log SELECT 'seed 7', 12, placement_differs('m7_nvm', 'm7_heap');
\c
SELECT count(*) FROM (SELECT v FROM m7_nvm WHERE id BETWEEN 1 AND 52) s;
\c
SELECT count(*) FROM (SELECT v FROM m7_heap WHERE id BETWEEN 1 AND 52) s;
\c
INSERT INTO placement_log SELECT 'seed 7', 13, placement_differs('m7_nvm', 'm7_heap');
\c
INSERT INTO m7_nvm SELECT g, g % 97, 0, repeat('x', 73 + g % 7) FROM generate_series(4, 4) g;
\c
INSERT INTO m7_heap SELECT g, g % 97, 0, repeat('x', 73 + g % 7) FROM generate_series(4, 4) g;
\c
INSERT INTO placement_log SELECT 'seed 7', 14, placement_differs('m7_nvm', 'm7_heap');
\c
INSERT INTO m7_nvm SELECT g, g % 97, 0, repeat('x', 64 + g % 7) FROM generate_series(5, 9) g;
\c
INSERT INTO m7_heap SELECT g, g % 97, 0, repeat('x', 64 + g % 7) FROM generate_series(5, 9) g;
\c
INSERT INTO placement_log SELECT 'seed 7', 15, placement_differs('m7_nvm', 'm7_heap');
\c
VACUUM m7_nvm;
\c
VACUUM m7_heap;
\c
INSERT INTO placement_log SELECT 'seed 7', 16, placement_differs('m7_nvm', 'm7_heap');
\c
SELECT count(*), sum(v) FROM m7_nvm;
\c
SELECT count(*), sum(v) FROM m7_heap;
\c
INSERT INTO placement_log SELECT 'seed 7', 17, placement_differs('m7_nvm', 'm7_heap');
\c
DELETE FROM m7_nvm WHERE id % 10 = 7 AND id > 9;
\c
DELETE FROM m7_heap WHERE id % 10 = 7 AND id > 9;
\c
INSERT INTO placement_log SELECT 'seed 7', 18, placement_differs('m7_nvm', 'm7_heap');
\c
SELECT count(*), sum(v) FROM m7_nvm;
\c
SELECT count(*), sum(v) FROM m7_heap;
\c
INSERT INTO placement_log SELECT 'seed 7', 19, placement_differs('m7_nvm', 'm7_heap');
\c
UPDATE m7_nvm SET k = k + 1 WHERE id % 20 = 7;
\c
UPDATE m7_heap SET k = k + 1 WHERE id % 20 = 7;
\c
INSERT INTO placement_log SELECT 'seed 7', 20, placement_differs('m7_nvm', 'm7_heap');
\c
COPY m7_nvm FROM PROGRAM 'seq 10 19 | sed "s/.*/&,1,0,cccccccccccccccccccccccccccccccc/"' WITH (FORMAT csv);
\c
COPY m7_heap FROM PROGRAM 'seq 10 19 | sed "s/.*/&,1,0,cccccccccccccccccccccccccccccccc/"' WITH (FORMAT csv);
\c
INSERT INTO placement_log SELECT 'seed 7', 21, placement_differs('m7_nvm', 'm7_heap');
\c
INSERT INTO m7_nvm SELECT g, g % 97, 0, repeat('x', 68 + g % 7) FROM generate_series(20, 69) g;
\c
INSERT INTO m7_heap SELECT g, g % 97, 0, repeat('x', 68 + g % 7) FROM generate_series(20, 69) g;
\c
INSERT INTO placement_log SELECT 'seed 7', 22, placement_differs('m7_nvm', 'm7_heap');
\c
SELECT count(*), sum(v) FROM m7_nvm;
\c
SELECT count(*), sum(v) FROM m7_heap;
\c
INSERT INTO placement_log SELECT 'seed 7', 23, placement_differs('m7_nvm', 'm7_heap');
\c
UPDATE m7_nvm SET k = k + 1 WHERE id % 20 = 9;
\c
UPDATE m7_heap SET k = k + 1 WHERE id % 20 = 9;
\c
INSERT INTO placement_log SELECT 'seed 7', 24, placement_differs('m7_nvm', 'm7_heap');
\c
SELECT count(*) FROM (SELECT v FROM m7_nvm WHERE id BETWEEN 9 AND 65) s;
\c
SELECT count(*) FROM (SELECT v FROM m7_heap WHERE id BETWEEN 9 AND 65) s;
\c
INSERT INTO placement_log SELECT 'seed 7', 25, placement_differs('m7_nvm', 'm7_heap');
\c
SELECT count(*), sum(v) FROM m7_nvm;
\c
SELECT count(*), sum(v) FROM m7_heap;
\c
INSERT INTO placement_log SELECT 'seed 7', 26, placement_differs('m7_nvm', 'm7_heap');
\c
DELETE FROM m7_nvm WHERE id % 3 = 1 AND id > 19;
\c
DELETE FROM m7_heap WHERE id % 3 = 1 AND id > 19;
\c
INSERT INTO placement_log SELECT 'seed 7', 27, placement_differs('m7_nvm', 'm7_heap');
\c
SELECT count(*), sum(v) FROM m7_nvm;
\c
SELECT count(*), sum(v) FROM m7_heap;
\c
INSERT INTO placement_log SELECT 'seed 7', 28, placement_differs('m7_nvm', 'm7_heap');
\c
DELETE FROM m7_nvm WHERE id % 3 = 2 AND id > 9;
\c
DELETE FROM m7_heap WHERE id % 3 = 2 AND id > 9;
\c
INSERT INTO placement_log SELECT 'seed 7', 29, placement_differs('m7_nvm', 'm7_heap');
\c
COPY m7_nvm FROM PROGRAM 'seq 70 1069 | sed "s/.*/&,1,0,cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc/"' WITH (FORMAT csv);
\c
COPY m7_heap FROM PROGRAM 'seq 70 1069 | sed "s/.*/&,1,0,cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc/"' WITH (FORMAT csv);
\c
INSERT INTO placement_log SELECT 'seed 7', 30, placement_differs('m7_nvm', 'm7_heap');
\c
COPY m7_nvm FROM PROGRAM 'seq 1070 1269 | sed "s/.*/&,1,0,cccccccccccccccccccccccccccccccccccccccccccc/"' WITH (FORMAT csv);
\c
COPY m7_heap FROM PROGRAM 'seq 1070 1269 | sed "s/.*/&,1,0,cccccccccccccccccccccccccccccccccccccccccccc/"' WITH (FORMAT csv);
\c
INSERT INTO placement_log SELECT 'seed 7', 31, placement_differs('m7_nvm', 'm7_heap');
\c
BEGIN; UPDATE m7_nvm SET v = v + 1, pad = pad || 'z' WHERE id % 5 = 4; ROLLBACK;
\c
BEGIN; UPDATE m7_heap SET v = v + 1, pad = pad || 'z' WHERE id % 5 = 4; ROLLBACK;
\c
INSERT INTO placement_log SELECT 'seed 7', 32, placement_differs('m7_nvm', 'm7_heap');
\c
SELECT count(*), sum(v) FROM m7_nvm;
\c
SELECT count(*), sum(v) FROM m7_heap;
\c
INSERT INTO placement_log SELECT 'seed 7', 33, placement_differs('m7_nvm', 'm7_heap');
\c
SELECT count(*) FROM (SELECT v FROM m7_nvm WHERE id BETWEEN 934 AND 190) s;
\c
SELECT count(*) FROM (SELECT v FROM m7_heap WHERE id BETWEEN 934 AND 190) s;
\c
INSERT INTO placement_log SELECT 'seed 7', 34, placement_differs('m7_nvm', 'm7_heap');
\c
INSERT INTO m7_nvm SELECT g, 1, 0, (SELECT string_agg(md5(g::text || i::text), '') FROM generate_series(1, 100) i) FROM generate_series(1270, 1270) g;
\c
INSERT INTO m7_heap SELECT g, 1, 0, (SELECT string_agg(md5(g::text || i::text), '') FROM generate_series(1, 100) i) FROM generate_series(1270, 1270) g;
\c
INSERT INTO placement_log SELECT 'seed 7', 35, placement_differs('m7_nvm', 'm7_heap');
\c
SELECT count(*), sum(v) FROM m7_nvm;
\c
SELECT count(*), sum(v) FROM m7_heap;
\c
INSERT INTO placement_log SELECT 'seed 7', 36, placement_differs('m7_nvm', 'm7_heap');
\c
BEGIN; UPDATE m7_nvm SET v = v + 1, pad = pad || 'z' WHERE id % 10 = 1; ROLLBACK;
\c
BEGIN; UPDATE m7_heap SET v = v + 1, pad = pad || 'z' WHERE id % 10 = 1; ROLLBACK;
\c
INSERT INTO placement_log SELECT 'seed 7', 37, placement_differs('m7_nvm', 'm7_heap');
\c
INSERT INTO m7_nvm SELECT g, g % 97, 0, repeat('x', 74 + g % 7) FROM generate_series(1271, 1320) g;
\c
INSERT INTO m7_heap SELECT g, g % 97, 0, repeat('x', 74 + g % 7) FROM generate_series(1271, 1320) g;
\c
INSERT INTO placement_log SELECT 'seed 7', 38, placement_differs('m7_nvm', 'm7_heap');
\c
VACUUM m7_nvm;
\c
VACUUM m7_heap;
\c
INSERT INTO placement_log SELECT 'seed 7', 39, placement_differs('m7_nvm', 'm7_heap');
\c
INSERT INTO m7_nvm SELECT g, 1, 0, (SELECT string_agg(md5(g::text || i::text), '') FROM generate_series(1, 100) i) FROM generate_series(1321, 1325) g;
\c
INSERT INTO m7_heap SELECT g, 1, 0, (SELECT string_agg(md5(g::text || i::text), '') FROM generate_series(1, 100) i) FROM generate_series(1321, 1325) g;
\c
INSERT INTO placement_log SELECT 'seed 7', 40, placement_differs('m7_nvm', 'm7_heap');
\c
BEGIN; UPDATE m7_nvm SET v = v + 1, pad = pad || 'z' WHERE id % 5 = 2; ROLLBACK;
\c
BEGIN; UPDATE m7_heap SET v = v + 1, pad = pad || 'z' WHERE id % 5 = 2; ROLLBACK;
\c
INSERT INTO placement_log SELECT 'seed 7', 41, placement_differs('m7_nvm', 'm7_heap');
\c
INSERT INTO m7_nvm SELECT g, g % 97, 0, repeat('x', 46 + g % 7) FROM generate_series(1326, 1625) g;
\c
INSERT INTO m7_heap SELECT g, g % 97, 0, repeat('x', 46 + g % 7) FROM generate_series(1326, 1625) g;
\c
INSERT INTO placement_log SELECT 'seed 7', 42, placement_differs('m7_nvm', 'm7_heap');
\c
UPDATE m7_nvm SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 2 = 1;
\c
UPDATE m7_heap SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 2 = 1;
\c
INSERT INTO placement_log SELECT 'seed 7', 43, placement_differs('m7_nvm', 'm7_heap');
\c
UPDATE m7_nvm SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 10 = 2;
\c
UPDATE m7_heap SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 10 = 2;
\c
INSERT INTO placement_log SELECT 'seed 7', 44, placement_differs('m7_nvm', 'm7_heap');
\c
DELETE FROM m7_nvm WHERE id % 10 = 7 AND id > 165;
\c
DELETE FROM m7_heap WHERE id % 10 = 7 AND id > 165;
\c
INSERT INTO placement_log SELECT 'seed 7', 45, placement_differs('m7_nvm', 'm7_heap');
\c
UPDATE m7_nvm SET v = v + 1, pad = CASE WHEN 3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 3)) END WHERE id % 50 = 25;
\c
UPDATE m7_heap SET v = v + 1, pad = CASE WHEN 3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 3)) END WHERE id % 50 = 25;
\c
INSERT INTO placement_log SELECT 'seed 7', 46, placement_differs('m7_nvm', 'm7_heap');
\c
UPDATE m7_nvm SET v = v + 1, pad = CASE WHEN 3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 3)) END WHERE id % 50 = 35;
\c
UPDATE m7_heap SET v = v + 1, pad = CASE WHEN 3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 3)) END WHERE id % 50 = 35;
\c
INSERT INTO placement_log SELECT 'seed 7', 47, placement_differs('m7_nvm', 'm7_heap');
\c
BEGIN; UPDATE m7_nvm SET v = v + 1, pad = pad || 'z' WHERE id % 5 = 2; ROLLBACK;
\c
BEGIN; UPDATE m7_heap SET v = v + 1, pad = pad || 'z' WHERE id % 5 = 2; ROLLBACK;
\c
INSERT INTO placement_log SELECT 'seed 7', 48, placement_differs('m7_nvm', 'm7_heap');
\c
VACUUM m7_nvm;
\c
VACUUM m7_heap;
\c
INSERT INTO placement_log SELECT 'seed 7', 49, placement_differs('m7_nvm', 'm7_heap');
\c
DELETE FROM m7_nvm WHERE id % 3 = 0 AND id > 169;
\c
DELETE FROM m7_heap WHERE id % 3 = 0 AND id > 169;
\c
INSERT INTO placement_log SELECT 'seed 7', 50, placement_differs('m7_nvm', 'm7_heap');
\c
UPDATE m7_nvm SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 5 = 1;
\c
UPDATE m7_heap SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 5 = 1;
\c
INSERT INTO placement_log SELECT 'seed 7', 51, placement_differs('m7_nvm', 'm7_heap');
\c
INSERT INTO m7_nvm SELECT g, g % 97, 0, repeat('x', 76 + g % 7) FROM generate_series(1626, 1925) g;
\c
INSERT INTO m7_heap SELECT g, g % 97, 0, repeat('x', 76 + g % 7) FROM generate_series(1626, 1925) g;
\c
INSERT INTO placement_log SELECT 'seed 7', 52, placement_differs('m7_nvm', 'm7_heap');
\c
UPDATE m7_nvm SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 10 = 4;
\c
UPDATE m7_heap SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 10 = 4;
\c
INSERT INTO placement_log SELECT 'seed 7', 53, placement_differs('m7_nvm', 'm7_heap');
\c
UPDATE m7_nvm SET v = v + 1, pad = CASE WHEN 3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 3)) END WHERE id % 50 = 34;
\c
UPDATE m7_heap SET v = v + 1, pad = CASE WHEN 3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 3)) END WHERE id % 50 = 34;
\c
INSERT INTO placement_log SELECT 'seed 7', 54, placement_differs('m7_nvm', 'm7_heap');
\c
SELECT count(*) FROM (SELECT v FROM m7_nvm WHERE id BETWEEN 1159 AND 702) s;
\c
SELECT count(*) FROM (SELECT v FROM m7_heap WHERE id BETWEEN 1159 AND 702) s;
\c
INSERT INTO placement_log SELECT 'seed 7', 55, placement_differs('m7_nvm', 'm7_heap');
\c
UPDATE m7_nvm SET v = v + 1, pad = CASE WHEN -3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + -3)) END WHERE id % 2 = 1;
\c
UPDATE m7_heap SET v = v + 1, pad = CASE WHEN -3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + -3)) END WHERE id % 2 = 1;
\c
INSERT INTO placement_log SELECT 'seed 7', 56, placement_differs('m7_nvm', 'm7_heap');
\c
DELETE FROM m7_nvm WHERE id % 10 = 6 AND id > 212;
\c
DELETE FROM m7_heap WHERE id % 10 = 6 AND id > 212;
\c
INSERT INTO placement_log SELECT 'seed 7', 57, placement_differs('m7_nvm', 'm7_heap');
\c
SELECT count(*), sum(v) FROM m7_nvm;
\c
SELECT count(*), sum(v) FROM m7_heap;
\c
INSERT INTO placement_log SELECT 'seed 7', 58, placement_differs('m7_nvm', 'm7_heap');
\c
VACUUM m7_nvm;
\c
VACUUM m7_heap;
\c
INSERT INTO placement_log SELECT 'seed 7', 59, placement_differs('m7_nvm', 'm7_heap');
\c
DELETE FROM m7_nvm WHERE id % 3 = 0 AND id > 137;
\c
DELETE FROM m7_heap WHERE id % 3 = 0 AND id > 137;
\c
INSERT INTO placement_log SELECT 'seed 7', 60, placement_differs('m7_nvm', 'm7_heap');
\c
\o
-- the mix of seed 110 (fillfactor 70)
CREATE TABLE m110_nvm (id int PRIMARY KEY, k int, v int, pad text) USING nvm_am
  WITH (fillfactor = 70, autovacuum_enabled = false);
CREATE INDEX ON m110_nvm (k);
CREATE TABLE m110_heap (id int PRIMARY KEY, k int, v int, pad text) USING heap
  WITH (fillfactor = 70, autovacuum_enabled = false);
CREATE INDEX ON m110_heap (k);
\o /dev/null
DELETE FROM m110_nvm WHERE id % 10 = 4 AND id > 0;
\c
DELETE FROM m110_heap WHERE id % 10 = 4 AND id > 0;
\c
INSERT INTO placement_log SELECT 'seed 110', 1, placement_differs('m110_nvm', 'm110_heap');
\c
SELECT count(*), sum(v) FROM m110_nvm;
\c
SELECT count(*), sum(v) FROM m110_heap;
\c
INSERT INTO placement_log SELECT 'seed 110', 2, placement_differs('m110_nvm', 'm110_heap');
\c
DELETE FROM m110_nvm WHERE id % 40 = 20 AND id > 0;
\c
DELETE FROM m110_heap WHERE id % 40 = 20 AND id > 0;
\c
INSERT INTO placement_log SELECT 'seed 110', 3, placement_differs('m110_nvm', 'm110_heap');
\c
INSERT INTO m110_nvm SELECT g, g % 97, 0, repeat('x', 20 + g % 7) FROM generate_series(1, 1) g;
\c
INSERT INTO m110_heap SELECT g, g % 97, 0, repeat('x', 20 + g % 7) FROM generate_series(1, 1) g;
\c
INSERT INTO placement_log SELECT 'seed 110', 4, placement_differs('m110_nvm', 'm110_heap');
\c
SELECT count(*), sum(v) FROM m110_nvm;
\c
SELECT count(*), sum(v) FROM m110_heap;
\c
INSERT INTO placement_log SELECT 'seed 110', 5, placement_differs('m110_nvm', 'm110_heap');
\c
VACUUM m110_nvm;
\c
VACUUM m110_heap;
\c
INSERT INTO placement_log SELECT 'seed 110', 6, placement_differs('m110_nvm', 'm110_heap');
\c
INSERT INTO m110_nvm SELECT g, g % 97, 0, repeat('x', 76 + g % 7) FROM generate_series(2, 301) g;
\c
INSERT INTO m110_heap SELECT g, g % 97, 0, repeat('x', 76 + g % 7) FROM generate_series(2, 301) g;
\c
INSERT INTO placement_log SELECT 'seed 110', 7, placement_differs('m110_nvm', 'm110_heap');
\c
COPY m110_nvm FROM PROGRAM 'seq 302 1301 | sed "s/.*/&,1,0,cccccccccccccccccccccccccccccc/"' WITH (FORMAT csv);
\c
COPY m110_heap FROM PROGRAM 'seq 302 1301 | sed "s/.*/&,1,0,cccccccccccccccccccccccccccccc/"' WITH (FORMAT csv);
\c
INSERT INTO placement_log SELECT 'seed 110', 8, placement_differs('m110_nvm', 'm110_heap');
\c
UPDATE m110_nvm SET v = v + 1, pad = CASE WHEN 3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 3)) END WHERE id % 10 = 5;
\c
UPDATE m110_heap SET v = v + 1, pad = CASE WHEN 3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 3)) END WHERE id % 10 = 5;
\c
INSERT INTO placement_log SELECT 'seed 110', 9, placement_differs('m110_nvm', 'm110_heap');
\c
SELECT count(*), sum(v) FROM m110_nvm;
\c
SELECT count(*), sum(v) FROM m110_heap;
\c
INSERT INTO placement_log SELECT 'seed 110', 10, placement_differs('m110_nvm', 'm110_heap');
\c
INSERT INTO m110_nvm SELECT g, g % 97, 0, repeat('x', 72 + g % 7) FROM generate_series(1302, 1601) g;
\c
INSERT INTO m110_heap SELECT g, g % 97, 0, repeat('x', 72 + g % 7) FROM generate_series(1302, 1601) g;
\c
INSERT INTO placement_log SELECT 'seed 110', 11, placement_differs('m110_nvm', 'm110_heap');
\c
COPY m110_nvm FROM PROGRAM 'seq 1602 1801 | sed "s/.*/&,1,0,cccccccccccccccccccccccccccccccccccc/"' WITH (FORMAT csv);
\c
COPY m110_heap FROM PROGRAM 'seq 1602 1801 | sed "s/.*/&,1,0,cccccccccccccccccccccccccccccccccccc/"' WITH (FORMAT csv);
\c
INSERT INTO placement_log SELECT 'seed 110', 12, placement_differs('m110_nvm', 'm110_heap');
\c
VACUUM m110_nvm;
\c
VACUUM m110_heap;
\c
INSERT INTO placement_log SELECT 'seed 110', 13, placement_differs('m110_nvm', 'm110_heap');
\c
UPDATE m110_nvm SET v = v + 1, pad = CASE WHEN -3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + -3)) END WHERE id % 5 = 2;
\c
UPDATE m110_heap SET v = v + 1, pad = CASE WHEN -3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + -3)) END WHERE id % 5 = 2;
\c
INSERT INTO placement_log SELECT 'seed 110', 14, placement_differs('m110_nvm', 'm110_heap');
\c
SELECT count(*), sum(v) FROM m110_nvm;
\c
SELECT count(*), sum(v) FROM m110_heap;
\c
INSERT INTO placement_log SELECT 'seed 110', 15, placement_differs('m110_nvm', 'm110_heap');
\c
UPDATE m110_nvm SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 5 = 3;
\c
UPDATE m110_heap SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 5 = 3;
\c
INSERT INTO placement_log SELECT 'seed 110', 16, placement_differs('m110_nvm', 'm110_heap');
\c
INSERT INTO m110_nvm SELECT g, 1, 0, (SELECT string_agg(md5(g::text || i::text), '') FROM generate_series(1, 100) i) FROM generate_series(1802, 1802) g;
\c
INSERT INTO m110_heap SELECT g, 1, 0, (SELECT string_agg(md5(g::text || i::text), '') FROM generate_series(1, 100) i) FROM generate_series(1802, 1802) g;
\c
INSERT INTO placement_log SELECT 'seed 110', 17, placement_differs('m110_nvm', 'm110_heap');
\c
UPDATE m110_nvm SET k = k + 1 WHERE id % 20 = 7;
\c
UPDATE m110_heap SET k = k + 1 WHERE id % 20 = 7;
\c
INSERT INTO placement_log SELECT 'seed 110', 18, placement_differs('m110_nvm', 'm110_heap');
\c
UPDATE m110_nvm SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 10 = 2;
\c
UPDATE m110_heap SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 10 = 2;
\c
INSERT INTO placement_log SELECT 'seed 110', 19, placement_differs('m110_nvm', 'm110_heap');
\c
INSERT INTO m110_nvm SELECT g, 1, 0, (SELECT string_agg(md5(g::text || i::text), '') FROM generate_series(1, 20) i) FROM generate_series(1803, 1807) g;
\c
INSERT INTO m110_heap SELECT g, 1, 0, (SELECT string_agg(md5(g::text || i::text), '') FROM generate_series(1, 20) i) FROM generate_series(1803, 1807) g;
\c
INSERT INTO placement_log SELECT 'seed 110', 20, placement_differs('m110_nvm', 'm110_heap');
\c
INSERT INTO m110_nvm SELECT g, g % 97, 0, repeat('x', 19 + g % 7) FROM generate_series(1808, 1857) g;
\c
INSERT INTO m110_heap SELECT g, g % 97, 0, repeat('x', 19 + g % 7) FROM generate_series(1808, 1857) g;
\c
INSERT INTO placement_log SELECT 'seed 110', 21, placement_differs('m110_nvm', 'm110_heap');
\c
INSERT INTO m110_nvm SELECT g, g % 97, 0, repeat('x', 52 + g % 7) FROM generate_series(1858, 2157) g;
\c
INSERT INTO m110_heap SELECT g, g % 97, 0, repeat('x', 52 + g % 7) FROM generate_series(1858, 2157) g;
\c
INSERT INTO placement_log SELECT 'seed 110', 22, placement_differs('m110_nvm', 'm110_heap');
\c
UPDATE m110_nvm SET v = v + 1, pad = CASE WHEN -3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + -3)) END WHERE id % 5 = 3;
\c
UPDATE m110_heap SET v = v + 1, pad = CASE WHEN -3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + -3)) END WHERE id % 5 = 3;
\c
INSERT INTO placement_log SELECT 'seed 110', 23, placement_differs('m110_nvm', 'm110_heap');
\c
UPDATE m110_nvm SET k = k + 1 WHERE id % 20 = 1;
\c
UPDATE m110_heap SET k = k + 1 WHERE id % 20 = 1;
\c
INSERT INTO placement_log SELECT 'seed 110', 24, placement_differs('m110_nvm', 'm110_heap');
\c
UPDATE m110_nvm SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 50 = 27;
\c
UPDATE m110_heap SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 50 = 27;
\c
INSERT INTO placement_log SELECT 'seed 110', 25, placement_differs('m110_nvm', 'm110_heap');
\c
UPDATE m110_nvm SET k = k + 1 WHERE id % 20 = 2;
\c
UPDATE m110_heap SET k = k + 1 WHERE id % 20 = 2;
\c
INSERT INTO placement_log SELECT 'seed 110', 26, placement_differs('m110_nvm', 'm110_heap');
\c
INSERT INTO m110_nvm SELECT g, g % 97, 0, repeat('x', 64 + g % 7) FROM generate_series(2158, 2158) g;
\c
INSERT INTO m110_heap SELECT g, g % 97, 0, repeat('x', 64 + g % 7) FROM generate_series(2158, 2158) g;
\c
INSERT INTO placement_log SELECT 'seed 110', 27, placement_differs('m110_nvm', 'm110_heap');
\c
SELECT count(*), sum(v) FROM m110_nvm;
\c
SELECT count(*), sum(v) FROM m110_heap;
\c
INSERT INTO placement_log SELECT 'seed 110', 28, placement_differs('m110_nvm', 'm110_heap');
\c
UPDATE m110_nvm SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 5 = 4;
\c
UPDATE m110_heap SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 5 = 4;
\c
INSERT INTO placement_log SELECT 'seed 110', 29, placement_differs('m110_nvm', 'm110_heap');
\c
INSERT INTO m110_nvm SELECT g, g % 97, 0, repeat('x', 17 + g % 7) FROM generate_series(2159, 2159) g;
\c
INSERT INTO m110_heap SELECT g, g % 97, 0, repeat('x', 17 + g % 7) FROM generate_series(2159, 2159) g;
\c
INSERT INTO placement_log SELECT 'seed 110', 30, placement_differs('m110_nvm', 'm110_heap');
\c
COPY m110_nvm FROM PROGRAM 'seq 2160 2169 | sed "s/.*/&,1,0,cccccccccccccccccccc/"' WITH (FORMAT csv);
\c
COPY m110_heap FROM PROGRAM 'seq 2160 2169 | sed "s/.*/&,1,0,cccccccccccccccccccc/"' WITH (FORMAT csv);
\c
INSERT INTO placement_log SELECT 'seed 110', 31, placement_differs('m110_nvm', 'm110_heap');
\c
VACUUM m110_nvm;
\c
VACUUM m110_heap;
\c
INSERT INTO placement_log SELECT 'seed 110', 32, placement_differs('m110_nvm', 'm110_heap');
\c
INSERT INTO m110_nvm SELECT g, g % 97, 0, repeat('x', 8 + g % 7) FROM generate_series(2170, 2219) g;
\c
INSERT INTO m110_heap SELECT g, g % 97, 0, repeat('x', 8 + g % 7) FROM generate_series(2170, 2219) g;
\c
INSERT INTO placement_log SELECT 'seed 110', 33, placement_differs('m110_nvm', 'm110_heap');
\c
SELECT count(*), sum(v) FROM m110_nvm;
\c
SELECT count(*), sum(v) FROM m110_heap;
\c
INSERT INTO placement_log SELECT 'seed 110', 34, placement_differs('m110_nvm', 'm110_heap');
\c
INSERT INTO m110_nvm SELECT g, g % 97, 0, repeat('x', 65 + g % 7) FROM generate_series(2220, 2224) g;
\c
INSERT INTO m110_heap SELECT g, g % 97, 0, repeat('x', 65 + g % 7) FROM generate_series(2220, 2224) g;
\c
INSERT INTO placement_log SELECT 'seed 110', 35, placement_differs('m110_nvm', 'm110_heap');
\c
SELECT count(*) FROM (SELECT v FROM m110_nvm WHERE id BETWEEN 300 AND 98) s;
\c
SELECT count(*) FROM (SELECT v FROM m110_heap WHERE id BETWEEN 300 AND 98) s;
\c
INSERT INTO placement_log SELECT 'seed 110', 36, placement_differs('m110_nvm', 'm110_heap');
\c
INSERT INTO m110_nvm SELECT g, g % 97, 0, repeat('x', 2 + g % 7) FROM generate_series(2225, 2229) g;
\c
INSERT INTO m110_heap SELECT g, g % 97, 0, repeat('x', 2 + g % 7) FROM generate_series(2225, 2229) g;
\c
INSERT INTO placement_log SELECT 'seed 110', 37, placement_differs('m110_nvm', 'm110_heap');
\c
VACUUM m110_nvm;
\c
VACUUM m110_heap;
\c
INSERT INTO placement_log SELECT 'seed 110', 38, placement_differs('m110_nvm', 'm110_heap');
\c
INSERT INTO m110_nvm SELECT g, g % 97, 0, repeat('x', 18 + g % 7) FROM generate_series(2230, 2279) g;
\c
INSERT INTO m110_heap SELECT g, g % 97, 0, repeat('x', 18 + g % 7) FROM generate_series(2230, 2279) g;
\c
INSERT INTO placement_log SELECT 'seed 110', 39, placement_differs('m110_nvm', 'm110_heap');
\c
SELECT count(*), sum(v) FROM m110_nvm;
\c
SELECT count(*), sum(v) FROM m110_heap;
\c
INSERT INTO placement_log SELECT 'seed 110', 40, placement_differs('m110_nvm', 'm110_heap');
\c
INSERT INTO m110_nvm SELECT g, g % 97, 0, repeat('x', 43 + g % 7) FROM generate_series(2280, 2280) g;
\c
INSERT INTO m110_heap SELECT g, g % 97, 0, repeat('x', 43 + g % 7) FROM generate_series(2280, 2280) g;
\c
INSERT INTO placement_log SELECT 'seed 110', 41, placement_differs('m110_nvm', 'm110_heap');
\c
INSERT INTO m110_nvm SELECT g, 1, 0, (SELECT string_agg(md5(g::text || i::text), '') FROM generate_series(1, 300) i) FROM generate_series(2281, 2281) g;
\c
INSERT INTO m110_heap SELECT g, 1, 0, (SELECT string_agg(md5(g::text || i::text), '') FROM generate_series(1, 300) i) FROM generate_series(2281, 2281) g;
\c
INSERT INTO placement_log SELECT 'seed 110', 42, placement_differs('m110_nvm', 'm110_heap');
\c
INSERT INTO m110_nvm SELECT g, g % 97, 0, repeat('x', 63 + g % 7) FROM generate_series(2282, 2282) g;
\c
INSERT INTO m110_heap SELECT g, g % 97, 0, repeat('x', 63 + g % 7) FROM generate_series(2282, 2282) g;
\c
INSERT INTO placement_log SELECT 'seed 110', 43, placement_differs('m110_nvm', 'm110_heap');
\c
INSERT INTO m110_nvm SELECT g, g % 97, 0, repeat('x', 25 + g % 7) FROM generate_series(2283, 2332) g;
\c
INSERT INTO m110_heap SELECT g, g % 97, 0, repeat('x', 25 + g % 7) FROM generate_series(2283, 2332) g;
\c
INSERT INTO placement_log SELECT 'seed 110', 44, placement_differs('m110_nvm', 'm110_heap');
\c
SELECT count(*), sum(v) FROM m110_nvm;
\c
SELECT count(*), sum(v) FROM m110_heap;
\c
INSERT INTO placement_log SELECT 'seed 110', 45, placement_differs('m110_nvm', 'm110_heap');
\c
SELECT count(*), sum(v) FROM m110_nvm;
\c
SELECT count(*), sum(v) FROM m110_heap;
\c
INSERT INTO placement_log SELECT 'seed 110', 46, placement_differs('m110_nvm', 'm110_heap');
\c
DELETE FROM m110_nvm WHERE id % 40 = 17 AND id > 1838;
\c
DELETE FROM m110_heap WHERE id % 40 = 17 AND id > 1838;
\c
INSERT INTO placement_log SELECT 'seed 110', 47, placement_differs('m110_nvm', 'm110_heap');
\c
UPDATE m110_nvm SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 10 = 2;
\c
UPDATE m110_heap SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 10 = 2;
\c
INSERT INTO placement_log SELECT 'seed 110', 48, placement_differs('m110_nvm', 'm110_heap');
\c
VACUUM m110_nvm;
\c
VACUUM m110_heap;
\c
INSERT INTO placement_log SELECT 'seed 110', 49, placement_differs('m110_nvm', 'm110_heap');
\c
SELECT count(*) FROM (SELECT v FROM m110_nvm WHERE id BETWEEN 1993 AND 2319) s;
\c
SELECT count(*) FROM (SELECT v FROM m110_heap WHERE id BETWEEN 1993 AND 2319) s;
\c
INSERT INTO placement_log SELECT 'seed 110', 50, placement_differs('m110_nvm', 'm110_heap');
\c
BEGIN; UPDATE m110_nvm SET v = v + 1, pad = pad || 'z' WHERE id % 5 = 2; ROLLBACK;
\c
BEGIN; UPDATE m110_heap SET v = v + 1, pad = pad || 'z' WHERE id % 5 = 2; ROLLBACK;
\c
INSERT INTO placement_log SELECT 'seed 110', 51, placement_differs('m110_nvm', 'm110_heap');
\c
UPDATE m110_nvm SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 5 = 3;
\c
UPDATE m110_heap SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 5 = 3;
\c
INSERT INTO placement_log SELECT 'seed 110', 52, placement_differs('m110_nvm', 'm110_heap');
\c
SELECT count(*), sum(v) FROM m110_nvm;
\c
SELECT count(*), sum(v) FROM m110_heap;
\c
INSERT INTO placement_log SELECT 'seed 110', 53, placement_differs('m110_nvm', 'm110_heap');
\c
UPDATE m110_nvm SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 2 = 0;
\c
UPDATE m110_heap SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 2 = 0;
\c
INSERT INTO placement_log SELECT 'seed 110', 54, placement_differs('m110_nvm', 'm110_heap');
\c
UPDATE m110_nvm SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 2 = 1;
\c
UPDATE m110_heap SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 2 = 1;
\c
INSERT INTO placement_log SELECT 'seed 110', 55, placement_differs('m110_nvm', 'm110_heap');
\c
SELECT count(*), sum(v) FROM m110_nvm;
\c
SELECT count(*), sum(v) FROM m110_heap;
\c
INSERT INTO placement_log SELECT 'seed 110', 56, placement_differs('m110_nvm', 'm110_heap');
\c
BEGIN; UPDATE m110_nvm SET v = v + 1, pad = pad || 'z' WHERE id % 5 = 0; ROLLBACK;
\c
BEGIN; UPDATE m110_heap SET v = v + 1, pad = pad || 'z' WHERE id % 5 = 0; ROLLBACK;
\c
INSERT INTO placement_log SELECT 'seed 110', 57, placement_differs('m110_nvm', 'm110_heap');
\c
UPDATE m110_nvm SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 10 = 3;
\c
UPDATE m110_heap SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 10 = 3;
\c
INSERT INTO placement_log SELECT 'seed 110', 58, placement_differs('m110_nvm', 'm110_heap');
\c
DELETE FROM m110_nvm WHERE id % 10 = 3 AND id > 894;
\c
DELETE FROM m110_heap WHERE id % 10 = 3 AND id > 894;
\c
INSERT INTO placement_log SELECT 'seed 110', 59, placement_differs('m110_nvm', 'm110_heap');
\c
SELECT count(*) FROM (SELECT v FROM m110_nvm WHERE id BETWEEN 1560 AND 607) s;
\c
SELECT count(*) FROM (SELECT v FROM m110_heap WHERE id BETWEEN 1560 AND 607) s;
\c
INSERT INTO placement_log SELECT 'seed 110', 60, placement_differs('m110_nvm', 'm110_heap');
\c
\o
-- the mix of seed 101 (fillfactor 100)
CREATE TABLE m101_nvm (id int PRIMARY KEY, k int, v int, pad text) USING nvm_am
  WITH (fillfactor = 100, autovacuum_enabled = false);
CREATE INDEX ON m101_nvm (k);
CREATE TABLE m101_heap (id int PRIMARY KEY, k int, v int, pad text) USING heap
  WITH (fillfactor = 100, autovacuum_enabled = false);
CREATE INDEX ON m101_heap (k);
\o /dev/null
SELECT count(*), sum(v) FROM m101_nvm;
\c
SELECT count(*), sum(v) FROM m101_heap;
\c
INSERT INTO placement_log SELECT 'seed 101', 1, placement_differs('m101_nvm', 'm101_heap');
\c
INSERT INTO m101_nvm SELECT g, g % 97, 0, repeat('x', 114 + g % 7) FROM generate_series(1, 5) g;
\c
INSERT INTO m101_heap SELECT g, g % 97, 0, repeat('x', 114 + g % 7) FROM generate_series(1, 5) g;
\c
INSERT INTO placement_log SELECT 'seed 101', 2, placement_differs('m101_nvm', 'm101_heap');
\c
UPDATE m101_nvm SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 50 = 44;
\c
UPDATE m101_heap SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 50 = 44;
\c
INSERT INTO placement_log SELECT 'seed 101', 3, placement_differs('m101_nvm', 'm101_heap');
\c
UPDATE m101_nvm SET k = k + 1 WHERE id % 20 = 2;
\c
UPDATE m101_heap SET k = k + 1 WHERE id % 20 = 2;
\c
INSERT INTO placement_log SELECT 'seed 101', 4, placement_differs('m101_nvm', 'm101_heap');
\c
UPDATE m101_nvm SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 5 = 1;
\c
UPDATE m101_heap SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 5 = 1;
\c
INSERT INTO placement_log SELECT 'seed 101', 5, placement_differs('m101_nvm', 'm101_heap');
\c
SELECT count(*), sum(v) FROM m101_nvm;
\c
SELECT count(*), sum(v) FROM m101_heap;
\c
INSERT INTO placement_log SELECT 'seed 101', 6, placement_differs('m101_nvm', 'm101_heap');
\c
COPY m101_nvm FROM PROGRAM 'seq 6 1005 | sed "s/.*/&,1,0,cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc/"' WITH (FORMAT csv);
\c
COPY m101_heap FROM PROGRAM 'seq 6 1005 | sed "s/.*/&,1,0,cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc/"' WITH (FORMAT csv);
\c
INSERT INTO placement_log SELECT 'seed 101', 7, placement_differs('m101_nvm', 'm101_heap');
\c
UPDATE m101_nvm SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 50 = 20;
\c
UPDATE m101_heap SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 50 = 20;
\c
INSERT INTO placement_log SELECT 'seed 101', 8, placement_differs('m101_nvm', 'm101_heap');
\c
VACUUM m101_nvm;
\c
VACUUM m101_heap;
\c
INSERT INTO placement_log SELECT 'seed 101', 9, placement_differs('m101_nvm', 'm101_heap');
\c
COPY m101_nvm FROM PROGRAM 'seq 1006 1205 | sed "s/.*/&,1,0,ccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc/"' WITH (FORMAT csv);
\c
COPY m101_heap FROM PROGRAM 'seq 1006 1205 | sed "s/.*/&,1,0,ccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc/"' WITH (FORMAT csv);
\c
INSERT INTO placement_log SELECT 'seed 101', 10, placement_differs('m101_nvm', 'm101_heap');
\c
UPDATE m101_nvm SET v = v + 1, pad = CASE WHEN -3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + -3)) END WHERE id % 2 = 1;
\c
UPDATE m101_heap SET v = v + 1, pad = CASE WHEN -3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + -3)) END WHERE id % 2 = 1;
\c
INSERT INTO placement_log SELECT 'seed 101', 11, placement_differs('m101_nvm', 'm101_heap');
\c
UPDATE m101_nvm SET v = v + 1, pad = CASE WHEN 3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 3)) END WHERE id % 5 = 0;
\c
UPDATE m101_heap SET v = v + 1, pad = CASE WHEN 3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 3)) END WHERE id % 5 = 0;
\c
INSERT INTO placement_log SELECT 'seed 101', 12, placement_differs('m101_nvm', 'm101_heap');
\c
VACUUM m101_nvm;
\c
VACUUM m101_heap;
\c
INSERT INTO placement_log SELECT 'seed 101', 13, placement_differs('m101_nvm', 'm101_heap');
\c
INSERT INTO m101_nvm SELECT g, 1, 0, (SELECT string_agg(md5(g::text || i::text), '') FROM generate_series(1, 100) i) FROM generate_series(1206, 1210) g;
\c
INSERT INTO m101_heap SELECT g, 1, 0, (SELECT string_agg(md5(g::text || i::text), '') FROM generate_series(1, 100) i) FROM generate_series(1206, 1210) g;
\c
INSERT INTO placement_log SELECT 'seed 101', 14, placement_differs('m101_nvm', 'm101_heap');
\c
COPY m101_nvm FROM PROGRAM 'seq 1211 1410 | sed "s/.*/&,1,0,cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc/"' WITH (FORMAT csv);
\c
COPY m101_heap FROM PROGRAM 'seq 1211 1410 | sed "s/.*/&,1,0,cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc/"' WITH (FORMAT csv);
\c
INSERT INTO placement_log SELECT 'seed 101', 15, placement_differs('m101_nvm', 'm101_heap');
\c
DELETE FROM m101_nvm WHERE id % 3 = 1 AND id > 1369;
\c
DELETE FROM m101_heap WHERE id % 3 = 1 AND id > 1369;
\c
INSERT INTO placement_log SELECT 'seed 101', 16, placement_differs('m101_nvm', 'm101_heap');
\c
DELETE FROM m101_nvm WHERE id % 3 = 1 AND id > 443;
\c
DELETE FROM m101_heap WHERE id % 3 = 1 AND id > 443;
\c
INSERT INTO placement_log SELECT 'seed 101', 17, placement_differs('m101_nvm', 'm101_heap');
\c
SELECT count(*), sum(v) FROM m101_nvm;
\c
SELECT count(*), sum(v) FROM m101_heap;
\c
INSERT INTO placement_log SELECT 'seed 101', 18, placement_differs('m101_nvm', 'm101_heap');
\c
INSERT INTO m101_nvm SELECT g, g % 97, 0, repeat('x', 12 + g % 7) FROM generate_series(1411, 1460) g;
\c
INSERT INTO m101_heap SELECT g, g % 97, 0, repeat('x', 12 + g % 7) FROM generate_series(1411, 1460) g;
\c
INSERT INTO placement_log SELECT 'seed 101', 19, placement_differs('m101_nvm', 'm101_heap');
\c
UPDATE m101_nvm SET k = k + 1 WHERE id % 20 = 0;
\c
UPDATE m101_heap SET k = k + 1 WHERE id % 20 = 0;
\c
INSERT INTO placement_log SELECT 'seed 101', 20, placement_differs('m101_nvm', 'm101_heap');
\c
UPDATE m101_nvm SET v = v + 1, pad = CASE WHEN -3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + -3)) END WHERE id % 5 = 0;
\c
UPDATE m101_heap SET v = v + 1, pad = CASE WHEN -3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + -3)) END WHERE id % 5 = 0;
\c
INSERT INTO placement_log SELECT 'seed 101', 21, placement_differs('m101_nvm', 'm101_heap');
\c
UPDATE m101_nvm SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 10 = 1;
\c
UPDATE m101_heap SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 10 = 1;
\c
INSERT INTO placement_log SELECT 'seed 101', 22, placement_differs('m101_nvm', 'm101_heap');
\c
DELETE FROM m101_nvm WHERE id % 40 = 23 AND id > 1336;
\c
DELETE FROM m101_heap WHERE id % 40 = 23 AND id > 1336;
\c
INSERT INTO placement_log SELECT 'seed 101', 23, placement_differs('m101_nvm', 'm101_heap');
\c
SELECT count(*) FROM (SELECT v FROM m101_nvm WHERE id BETWEEN 973 AND 390) s;
\c
SELECT count(*) FROM (SELECT v FROM m101_heap WHERE id BETWEEN 973 AND 390) s;
\c
INSERT INTO placement_log SELECT 'seed 101', 24, placement_differs('m101_nvm', 'm101_heap');
\c
SELECT count(*), sum(v) FROM m101_nvm;
\c
SELECT count(*), sum(v) FROM m101_heap;
\c
INSERT INTO placement_log SELECT 'seed 101', 25, placement_differs('m101_nvm', 'm101_heap');
\c
INSERT INTO m101_nvm SELECT g, 1, 0, (SELECT string_agg(md5(g::text || i::text), '') FROM generate_series(1, 20) i) FROM generate_series(1461, 1465) g;
\c
INSERT INTO m101_heap SELECT g, 1, 0, (SELECT string_agg(md5(g::text || i::text), '') FROM generate_series(1, 20) i) FROM generate_series(1461, 1465) g;
\c
INSERT INTO placement_log SELECT 'seed 101', 26, placement_differs('m101_nvm', 'm101_heap');
\c
BEGIN; UPDATE m101_nvm SET v = v + 1, pad = pad || 'z' WHERE id % 10 = 0; ROLLBACK;
\c
BEGIN; UPDATE m101_heap SET v = v + 1, pad = pad || 'z' WHERE id % 10 = 0; ROLLBACK;
\c
INSERT INTO placement_log SELECT 'seed 101', 27, placement_differs('m101_nvm', 'm101_heap');
\c
INSERT INTO m101_nvm SELECT g, g % 97, 0, repeat('x', 17 + g % 7) FROM generate_series(1466, 1466) g;
\c
INSERT INTO m101_heap SELECT g, g % 97, 0, repeat('x', 17 + g % 7) FROM generate_series(1466, 1466) g;
\c
INSERT INTO placement_log SELECT 'seed 101', 28, placement_differs('m101_nvm', 'm101_heap');
\c
SELECT count(*) FROM (SELECT v FROM m101_nvm WHERE id BETWEEN 708 AND 1144) s;
\c
SELECT count(*) FROM (SELECT v FROM m101_heap WHERE id BETWEEN 708 AND 1144) s;
\c
INSERT INTO placement_log SELECT 'seed 101', 29, placement_differs('m101_nvm', 'm101_heap');
\c
BEGIN; UPDATE m101_nvm SET v = v + 1, pad = pad || 'z' WHERE id % 5 = 0; ROLLBACK;
\c
BEGIN; UPDATE m101_heap SET v = v + 1, pad = pad || 'z' WHERE id % 5 = 0; ROLLBACK;
\c
INSERT INTO placement_log SELECT 'seed 101', 30, placement_differs('m101_nvm', 'm101_heap');
\c
VACUUM m101_nvm;
\c
VACUUM m101_heap;
\c
INSERT INTO placement_log SELECT 'seed 101', 31, placement_differs('m101_nvm', 'm101_heap');
\c
BEGIN; UPDATE m101_nvm SET v = v + 1, pad = pad || 'z' WHERE id % 10 = 9; ROLLBACK;
\c
BEGIN; UPDATE m101_heap SET v = v + 1, pad = pad || 'z' WHERE id % 10 = 9; ROLLBACK;
\c
INSERT INTO placement_log SELECT 'seed 101', 32, placement_differs('m101_nvm', 'm101_heap');
\c
COPY m101_nvm FROM PROGRAM 'seq 1467 1666 | sed "s/.*/&,1,0,cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc/"' WITH (FORMAT csv);
\c
COPY m101_heap FROM PROGRAM 'seq 1467 1666 | sed "s/.*/&,1,0,cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc/"' WITH (FORMAT csv);
\c
INSERT INTO placement_log SELECT 'seed 101', 33, placement_differs('m101_nvm', 'm101_heap');
\c
VACUUM m101_nvm;
\c
VACUUM m101_heap;
\c
INSERT INTO placement_log SELECT 'seed 101', 34, placement_differs('m101_nvm', 'm101_heap');
\c
UPDATE m101_nvm SET v = v + 1, pad = CASE WHEN -3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + -3)) END WHERE id % 5 = 4;
\c
UPDATE m101_heap SET v = v + 1, pad = CASE WHEN -3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + -3)) END WHERE id % 5 = 4;
\c
INSERT INTO placement_log SELECT 'seed 101', 35, placement_differs('m101_nvm', 'm101_heap');
\c
UPDATE m101_nvm SET v = v + 1, pad = CASE WHEN 3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 3)) END WHERE id % 2 = 0;
\c
UPDATE m101_heap SET v = v + 1, pad = CASE WHEN 3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 3)) END WHERE id % 2 = 0;
\c
INSERT INTO placement_log SELECT 'seed 101', 36, placement_differs('m101_nvm', 'm101_heap');
\c
UPDATE m101_nvm SET k = k + 1 WHERE id % 20 = 2;
\c
UPDATE m101_heap SET k = k + 1 WHERE id % 20 = 2;
\c
INSERT INTO placement_log SELECT 'seed 101', 37, placement_differs('m101_nvm', 'm101_heap');
\c
INSERT INTO m101_nvm SELECT g, g % 97, 0, repeat('x', 238 + g % 7) FROM generate_series(1667, 1716) g;
\c
INSERT INTO m101_heap SELECT g, g % 97, 0, repeat('x', 238 + g % 7) FROM generate_series(1667, 1716) g;
\c
INSERT INTO placement_log SELECT 'seed 101', 38, placement_differs('m101_nvm', 'm101_heap');
\c
INSERT INTO m101_nvm SELECT g, g % 97, 0, repeat('x', 143 + g % 7) FROM generate_series(1717, 1721) g;
\c
INSERT INTO m101_heap SELECT g, g % 97, 0, repeat('x', 143 + g % 7) FROM generate_series(1717, 1721) g;
\c
INSERT INTO placement_log SELECT 'seed 101', 39, placement_differs('m101_nvm', 'm101_heap');
\c
VACUUM m101_nvm;
\c
VACUUM m101_heap;
\c
INSERT INTO placement_log SELECT 'seed 101', 40, placement_differs('m101_nvm', 'm101_heap');
\c
INSERT INTO m101_nvm SELECT g, 1, 0, (SELECT string_agg(md5(g::text || i::text), '') FROM generate_series(1, 20) i) FROM generate_series(1722, 1726) g;
\c
INSERT INTO m101_heap SELECT g, 1, 0, (SELECT string_agg(md5(g::text || i::text), '') FROM generate_series(1, 20) i) FROM generate_series(1722, 1726) g;
\c
INSERT INTO placement_log SELECT 'seed 101', 41, placement_differs('m101_nvm', 'm101_heap');
\c
UPDATE m101_nvm SET v = v + 1, pad = CASE WHEN -3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + -3)) END WHERE id % 5 = 2;
\c
UPDATE m101_heap SET v = v + 1, pad = CASE WHEN -3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + -3)) END WHERE id % 5 = 2;
\c
INSERT INTO placement_log SELECT 'seed 101', 42, placement_differs('m101_nvm', 'm101_heap');
\c
UPDATE m101_nvm SET v = v + 1, pad = CASE WHEN 3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 3)) END WHERE id % 50 = 7;
\c
UPDATE m101_heap SET v = v + 1, pad = CASE WHEN 3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 3)) END WHERE id % 50 = 7;
\c
INSERT INTO placement_log SELECT 'seed 101', 43, placement_differs('m101_nvm', 'm101_heap');
\c
UPDATE m101_nvm SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 2 = 1;
\c
UPDATE m101_heap SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 2 = 1;
\c
INSERT INTO placement_log SELECT 'seed 101', 44, placement_differs('m101_nvm', 'm101_heap');
\c
INSERT INTO m101_nvm SELECT g, g % 97, 0, repeat('x', 203 + g % 7) FROM generate_series(1727, 1727) g;
\c
INSERT INTO m101_heap SELECT g, g % 97, 0, repeat('x', 203 + g % 7) FROM generate_series(1727, 1727) g;
\c
INSERT INTO placement_log SELECT 'seed 101', 45, placement_differs('m101_nvm', 'm101_heap');
\c
INSERT INTO m101_nvm SELECT g, 1, 0, (SELECT string_agg(md5(g::text || i::text), '') FROM generate_series(1, 300) i) FROM generate_series(1728, 1732) g;
\c
INSERT INTO m101_heap SELECT g, 1, 0, (SELECT string_agg(md5(g::text || i::text), '') FROM generate_series(1, 300) i) FROM generate_series(1728, 1732) g;
\c
INSERT INTO placement_log SELECT 'seed 101', 46, placement_differs('m101_nvm', 'm101_heap');
\c
SELECT count(*) FROM (SELECT v FROM m101_nvm WHERE id BETWEEN 91 AND 1697) s;
\c
SELECT count(*) FROM (SELECT v FROM m101_heap WHERE id BETWEEN 91 AND 1697) s;
\c
INSERT INTO placement_log SELECT 'seed 101', 47, placement_differs('m101_nvm', 'm101_heap');
\c
UPDATE m101_nvm SET k = k + 1 WHERE id % 5 = 2;
\c
UPDATE m101_heap SET k = k + 1 WHERE id % 5 = 2;
\c
INSERT INTO placement_log SELECT 'seed 101', 48, placement_differs('m101_nvm', 'm101_heap');
\c
SELECT count(*), sum(v) FROM m101_nvm;
\c
SELECT count(*), sum(v) FROM m101_heap;
\c
INSERT INTO placement_log SELECT 'seed 101', 49, placement_differs('m101_nvm', 'm101_heap');
\c
VACUUM m101_nvm;
\c
VACUUM m101_heap;
\c
INSERT INTO placement_log SELECT 'seed 101', 50, placement_differs('m101_nvm', 'm101_heap');
\c
UPDATE m101_nvm SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 10 = 5;
\c
UPDATE m101_heap SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 10 = 5;
\c
INSERT INTO placement_log SELECT 'seed 101', 51, placement_differs('m101_nvm', 'm101_heap');
\c
UPDATE m101_nvm SET v = v + 1, pad = CASE WHEN 3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 3)) END WHERE id % 10 = 5;
\c
UPDATE m101_heap SET v = v + 1, pad = CASE WHEN 3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 3)) END WHERE id % 10 = 5;
\c
INSERT INTO placement_log SELECT 'seed 101', 52, placement_differs('m101_nvm', 'm101_heap');
\c
DELETE FROM m101_nvm WHERE id % 10 = 0 AND id > 1525;
\c
DELETE FROM m101_heap WHERE id % 10 = 0 AND id > 1525;
\c
INSERT INTO placement_log SELECT 'seed 101', 53, placement_differs('m101_nvm', 'm101_heap');
\c
UPDATE m101_nvm SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 2 = 0;
\c
UPDATE m101_heap SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 2 = 0;
\c
INSERT INTO placement_log SELECT 'seed 101', 54, placement_differs('m101_nvm', 'm101_heap');
\c
VACUUM m101_nvm;
\c
VACUUM m101_heap;
\c
INSERT INTO placement_log SELECT 'seed 101', 55, placement_differs('m101_nvm', 'm101_heap');
\c
INSERT INTO m101_nvm SELECT g, g % 97, 0, repeat('x', 176 + g % 7) FROM generate_series(1733, 1737) g;
\c
INSERT INTO m101_heap SELECT g, g % 97, 0, repeat('x', 176 + g % 7) FROM generate_series(1733, 1737) g;
\c
INSERT INTO placement_log SELECT 'seed 101', 56, placement_differs('m101_nvm', 'm101_heap');
\c
INSERT INTO m101_nvm SELECT g, g % 97, 0, repeat('x', 13 + g % 7) FROM generate_series(1738, 1787) g;
\c
INSERT INTO m101_heap SELECT g, g % 97, 0, repeat('x', 13 + g % 7) FROM generate_series(1738, 1787) g;
\c
INSERT INTO placement_log SELECT 'seed 101', 57, placement_differs('m101_nvm', 'm101_heap');
\c
SELECT count(*), sum(v) FROM m101_nvm;
\c
SELECT count(*), sum(v) FROM m101_heap;
\c
INSERT INTO placement_log SELECT 'seed 101', 58, placement_differs('m101_nvm', 'm101_heap');
\c
INSERT INTO m101_nvm SELECT g, 1, 0, (SELECT string_agg(md5(g::text || i::text), '') FROM generate_series(1, 300) i) FROM generate_series(1788, 1788) g;
\c
INSERT INTO m101_heap SELECT g, 1, 0, (SELECT string_agg(md5(g::text || i::text), '') FROM generate_series(1, 300) i) FROM generate_series(1788, 1788) g;
\c
INSERT INTO placement_log SELECT 'seed 101', 59, placement_differs('m101_nvm', 'm101_heap');
\c
VACUUM m101_nvm;
\c
VACUUM m101_heap;
\c
INSERT INTO placement_log SELECT 'seed 101', 60, placement_differs('m101_nvm', 'm101_heap');
\c
\o
-- the mix of seed 107 (fillfactor 100)
CREATE TABLE m107_nvm (id int PRIMARY KEY, k int, v int, pad text) USING nvm_am
  WITH (fillfactor = 100, autovacuum_enabled = false);
CREATE INDEX ON m107_nvm (k);
CREATE TABLE m107_heap (id int PRIMARY KEY, k int, v int, pad text) USING heap
  WITH (fillfactor = 100, autovacuum_enabled = false);
CREATE INDEX ON m107_heap (k);
\o /dev/null
SELECT count(*), sum(v) FROM m107_nvm;
\c
SELECT count(*), sum(v) FROM m107_heap;
\c
INSERT INTO placement_log SELECT 'seed 107', 1, placement_differs('m107_nvm', 'm107_heap');
\c
COPY m107_nvm FROM PROGRAM 'seq 1 200 | sed "s/.*/&,1,0,ccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc/"' WITH (FORMAT csv);
\c
COPY m107_heap FROM PROGRAM 'seq 1 200 | sed "s/.*/&,1,0,ccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc/"' WITH (FORMAT csv);
\c
INSERT INTO placement_log SELECT 'seed 107', 2, placement_differs('m107_nvm', 'm107_heap');
\c
DELETE FROM m107_nvm WHERE id % 40 = 7 AND id > 64;
\c
DELETE FROM m107_heap WHERE id % 40 = 7 AND id > 64;
\c
INSERT INTO placement_log SELECT 'seed 107', 3, placement_differs('m107_nvm', 'm107_heap');
\c
UPDATE m107_nvm SET v = v + 1, pad = CASE WHEN 3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 3)) END WHERE id % 2 = 1;
\c
UPDATE m107_heap SET v = v + 1, pad = CASE WHEN 3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 3)) END WHERE id % 2 = 1;
\c
INSERT INTO placement_log SELECT 'seed 107', 4, placement_differs('m107_nvm', 'm107_heap');
\c
UPDATE m107_nvm SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 5 = 4;
\c
UPDATE m107_heap SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 5 = 4;
\c
INSERT INTO placement_log SELECT 'seed 107', 5, placement_differs('m107_nvm', 'm107_heap');
\c
UPDATE m107_nvm SET v = v + 1, pad = CASE WHEN 3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 3)) END WHERE id % 5 = 1;
\c
UPDATE m107_heap SET v = v + 1, pad = CASE WHEN 3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 3)) END WHERE id % 5 = 1;
\c
INSERT INTO placement_log SELECT 'seed 107', 6, placement_differs('m107_nvm', 'm107_heap');
\c
INSERT INTO m107_nvm SELECT g, g % 97, 0, repeat('x', 330 + g % 7) FROM generate_series(201, 201) g;
\c
INSERT INTO m107_heap SELECT g, g % 97, 0, repeat('x', 330 + g % 7) FROM generate_series(201, 201) g;
\c
INSERT INTO placement_log SELECT 'seed 107', 7, placement_differs('m107_nvm', 'm107_heap');
\c
INSERT INTO m107_nvm SELECT g, g % 97, 0, repeat('x', 385 + g % 7) FROM generate_series(202, 501) g;
\c
INSERT INTO m107_heap SELECT g, g % 97, 0, repeat('x', 385 + g % 7) FROM generate_series(202, 501) g;
\c
INSERT INTO placement_log SELECT 'seed 107', 8, placement_differs('m107_nvm', 'm107_heap');
\c
UPDATE m107_nvm SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 50 = 17;
\c
UPDATE m107_heap SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 50 = 17;
\c
INSERT INTO placement_log SELECT 'seed 107', 9, placement_differs('m107_nvm', 'm107_heap');
\c
UPDATE m107_nvm SET v = v + 1, pad = CASE WHEN -3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + -3)) END WHERE id % 10 = 6;
\c
UPDATE m107_heap SET v = v + 1, pad = CASE WHEN -3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + -3)) END WHERE id % 10 = 6;
\c
INSERT INTO placement_log SELECT 'seed 107', 10, placement_differs('m107_nvm', 'm107_heap');
\c
INSERT INTO m107_nvm SELECT g, 1, 0, (SELECT string_agg(md5(g::text || i::text), '') FROM generate_series(1, 20) i) FROM generate_series(502, 502) g;
\c
INSERT INTO m107_heap SELECT g, 1, 0, (SELECT string_agg(md5(g::text || i::text), '') FROM generate_series(1, 20) i) FROM generate_series(502, 502) g;
\c
INSERT INTO placement_log SELECT 'seed 107', 11, placement_differs('m107_nvm', 'm107_heap');
\c
SELECT count(*) FROM (SELECT v FROM m107_nvm WHERE id BETWEEN 158 AND 254) s;
\c
SELECT count(*) FROM (SELECT v FROM m107_heap WHERE id BETWEEN 158 AND 254) s;
\c
INSERT INTO placement_log SELECT 'seed 107', 12, placement_differs('m107_nvm', 'm107_heap');
\c
UPDATE m107_nvm SET v = v + 1, pad = CASE WHEN -3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + -3)) END WHERE id % 10 = 0;
\c
UPDATE m107_heap SET v = v + 1, pad = CASE WHEN -3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + -3)) END WHERE id % 10 = 0;
\c
INSERT INTO placement_log SELECT 'seed 107', 13, placement_differs('m107_nvm', 'm107_heap');
\c
BEGIN; UPDATE m107_nvm SET v = v + 1, pad = pad || 'z' WHERE id % 10 = 4; ROLLBACK;
\c
BEGIN; UPDATE m107_heap SET v = v + 1, pad = pad || 'z' WHERE id % 10 = 4; ROLLBACK;
\c
INSERT INTO placement_log SELECT 'seed 107', 14, placement_differs('m107_nvm', 'm107_heap');
\c
UPDATE m107_nvm SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 5 = 1;
\c
UPDATE m107_heap SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 5 = 1;
\c
INSERT INTO placement_log SELECT 'seed 107', 15, placement_differs('m107_nvm', 'm107_heap');
\c
SELECT count(*) FROM (SELECT v FROM m107_nvm WHERE id BETWEEN 401 AND 274) s;
\c
SELECT count(*) FROM (SELECT v FROM m107_heap WHERE id BETWEEN 401 AND 274) s;
\c
INSERT INTO placement_log SELECT 'seed 107', 16, placement_differs('m107_nvm', 'm107_heap');
\c
UPDATE m107_nvm SET v = v + 1, pad = CASE WHEN -3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + -3)) END WHERE id % 5 = 2;
\c
UPDATE m107_heap SET v = v + 1, pad = CASE WHEN -3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + -3)) END WHERE id % 5 = 2;
\c
INSERT INTO placement_log SELECT 'seed 107', 17, placement_differs('m107_nvm', 'm107_heap');
\c
SELECT count(*), sum(v) FROM m107_nvm;
\c
SELECT count(*), sum(v) FROM m107_heap;
\c
INSERT INTO placement_log SELECT 'seed 107', 18, placement_differs('m107_nvm', 'm107_heap');
\c
COPY m107_nvm FROM PROGRAM 'seq 503 1502 | sed "s/.*/&,1,0,cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc/"' WITH (FORMAT csv);
\c
COPY m107_heap FROM PROGRAM 'seq 503 1502 | sed "s/.*/&,1,0,cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc/"' WITH (FORMAT csv);
\c
INSERT INTO placement_log SELECT 'seed 107', 19, placement_differs('m107_nvm', 'm107_heap');
\c
SELECT count(*), sum(v) FROM m107_nvm;
\c
SELECT count(*), sum(v) FROM m107_heap;
\c
INSERT INTO placement_log SELECT 'seed 107', 20, placement_differs('m107_nvm', 'm107_heap');
\c
UPDATE m107_nvm SET k = k + 1 WHERE id % 5 = 3;
\c
UPDATE m107_heap SET k = k + 1 WHERE id % 5 = 3;
\c
INSERT INTO placement_log SELECT 'seed 107', 21, placement_differs('m107_nvm', 'm107_heap');
\c
SELECT count(*) FROM (SELECT v FROM m107_nvm WHERE id BETWEEN 1159 AND 124) s;
\c
SELECT count(*) FROM (SELECT v FROM m107_heap WHERE id BETWEEN 1159 AND 124) s;
\c
INSERT INTO placement_log SELECT 'seed 107', 22, placement_differs('m107_nvm', 'm107_heap');
\c
SELECT count(*), sum(v) FROM m107_nvm;
\c
SELECT count(*), sum(v) FROM m107_heap;
\c
INSERT INTO placement_log SELECT 'seed 107', 23, placement_differs('m107_nvm', 'm107_heap');
\c
DELETE FROM m107_nvm WHERE id % 40 = 7 AND id > 1402;
\c
DELETE FROM m107_heap WHERE id % 40 = 7 AND id > 1402;
\c
INSERT INTO placement_log SELECT 'seed 107', 24, placement_differs('m107_nvm', 'm107_heap');
\c
SELECT count(*), sum(v) FROM m107_nvm;
\c
SELECT count(*), sum(v) FROM m107_heap;
\c
INSERT INTO placement_log SELECT 'seed 107', 25, placement_differs('m107_nvm', 'm107_heap');
\c
UPDATE m107_nvm SET k = k + 1 WHERE id % 20 = 0;
\c
UPDATE m107_heap SET k = k + 1 WHERE id % 20 = 0;
\c
INSERT INTO placement_log SELECT 'seed 107', 26, placement_differs('m107_nvm', 'm107_heap');
\c
UPDATE m107_nvm SET v = v + 1, pad = CASE WHEN 3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 3)) END WHERE id % 50 = 47;
\c
UPDATE m107_heap SET v = v + 1, pad = CASE WHEN 3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 3)) END WHERE id % 50 = 47;
\c
INSERT INTO placement_log SELECT 'seed 107', 27, placement_differs('m107_nvm', 'm107_heap');
\c
UPDATE m107_nvm SET v = v + 1, pad = CASE WHEN 3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 3)) END WHERE id % 50 = 24;
\c
UPDATE m107_heap SET v = v + 1, pad = CASE WHEN 3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 3)) END WHERE id % 50 = 24;
\c
INSERT INTO placement_log SELECT 'seed 107', 28, placement_differs('m107_nvm', 'm107_heap');
\c
VACUUM m107_nvm;
\c
VACUUM m107_heap;
\c
INSERT INTO placement_log SELECT 'seed 107', 29, placement_differs('m107_nvm', 'm107_heap');
\c
SELECT count(*) FROM (SELECT v FROM m107_nvm WHERE id BETWEEN 1047 AND 542) s;
\c
SELECT count(*) FROM (SELECT v FROM m107_heap WHERE id BETWEEN 1047 AND 542) s;
\c
INSERT INTO placement_log SELECT 'seed 107', 30, placement_differs('m107_nvm', 'm107_heap');
\c
DELETE FROM m107_nvm WHERE id % 10 = 6 AND id > 280;
\c
DELETE FROM m107_heap WHERE id % 10 = 6 AND id > 280;
\c
INSERT INTO placement_log SELECT 'seed 107', 31, placement_differs('m107_nvm', 'm107_heap');
\c
DELETE FROM m107_nvm WHERE id % 40 = 28 AND id > 841;
\c
DELETE FROM m107_heap WHERE id % 40 = 28 AND id > 841;
\c
INSERT INTO placement_log SELECT 'seed 107', 32, placement_differs('m107_nvm', 'm107_heap');
\c
SELECT count(*) FROM (SELECT v FROM m107_nvm WHERE id BETWEEN 1375 AND 928) s;
\c
SELECT count(*) FROM (SELECT v FROM m107_heap WHERE id BETWEEN 1375 AND 928) s;
\c
INSERT INTO placement_log SELECT 'seed 107', 33, placement_differs('m107_nvm', 'm107_heap');
\c
BEGIN; UPDATE m107_nvm SET v = v + 1, pad = pad || 'z' WHERE id % 2 = 1; ROLLBACK;
\c
BEGIN; UPDATE m107_heap SET v = v + 1, pad = pad || 'z' WHERE id % 2 = 1; ROLLBACK;
\c
INSERT INTO placement_log SELECT 'seed 107', 34, placement_differs('m107_nvm', 'm107_heap');
\c
UPDATE m107_nvm SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 5 = 0;
\c
UPDATE m107_heap SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 5 = 0;
\c
INSERT INTO placement_log SELECT 'seed 107', 35, placement_differs('m107_nvm', 'm107_heap');
\c
INSERT INTO m107_nvm SELECT g, g % 97, 0, repeat('x', 505 + g % 7) FROM generate_series(1503, 1802) g;
\c
INSERT INTO m107_heap SELECT g, g % 97, 0, repeat('x', 505 + g % 7) FROM generate_series(1503, 1802) g;
\c
INSERT INTO placement_log SELECT 'seed 107', 36, placement_differs('m107_nvm', 'm107_heap');
\c
UPDATE m107_nvm SET v = v + 1, pad = CASE WHEN -3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + -3)) END WHERE id % 10 = 2;
\c
UPDATE m107_heap SET v = v + 1, pad = CASE WHEN -3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + -3)) END WHERE id % 10 = 2;
\c
INSERT INTO placement_log SELECT 'seed 107', 37, placement_differs('m107_nvm', 'm107_heap');
\c
INSERT INTO m107_nvm SELECT g, g % 97, 0, repeat('x', 1049 + g % 7) FROM generate_series(1803, 1803) g;
\c
INSERT INTO m107_heap SELECT g, g % 97, 0, repeat('x', 1049 + g % 7) FROM generate_series(1803, 1803) g;
\c
INSERT INTO placement_log SELECT 'seed 107', 38, placement_differs('m107_nvm', 'm107_heap');
\c
SELECT count(*) FROM (SELECT v FROM m107_nvm WHERE id BETWEEN 1103 AND 741) s;
\c
SELECT count(*) FROM (SELECT v FROM m107_heap WHERE id BETWEEN 1103 AND 741) s;
\c
INSERT INTO placement_log SELECT 'seed 107', 39, placement_differs('m107_nvm', 'm107_heap');
\c
UPDATE m107_nvm SET v = v + 1, pad = CASE WHEN 3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 3)) END WHERE id % 50 = 18;
\c
UPDATE m107_heap SET v = v + 1, pad = CASE WHEN 3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 3)) END WHERE id % 50 = 18;
\c
INSERT INTO placement_log SELECT 'seed 107', 40, placement_differs('m107_nvm', 'm107_heap');
\c
INSERT INTO m107_nvm SELECT g, g % 97, 0, repeat('x', 316 + g % 7) FROM generate_series(1804, 1808) g;
\c
INSERT INTO m107_heap SELECT g, g % 97, 0, repeat('x', 316 + g % 7) FROM generate_series(1804, 1808) g;
\c
INSERT INTO placement_log SELECT 'seed 107', 41, placement_differs('m107_nvm', 'm107_heap');
\c
INSERT INTO m107_nvm SELECT g, 1, 0, (SELECT string_agg(md5(g::text || i::text), '') FROM generate_series(1, 300) i) FROM generate_series(1809, 1813) g;
\c
INSERT INTO m107_heap SELECT g, 1, 0, (SELECT string_agg(md5(g::text || i::text), '') FROM generate_series(1, 300) i) FROM generate_series(1809, 1813) g;
\c
INSERT INTO placement_log SELECT 'seed 107', 42, placement_differs('m107_nvm', 'm107_heap');
\c
UPDATE m107_nvm SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 50 = 40;
\c
UPDATE m107_heap SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 50 = 40;
\c
INSERT INTO placement_log SELECT 'seed 107', 43, placement_differs('m107_nvm', 'm107_heap');
\c
INSERT INTO m107_nvm SELECT g, g % 97, 0, repeat('x', 144 + g % 7) FROM generate_series(1814, 1814) g;
\c
INSERT INTO m107_heap SELECT g, g % 97, 0, repeat('x', 144 + g % 7) FROM generate_series(1814, 1814) g;
\c
INSERT INTO placement_log SELECT 'seed 107', 44, placement_differs('m107_nvm', 'm107_heap');
\c
UPDATE m107_nvm SET v = v + 1, pad = CASE WHEN -3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + -3)) END WHERE id % 5 = 3;
\c
UPDATE m107_heap SET v = v + 1, pad = CASE WHEN -3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + -3)) END WHERE id % 5 = 3;
\c
INSERT INTO placement_log SELECT 'seed 107', 45, placement_differs('m107_nvm', 'm107_heap');
\c
BEGIN; UPDATE m107_nvm SET v = v + 1, pad = pad || 'z' WHERE id % 2 = 0; ROLLBACK;
\c
BEGIN; UPDATE m107_heap SET v = v + 1, pad = pad || 'z' WHERE id % 2 = 0; ROLLBACK;
\c
INSERT INTO placement_log SELECT 'seed 107', 46, placement_differs('m107_nvm', 'm107_heap');
\c
UPDATE m107_nvm SET v = v + 1, pad = CASE WHEN 3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 3)) END WHERE id % 10 = 4;
\c
UPDATE m107_heap SET v = v + 1, pad = CASE WHEN 3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 3)) END WHERE id % 10 = 4;
\c
INSERT INTO placement_log SELECT 'seed 107', 47, placement_differs('m107_nvm', 'm107_heap');
\c
VACUUM m107_nvm;
\c
VACUUM m107_heap;
\c
INSERT INTO placement_log SELECT 'seed 107', 48, placement_differs('m107_nvm', 'm107_heap');
\c
INSERT INTO m107_nvm SELECT g, 1, 0, (SELECT string_agg(md5(g::text || i::text), '') FROM generate_series(1, 20) i) FROM generate_series(1815, 1819) g;
\c
INSERT INTO m107_heap SELECT g, 1, 0, (SELECT string_agg(md5(g::text || i::text), '') FROM generate_series(1, 20) i) FROM generate_series(1815, 1819) g;
\c
INSERT INTO placement_log SELECT 'seed 107', 49, placement_differs('m107_nvm', 'm107_heap');
\c
INSERT INTO m107_nvm SELECT g, g % 97, 0, repeat('x', 278 + g % 7) FROM generate_series(1820, 2119) g;
\c
INSERT INTO m107_heap SELECT g, g % 97, 0, repeat('x', 278 + g % 7) FROM generate_series(1820, 2119) g;
\c
INSERT INTO placement_log SELECT 'seed 107', 50, placement_differs('m107_nvm', 'm107_heap');
\c
UPDATE m107_nvm SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 5 = 1;
\c
UPDATE m107_heap SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 5 = 1;
\c
INSERT INTO placement_log SELECT 'seed 107', 51, placement_differs('m107_nvm', 'm107_heap');
\c
SELECT count(*), sum(v) FROM m107_nvm;
\c
SELECT count(*), sum(v) FROM m107_heap;
\c
INSERT INTO placement_log SELECT 'seed 107', 52, placement_differs('m107_nvm', 'm107_heap');
\c
DELETE FROM m107_nvm WHERE id % 40 = 4 AND id > 1463;
\c
DELETE FROM m107_heap WHERE id % 40 = 4 AND id > 1463;
\c
INSERT INTO placement_log SELECT 'seed 107', 53, placement_differs('m107_nvm', 'm107_heap');
\c
UPDATE m107_nvm SET v = v + 1, pad = CASE WHEN -3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + -3)) END WHERE id % 2 = 1;
\c
UPDATE m107_heap SET v = v + 1, pad = CASE WHEN -3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + -3)) END WHERE id % 2 = 1;
\c
INSERT INTO placement_log SELECT 'seed 107', 54, placement_differs('m107_nvm', 'm107_heap');
\c
SELECT count(*) FROM (SELECT v FROM m107_nvm WHERE id BETWEEN 1338 AND 1551) s;
\c
SELECT count(*) FROM (SELECT v FROM m107_heap WHERE id BETWEEN 1338 AND 1551) s;
\c
INSERT INTO placement_log SELECT 'seed 107', 55, placement_differs('m107_nvm', 'm107_heap');
\c
UPDATE m107_nvm SET k = k + 1 WHERE id % 5 = 1;
\c
UPDATE m107_heap SET k = k + 1 WHERE id % 5 = 1;
\c
INSERT INTO placement_log SELECT 'seed 107', 56, placement_differs('m107_nvm', 'm107_heap');
\c
UPDATE m107_nvm SET v = v + 1, pad = CASE WHEN -3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + -3)) END WHERE id % 5 = 3;
\c
UPDATE m107_heap SET v = v + 1, pad = CASE WHEN -3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + -3)) END WHERE id % 5 = 3;
\c
INSERT INTO placement_log SELECT 'seed 107', 57, placement_differs('m107_nvm', 'm107_heap');
\c
UPDATE m107_nvm SET v = v + 1, pad = CASE WHEN -3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + -3)) END WHERE id % 2 = 1;
\c
UPDATE m107_heap SET v = v + 1, pad = CASE WHEN -3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + -3)) END WHERE id % 2 = 1;
\c
INSERT INTO placement_log SELECT 'seed 107', 58, placement_differs('m107_nvm', 'm107_heap');
\c
SELECT count(*) FROM (SELECT v FROM m107_nvm WHERE id BETWEEN 406 AND 290) s;
\c
SELECT count(*) FROM (SELECT v FROM m107_heap WHERE id BETWEEN 406 AND 290) s;
\c
INSERT INTO placement_log SELECT 'seed 107', 59, placement_differs('m107_nvm', 'm107_heap');
\c
INSERT INTO m107_nvm SELECT g, g % 97, 0, repeat('x', 1193 + g % 7) FROM generate_series(2120, 2120) g;
\c
INSERT INTO m107_heap SELECT g, g % 97, 0, repeat('x', 1193 + g % 7) FROM generate_series(2120, 2120) g;
\c
INSERT INTO placement_log SELECT 'seed 107', 60, placement_differs('m107_nvm', 'm107_heap');
\c
\o
-- the mix of seed 138 (fillfactor 100)
CREATE TABLE m138_nvm (id int PRIMARY KEY, k int, v int, pad text) USING nvm_am
  WITH (fillfactor = 100, autovacuum_enabled = false);
CREATE INDEX ON m138_nvm (k);
CREATE TABLE m138_heap (id int PRIMARY KEY, k int, v int, pad text) USING heap
  WITH (fillfactor = 100, autovacuum_enabled = false);
CREATE INDEX ON m138_heap (k);
\o /dev/null
SELECT count(*), sum(v) FROM m138_nvm;
\c
SELECT count(*), sum(v) FROM m138_heap;
\c
INSERT INTO placement_log SELECT 'seed 138', 1, placement_differs('m138_nvm', 'm138_heap');
\c
BEGIN; UPDATE m138_nvm SET v = v + 1, pad = pad || 'z' WHERE id % 5 = 1; ROLLBACK;
\c
BEGIN; UPDATE m138_heap SET v = v + 1, pad = pad || 'z' WHERE id % 5 = 1; ROLLBACK;
\c
INSERT INTO placement_log SELECT 'seed 138', 2, placement_differs('m138_nvm', 'm138_heap');
\c
SELECT count(*), sum(v) FROM m138_nvm;
\c
SELECT count(*), sum(v) FROM m138_heap;
\c
INSERT INTO placement_log SELECT 'seed 138', 3, placement_differs('m138_nvm', 'm138_heap');
\c
INSERT INTO m138_nvm SELECT g, 1, 0, (SELECT string_agg(md5(g::text || i::text), '') FROM generate_series(1, 20) i) FROM generate_series(1, 5) g;
\c
INSERT INTO m138_heap SELECT g, 1, 0, (SELECT string_agg(md5(g::text || i::text), '') FROM generate_series(1, 20) i) FROM generate_series(1, 5) g;
\c
INSERT INTO placement_log SELECT 'seed 138', 4, placement_differs('m138_nvm', 'm138_heap');
\c
UPDATE m138_nvm SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 5 = 3;
\c
UPDATE m138_heap SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 5 = 3;
\c
INSERT INTO placement_log SELECT 'seed 138', 5, placement_differs('m138_nvm', 'm138_heap');
\c
UPDATE m138_nvm SET k = k + 1 WHERE id % 5 = 0;
\c
UPDATE m138_heap SET k = k + 1 WHERE id % 5 = 0;
\c
INSERT INTO placement_log SELECT 'seed 138', 6, placement_differs('m138_nvm', 'm138_heap');
\c
BEGIN; UPDATE m138_nvm SET v = v + 1, pad = pad || 'z' WHERE id % 5 = 4; ROLLBACK;
\c
BEGIN; UPDATE m138_heap SET v = v + 1, pad = pad || 'z' WHERE id % 5 = 4; ROLLBACK;
\c
INSERT INTO placement_log SELECT 'seed 138', 7, placement_differs('m138_nvm', 'm138_heap');
\c
INSERT INTO m138_nvm SELECT g, g % 97, 0, repeat('x', 459 + g % 7) FROM generate_series(6, 10) g;
\c
INSERT INTO m138_heap SELECT g, g % 97, 0, repeat('x', 459 + g % 7) FROM generate_series(6, 10) g;
\c
INSERT INTO placement_log SELECT 'seed 138', 8, placement_differs('m138_nvm', 'm138_heap');
\c
UPDATE m138_nvm SET v = v + 1, pad = CASE WHEN 3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 3)) END WHERE id % 10 = 0;
\c
UPDATE m138_heap SET v = v + 1, pad = CASE WHEN 3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 3)) END WHERE id % 10 = 0;
\c
INSERT INTO placement_log SELECT 'seed 138', 9, placement_differs('m138_nvm', 'm138_heap');
\c
UPDATE m138_nvm SET v = v + 1, pad = CASE WHEN 3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 3)) END WHERE id % 2 = 0;
\c
UPDATE m138_heap SET v = v + 1, pad = CASE WHEN 3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 3)) END WHERE id % 2 = 0;
\c
INSERT INTO placement_log SELECT 'seed 138', 10, placement_differs('m138_nvm', 'm138_heap');
\c
SELECT count(*) FROM (SELECT v FROM m138_nvm WHERE id BETWEEN 6 AND 60) s;
\c
SELECT count(*) FROM (SELECT v FROM m138_heap WHERE id BETWEEN 6 AND 60) s;
\c
INSERT INTO placement_log SELECT 'seed 138', 11, placement_differs('m138_nvm', 'm138_heap');
\c
UPDATE m138_nvm SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 10 = 6;
\c
UPDATE m138_heap SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 10 = 6;
\c
INSERT INTO placement_log SELECT 'seed 138', 12, placement_differs('m138_nvm', 'm138_heap');
\c
BEGIN; UPDATE m138_nvm SET v = v + 1, pad = pad || 'z' WHERE id % 5 = 4; ROLLBACK;
\c
BEGIN; UPDATE m138_heap SET v = v + 1, pad = pad || 'z' WHERE id % 5 = 4; ROLLBACK;
\c
INSERT INTO placement_log SELECT 'seed 138', 13, placement_differs('m138_nvm', 'm138_heap');
\c
INSERT INTO m138_nvm SELECT g, g % 97, 0, repeat('x', 78 + g % 7) FROM generate_series(11, 310) g;
\c
INSERT INTO m138_heap SELECT g, g % 97, 0, repeat('x', 78 + g % 7) FROM generate_series(11, 310) g;
\c
INSERT INTO placement_log SELECT 'seed 138', 14, placement_differs('m138_nvm', 'm138_heap');
\c
COPY m138_nvm FROM PROGRAM 'seq 311 1310 | sed "s/.*/&,1,0,cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc/"' WITH (FORMAT csv);
\c
COPY m138_heap FROM PROGRAM 'seq 311 1310 | sed "s/.*/&,1,0,cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc/"' WITH (FORMAT csv);
\c
INSERT INTO placement_log SELECT 'seed 138', 15, placement_differs('m138_nvm', 'm138_heap');
\c
COPY m138_nvm FROM PROGRAM 'seq 1311 1320 | sed "s/.*/&,1,0,ccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc/"' WITH (FORMAT csv);
\c
COPY m138_heap FROM PROGRAM 'seq 1311 1320 | sed "s/.*/&,1,0,ccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc/"' WITH (FORMAT csv);
\c
INSERT INTO placement_log SELECT 'seed 138', 16, placement_differs('m138_nvm', 'm138_heap');
\c
VACUUM m138_nvm;
\c
VACUUM m138_heap;
\c
INSERT INTO placement_log SELECT 'seed 138', 17, placement_differs('m138_nvm', 'm138_heap');
\c
SELECT count(*), sum(v) FROM m138_nvm;
\c
SELECT count(*), sum(v) FROM m138_heap;
\c
INSERT INTO placement_log SELECT 'seed 138', 18, placement_differs('m138_nvm', 'm138_heap');
\c
SELECT count(*), sum(v) FROM m138_nvm;
\c
SELECT count(*), sum(v) FROM m138_heap;
\c
INSERT INTO placement_log SELECT 'seed 138', 19, placement_differs('m138_nvm', 'm138_heap');
\c
UPDATE m138_nvm SET v = v + 1, pad = CASE WHEN -3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + -3)) END WHERE id % 2 = 0;
\c
UPDATE m138_heap SET v = v + 1, pad = CASE WHEN -3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + -3)) END WHERE id % 2 = 0;
\c
INSERT INTO placement_log SELECT 'seed 138', 20, placement_differs('m138_nvm', 'm138_heap');
\c
INSERT INTO m138_nvm SELECT g, g % 97, 0, repeat('x', 1067 + g % 7) FROM generate_series(1321, 1370) g;
\c
INSERT INTO m138_heap SELECT g, g % 97, 0, repeat('x', 1067 + g % 7) FROM generate_series(1321, 1370) g;
\c
INSERT INTO placement_log SELECT 'seed 138', 21, placement_differs('m138_nvm', 'm138_heap');
\c
COPY m138_nvm FROM PROGRAM 'seq 1371 1380 | sed "s/.*/&,1,0,ccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc/"' WITH (FORMAT csv);
\c
COPY m138_heap FROM PROGRAM 'seq 1371 1380 | sed "s/.*/&,1,0,ccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc/"' WITH (FORMAT csv);
\c
INSERT INTO placement_log SELECT 'seed 138', 22, placement_differs('m138_nvm', 'm138_heap');
\c
UPDATE m138_nvm SET v = v + 1, pad = CASE WHEN 3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 3)) END WHERE id % 2 = 0;
\c
UPDATE m138_heap SET v = v + 1, pad = CASE WHEN 3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 3)) END WHERE id % 2 = 0;
\c
INSERT INTO placement_log SELECT 'seed 138', 23, placement_differs('m138_nvm', 'm138_heap');
\c
UPDATE m138_nvm SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 5 = 1;
\c
UPDATE m138_heap SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 5 = 1;
\c
INSERT INTO placement_log SELECT 'seed 138', 24, placement_differs('m138_nvm', 'm138_heap');
\c
INSERT INTO m138_nvm SELECT g, g % 97, 0, repeat('x', 719 + g % 7) FROM generate_series(1381, 1430) g;
\c
INSERT INTO m138_heap SELECT g, g % 97, 0, repeat('x', 719 + g % 7) FROM generate_series(1381, 1430) g;
\c
INSERT INTO placement_log SELECT 'seed 138', 25, placement_differs('m138_nvm', 'm138_heap');
\c
UPDATE m138_nvm SET v = v + 1, pad = CASE WHEN 3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 3)) END WHERE id % 10 = 1;
\c
UPDATE m138_heap SET v = v + 1, pad = CASE WHEN 3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 3)) END WHERE id % 10 = 1;
\c
INSERT INTO placement_log SELECT 'seed 138', 26, placement_differs('m138_nvm', 'm138_heap');
\c
DELETE FROM m138_nvm WHERE id % 40 = 24 AND id > 607;
\c
DELETE FROM m138_heap WHERE id % 40 = 24 AND id > 607;
\c
INSERT INTO placement_log SELECT 'seed 138', 27, placement_differs('m138_nvm', 'm138_heap');
\c
UPDATE m138_nvm SET v = v + 1, pad = CASE WHEN -3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + -3)) END WHERE id % 10 = 8;
\c
UPDATE m138_heap SET v = v + 1, pad = CASE WHEN -3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + -3)) END WHERE id % 10 = 8;
\c
INSERT INTO placement_log SELECT 'seed 138', 28, placement_differs('m138_nvm', 'm138_heap');
\c
DELETE FROM m138_nvm WHERE id % 10 = 4 AND id > 862;
\c
DELETE FROM m138_heap WHERE id % 10 = 4 AND id > 862;
\c
INSERT INTO placement_log SELECT 'seed 138', 29, placement_differs('m138_nvm', 'm138_heap');
\c
DELETE FROM m138_nvm WHERE id % 40 = 28 AND id > 1009;
\c
DELETE FROM m138_heap WHERE id % 40 = 28 AND id > 1009;
\c
INSERT INTO placement_log SELECT 'seed 138', 30, placement_differs('m138_nvm', 'm138_heap');
\c
BEGIN; UPDATE m138_nvm SET v = v + 1, pad = pad || 'z' WHERE id % 2 = 1; ROLLBACK;
\c
BEGIN; UPDATE m138_heap SET v = v + 1, pad = pad || 'z' WHERE id % 2 = 1; ROLLBACK;
\c
INSERT INTO placement_log SELECT 'seed 138', 31, placement_differs('m138_nvm', 'm138_heap');
\c
UPDATE m138_nvm SET k = k + 1 WHERE id % 20 = 6;
\c
UPDATE m138_heap SET k = k + 1 WHERE id % 20 = 6;
\c
INSERT INTO placement_log SELECT 'seed 138', 32, placement_differs('m138_nvm', 'm138_heap');
\c
BEGIN; UPDATE m138_nvm SET v = v + 1, pad = pad || 'z' WHERE id % 10 = 3; ROLLBACK;
\c
BEGIN; UPDATE m138_heap SET v = v + 1, pad = pad || 'z' WHERE id % 10 = 3; ROLLBACK;
\c
INSERT INTO placement_log SELECT 'seed 138', 33, placement_differs('m138_nvm', 'm138_heap');
\c
SELECT count(*) FROM (SELECT v FROM m138_nvm WHERE id BETWEEN 1073 AND 262) s;
\c
SELECT count(*) FROM (SELECT v FROM m138_heap WHERE id BETWEEN 1073 AND 262) s;
\c
INSERT INTO placement_log SELECT 'seed 138', 34, placement_differs('m138_nvm', 'm138_heap');
\c
UPDATE m138_nvm SET v = v + 1, pad = CASE WHEN -3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + -3)) END WHERE id % 2 = 1;
\c
UPDATE m138_heap SET v = v + 1, pad = CASE WHEN -3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + -3)) END WHERE id % 2 = 1;
\c
INSERT INTO placement_log SELECT 'seed 138', 35, placement_differs('m138_nvm', 'm138_heap');
\c
INSERT INTO m138_nvm SELECT g, g % 97, 0, repeat('x', 1112 + g % 7) FROM generate_series(1431, 1480) g;
\c
INSERT INTO m138_heap SELECT g, g % 97, 0, repeat('x', 1112 + g % 7) FROM generate_series(1431, 1480) g;
\c
INSERT INTO placement_log SELECT 'seed 138', 36, placement_differs('m138_nvm', 'm138_heap');
\c
INSERT INTO m138_nvm SELECT g, 1, 0, (SELECT string_agg(md5(g::text || i::text), '') FROM generate_series(1, 20) i) FROM generate_series(1481, 1481) g;
\c
INSERT INTO m138_heap SELECT g, 1, 0, (SELECT string_agg(md5(g::text || i::text), '') FROM generate_series(1, 20) i) FROM generate_series(1481, 1481) g;
\c
INSERT INTO placement_log SELECT 'seed 138', 37, placement_differs('m138_nvm', 'm138_heap');
\c
UPDATE m138_nvm SET v = v + 1, pad = CASE WHEN -3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + -3)) END WHERE id % 10 = 2;
\c
UPDATE m138_heap SET v = v + 1, pad = CASE WHEN -3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + -3)) END WHERE id % 10 = 2;
\c
INSERT INTO placement_log SELECT 'seed 138', 38, placement_differs('m138_nvm', 'm138_heap');
\c
SELECT count(*), sum(v) FROM m138_nvm;
\c
SELECT count(*), sum(v) FROM m138_heap;
\c
INSERT INTO placement_log SELECT 'seed 138', 39, placement_differs('m138_nvm', 'm138_heap');
\c
UPDATE m138_nvm SET k = k + 1 WHERE id % 20 = 6;
\c
UPDATE m138_heap SET k = k + 1 WHERE id % 20 = 6;
\c
INSERT INTO placement_log SELECT 'seed 138', 40, placement_differs('m138_nvm', 'm138_heap');
\c
SELECT count(*) FROM (SELECT v FROM m138_nvm WHERE id BETWEEN 1013 AND 1146) s;
\c
SELECT count(*) FROM (SELECT v FROM m138_heap WHERE id BETWEEN 1013 AND 1146) s;
\c
INSERT INTO placement_log SELECT 'seed 138', 41, placement_differs('m138_nvm', 'm138_heap');
\c
DELETE FROM m138_nvm WHERE id % 10 = 5 AND id > 1053;
\c
DELETE FROM m138_heap WHERE id % 10 = 5 AND id > 1053;
\c
INSERT INTO placement_log SELECT 'seed 138', 42, placement_differs('m138_nvm', 'm138_heap');
\c
UPDATE m138_nvm SET v = v + 1, pad = CASE WHEN -3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + -3)) END WHERE id % 2 = 1;
\c
UPDATE m138_heap SET v = v + 1, pad = CASE WHEN -3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + -3)) END WHERE id % 2 = 1;
\c
INSERT INTO placement_log SELECT 'seed 138', 43, placement_differs('m138_nvm', 'm138_heap');
\c
SELECT count(*) FROM (SELECT v FROM m138_nvm WHERE id BETWEEN 255 AND 285) s;
\c
SELECT count(*) FROM (SELECT v FROM m138_heap WHERE id BETWEEN 255 AND 285) s;
\c
INSERT INTO placement_log SELECT 'seed 138', 44, placement_differs('m138_nvm', 'm138_heap');
\c
UPDATE m138_nvm SET k = k + 1 WHERE id % 20 = 16;
\c
UPDATE m138_heap SET k = k + 1 WHERE id % 20 = 16;
\c
INSERT INTO placement_log SELECT 'seed 138', 45, placement_differs('m138_nvm', 'm138_heap');
\c
DELETE FROM m138_nvm WHERE id % 40 = 15 AND id > 1327;
\c
DELETE FROM m138_heap WHERE id % 40 = 15 AND id > 1327;
\c
INSERT INTO placement_log SELECT 'seed 138', 46, placement_differs('m138_nvm', 'm138_heap');
\c
DELETE FROM m138_nvm WHERE id % 40 = 29 AND id > 860;
\c
DELETE FROM m138_heap WHERE id % 40 = 29 AND id > 860;
\c
INSERT INTO placement_log SELECT 'seed 138', 47, placement_differs('m138_nvm', 'm138_heap');
\c
VACUUM m138_nvm;
\c
VACUUM m138_heap;
\c
INSERT INTO placement_log SELECT 'seed 138', 48, placement_differs('m138_nvm', 'm138_heap');
\c
SELECT count(*) FROM (SELECT v FROM m138_nvm WHERE id BETWEEN 961 AND 250) s;
\c
SELECT count(*) FROM (SELECT v FROM m138_heap WHERE id BETWEEN 961 AND 250) s;
\c
INSERT INTO placement_log SELECT 'seed 138', 49, placement_differs('m138_nvm', 'm138_heap');
\c
INSERT INTO m138_nvm SELECT g, g % 97, 0, repeat('x', 321 + g % 7) FROM generate_series(1482, 1781) g;
\c
INSERT INTO m138_heap SELECT g, g % 97, 0, repeat('x', 321 + g % 7) FROM generate_series(1482, 1781) g;
\c
INSERT INTO placement_log SELECT 'seed 138', 50, placement_differs('m138_nvm', 'm138_heap');
\c
UPDATE m138_nvm SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 50 = 8;
\c
UPDATE m138_heap SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 50 = 8;
\c
INSERT INTO placement_log SELECT 'seed 138', 51, placement_differs('m138_nvm', 'm138_heap');
\c
INSERT INTO m138_nvm SELECT g, g % 97, 0, repeat('x', 133 + g % 7) FROM generate_series(1782, 1831) g;
\c
INSERT INTO m138_heap SELECT g, g % 97, 0, repeat('x', 133 + g % 7) FROM generate_series(1782, 1831) g;
\c
INSERT INTO placement_log SELECT 'seed 138', 52, placement_differs('m138_nvm', 'm138_heap');
\c
VACUUM m138_nvm;
\c
VACUUM m138_heap;
\c
INSERT INTO placement_log SELECT 'seed 138', 53, placement_differs('m138_nvm', 'm138_heap');
\c
INSERT INTO m138_nvm SELECT g, g % 97, 0, repeat('x', 149 + g % 7) FROM generate_series(1832, 2131) g;
\c
INSERT INTO m138_heap SELECT g, g % 97, 0, repeat('x', 149 + g % 7) FROM generate_series(1832, 2131) g;
\c
INSERT INTO placement_log SELECT 'seed 138', 54, placement_differs('m138_nvm', 'm138_heap');
\c
VACUUM m138_nvm;
\c
VACUUM m138_heap;
\c
INSERT INTO placement_log SELECT 'seed 138', 55, placement_differs('m138_nvm', 'm138_heap');
\c
UPDATE m138_nvm SET k = k + 1 WHERE id % 20 = 10;
\c
UPDATE m138_heap SET k = k + 1 WHERE id % 20 = 10;
\c
INSERT INTO placement_log SELECT 'seed 138', 56, placement_differs('m138_nvm', 'm138_heap');
\c
SELECT count(*), sum(v) FROM m138_nvm;
\c
SELECT count(*), sum(v) FROM m138_heap;
\c
INSERT INTO placement_log SELECT 'seed 138', 57, placement_differs('m138_nvm', 'm138_heap');
\c
SELECT count(*), sum(v) FROM m138_nvm;
\c
SELECT count(*), sum(v) FROM m138_heap;
\c
INSERT INTO placement_log SELECT 'seed 138', 58, placement_differs('m138_nvm', 'm138_heap');
\c
INSERT INTO m138_nvm SELECT g, g % 97, 0, repeat('x', 463 + g % 7) FROM generate_series(2132, 2181) g;
\c
INSERT INTO m138_heap SELECT g, g % 97, 0, repeat('x', 463 + g % 7) FROM generate_series(2132, 2181) g;
\c
INSERT INTO placement_log SELECT 'seed 138', 59, placement_differs('m138_nvm', 'm138_heap');
\c
SELECT count(*), sum(v) FROM m138_nvm;
\c
SELECT count(*), sum(v) FROM m138_heap;
\c
INSERT INTO placement_log SELECT 'seed 138', 60, placement_differs('m138_nvm', 'm138_heap');
\c
\o
-- the mix of seed 1011 (fillfactor 90)
CREATE TABLE m1011_nvm (id int PRIMARY KEY, k int, v int, pad text) USING nvm_am
  WITH (fillfactor = 90, autovacuum_enabled = false);
CREATE INDEX ON m1011_nvm (k);
CREATE TABLE m1011_heap (id int PRIMARY KEY, k int, v int, pad text) USING heap
  WITH (fillfactor = 90, autovacuum_enabled = false);
CREATE INDEX ON m1011_heap (k);
\o /dev/null
INSERT INTO m1011_nvm SELECT g, g % 97, 0, repeat('x', 91 + g % 7) FROM generate_series(1, 300) g;
\c
INSERT INTO m1011_heap SELECT g, g % 97, 0, repeat('x', 91 + g % 7) FROM generate_series(1, 300) g;
\c
INSERT INTO placement_log SELECT 'seed 1011', 1, placement_differs('m1011_nvm', 'm1011_heap');
\c
BEGIN; SELECT count(*) FROM (SELECT id FROM m1011_nvm WHERE id % 10 = 7 FOR SHARE) s; COMMIT;
\c
BEGIN; SELECT count(*) FROM (SELECT id FROM m1011_heap WHERE id % 10 = 7 FOR SHARE) s; COMMIT;
\c
INSERT INTO placement_log SELECT 'seed 1011', 2, placement_differs('m1011_nvm', 'm1011_heap');
\c
UPDATE m1011_nvm SET k = k + 1 WHERE id % 5 = 3;
\c
UPDATE m1011_heap SET k = k + 1 WHERE id % 5 = 3;
\c
INSERT INTO placement_log SELECT 'seed 1011', 3, placement_differs('m1011_nvm', 'm1011_heap');
\c
SELECT count(*) FROM (SELECT v FROM m1011_nvm WHERE id BETWEEN 194 AND 107) s;
\c
SELECT count(*) FROM (SELECT v FROM m1011_heap WHERE id BETWEEN 194 AND 107) s;
\c
INSERT INTO placement_log SELECT 'seed 1011', 4, placement_differs('m1011_nvm', 'm1011_heap');
\c
BEGIN; UPDATE m1011_nvm SET v = v + 1, pad = pad || 'z' WHERE id % 2 = 0; ROLLBACK;
\c
BEGIN; UPDATE m1011_heap SET v = v + 1, pad = pad || 'z' WHERE id % 2 = 0; ROLLBACK;
\c
INSERT INTO placement_log SELECT 'seed 1011', 5, placement_differs('m1011_nvm', 'm1011_heap');
\c
INSERT INTO m1011_nvm SELECT g, 1, 0, (SELECT string_agg(md5(g::text || i::text), '') FROM generate_series(1, 100) i) FROM generate_series(301, 305) g;
\c
INSERT INTO m1011_heap SELECT g, 1, 0, (SELECT string_agg(md5(g::text || i::text), '') FROM generate_series(1, 100) i) FROM generate_series(301, 305) g;
\c
INSERT INTO placement_log SELECT 'seed 1011', 6, placement_differs('m1011_nvm', 'm1011_heap');
\c
INSERT INTO m1011_nvm SELECT g, g % 97, 0, repeat('x', 81 + g % 7) FROM generate_series(306, 605) g;
\c
INSERT INTO m1011_heap SELECT g, g % 97, 0, repeat('x', 81 + g % 7) FROM generate_series(306, 605) g;
\c
INSERT INTO placement_log SELECT 'seed 1011', 7, placement_differs('m1011_nvm', 'm1011_heap');
\c
ANALYZE m1011_nvm;
\c
ANALYZE m1011_heap;
\c
INSERT INTO placement_log SELECT 'seed 1011', 8, placement_differs('m1011_nvm', 'm1011_heap');
\c
INSERT INTO m1011_nvm SELECT g, g % 97, 0, repeat('x', 272 + g % 7) FROM generate_series(606, 655) g;
\c
INSERT INTO m1011_heap SELECT g, g % 97, 0, repeat('x', 272 + g % 7) FROM generate_series(606, 655) g;
\c
INSERT INTO placement_log SELECT 'seed 1011', 9, placement_differs('m1011_nvm', 'm1011_heap');
\c
ANALYZE m1011_nvm;
\c
ANALYZE m1011_heap;
\c
INSERT INTO placement_log SELECT 'seed 1011', 10, placement_differs('m1011_nvm', 'm1011_heap');
\c
UPDATE m1011_nvm SET k = k + 1 WHERE id % 5 = 2;
\c
UPDATE m1011_heap SET k = k + 1 WHERE id % 5 = 2;
\c
INSERT INTO placement_log SELECT 'seed 1011', 11, placement_differs('m1011_nvm', 'm1011_heap');
\c
BEGIN; SELECT count(*) FROM (SELECT id FROM m1011_nvm WHERE id % 3 = 1 FOR KEY SHARE) s; COMMIT;
\c
BEGIN; SELECT count(*) FROM (SELECT id FROM m1011_heap WHERE id % 3 = 1 FOR KEY SHARE) s; COMMIT;
\c
INSERT INTO placement_log SELECT 'seed 1011', 12, placement_differs('m1011_nvm', 'm1011_heap');
\c
UPDATE m1011_nvm SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 50 = 45;
\c
UPDATE m1011_heap SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 50 = 45;
\c
INSERT INTO placement_log SELECT 'seed 1011', 13, placement_differs('m1011_nvm', 'm1011_heap');
\c
UPDATE m1011_nvm SET v = v + 1, pad = CASE WHEN 3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 3)) END WHERE id % 50 = 12;
\c
UPDATE m1011_heap SET v = v + 1, pad = CASE WHEN 3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 3)) END WHERE id % 50 = 12;
\c
INSERT INTO placement_log SELECT 'seed 1011', 14, placement_differs('m1011_nvm', 'm1011_heap');
\c
SELECT count(*) FROM (SELECT v FROM m1011_nvm WHERE id BETWEEN 191 AND 150) s;
\c
SELECT count(*) FROM (SELECT v FROM m1011_heap WHERE id BETWEEN 191 AND 150) s;
\c
INSERT INTO placement_log SELECT 'seed 1011', 15, placement_differs('m1011_nvm', 'm1011_heap');
\c
BEGIN; UPDATE m1011_nvm SET v = v + 1 WHERE id % 10 = 6; SAVEPOINT s; UPDATE m1011_nvm SET pad = pad || 'q' WHERE id % 10 = 0; ROLLBACK TO s; UPDATE m1011_nvm SET v = v + 1 WHERE id % 10 = 2; COMMIT;
\c
BEGIN; UPDATE m1011_heap SET v = v + 1 WHERE id % 10 = 6; SAVEPOINT s; UPDATE m1011_heap SET pad = pad || 'q' WHERE id % 10 = 0; ROLLBACK TO s; UPDATE m1011_heap SET v = v + 1 WHERE id % 10 = 2; COMMIT;
\c
INSERT INTO placement_log SELECT 'seed 1011', 16, placement_differs('m1011_nvm', 'm1011_heap');
\c
UPDATE m1011_nvm SET k = k + 1 WHERE id % 20 = 4;
\c
UPDATE m1011_heap SET k = k + 1 WHERE id % 20 = 4;
\c
INSERT INTO placement_log SELECT 'seed 1011', 17, placement_differs('m1011_nvm', 'm1011_heap');
\c
UPDATE m1011_nvm SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 5 = 2;
\c
UPDATE m1011_heap SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 5 = 2;
\c
INSERT INTO placement_log SELECT 'seed 1011', 18, placement_differs('m1011_nvm', 'm1011_heap');
\c
INSERT INTO m1011_nvm SELECT g, g % 97, 0, repeat('x', 142 + g % 7) FROM generate_series(656, 660) g;
\c
INSERT INTO m1011_heap SELECT g, g % 97, 0, repeat('x', 142 + g % 7) FROM generate_series(656, 660) g;
\c
INSERT INTO placement_log SELECT 'seed 1011', 19, placement_differs('m1011_nvm', 'm1011_heap');
\c
BEGIN; UPDATE m1011_nvm SET v = v + 1 WHERE id % 10 = 9; SAVEPOINT s; UPDATE m1011_nvm SET pad = pad || 'q' WHERE id % 10 = 3; ROLLBACK TO s; UPDATE m1011_nvm SET v = v + 1 WHERE id % 10 = 4; COMMIT;
\c
BEGIN; UPDATE m1011_heap SET v = v + 1 WHERE id % 10 = 9; SAVEPOINT s; UPDATE m1011_heap SET pad = pad || 'q' WHERE id % 10 = 3; ROLLBACK TO s; UPDATE m1011_heap SET v = v + 1 WHERE id % 10 = 4; COMMIT;
\c
INSERT INTO placement_log SELECT 'seed 1011', 20, placement_differs('m1011_nvm', 'm1011_heap');
\c
INSERT INTO m1011_nvm SELECT g, g % 97, 0, repeat('x', 231 + g % 7) FROM generate_series(661, 710) g;
\c
INSERT INTO m1011_heap SELECT g, g % 97, 0, repeat('x', 231 + g % 7) FROM generate_series(661, 710) g;
\c
INSERT INTO placement_log SELECT 'seed 1011', 21, placement_differs('m1011_nvm', 'm1011_heap');
\c
UPDATE m1011_nvm SET v = v + 1, pad = CASE WHEN 3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 3)) END WHERE id % 5 = 1;
\c
UPDATE m1011_heap SET v = v + 1, pad = CASE WHEN 3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 3)) END WHERE id % 5 = 1;
\c
INSERT INTO placement_log SELECT 'seed 1011', 22, placement_differs('m1011_nvm', 'm1011_heap');
\c
UPDATE m1011_nvm SET k = k + 1 WHERE id % 5 = 1;
\c
UPDATE m1011_heap SET k = k + 1 WHERE id % 5 = 1;
\c
INSERT INTO placement_log SELECT 'seed 1011', 23, placement_differs('m1011_nvm', 'm1011_heap');
\c
INSERT INTO m1011_nvm SELECT g, g % 97, 0, repeat('u', 231) FROM generate_series(454, 503) g ON CONFLICT (id) DO UPDATE SET v = m1011_nvm.v + 1;
\c
INSERT INTO m1011_heap SELECT g, g % 97, 0, repeat('u', 231) FROM generate_series(454, 503) g ON CONFLICT (id) DO UPDATE SET v = m1011_heap.v + 1;
\c
INSERT INTO placement_log SELECT 'seed 1011', 24, placement_differs('m1011_nvm', 'm1011_heap');
\c
VACUUM m1011_nvm;
\c
VACUUM m1011_heap;
\c
INSERT INTO placement_log SELECT 'seed 1011', 25, placement_differs('m1011_nvm', 'm1011_heap');
\c
UPDATE m1011_nvm SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 10 = 7;
\c
UPDATE m1011_heap SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 10 = 7;
\c
INSERT INTO placement_log SELECT 'seed 1011', 26, placement_differs('m1011_nvm', 'm1011_heap');
\c
INSERT INTO m1011_nvm SELECT g, g % 97, 0, repeat('u', 41) FROM generate_series(105, 109) g ON CONFLICT (id) DO UPDATE SET v = m1011_nvm.v + 1;
\c
INSERT INTO m1011_heap SELECT g, g % 97, 0, repeat('u', 41) FROM generate_series(105, 109) g ON CONFLICT (id) DO UPDATE SET v = m1011_heap.v + 1;
\c
INSERT INTO placement_log SELECT 'seed 1011', 27, placement_differs('m1011_nvm', 'm1011_heap');
\c
VACUUM FULL m1011_nvm;
\c
VACUUM FULL m1011_heap;
\c
INSERT INTO placement_log SELECT 'seed 1011', 28, placement_differs('m1011_nvm', 'm1011_heap');
\c
UPDATE m1011_nvm SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 10 = 3;
\c
UPDATE m1011_heap SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 10 = 3;
\c
INSERT INTO placement_log SELECT 'seed 1011', 29, placement_differs('m1011_nvm', 'm1011_heap');
\c
BEGIN; UPDATE m1011_nvm SET v = v + 1 WHERE id % 10 = 5; SAVEPOINT s; UPDATE m1011_nvm SET pad = pad || 'q' WHERE id % 10 = 8; ROLLBACK TO s; UPDATE m1011_nvm SET v = v + 1 WHERE id % 10 = 8; COMMIT;
\c
BEGIN; UPDATE m1011_heap SET v = v + 1 WHERE id % 10 = 5; SAVEPOINT s; UPDATE m1011_heap SET pad = pad || 'q' WHERE id % 10 = 8; ROLLBACK TO s; UPDATE m1011_heap SET v = v + 1 WHERE id % 10 = 8; COMMIT;
\c
INSERT INTO placement_log SELECT 'seed 1011', 30, placement_differs('m1011_nvm', 'm1011_heap');
\c
DELETE FROM m1011_nvm WHERE id % 3 = 0 AND id > 320;
\c
DELETE FROM m1011_heap WHERE id % 3 = 0 AND id > 320;
\c
INSERT INTO placement_log SELECT 'seed 1011', 31, placement_differs('m1011_nvm', 'm1011_heap');
\c
VACUUM m1011_nvm;
\c
VACUUM m1011_heap;
\c
INSERT INTO placement_log SELECT 'seed 1011', 32, placement_differs('m1011_nvm', 'm1011_heap');
\c
BEGIN; SELECT count(*) FROM (SELECT id FROM m1011_nvm WHERE id % 3 = 1 FOR NO KEY UPDATE) s; COMMIT;
\c
BEGIN; SELECT count(*) FROM (SELECT id FROM m1011_heap WHERE id % 3 = 1 FOR NO KEY UPDATE) s; COMMIT;
\c
INSERT INTO placement_log SELECT 'seed 1011', 33, placement_differs('m1011_nvm', 'm1011_heap');
\c
BEGIN; SELECT count(*) FROM (SELECT id FROM m1011_nvm WHERE id % 10 = 2 FOR UPDATE) s; COMMIT;
\c
BEGIN; SELECT count(*) FROM (SELECT id FROM m1011_heap WHERE id % 10 = 2 FOR UPDATE) s; COMMIT;
\c
INSERT INTO placement_log SELECT 'seed 1011', 34, placement_differs('m1011_nvm', 'm1011_heap');
\c
UPDATE m1011_nvm SET v = v + 1, pad = CASE WHEN -3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + -3)) END WHERE id % 10 = 2;
\c
UPDATE m1011_heap SET v = v + 1, pad = CASE WHEN -3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + -3)) END WHERE id % 10 = 2;
\c
INSERT INTO placement_log SELECT 'seed 1011', 35, placement_differs('m1011_nvm', 'm1011_heap');
\c
SELECT count(*), sum(v) FROM m1011_nvm;
\c
SELECT count(*), sum(v) FROM m1011_heap;
\c
INSERT INTO placement_log SELECT 'seed 1011', 36, placement_differs('m1011_nvm', 'm1011_heap');
\c
UPDATE m1011_nvm SET v = v + 1, pad = CASE WHEN 3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 3)) END WHERE id % 10 = 9;
\c
UPDATE m1011_heap SET v = v + 1, pad = CASE WHEN 3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 3)) END WHERE id % 10 = 9;
\c
INSERT INTO placement_log SELECT 'seed 1011', 37, placement_differs('m1011_nvm', 'm1011_heap');
\c
VACUUM m1011_nvm;
\c
VACUUM m1011_heap;
\c
INSERT INTO placement_log SELECT 'seed 1011', 38, placement_differs('m1011_nvm', 'm1011_heap');
\c
UPDATE m1011_nvm SET v = v + 1, pad = CASE WHEN 3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 3)) END WHERE id % 2 = 1;
\c
UPDATE m1011_heap SET v = v + 1, pad = CASE WHEN 3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 3)) END WHERE id % 2 = 1;
\c
INSERT INTO placement_log SELECT 'seed 1011', 39, placement_differs('m1011_nvm', 'm1011_heap');
\c
INSERT INTO m1011_nvm SELECT g, g % 97, 0, repeat('x', 96 + g % 7) FROM generate_series(711, 711) g;
\c
INSERT INTO m1011_heap SELECT g, g % 97, 0, repeat('x', 96 + g % 7) FROM generate_series(711, 711) g;
\c
INSERT INTO placement_log SELECT 'seed 1011', 40, placement_differs('m1011_nvm', 'm1011_heap');
\c
VACUUM m1011_nvm;
\c
VACUUM m1011_heap;
\c
INSERT INTO placement_log SELECT 'seed 1011', 41, placement_differs('m1011_nvm', 'm1011_heap');
\c
SELECT count(*) FROM (SELECT v FROM m1011_nvm WHERE id BETWEEN 135 AND 710) s;
\c
SELECT count(*) FROM (SELECT v FROM m1011_heap WHERE id BETWEEN 135 AND 710) s;
\c
INSERT INTO placement_log SELECT 'seed 1011', 42, placement_differs('m1011_nvm', 'm1011_heap');
\c
INSERT INTO m1011_nvm SELECT g, g % 97, 0, repeat('u', 61) FROM generate_series(23, 72) g ON CONFLICT (id) DO UPDATE SET v = m1011_nvm.v + 1;
\c
INSERT INTO m1011_heap SELECT g, g % 97, 0, repeat('u', 61) FROM generate_series(23, 72) g ON CONFLICT (id) DO UPDATE SET v = m1011_heap.v + 1;
\c
INSERT INTO placement_log SELECT 'seed 1011', 43, placement_differs('m1011_nvm', 'm1011_heap');
\c
BEGIN; UPDATE m1011_nvm SET v = v + 1 WHERE id % 10 = 0; SAVEPOINT s; UPDATE m1011_nvm SET pad = pad || 'q' WHERE id % 10 = 9; ROLLBACK TO s; UPDATE m1011_nvm SET v = v + 1 WHERE id % 10 = 2; COMMIT;
\c
BEGIN; UPDATE m1011_heap SET v = v + 1 WHERE id % 10 = 0; SAVEPOINT s; UPDATE m1011_heap SET pad = pad || 'q' WHERE id % 10 = 9; ROLLBACK TO s; UPDATE m1011_heap SET v = v + 1 WHERE id % 10 = 2; COMMIT;
\c
INSERT INTO placement_log SELECT 'seed 1011', 44, placement_differs('m1011_nvm', 'm1011_heap');
\c
SELECT count(*), sum(v) FROM m1011_nvm;
\c
SELECT count(*), sum(v) FROM m1011_heap;
\c
INSERT INTO placement_log SELECT 'seed 1011', 45, placement_differs('m1011_nvm', 'm1011_heap');
\c
SELECT count(*) FROM (SELECT v FROM m1011_nvm WHERE id BETWEEN 517 AND 430) s;
\c
SELECT count(*) FROM (SELECT v FROM m1011_heap WHERE id BETWEEN 517 AND 430) s;
\c
INSERT INTO placement_log SELECT 'seed 1011', 46, placement_differs('m1011_nvm', 'm1011_heap');
\c
UPDATE m1011_nvm SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 10 = 4;
\c
UPDATE m1011_heap SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 10 = 4;
\c
INSERT INTO placement_log SELECT 'seed 1011', 47, placement_differs('m1011_nvm', 'm1011_heap');
\c
UPDATE m1011_nvm SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 50 = 0;
\c
UPDATE m1011_heap SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 50 = 0;
\c
INSERT INTO placement_log SELECT 'seed 1011', 48, placement_differs('m1011_nvm', 'm1011_heap');
\c
ANALYZE m1011_nvm;
\c
ANALYZE m1011_heap;
\c
INSERT INTO placement_log SELECT 'seed 1011', 49, placement_differs('m1011_nvm', 'm1011_heap');
\c
SELECT count(*), sum(v) FROM m1011_nvm;
\c
SELECT count(*), sum(v) FROM m1011_heap;
\c
INSERT INTO placement_log SELECT 'seed 1011', 50, placement_differs('m1011_nvm', 'm1011_heap');
\c
INSERT INTO m1011_nvm SELECT g, 1, 0, (SELECT string_agg(md5(g::text || i::text), '') FROM generate_series(1, 100) i) FROM generate_series(712, 716) g;
\c
INSERT INTO m1011_heap SELECT g, 1, 0, (SELECT string_agg(md5(g::text || i::text), '') FROM generate_series(1, 100) i) FROM generate_series(712, 716) g;
\c
INSERT INTO placement_log SELECT 'seed 1011', 51, placement_differs('m1011_nvm', 'm1011_heap');
\c
ANALYZE m1011_nvm;
\c
ANALYZE m1011_heap;
\c
INSERT INTO placement_log SELECT 'seed 1011', 52, placement_differs('m1011_nvm', 'm1011_heap');
\c
SELECT count(*) FROM (SELECT v FROM m1011_nvm WHERE id BETWEEN 643 AND 765) s;
\c
SELECT count(*) FROM (SELECT v FROM m1011_heap WHERE id BETWEEN 643 AND 765) s;
\c
INSERT INTO placement_log SELECT 'seed 1011', 53, placement_differs('m1011_nvm', 'm1011_heap');
\c
UPDATE m1011_nvm SET v = v + 1 WHERE id % 40 = 6 RETURNING id;
\c
UPDATE m1011_heap SET v = v + 1 WHERE id % 40 = 6 RETURNING id;
\c
INSERT INTO placement_log SELECT 'seed 1011', 54, placement_differs('m1011_nvm', 'm1011_heap');
\c
INSERT INTO m1011_nvm SELECT g, g % 97, 0, repeat('x', 220 + g % 7) FROM generate_series(717, 766) g;
\c
INSERT INTO m1011_heap SELECT g, g % 97, 0, repeat('x', 220 + g % 7) FROM generate_series(717, 766) g;
\c
INSERT INTO placement_log SELECT 'seed 1011', 55, placement_differs('m1011_nvm', 'm1011_heap');
\c
BEGIN; SELECT count(*) FROM (SELECT id FROM m1011_nvm WHERE id % 10 = 6 FOR KEY SHARE) s; COMMIT;
\c
BEGIN; SELECT count(*) FROM (SELECT id FROM m1011_heap WHERE id % 10 = 6 FOR KEY SHARE) s; COMMIT;
\c
INSERT INTO placement_log SELECT 'seed 1011', 56, placement_differs('m1011_nvm', 'm1011_heap');
\c
UPDATE m1011_nvm SET k = k + 1 WHERE id % 20 = 4;
\c
UPDATE m1011_heap SET k = k + 1 WHERE id % 20 = 4;
\c
INSERT INTO placement_log SELECT 'seed 1011', 57, placement_differs('m1011_nvm', 'm1011_heap');
\c
BEGIN; UPDATE m1011_nvm SET v = v + 1 WHERE id % 5 = 0; SAVEPOINT s; UPDATE m1011_nvm SET pad = pad || 'q' WHERE id % 5 = 0; ROLLBACK TO s; UPDATE m1011_nvm SET v = v + 1 WHERE id % 5 = 4; COMMIT;
\c
BEGIN; UPDATE m1011_heap SET v = v + 1 WHERE id % 5 = 0; SAVEPOINT s; UPDATE m1011_heap SET pad = pad || 'q' WHERE id % 5 = 0; ROLLBACK TO s; UPDATE m1011_heap SET v = v + 1 WHERE id % 5 = 4; COMMIT;
\c
INSERT INTO placement_log SELECT 'seed 1011', 58, placement_differs('m1011_nvm', 'm1011_heap');
\c
BEGIN; UPDATE m1011_nvm SET v = v + 1, pad = pad || 'z' WHERE id % 2 = 0; ROLLBACK;
\c
BEGIN; UPDATE m1011_heap SET v = v + 1, pad = pad || 'z' WHERE id % 2 = 0; ROLLBACK;
\c
INSERT INTO placement_log SELECT 'seed 1011', 59, placement_differs('m1011_nvm', 'm1011_heap');
\c
SELECT count(*), sum(v) FROM m1011_nvm;
\c
SELECT count(*), sum(v) FROM m1011_heap;
\c
INSERT INTO placement_log SELECT 'seed 1011', 60, placement_differs('m1011_nvm', 'm1011_heap');
\c
\o
-- the mix of seed 1013 (fillfactor 70)
CREATE TABLE m1013_nvm (id int PRIMARY KEY, k int, v int, pad text) USING nvm_am
  WITH (fillfactor = 70, autovacuum_enabled = false);
CREATE INDEX ON m1013_nvm (k);
CREATE TABLE m1013_heap (id int PRIMARY KEY, k int, v int, pad text) USING heap
  WITH (fillfactor = 70, autovacuum_enabled = false);
CREATE INDEX ON m1013_heap (k);
\o /dev/null
UPDATE m1013_nvm SET k = k + 1 WHERE id % 5 = 3;
\c
UPDATE m1013_heap SET k = k + 1 WHERE id % 5 = 3;
\c
INSERT INTO placement_log SELECT 'seed 1013', 1, placement_differs('m1013_nvm', 'm1013_heap');
\c
INSERT INTO m1013_nvm SELECT g, g % 97, 0, repeat('x', 126 + g % 7) FROM generate_series(1, 300) g;
\c
INSERT INTO m1013_heap SELECT g, g % 97, 0, repeat('x', 126 + g % 7) FROM generate_series(1, 300) g;
\c
INSERT INTO placement_log SELECT 'seed 1013', 2, placement_differs('m1013_nvm', 'm1013_heap');
\c
SELECT count(*), sum(v) FROM m1013_nvm;
\c
SELECT count(*), sum(v) FROM m1013_heap;
\c
INSERT INTO placement_log SELECT 'seed 1013', 3, placement_differs('m1013_nvm', 'm1013_heap');
\c
INSERT INTO m1013_nvm SELECT g, g % 97, 0, repeat('x', 39 + g % 7) FROM generate_series(301, 350) g;
\c
INSERT INTO m1013_heap SELECT g, g % 97, 0, repeat('x', 39 + g % 7) FROM generate_series(301, 350) g;
\c
INSERT INTO placement_log SELECT 'seed 1013', 4, placement_differs('m1013_nvm', 'm1013_heap');
\c
VACUUM FULL m1013_nvm;
\c
VACUUM FULL m1013_heap;
\c
INSERT INTO placement_log SELECT 'seed 1013', 5, placement_differs('m1013_nvm', 'm1013_heap');
\c
BEGIN; SELECT count(*) FROM (SELECT id FROM m1013_nvm WHERE id % 10 = 1 FOR NO KEY UPDATE) s; COMMIT;
\c
BEGIN; SELECT count(*) FROM (SELECT id FROM m1013_heap WHERE id % 10 = 1 FOR NO KEY UPDATE) s; COMMIT;
\c
INSERT INTO placement_log SELECT 'seed 1013', 6, placement_differs('m1013_nvm', 'm1013_heap');
\c
SELECT count(*), sum(v) FROM m1013_nvm;
\c
SELECT count(*), sum(v) FROM m1013_heap;
\c
INSERT INTO placement_log SELECT 'seed 1013', 7, placement_differs('m1013_nvm', 'm1013_heap');
\c
SELECT count(*) FROM (SELECT v FROM m1013_nvm WHERE id BETWEEN 347 AND 132) s;
\c
SELECT count(*) FROM (SELECT v FROM m1013_heap WHERE id BETWEEN 347 AND 132) s;
\c
INSERT INTO placement_log SELECT 'seed 1013', 8, placement_differs('m1013_nvm', 'm1013_heap');
\c
COPY m1013_nvm FROM PROGRAM 'seq 351 550 | sed "s/.*/&,1,0,ccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc/"' WITH (FORMAT csv);
\c
COPY m1013_heap FROM PROGRAM 'seq 351 550 | sed "s/.*/&,1,0,ccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc/"' WITH (FORMAT csv);
\c
INSERT INTO placement_log SELECT 'seed 1013', 9, placement_differs('m1013_nvm', 'm1013_heap');
\c
CLUSTER m1013_nvm USING m1013_nvm_pkey;
\c
CLUSTER m1013_heap USING m1013_heap_pkey;
\c
INSERT INTO placement_log SELECT 'seed 1013', 10, placement_differs('m1013_nvm', 'm1013_heap');
\c
DELETE FROM m1013_nvm WHERE id % 3 = 2 AND id > 151;
\c
DELETE FROM m1013_heap WHERE id % 3 = 2 AND id > 151;
\c
INSERT INTO placement_log SELECT 'seed 1013', 11, placement_differs('m1013_nvm', 'm1013_heap');
\c
COPY m1013_nvm FROM PROGRAM 'seq 551 560 | sed "s/.*/&,1,0,cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc/"' WITH (FORMAT csv);
\c
COPY m1013_heap FROM PROGRAM 'seq 551 560 | sed "s/.*/&,1,0,cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc/"' WITH (FORMAT csv);
\c
INSERT INTO placement_log SELECT 'seed 1013', 12, placement_differs('m1013_nvm', 'm1013_heap');
\c
UPDATE m1013_nvm SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 50 = 30;
\c
UPDATE m1013_heap SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 50 = 30;
\c
INSERT INTO placement_log SELECT 'seed 1013', 13, placement_differs('m1013_nvm', 'm1013_heap');
\c
UPDATE m1013_nvm SET v = v + 1, pad = CASE WHEN 3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 3)) END WHERE id % 10 = 5;
\c
UPDATE m1013_heap SET v = v + 1, pad = CASE WHEN 3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 3)) END WHERE id % 10 = 5;
\c
INSERT INTO placement_log SELECT 'seed 1013', 14, placement_differs('m1013_nvm', 'm1013_heap');
\c
VACUUM FULL m1013_nvm;
\c
VACUUM FULL m1013_heap;
\c
INSERT INTO placement_log SELECT 'seed 1013', 15, placement_differs('m1013_nvm', 'm1013_heap');
\c
DELETE FROM m1013_nvm WHERE id % 3 = 1 AND id > 533;
\c
DELETE FROM m1013_heap WHERE id % 3 = 1 AND id > 533;
\c
INSERT INTO placement_log SELECT 'seed 1013', 16, placement_differs('m1013_nvm', 'm1013_heap');
\c
BEGIN; UPDATE m1013_nvm SET v = v + 1 WHERE id % 10 = 7; SAVEPOINT s; UPDATE m1013_nvm SET pad = pad || 'q' WHERE id % 10 = 7; ROLLBACK TO s; UPDATE m1013_nvm SET v = v + 1 WHERE id % 10 = 8; COMMIT;
\c
BEGIN; UPDATE m1013_heap SET v = v + 1 WHERE id % 10 = 7; SAVEPOINT s; UPDATE m1013_heap SET pad = pad || 'q' WHERE id % 10 = 7; ROLLBACK TO s; UPDATE m1013_heap SET v = v + 1 WHERE id % 10 = 8; COMMIT;
\c
INSERT INTO placement_log SELECT 'seed 1013', 17, placement_differs('m1013_nvm', 'm1013_heap');
\c
UPDATE m1013_nvm SET v = v + 1, pad = CASE WHEN 3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 3)) END WHERE id % 10 = 4;
\c
UPDATE m1013_heap SET v = v + 1, pad = CASE WHEN 3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 3)) END WHERE id % 10 = 4;
\c
INSERT INTO placement_log SELECT 'seed 1013', 18, placement_differs('m1013_nvm', 'm1013_heap');
\c
INSERT INTO m1013_nvm SELECT g, 1, 0, (SELECT string_agg(md5(g::text || i::text), '') FROM generate_series(1, 100) i) FROM generate_series(561, 565) g;
\c
INSERT INTO m1013_heap SELECT g, 1, 0, (SELECT string_agg(md5(g::text || i::text), '') FROM generate_series(1, 100) i) FROM generate_series(561, 565) g;
\c
INSERT INTO placement_log SELECT 'seed 1013', 19, placement_differs('m1013_nvm', 'm1013_heap');
\c
INSERT INTO m1013_nvm SELECT g, 1, 0, (SELECT string_agg(md5(g::text || i::text), '') FROM generate_series(1, 300) i) FROM generate_series(566, 566) g;
\c
INSERT INTO m1013_heap SELECT g, 1, 0, (SELECT string_agg(md5(g::text || i::text), '') FROM generate_series(1, 300) i) FROM generate_series(566, 566) g;
\c
INSERT INTO placement_log SELECT 'seed 1013', 20, placement_differs('m1013_nvm', 'm1013_heap');
\c
SELECT count(*) FROM (SELECT v FROM m1013_nvm WHERE id BETWEEN 308 AND 218) s;
\c
SELECT count(*) FROM (SELECT v FROM m1013_heap WHERE id BETWEEN 308 AND 218) s;
\c
INSERT INTO placement_log SELECT 'seed 1013', 21, placement_differs('m1013_nvm', 'm1013_heap');
\c
VACUUM m1013_nvm;
\c
VACUUM m1013_heap;
\c
INSERT INTO placement_log SELECT 'seed 1013', 22, placement_differs('m1013_nvm', 'm1013_heap');
\c
SELECT count(*), sum(v) FROM m1013_nvm;
\c
SELECT count(*), sum(v) FROM m1013_heap;
\c
INSERT INTO placement_log SELECT 'seed 1013', 23, placement_differs('m1013_nvm', 'm1013_heap');
\c
UPDATE m1013_nvm SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 10 = 0;
\c
UPDATE m1013_heap SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 10 = 0;
\c
INSERT INTO placement_log SELECT 'seed 1013', 24, placement_differs('m1013_nvm', 'm1013_heap');
\c
ANALYZE m1013_nvm;
\c
ANALYZE m1013_heap;
\c
INSERT INTO placement_log SELECT 'seed 1013', 25, placement_differs('m1013_nvm', 'm1013_heap');
\c
INSERT INTO m1013_nvm SELECT g, 1, 0, (SELECT string_agg(md5(g::text || i::text), '') FROM generate_series(1, 100) i) FROM generate_series(567, 567) g;
\c
INSERT INTO m1013_heap SELECT g, 1, 0, (SELECT string_agg(md5(g::text || i::text), '') FROM generate_series(1, 100) i) FROM generate_series(567, 567) g;
\c
INSERT INTO placement_log SELECT 'seed 1013', 26, placement_differs('m1013_nvm', 'm1013_heap');
\c
ANALYZE m1013_nvm;
\c
ANALYZE m1013_heap;
\c
INSERT INTO placement_log SELECT 'seed 1013', 27, placement_differs('m1013_nvm', 'm1013_heap');
\c
UPDATE m1013_nvm SET v = v + 1, pad = CASE WHEN 3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 3)) END WHERE id % 5 = 4;
\c
UPDATE m1013_heap SET v = v + 1, pad = CASE WHEN 3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 3)) END WHERE id % 5 = 4;
\c
INSERT INTO placement_log SELECT 'seed 1013', 28, placement_differs('m1013_nvm', 'm1013_heap');
\c
SELECT count(*) FROM (SELECT v FROM m1013_nvm WHERE id BETWEEN 73 AND 348) s;
\c
SELECT count(*) FROM (SELECT v FROM m1013_heap WHERE id BETWEEN 73 AND 348) s;
\c
INSERT INTO placement_log SELECT 'seed 1013', 29, placement_differs('m1013_nvm', 'm1013_heap');
\c
DELETE FROM m1013_nvm WHERE id % 3 = 2 AND id > 379;
\c
DELETE FROM m1013_heap WHERE id % 3 = 2 AND id > 379;
\c
INSERT INTO placement_log SELECT 'seed 1013', 30, placement_differs('m1013_nvm', 'm1013_heap');
\c
SELECT count(*) FROM (SELECT v FROM m1013_nvm WHERE id BETWEEN 116 AND 606) s;
\c
SELECT count(*) FROM (SELECT v FROM m1013_heap WHERE id BETWEEN 116 AND 606) s;
\c
INSERT INTO placement_log SELECT 'seed 1013', 31, placement_differs('m1013_nvm', 'm1013_heap');
\c
ANALYZE m1013_nvm;
\c
ANALYZE m1013_heap;
\c
INSERT INTO placement_log SELECT 'seed 1013', 32, placement_differs('m1013_nvm', 'm1013_heap');
\c
CLUSTER m1013_nvm USING m1013_nvm_pkey;
\c
CLUSTER m1013_heap USING m1013_heap_pkey;
\c
INSERT INTO placement_log SELECT 'seed 1013', 33, placement_differs('m1013_nvm', 'm1013_heap');
\c
SELECT count(*), sum(v) FROM m1013_nvm;
\c
SELECT count(*), sum(v) FROM m1013_heap;
\c
INSERT INTO placement_log SELECT 'seed 1013', 34, placement_differs('m1013_nvm', 'm1013_heap');
\c
INSERT INTO m1013_nvm SELECT g, g % 97, 0, repeat('x', 113 + g % 7) FROM generate_series(568, 572) g;
\c
INSERT INTO m1013_heap SELECT g, g % 97, 0, repeat('x', 113 + g % 7) FROM generate_series(568, 572) g;
\c
INSERT INTO placement_log SELECT 'seed 1013', 35, placement_differs('m1013_nvm', 'm1013_heap');
\c
INSERT INTO m1013_nvm SELECT g, 1, 0, (SELECT string_agg(md5(g::text || i::text), '') FROM generate_series(1, 20) i) FROM generate_series(573, 577) g;
\c
INSERT INTO m1013_heap SELECT g, 1, 0, (SELECT string_agg(md5(g::text || i::text), '') FROM generate_series(1, 20) i) FROM generate_series(573, 577) g;
\c
INSERT INTO placement_log SELECT 'seed 1013', 36, placement_differs('m1013_nvm', 'm1013_heap');
\c
VACUUM m1013_nvm;
\c
VACUUM m1013_heap;
\c
INSERT INTO placement_log SELECT 'seed 1013', 37, placement_differs('m1013_nvm', 'm1013_heap');
\c
UPDATE m1013_nvm SET v = v + 1 WHERE id % 40 = 38 RETURNING id;
\c
UPDATE m1013_heap SET v = v + 1 WHERE id % 40 = 38 RETURNING id;
\c
INSERT INTO placement_log SELECT 'seed 1013', 38, placement_differs('m1013_nvm', 'm1013_heap');
\c
INSERT INTO m1013_nvm SELECT g, g % 97, 0, repeat('x', 142 + g % 7) FROM generate_series(578, 578) g;
\c
INSERT INTO m1013_heap SELECT g, g % 97, 0, repeat('x', 142 + g % 7) FROM generate_series(578, 578) g;
\c
INSERT INTO placement_log SELECT 'seed 1013', 39, placement_differs('m1013_nvm', 'm1013_heap');
\c
UPDATE m1013_nvm SET v = v + 1 WHERE id % 10 = 1 RETURNING id;
\c
UPDATE m1013_heap SET v = v + 1 WHERE id % 10 = 1 RETURNING id;
\c
INSERT INTO placement_log SELECT 'seed 1013', 40, placement_differs('m1013_nvm', 'm1013_heap');
\c
SELECT count(*), sum(v) FROM m1013_nvm;
\c
SELECT count(*), sum(v) FROM m1013_heap;
\c
INSERT INTO placement_log SELECT 'seed 1013', 41, placement_differs('m1013_nvm', 'm1013_heap');
\c
COPY m1013_nvm FROM PROGRAM 'seq 579 778 | sed "s/.*/&,1,0,ccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc/"' WITH (FORMAT csv);
\c
COPY m1013_heap FROM PROGRAM 'seq 579 778 | sed "s/.*/&,1,0,ccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc/"' WITH (FORMAT csv);
\c
INSERT INTO placement_log SELECT 'seed 1013', 42, placement_differs('m1013_nvm', 'm1013_heap');
\c
DELETE FROM m1013_nvm WHERE id % 40 = 4 AND id > 34;
\c
DELETE FROM m1013_heap WHERE id % 40 = 4 AND id > 34;
\c
INSERT INTO placement_log SELECT 'seed 1013', 43, placement_differs('m1013_nvm', 'm1013_heap');
\c
SELECT count(*), sum(v) FROM m1013_nvm;
\c
SELECT count(*), sum(v) FROM m1013_heap;
\c
INSERT INTO placement_log SELECT 'seed 1013', 44, placement_differs('m1013_nvm', 'm1013_heap');
\c
COPY m1013_nvm FROM PROGRAM 'seq 779 978 | sed "s/.*/&,1,0,ccccccccccccccccccccccccc/"' WITH (FORMAT csv);
\c
COPY m1013_heap FROM PROGRAM 'seq 779 978 | sed "s/.*/&,1,0,ccccccccccccccccccccccccc/"' WITH (FORMAT csv);
\c
INSERT INTO placement_log SELECT 'seed 1013', 45, placement_differs('m1013_nvm', 'm1013_heap');
\c
SELECT count(*), sum(v) FROM m1013_nvm;
\c
SELECT count(*), sum(v) FROM m1013_heap;
\c
INSERT INTO placement_log SELECT 'seed 1013', 46, placement_differs('m1013_nvm', 'm1013_heap');
\c
UPDATE m1013_nvm SET k = k + 1 WHERE id % 5 = 0;
\c
UPDATE m1013_heap SET k = k + 1 WHERE id % 5 = 0;
\c
INSERT INTO placement_log SELECT 'seed 1013', 47, placement_differs('m1013_nvm', 'm1013_heap');
\c
COPY m1013_nvm FROM PROGRAM 'seq 979 1178 | sed "s/.*/&,1,0,ccc/"' WITH (FORMAT csv);
\c
COPY m1013_heap FROM PROGRAM 'seq 979 1178 | sed "s/.*/&,1,0,ccc/"' WITH (FORMAT csv);
\c
INSERT INTO placement_log SELECT 'seed 1013', 48, placement_differs('m1013_nvm', 'm1013_heap');
\c
ANALYZE m1013_nvm;
\c
ANALYZE m1013_heap;
\c
INSERT INTO placement_log SELECT 'seed 1013', 49, placement_differs('m1013_nvm', 'm1013_heap');
\c
SELECT count(*), sum(v) FROM m1013_nvm;
\c
SELECT count(*), sum(v) FROM m1013_heap;
\c
INSERT INTO placement_log SELECT 'seed 1013', 50, placement_differs('m1013_nvm', 'm1013_heap');
\c
INSERT INTO m1013_nvm SELECT g, g % 97, 0, repeat('x', 230 + g % 7) FROM generate_series(1179, 1478) g;
\c
INSERT INTO m1013_heap SELECT g, g % 97, 0, repeat('x', 230 + g % 7) FROM generate_series(1179, 1478) g;
\c
INSERT INTO placement_log SELECT 'seed 1013', 51, placement_differs('m1013_nvm', 'm1013_heap');
\c
INSERT INTO m1013_nvm SELECT g, g % 97, 0, repeat('u', 147) FROM generate_series(278, 327) g ON CONFLICT (id) DO UPDATE SET v = m1013_nvm.v + 1;
\c
INSERT INTO m1013_heap SELECT g, g % 97, 0, repeat('u', 147) FROM generate_series(278, 327) g ON CONFLICT (id) DO UPDATE SET v = m1013_heap.v + 1;
\c
INSERT INTO placement_log SELECT 'seed 1013', 52, placement_differs('m1013_nvm', 'm1013_heap');
\c
VACUUM m1013_nvm;
\c
VACUUM m1013_heap;
\c
INSERT INTO placement_log SELECT 'seed 1013', 53, placement_differs('m1013_nvm', 'm1013_heap');
\c
SELECT count(*) FROM (SELECT v FROM m1013_nvm WHERE id BETWEEN 486 AND 164) s;
\c
SELECT count(*) FROM (SELECT v FROM m1013_heap WHERE id BETWEEN 486 AND 164) s;
\c
INSERT INTO placement_log SELECT 'seed 1013', 54, placement_differs('m1013_nvm', 'm1013_heap');
\c
UPDATE m1013_nvm SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 2 = 1;
\c
UPDATE m1013_heap SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 2 = 1;
\c
INSERT INTO placement_log SELECT 'seed 1013', 55, placement_differs('m1013_nvm', 'm1013_heap');
\c
BEGIN; SELECT count(*) FROM (SELECT id FROM m1013_nvm WHERE id % 10 = 9 FOR UPDATE) s; COMMIT;
\c
BEGIN; SELECT count(*) FROM (SELECT id FROM m1013_heap WHERE id % 10 = 9 FOR UPDATE) s; COMMIT;
\c
INSERT INTO placement_log SELECT 'seed 1013', 56, placement_differs('m1013_nvm', 'm1013_heap');
\c
INSERT INTO m1013_nvm SELECT g, g % 97, 0, repeat('u', 234) FROM generate_series(541, 545) g ON CONFLICT (id) DO UPDATE SET v = m1013_nvm.v + 1;
\c
INSERT INTO m1013_heap SELECT g, g % 97, 0, repeat('u', 234) FROM generate_series(541, 545) g ON CONFLICT (id) DO UPDATE SET v = m1013_heap.v + 1;
\c
INSERT INTO placement_log SELECT 'seed 1013', 57, placement_differs('m1013_nvm', 'm1013_heap');
\c
UPDATE m1013_nvm SET k = k + 1 WHERE id % 5 = 3;
\c
UPDATE m1013_heap SET k = k + 1 WHERE id % 5 = 3;
\c
INSERT INTO placement_log SELECT 'seed 1013', 58, placement_differs('m1013_nvm', 'm1013_heap');
\c
UPDATE m1013_nvm SET v = v + 1, pad = CASE WHEN 3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 3)) END WHERE id % 2 = 1;
\c
UPDATE m1013_heap SET v = v + 1, pad = CASE WHEN 3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 3)) END WHERE id % 2 = 1;
\c
INSERT INTO placement_log SELECT 'seed 1013', 59, placement_differs('m1013_nvm', 'm1013_heap');
\c
BEGIN; UPDATE m1013_nvm SET v = v + 1, pad = pad || 'z' WHERE id % 10 = 2; ROLLBACK;
\c
BEGIN; UPDATE m1013_heap SET v = v + 1, pad = pad || 'z' WHERE id % 10 = 2; ROLLBACK;
\c
INSERT INTO placement_log SELECT 'seed 1013', 60, placement_differs('m1013_nvm', 'm1013_heap');
\c
\o
-- the mix of seed 1022 (fillfactor 100)
CREATE TABLE m1022_nvm (id int PRIMARY KEY, k int, v int, pad text) USING nvm_am
  WITH (fillfactor = 100, autovacuum_enabled = false);
CREATE INDEX ON m1022_nvm (k);
CREATE TABLE m1022_heap (id int PRIMARY KEY, k int, v int, pad text) USING heap
  WITH (fillfactor = 100, autovacuum_enabled = false);
CREATE INDEX ON m1022_heap (k);
\o /dev/null
VACUUM FULL m1022_nvm;
\c
VACUUM FULL m1022_heap;
\c
INSERT INTO placement_log SELECT 'seed 1022', 1, placement_differs('m1022_nvm', 'm1022_heap');
\c
BEGIN; UPDATE m1022_nvm SET v = v + 1, pad = pad || 'z' WHERE id % 2 = 1; ROLLBACK;
\c
BEGIN; UPDATE m1022_heap SET v = v + 1, pad = pad || 'z' WHERE id % 2 = 1; ROLLBACK;
\c
INSERT INTO placement_log SELECT 'seed 1022', 2, placement_differs('m1022_nvm', 'm1022_heap');
\c
ANALYZE m1022_nvm;
\c
ANALYZE m1022_heap;
\c
INSERT INTO placement_log SELECT 'seed 1022', 3, placement_differs('m1022_nvm', 'm1022_heap');
\c
UPDATE m1022_nvm SET v = v + 1, pad = CASE WHEN -3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + -3)) END WHERE id % 10 = 3;
\c
UPDATE m1022_heap SET v = v + 1, pad = CASE WHEN -3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + -3)) END WHERE id % 10 = 3;
\c
INSERT INTO placement_log SELECT 'seed 1022', 4, placement_differs('m1022_nvm', 'm1022_heap');
\c
INSERT INTO m1022_nvm SELECT g, g % 97, 0, repeat('x', 990 + g % 7) FROM generate_series(1, 50) g;
\c
INSERT INTO m1022_heap SELECT g, g % 97, 0, repeat('x', 990 + g % 7) FROM generate_series(1, 50) g;
\c
INSERT INTO placement_log SELECT 'seed 1022', 5, placement_differs('m1022_nvm', 'm1022_heap');
\c
SELECT count(*), sum(v) FROM m1022_nvm;
\c
SELECT count(*), sum(v) FROM m1022_heap;
\c
INSERT INTO placement_log SELECT 'seed 1022', 6, placement_differs('m1022_nvm', 'm1022_heap');
\c
COPY m1022_nvm FROM PROGRAM 'seq 51 250 | sed "s/.*/&,1,0,cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc/"' WITH (FORMAT csv);
\c
COPY m1022_heap FROM PROGRAM 'seq 51 250 | sed "s/.*/&,1,0,cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc/"' WITH (FORMAT csv);
\c
INSERT INTO placement_log SELECT 'seed 1022', 7, placement_differs('m1022_nvm', 'm1022_heap');
\c
UPDATE m1022_nvm SET v = v + 1, pad = CASE WHEN -3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + -3)) END WHERE id % 50 = 43;
\c
UPDATE m1022_heap SET v = v + 1, pad = CASE WHEN -3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + -3)) END WHERE id % 50 = 43;
\c
INSERT INTO placement_log SELECT 'seed 1022', 8, placement_differs('m1022_nvm', 'm1022_heap');
\c
INSERT INTO m1022_nvm SELECT g, g % 97, 0, repeat('x', 1185 + g % 7) FROM generate_series(251, 255) g;
\c
INSERT INTO m1022_heap SELECT g, g % 97, 0, repeat('x', 1185 + g % 7) FROM generate_series(251, 255) g;
\c
INSERT INTO placement_log SELECT 'seed 1022', 9, placement_differs('m1022_nvm', 'm1022_heap');
\c
UPDATE m1022_nvm SET k = k + 1 WHERE id % 5 = 2;
\c
UPDATE m1022_heap SET k = k + 1 WHERE id % 5 = 2;
\c
INSERT INTO placement_log SELECT 'seed 1022', 10, placement_differs('m1022_nvm', 'm1022_heap');
\c
VACUUM m1022_nvm;
\c
VACUUM m1022_heap;
\c
INSERT INTO placement_log SELECT 'seed 1022', 11, placement_differs('m1022_nvm', 'm1022_heap');
\c
UPDATE m1022_nvm SET v = v + 1 WHERE id % 10 = 7 RETURNING id;
\c
UPDATE m1022_heap SET v = v + 1 WHERE id % 10 = 7 RETURNING id;
\c
INSERT INTO placement_log SELECT 'seed 1022', 12, placement_differs('m1022_nvm', 'm1022_heap');
\c
INSERT INTO m1022_nvm SELECT g, g % 97, 0, repeat('u', 1091) FROM generate_series(90, 139) g ON CONFLICT (id) DO UPDATE SET v = m1022_nvm.v + 1;
\c
INSERT INTO m1022_heap SELECT g, g % 97, 0, repeat('u', 1091) FROM generate_series(90, 139) g ON CONFLICT (id) DO UPDATE SET v = m1022_heap.v + 1;
\c
INSERT INTO placement_log SELECT 'seed 1022', 13, placement_differs('m1022_nvm', 'm1022_heap');
\c
BEGIN; SELECT count(*) FROM (SELECT id FROM m1022_nvm WHERE id % 3 = 0 FOR UPDATE) s; COMMIT;
\c
BEGIN; SELECT count(*) FROM (SELECT id FROM m1022_heap WHERE id % 3 = 0 FOR UPDATE) s; COMMIT;
\c
INSERT INTO placement_log SELECT 'seed 1022', 14, placement_differs('m1022_nvm', 'm1022_heap');
\c
SELECT count(*), sum(v) FROM m1022_nvm;
\c
SELECT count(*), sum(v) FROM m1022_heap;
\c
INSERT INTO placement_log SELECT 'seed 1022', 15, placement_differs('m1022_nvm', 'm1022_heap');
\c
BEGIN; UPDATE m1022_nvm SET v = v + 1 WHERE id % 5 = 1; SAVEPOINT s; UPDATE m1022_nvm SET pad = pad || 'q' WHERE id % 5 = 3; ROLLBACK TO s; UPDATE m1022_nvm SET v = v + 1 WHERE id % 5 = 0; COMMIT;
\c
BEGIN; UPDATE m1022_heap SET v = v + 1 WHERE id % 5 = 1; SAVEPOINT s; UPDATE m1022_heap SET pad = pad || 'q' WHERE id % 5 = 3; ROLLBACK TO s; UPDATE m1022_heap SET v = v + 1 WHERE id % 5 = 0; COMMIT;
\c
INSERT INTO placement_log SELECT 'seed 1022', 16, placement_differs('m1022_nvm', 'm1022_heap');
\c
UPDATE m1022_nvm SET v = v + 1, pad = CASE WHEN -3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + -3)) END WHERE id % 10 = 9;
\c
UPDATE m1022_heap SET v = v + 1, pad = CASE WHEN -3 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + -3)) END WHERE id % 10 = 9;
\c
INSERT INTO placement_log SELECT 'seed 1022', 17, placement_differs('m1022_nvm', 'm1022_heap');
\c
CLUSTER m1022_nvm USING m1022_nvm_pkey;
\c
CLUSTER m1022_heap USING m1022_heap_pkey;
\c
INSERT INTO placement_log SELECT 'seed 1022', 18, placement_differs('m1022_nvm', 'm1022_heap');
\c
VACUUM m1022_nvm;
\c
VACUUM m1022_heap;
\c
INSERT INTO placement_log SELECT 'seed 1022', 19, placement_differs('m1022_nvm', 'm1022_heap');
\c
BEGIN; UPDATE m1022_nvm SET v = v + 1, pad = pad || 'z' WHERE id % 5 = 1; ROLLBACK;
\c
BEGIN; UPDATE m1022_heap SET v = v + 1, pad = pad || 'z' WHERE id % 5 = 1; ROLLBACK;
\c
INSERT INTO placement_log SELECT 'seed 1022', 20, placement_differs('m1022_nvm', 'm1022_heap');
\c
UPDATE m1022_nvm SET k = k + 1 WHERE id % 20 = 4;
\c
UPDATE m1022_heap SET k = k + 1 WHERE id % 20 = 4;
\c
INSERT INTO placement_log SELECT 'seed 1022', 21, placement_differs('m1022_nvm', 'm1022_heap');
\c
BEGIN; UPDATE m1022_nvm SET v = v + 1 WHERE id % 5 = 2; SAVEPOINT s; UPDATE m1022_nvm SET pad = pad || 'q' WHERE id % 5 = 4; ROLLBACK TO s; UPDATE m1022_nvm SET v = v + 1 WHERE id % 5 = 1; COMMIT;
\c
BEGIN; UPDATE m1022_heap SET v = v + 1 WHERE id % 5 = 2; SAVEPOINT s; UPDATE m1022_heap SET pad = pad || 'q' WHERE id % 5 = 4; ROLLBACK TO s; UPDATE m1022_heap SET v = v + 1 WHERE id % 5 = 1; COMMIT;
\c
INSERT INTO placement_log SELECT 'seed 1022', 22, placement_differs('m1022_nvm', 'm1022_heap');
\c
UPDATE m1022_nvm SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 5 = 4;
\c
UPDATE m1022_heap SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 5 = 4;
\c
INSERT INTO placement_log SELECT 'seed 1022', 23, placement_differs('m1022_nvm', 'm1022_heap');
\c
INSERT INTO m1022_nvm SELECT g, g % 97, 0, repeat('u', 967) FROM generate_series(16, 20) g ON CONFLICT (id) DO UPDATE SET v = m1022_nvm.v + 1;
\c
INSERT INTO m1022_heap SELECT g, g % 97, 0, repeat('u', 967) FROM generate_series(16, 20) g ON CONFLICT (id) DO UPDATE SET v = m1022_heap.v + 1;
\c
INSERT INTO placement_log SELECT 'seed 1022', 24, placement_differs('m1022_nvm', 'm1022_heap');
\c
INSERT INTO m1022_nvm SELECT g, g % 97, 0, repeat('x', 24 + g % 7) FROM generate_series(256, 256) g;
\c
INSERT INTO m1022_heap SELECT g, g % 97, 0, repeat('x', 24 + g % 7) FROM generate_series(256, 256) g;
\c
INSERT INTO placement_log SELECT 'seed 1022', 25, placement_differs('m1022_nvm', 'm1022_heap');
\c
BEGIN; SELECT count(*) FROM (SELECT id FROM m1022_nvm WHERE id % 10 = 4 FOR NO KEY UPDATE) s; COMMIT;
\c
BEGIN; SELECT count(*) FROM (SELECT id FROM m1022_heap WHERE id % 10 = 4 FOR NO KEY UPDATE) s; COMMIT;
\c
INSERT INTO placement_log SELECT 'seed 1022', 26, placement_differs('m1022_nvm', 'm1022_heap');
\c
INSERT INTO m1022_nvm SELECT g, g % 97, 0, repeat('x', 276 + g % 7) FROM generate_series(257, 556) g;
\c
INSERT INTO m1022_heap SELECT g, g % 97, 0, repeat('x', 276 + g % 7) FROM generate_series(257, 556) g;
\c
INSERT INTO placement_log SELECT 'seed 1022', 27, placement_differs('m1022_nvm', 'm1022_heap');
\c
INSERT INTO m1022_nvm SELECT g, g % 97, 0, repeat('u', 557) FROM generate_series(9, 13) g ON CONFLICT (id) DO UPDATE SET v = m1022_nvm.v + 1;
\c
INSERT INTO m1022_heap SELECT g, g % 97, 0, repeat('u', 557) FROM generate_series(9, 13) g ON CONFLICT (id) DO UPDATE SET v = m1022_heap.v + 1;
\c
INSERT INTO placement_log SELECT 'seed 1022', 28, placement_differs('m1022_nvm', 'm1022_heap');
\c
SELECT count(*) FROM (SELECT v FROM m1022_nvm WHERE id BETWEEN 279 AND 578) s;
\c
SELECT count(*) FROM (SELECT v FROM m1022_heap WHERE id BETWEEN 279 AND 578) s;
\c
INSERT INTO placement_log SELECT 'seed 1022', 29, placement_differs('m1022_nvm', 'm1022_heap');
\c
SELECT count(*), sum(v) FROM m1022_nvm;
\c
SELECT count(*), sum(v) FROM m1022_heap;
\c
INSERT INTO placement_log SELECT 'seed 1022', 30, placement_differs('m1022_nvm', 'm1022_heap');
\c
DELETE FROM m1022_nvm WHERE id % 10 = 2 AND id > 335;
\c
DELETE FROM m1022_heap WHERE id % 10 = 2 AND id > 335;
\c
INSERT INTO placement_log SELECT 'seed 1022', 31, placement_differs('m1022_nvm', 'm1022_heap');
\c
CLUSTER m1022_nvm USING m1022_nvm_pkey;
\c
CLUSTER m1022_heap USING m1022_heap_pkey;
\c
INSERT INTO placement_log SELECT 'seed 1022', 32, placement_differs('m1022_nvm', 'm1022_heap');
\c
INSERT INTO m1022_nvm SELECT g, g % 97, 0, repeat('x', 46 + g % 7) FROM generate_series(557, 856) g;
\c
INSERT INTO m1022_heap SELECT g, g % 97, 0, repeat('x', 46 + g % 7) FROM generate_series(557, 856) g;
\c
INSERT INTO placement_log SELECT 'seed 1022', 33, placement_differs('m1022_nvm', 'm1022_heap');
\c
COPY m1022_nvm FROM PROGRAM 'seq 857 866 | sed "s/.*/&,1,0,cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc/"' WITH (FORMAT csv);
\c
COPY m1022_heap FROM PROGRAM 'seq 857 866 | sed "s/.*/&,1,0,cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc/"' WITH (FORMAT csv);
\c
INSERT INTO placement_log SELECT 'seed 1022', 34, placement_differs('m1022_nvm', 'm1022_heap');
\c
BEGIN; UPDATE m1022_nvm SET v = v + 1 WHERE id % 10 = 0; SAVEPOINT s; UPDATE m1022_nvm SET pad = pad || 'q' WHERE id % 10 = 3; ROLLBACK TO s; UPDATE m1022_nvm SET v = v + 1 WHERE id % 10 = 1; COMMIT;
\c
BEGIN; UPDATE m1022_heap SET v = v + 1 WHERE id % 10 = 0; SAVEPOINT s; UPDATE m1022_heap SET pad = pad || 'q' WHERE id % 10 = 3; ROLLBACK TO s; UPDATE m1022_heap SET v = v + 1 WHERE id % 10 = 1; COMMIT;
\c
INSERT INTO placement_log SELECT 'seed 1022', 35, placement_differs('m1022_nvm', 'm1022_heap');
\c
UPDATE m1022_nvm SET k = k + 1 WHERE id % 20 = 3;
\c
UPDATE m1022_heap SET k = k + 1 WHERE id % 20 = 3;
\c
INSERT INTO placement_log SELECT 'seed 1022', 36, placement_differs('m1022_nvm', 'm1022_heap');
\c
COPY m1022_nvm FROM PROGRAM 'seq 867 1066 | sed "s/.*/&,1,0,cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc/"' WITH (FORMAT csv);
\c
COPY m1022_heap FROM PROGRAM 'seq 867 1066 | sed "s/.*/&,1,0,cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc/"' WITH (FORMAT csv);
\c
INSERT INTO placement_log SELECT 'seed 1022', 37, placement_differs('m1022_nvm', 'm1022_heap');
\c
INSERT INTO m1022_nvm SELECT g, g % 97, 0, repeat('u', 1011) FROM generate_series(247, 296) g ON CONFLICT (id) DO UPDATE SET v = m1022_nvm.v + 1;
\c
INSERT INTO m1022_heap SELECT g, g % 97, 0, repeat('u', 1011) FROM generate_series(247, 296) g ON CONFLICT (id) DO UPDATE SET v = m1022_heap.v + 1;
\c
INSERT INTO placement_log SELECT 'seed 1022', 38, placement_differs('m1022_nvm', 'm1022_heap');
\c
SELECT count(*), sum(v) FROM m1022_nvm;
\c
SELECT count(*), sum(v) FROM m1022_heap;
\c
INSERT INTO placement_log SELECT 'seed 1022', 39, placement_differs('m1022_nvm', 'm1022_heap');
\c
BEGIN; UPDATE m1022_nvm SET v = v + 1 WHERE id % 5 = 1; SAVEPOINT s; UPDATE m1022_nvm SET pad = pad || 'q' WHERE id % 5 = 0; ROLLBACK TO s; UPDATE m1022_nvm SET v = v + 1 WHERE id % 5 = 4; COMMIT;
\c
BEGIN; UPDATE m1022_heap SET v = v + 1 WHERE id % 5 = 1; SAVEPOINT s; UPDATE m1022_heap SET pad = pad || 'q' WHERE id % 5 = 0; ROLLBACK TO s; UPDATE m1022_heap SET v = v + 1 WHERE id % 5 = 4; COMMIT;
\c
INSERT INTO placement_log SELECT 'seed 1022', 40, placement_differs('m1022_nvm', 'm1022_heap');
\c
INSERT INTO m1022_nvm SELECT g, g % 97, 0, repeat('x', 1030 + g % 7) FROM generate_series(1067, 1116) g;
\c
INSERT INTO m1022_heap SELECT g, g % 97, 0, repeat('x', 1030 + g % 7) FROM generate_series(1067, 1116) g;
\c
INSERT INTO placement_log SELECT 'seed 1022', 41, placement_differs('m1022_nvm', 'm1022_heap');
\c
INSERT INTO m1022_nvm SELECT g, 1, 0, (SELECT string_agg(md5(g::text || i::text), '') FROM generate_series(1, 300) i) FROM generate_series(1117, 1117) g;
\c
INSERT INTO m1022_heap SELECT g, 1, 0, (SELECT string_agg(md5(g::text || i::text), '') FROM generate_series(1, 300) i) FROM generate_series(1117, 1117) g;
\c
INSERT INTO placement_log SELECT 'seed 1022', 42, placement_differs('m1022_nvm', 'm1022_heap');
\c
SELECT count(*), sum(v) FROM m1022_nvm;
\c
SELECT count(*), sum(v) FROM m1022_heap;
\c
INSERT INTO placement_log SELECT 'seed 1022', 43, placement_differs('m1022_nvm', 'm1022_heap');
\c
UPDATE m1022_nvm SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 50 = 0;
\c
UPDATE m1022_heap SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 50 = 0;
\c
INSERT INTO placement_log SELECT 'seed 1022', 44, placement_differs('m1022_nvm', 'm1022_heap');
\c
UPDATE m1022_nvm SET k = k + 1 WHERE id % 20 = 1;
\c
UPDATE m1022_heap SET k = k + 1 WHERE id % 20 = 1;
\c
INSERT INTO placement_log SELECT 'seed 1022', 45, placement_differs('m1022_nvm', 'm1022_heap');
\c
VACUUM m1022_nvm;
\c
VACUUM m1022_heap;
\c
INSERT INTO placement_log SELECT 'seed 1022', 46, placement_differs('m1022_nvm', 'm1022_heap');
\c
UPDATE m1022_nvm SET k = k + 1 WHERE id % 20 = 3;
\c
UPDATE m1022_heap SET k = k + 1 WHERE id % 20 = 3;
\c
INSERT INTO placement_log SELECT 'seed 1022', 47, placement_differs('m1022_nvm', 'm1022_heap');
\c
DELETE FROM m1022_nvm WHERE id % 40 = 18 AND id > 177;
\c
DELETE FROM m1022_heap WHERE id % 40 = 18 AND id > 177;
\c
INSERT INTO placement_log SELECT 'seed 1022', 48, placement_differs('m1022_nvm', 'm1022_heap');
\c
UPDATE m1022_nvm SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 5 = 4;
\c
UPDATE m1022_heap SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 5 = 4;
\c
INSERT INTO placement_log SELECT 'seed 1022', 49, placement_differs('m1022_nvm', 'm1022_heap');
\c
DELETE FROM m1022_nvm WHERE id % 40 = 10 AND id > 6;
\c
DELETE FROM m1022_heap WHERE id % 40 = 10 AND id > 6;
\c
INSERT INTO placement_log SELECT 'seed 1022', 50, placement_differs('m1022_nvm', 'm1022_heap');
\c
UPDATE m1022_nvm SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 2 = 0;
\c
UPDATE m1022_heap SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 2 = 0;
\c
INSERT INTO placement_log SELECT 'seed 1022', 51, placement_differs('m1022_nvm', 'm1022_heap');
\c
INSERT INTO m1022_nvm SELECT g, 1, 0, (SELECT string_agg(md5(g::text || i::text), '') FROM generate_series(1, 100) i) FROM generate_series(1118, 1118) g;
\c
INSERT INTO m1022_heap SELECT g, 1, 0, (SELECT string_agg(md5(g::text || i::text), '') FROM generate_series(1, 100) i) FROM generate_series(1118, 1118) g;
\c
INSERT INTO placement_log SELECT 'seed 1022', 52, placement_differs('m1022_nvm', 'm1022_heap');
\c
VACUUM m1022_nvm;
\c
VACUUM m1022_heap;
\c
INSERT INTO placement_log SELECT 'seed 1022', 53, placement_differs('m1022_nvm', 'm1022_heap');
\c
SELECT count(*), sum(v) FROM m1022_nvm;
\c
SELECT count(*), sum(v) FROM m1022_heap;
\c
INSERT INTO placement_log SELECT 'seed 1022', 54, placement_differs('m1022_nvm', 'm1022_heap');
\c
ANALYZE m1022_nvm;
\c
ANALYZE m1022_heap;
\c
INSERT INTO placement_log SELECT 'seed 1022', 55, placement_differs('m1022_nvm', 'm1022_heap');
\c
INSERT INTO m1022_nvm SELECT g, g % 97, 0, repeat('x', 1078 + g % 7) FROM generate_series(1119, 1119) g;
\c
INSERT INTO m1022_heap SELECT g, g % 97, 0, repeat('x', 1078 + g % 7) FROM generate_series(1119, 1119) g;
\c
INSERT INTO placement_log SELECT 'seed 1022', 56, placement_differs('m1022_nvm', 'm1022_heap');
\c
INSERT INTO m1022_nvm SELECT g, g % 97, 0, repeat('u', 842) FROM generate_series(944, 948) g ON CONFLICT (id) DO UPDATE SET v = m1022_nvm.v + 1;
\c
INSERT INTO m1022_heap SELECT g, g % 97, 0, repeat('u', 842) FROM generate_series(944, 948) g ON CONFLICT (id) DO UPDATE SET v = m1022_heap.v + 1;
\c
INSERT INTO placement_log SELECT 'seed 1022', 57, placement_differs('m1022_nvm', 'm1022_heap');
\c
VACUUM m1022_nvm;
\c
VACUUM m1022_heap;
\c
INSERT INTO placement_log SELECT 'seed 1022', 58, placement_differs('m1022_nvm', 'm1022_heap');
\c
UPDATE m1022_nvm SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 50 = 7;
\c
UPDATE m1022_heap SET v = v + 1, pad = CASE WHEN 0 = 0 THEN pad ELSE repeat('y', greatest(1, length(pad) + 0)) END WHERE id % 50 = 7;
\c
INSERT INTO placement_log SELECT 'seed 1022', 59, placement_differs('m1022_nvm', 'm1022_heap');
\c
CLUSTER m1022_nvm USING m1022_nvm_pkey;
\c
CLUSTER m1022_heap USING m1022_heap_pkey;
\c
INSERT INTO placement_log SELECT 'seed 1022', 60, placement_differs('m1022_nvm', 'm1022_heap');
\c
\o
-- statements after which some row lies elsewhere than in heap
SELECT mix, count(*) AS statements, count(*) FILTER (WHERE differing > 0) AS differing,
       min(step) FILTER (WHERE differing > 0) AS first_differing
  FROM placement_log GROUP BY mix ORDER BY mix;
-- and the page headers are heap's: pd_lower, pd_upper, and the flags heap
-- and nvm_am both keep (PD_HAS_FREE_LINES, which PageAddItem clears when
-- it finds no free line pointer, and PD_PAGE_FULL; nvm_am keeps
-- all-visible in its own map only)
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS pageinspect;
RESET client_min_messages;
SELECT m AS mix, count(*) AS pages,
       count(*) FILTER (WHERE a.lower <> b.lower OR a.upper <> b.upper) AS other_bounds,
       count(*) FILTER (WHERE (a.flags & 3) <> (b.flags & 3)) AS other_flags
  FROM unnest(ARRAY['m5', 'm7', 'm110', 'm101', 'm107', 'm138', 'm1011', 'm1013', 'm1022']) m,
       generate_series(0, pg_relation_size(m || '_heap') / 8192 - 1) g,
       page_header(nvm_am.nvm_am_get_raw_page(m || '_nvm', g::int)) a,
       page_header(get_raw_page(m || '_heap', g::int)) b
 GROUP BY m ORDER BY m;
SELECT count(*) FROM nvm_am.nvm_am_check('m5_nvm');
SELECT count(*) FROM nvm_am.nvm_am_check('m7_nvm');
SELECT count(*) FROM nvm_am.nvm_am_check('m110_nvm');
SELECT count(*) FROM nvm_am.nvm_am_check('m101_nvm');
SELECT count(*) FROM nvm_am.nvm_am_check('m107_nvm');
SELECT count(*) FROM nvm_am.nvm_am_check('m138_nvm');
SELECT count(*) FROM nvm_am.nvm_am_check('m1011_nvm');
SELECT count(*) FROM nvm_am.nvm_am_check('m1013_nvm');
SELECT count(*) FROM nvm_am.nvm_am_check('m1022_nvm');
DROP TABLE pr_nvm, pr_heap, m5_nvm, m5_heap, m7_nvm, m7_heap, m110_nvm, m110_heap,
  m101_nvm, m101_heap, m107_nvm, m107_heap, m138_nvm, m138_heap,
  m1011_nvm, m1011_heap, m1013_nvm, m1013_heap,
  m1022_nvm, m1022_heap, placement_log;
DROP FUNCTION placement_differs(regclass, regclass);
SELECT format('ALTER DATABASE %I RESET max_parallel_workers_per_gather',
              current_database()) \gexec
ALTER SYSTEM RESET autovacuum;
SELECT pg_reload_conf();
