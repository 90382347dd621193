-- ANALYZE counts the rows of an nvm_am table as it counts heap's: the live
-- and dead rows it reports (ANALYZE VERBOSE, and pg_stat_user_tables'
-- n_live_tup and n_dead_tup, which autovacuum's thresholds compare) are the
-- same for the same rows changed the same way.  Each case runs on a heap
-- twin and an nvm_am twin; ANALYZE VERBOSE prints both figures.
CREATE EXTENSION IF NOT EXISTS nvm_am;
-- a prune removes the versions no snapshot needs: autovacuum's ANALYZE of
-- a catalog holds a snapshot at a moment of its choosing, and with it what
-- a prune may remove, for one twin and not the other; it is off for this
-- test, once the workers running are done
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
CREATE TABLE an_heap (id int PRIMARY KEY, k int, pad text) USING heap
  WITH (autovacuum_enabled = off);
CREATE TABLE an_nvm (id int PRIMARY KEY, k int, pad text) USING nvm_am
  WITH (autovacuum_enabled = off);
CREATE INDEX ON an_heap (k);
CREATE INDEX ON an_nvm (k);
INSERT INTO an_heap SELECT g, g, repeat('x', 100) FROM generate_series(1, 1000) g;
INSERT INTO an_nvm SELECT g, g, repeat('x', 100) FROM generate_series(1, 1000) g;
-- updates of an indexed column (not HOT): the old versions die; the next
-- read of a full page prunes it, and what is left of each old version is a
-- dead line pointer until VACUUM has removed its index entries.  Those
-- count as dead rows (heap: "we need vacuum to run to get rid of them").
UPDATE an_heap SET k = k + 1 WHERE id % 2 = 0;
UPDATE an_nvm SET k = k + 1 WHERE id % 2 = 0;
SELECT count(*) FROM an_heap;
SELECT count(*) FROM an_nvm;
-- (the statistics this session has counted so far go out first, so that
-- ANALYZE's figures are the last word)
SELECT pg_stat_force_next_flush();
ANALYZE VERBOSE an_heap;
ANALYZE VERBOSE an_nvm;
-- and what autovacuum will see
SELECT pg_stat_force_next_flush();
SELECT pg_stat_clear_snapshot();
SELECT relname, n_live_tup, n_dead_tup FROM pg_stat_user_tables
 WHERE relname IN ('an_heap', 'an_nvm') ORDER BY relname;
-- VACUUM removes the dead line pointers: none left to count
VACUUM an_heap;
VACUUM an_nvm;
ANALYZE VERBOSE an_heap;
ANALYZE VERBOSE an_nvm;
-- HOT updates: the pruned chain leaves a redirect, which is no row
UPDATE an_heap SET pad = repeat('y', 100) WHERE id % 3 = 0;
UPDATE an_nvm SET pad = repeat('y', 100) WHERE id % 3 = 0;
SELECT count(*) FROM an_heap;
SELECT count(*) FROM an_nvm;
ANALYZE VERBOSE an_heap;
ANALYZE VERBOSE an_nvm;
-- the transaction's own changes, which it counts as done: its inserts
-- live, its deletes dead
BEGIN;
INSERT INTO an_heap SELECT g, g, 'z' FROM generate_series(1001, 1100) g;
INSERT INTO an_nvm SELECT g, g, 'z' FROM generate_series(1001, 1100) g;
DELETE FROM an_heap WHERE id BETWEEN 1 AND 50 OR id BETWEEN 1051 AND 1070;
DELETE FROM an_nvm WHERE id BETWEEN 1 AND 50 OR id BETWEEN 1051 AND 1070;
ANALYZE VERBOSE an_heap;
ANALYZE VERBOSE an_nvm;
ROLLBACK;
SELECT count(*) FROM nvm_am.nvm_am_check('an_nvm');
DROP TABLE an_heap, an_nvm;
ALTER SYSTEM RESET autovacuum;
SELECT pg_reload_conf();
