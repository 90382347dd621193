CREATE EXTENSION IF NOT EXISTS nvm_am;
-- COPY (a multi-insert) writes the new pages it fills whole, built in
-- memory; the rows, their places and the pages are what heap's COPY makes.

-- cb_copy: COPY rows 1..n (id, a 63-byte pad) into t from a program
CREATE FUNCTION cb_copy(t regclass, n int) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('COPY %s FROM PROGRAM %L', t,
                 format('seq 1 %s | sed "s/$/\t%s/"', n, repeat('pad', 21)));
END $$;
-- cb_bulk: rows placed on pages written whole so far
CREATE FUNCTION cb_bulk() RETURNS bigint LANGUAGE sql AS
  $$ SELECT value FROM nvm_am.nvm_am_stats WHERE name = 'bulk_placed_tuples' $$;
-- cb_elsewhere: rows of a not at the same ctid in b, and the reverse
CREATE FUNCTION cb_elsewhere(a regclass, b regclass) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE r bigint;
BEGIN
  EXECUTE format('SELECT count(*) FROM %s x FULL JOIN %s y ON x.ctid = y.ctid AND x.id = y.id
                  WHERE x.id IS NULL OR y.id IS NULL', a, b) INTO r;
  RETURN r;
END $$;

CREATE TABLE nvm_cb (id int, pad text) USING nvm_am;
CREATE TABLE nvm_cb_heap (id int, pad text) USING heap;
INSERT INTO nvm_cb VALUES (0, 'first');   -- a page with room: filled first
INSERT INTO nvm_cb_heap VALUES (0, 'first');
CREATE TEMP TABLE cb_before AS SELECT cb_bulk() AS value;
SELECT cb_copy('nvm_cb', 5000), cb_copy('nvm_cb_heap', 5000);
-- most rows went onto pages written whole
SELECT cb_bulk() - value > 4000 AS most_rows_bulk FROM cb_before;
-- every row, once, at the place heap's COPY put it
SELECT count(*), count(DISTINCT id), sum(id) FROM nvm_cb;
SELECT cb_elsewhere('nvm_cb', 'nvm_cb_heap') AS rows_elsewhere;
SELECT pg_relation_size('nvm_cb') = pg_relation_size('nvm_cb_heap') AS same_pages;
SELECT count(*) FROM nvm_am.nvm_am_check('nvm_cb');
-- the rows are ordinary rows: index, update, delete, vacuum
CREATE INDEX ON nvm_cb (id);
UPDATE nvm_cb SET pad = 'updated' WHERE id % 1000 = 0;
DELETE FROM nvm_cb WHERE id % 7 = 0;
VACUUM nvm_cb;
SET enable_seqscan = off;
SELECT count(*), sum(id) FILTER (WHERE pad = 'updated') FROM nvm_cb WHERE id > 0;
RESET enable_seqscan;
SELECT count(*) FROM nvm_am.nvm_am_check('nvm_cb');

-- into an empty table every row goes onto pages built whole, the last
-- batch's rows left over too (no page has room for them)
CREATE TABLE nvm_cb_new (id int, pad text) USING nvm_am;
CREATE TABLE nvm_cb_new_heap (id int, pad text) USING heap;
TRUNCATE cb_before;
INSERT INTO cb_before SELECT cb_bulk();
SELECT cb_copy('nvm_cb_new', 2500), cb_copy('nvm_cb_new_heap', 2500);
-- (COPY hands over batches of rows: the rows left over by one fill a new
-- page, which then takes the next batch's first rows one by one)
SELECT cb_bulk() - value > 2300 AS nearly_all_bulk FROM cb_before;
SELECT cb_elsewhere('nvm_cb_new', 'nvm_cb_new_heap') AS rows_elsewhere;
DROP TABLE nvm_cb_new, nvm_cb_new_heap;

-- the fillfactor holds for pages written whole, as for heap's
CREATE TABLE nvm_cb_ff (id int, pad text) USING nvm_am WITH (fillfactor = 50);
CREATE TABLE nvm_cb_ff_heap (id int, pad text) USING heap WITH (fillfactor = 50);
SELECT cb_copy('nvm_cb_ff', 3000), cb_copy('nvm_cb_ff_heap', 3000);
SELECT pg_relation_size('nvm_cb_ff') = pg_relation_size('nvm_cb_ff_heap') AS same_pages,
       pg_relation_size('nvm_cb_ff') / 8192 AS pages;

-- a COPY that fails part-way leaves no row behind
CREATE TABLE nvm_cb_err (id int CHECK (id < 4000), pad text) USING nvm_am;
SELECT cb_copy('nvm_cb_err', 5000);
SELECT count(*) FROM nvm_cb_err;
SELECT count(*) FROM nvm_am.nvm_am_check('nvm_cb_err');

-- and one rolled back leaves none either
BEGIN;
COPY nvm_cb FROM PROGRAM 'seq 10001 12000 | sed "s/$/\tlater/"';
SELECT count(*) FROM nvm_cb WHERE id > 10000;
ROLLBACK;
SELECT count(*) FROM nvm_cb WHERE id > 10000;
DROP TABLE nvm_cb, nvm_cb_heap, nvm_cb_ff, nvm_cb_ff_heap, nvm_cb_err;
DROP FUNCTION cb_copy, cb_bulk, cb_elsewhere;
