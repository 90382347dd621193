-- nvm_am_stattuple(): pgstattuple's figures for an nvm_am table, which
-- pgstattuple itself refuses ("only heap AM is supported").  The same rows
-- in a heap table and an nvm_am table, changed the same way, give the same
-- figures: live and dead tuples, their bytes, free space.  States where
-- nothing can be pruned meanwhile (a load; deletes and an update not yet
-- committed; a rolled-back delete; after VACUUM) keep the comparison exact.
CREATE EXTENSION IF NOT EXISTS nvm_am;
CREATE EXTENSION IF NOT EXISTS pgstattuple;
CREATE TABLE st_heap (id int PRIMARY KEY, pad text) USING heap
  WITH (autovacuum_enabled = off);
CREATE TABLE st_nvm (id int PRIMARY KEY, pad text) USING nvm_am
  WITH (autovacuum_enabled = off);
INSERT INTO st_heap SELECT g, repeat('x', 100 + g % 50) FROM generate_series(1, 10000) g;
INSERT INTO st_nvm SELECT g, repeat('x', 100 + g % 50) FROM generate_series(1, 10000) g;

-- the figures pgstattuple gives, for either table
CREATE FUNCTION st_same() RETURNS TABLE (same boolean, tuples bigint, dead bigint, free_percent float8)
LANGUAGE sql AS $$
  SELECT (SELECT row(table_len, tuple_count, tuple_len, tuple_percent,
                     dead_tuple_count, dead_tuple_len, dead_tuple_percent,
                     free_space, free_percent)::text
          FROM nvm_am.nvm_am_stattuple('st_nvm')) =
         (SELECT row(table_len, tuple_count, tuple_len, tuple_percent,
                     dead_tuple_count, dead_tuple_len, dead_tuple_percent,
                     free_space, free_percent)::text
          FROM pgstattuple('st_heap')),
         s.tuple_count, s.dead_tuple_count, s.free_percent
  FROM nvm_am.nvm_am_stattuple('st_nvm') s
$$;

SELECT * FROM st_same();

-- deletes and an update in progress: their tuples are dead to a dirty
-- snapshot, as to pgstattuple
BEGIN;
DELETE FROM st_heap WHERE id % 3 = 0;
DELETE FROM st_nvm WHERE id % 3 = 0;
UPDATE st_heap SET pad = 'short' WHERE id % 7 = 1;
UPDATE st_nvm SET pad = 'short' WHERE id % 7 = 1;
SELECT * FROM st_same();
ROLLBACK;

-- rolled back: live again
SELECT * FROM st_same();

BEGIN;
DELETE FROM st_heap WHERE id % 3 = 0;
DELETE FROM st_nvm WHERE id % 3 = 0;
COMMIT;
VACUUM st_heap;
VACUUM st_nvm;
SELECT * FROM st_same();

-- the in-page logs: records of the rolled-back changes until VACUUM's
-- prunes and the deletes; their pages live in log frames
SELECT log_pages > 0 AS has_log_pages, log_bytes > 0 AS has_log_bytes,
       log_pages <= table_len / 8192 AS at_most_all_pages
FROM nvm_am.nvm_am_stattuple('st_nvm');

-- an empty table
CREATE TABLE st_empty (a int) USING nvm_am;
SELECT * FROM nvm_am.nvm_am_stattuple('st_empty');

-- refusals
SELECT * FROM nvm_am.nvm_am_stattuple('st_heap');
SELECT * FROM nvm_am.nvm_am_stattuple('st_nvm_pkey');
SELECT * FROM nvm_am.nvm_am_stattuple(0);
CREATE ROLE st_reader;
SET ROLE st_reader;
SELECT tuple_count FROM nvm_am.nvm_am_stattuple('st_nvm');
RESET ROLE;
GRANT pg_stat_scan_tables TO st_reader;
SET ROLE st_reader;
SELECT tuple_count FROM nvm_am.nvm_am_stattuple('st_nvm');
RESET ROLE;
GRANT SELECT ON st_nvm TO st_reader;
SET ROLE st_reader;
SELECT tuple_count FROM nvm_am.nvm_am_stattuple('st_nvm');
RESET ROLE;

DROP TABLE st_heap, st_nvm, st_empty;
DROP FUNCTION st_same();
DROP ROLE st_reader;
