SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS nvm_am;
RESET client_min_messages;
-- VACUUM FULL and CLUSTER form every row anew, as heap's copy does: a
-- column added with a default after the row was written gets that value in
-- the copy (the command then clears the catalog's copy of it), and a
-- dropped column's bytes are left behind.  A heap twin gets the same
-- statements; values, places and sizes must be equal.  Before, nvm_am
-- copied rows as they were, and after VACUUM FULL the added columns read
-- as NULL in every row written before they were added.
CREATE TABLE nvm_rw (id int, big text, v int) USING nvm_am;
CREATE TABLE nvm_rw_heap (id int, big text, v int) USING heap;
DO $$
DECLARE
  t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['nvm_rw', 'nvm_rw_heap'] LOOP
    EXECUTE format('INSERT INTO %I SELECT g, repeat(''z'', 200), g FROM generate_series(1, 400) g', t);
    EXECUTE format('ALTER TABLE %I DROP COLUMN big', t);
    EXECUTE format('ALTER TABLE %I ADD COLUMN w bigint DEFAULT 7', t);
    EXECUTE format('ALTER TABLE %I ADD COLUMN s text DEFAULT repeat(''q'', 100)', t);
    EXECUTE format('INSERT INTO %I (id, v) VALUES (401, 401)', t);
    EXECUTE format('UPDATE %I SET w = 8 WHERE id %% 10 = 0', t);
  END LOOP;
END $$;
SELECT attname, atthasmissing FROM pg_attribute
 WHERE attrelid = 'nvm_rw'::regclass AND attname IN ('w', 's') ORDER BY attname;
VACUUM FULL nvm_rw;
VACUUM FULL nvm_rw_heap;
-- the defaults are now in the rows, no longer in the catalog
SELECT attname, atthasmissing FROM pg_attribute
 WHERE attrelid = 'nvm_rw'::regclass AND attname IN ('w', 's') ORDER BY attname;
SELECT count(*), sum(w), count(s), sum(length(s)) FROM nvm_rw;
SELECT count(*) AS differ FROM
  ((SELECT ctid, * FROM nvm_rw EXCEPT SELECT ctid, * FROM nvm_rw_heap)
   UNION ALL (SELECT ctid, * FROM nvm_rw_heap EXCEPT SELECT ctid, * FROM nvm_rw)) d;
SELECT pg_relation_size('nvm_rw') = pg_relation_size('nvm_rw_heap') AS same_size;
-- CLUSTER through an index, after deletes, and after one more column
CREATE INDEX nvm_rw_v ON nvm_rw (v DESC);
CREATE INDEX nvm_rw_heap_v ON nvm_rw_heap (v DESC);
DELETE FROM nvm_rw WHERE id % 3 = 0;
DELETE FROM nvm_rw_heap WHERE id % 3 = 0;
ALTER TABLE nvm_rw ADD COLUMN d date DEFAULT '2026-11-27';
ALTER TABLE nvm_rw_heap ADD COLUMN d date DEFAULT '2026-11-27';
CLUSTER nvm_rw USING nvm_rw_v;
CLUSTER nvm_rw_heap USING nvm_rw_heap_v;
SELECT count(*), sum(w), count(s), count(d), min(d) FROM nvm_rw;
SELECT ctid, id, v, w, d FROM nvm_rw ORDER BY ctid LIMIT 3;
SELECT count(*) AS differ FROM
  ((SELECT ctid, * FROM nvm_rw EXCEPT SELECT ctid, * FROM nvm_rw_heap)
   UNION ALL (SELECT ctid, * FROM nvm_rw_heap EXCEPT SELECT ctid, * FROM nvm_rw)) d;
SELECT pg_relation_size('nvm_rw') = pg_relation_size('nvm_rw_heap') AS same_size;
SELECT count(*) FROM nvm_am.nvm_am_check('nvm_rw');
DROP TABLE nvm_rw, nvm_rw_heap;
