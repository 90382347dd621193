CREATE EXTENSION IF NOT EXISTS nvm_am;
-- COPY (a multi-insert) writes the new pages it fills whole, built in
-- memory; the rows, their places and the pages are what heap's COPY makes.

CREATE TABLE nvm_cb (id int, pad text) USING nvm_am;
CREATE TABLE nvm_cb_heap (id int, pad text) USING heap;
INSERT INTO nvm_cb VALUES (0, 'first');   -- a page with room: filled first
INSERT INTO nvm_cb_heap VALUES (0, 'first');
CREATE TEMP TABLE cb_before AS
  SELECT value FROM nvm_am.nvm_am_stats WHERE name = 'bulk_placed_tuples';
COPY nvm_cb FROM PROGRAM 'seq 1 5000 | sed "s/$/\tpadpadpadpadpadpadpadpadpadpadpadpadpadpadpadpadpadpadpadpadpad/"';
COPY nvm_cb_heap FROM PROGRAM 'seq 1 5000 | sed "s/$/\tpadpadpadpadpadpadpadpadpadpadpadpadpadpadpadpadpadpadpadpadpad/"';
-- most rows went onto pages written whole
SELECT s.value - b.value > 4000 AS most_rows_bulk
FROM nvm_am.nvm_am_stats s, cb_before b WHERE s.name = 'bulk_placed_tuples';
-- every row, once, at the place heap's COPY put it
SELECT count(*), count(DISTINCT id), sum(id) FROM nvm_cb;
SELECT count(*) AS rows_elsewhere
FROM nvm_cb n FULL JOIN nvm_cb_heap h ON n.ctid = h.ctid AND n.id = h.id
WHERE n.id IS NULL OR h.id IS NULL;
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
CREATE TEMP TABLE cb_before2 AS
  SELECT value FROM nvm_am.nvm_am_stats WHERE name = 'bulk_placed_tuples';
COPY nvm_cb_new FROM PROGRAM 'seq 1 2500 | sed "s/$/\tpadpadpadpadpadpadpadpadpadpadpadpadpadpadpadpadpadpadpadpadpad/"';
COPY nvm_cb_new_heap FROM PROGRAM 'seq 1 2500 | sed "s/$/\tpadpadpadpadpadpadpadpadpadpadpadpadpadpadpadpadpadpadpadpadpad/"';
-- (COPY hands over batches of rows: the rows left over by one fill a new
-- page, which then takes the next batch's first rows one by one)
SELECT s.value - b.value > 2300 AS nearly_all_bulk
FROM nvm_am.nvm_am_stats s, cb_before2 b WHERE s.name = 'bulk_placed_tuples';
SELECT count(*) AS rows_elsewhere
FROM nvm_cb_new n FULL JOIN nvm_cb_new_heap h ON n.ctid = h.ctid AND n.id = h.id
WHERE n.id IS NULL OR h.id IS NULL;
DROP TABLE nvm_cb_new, nvm_cb_new_heap;

-- the fillfactor holds for pages written whole, as for heap's
CREATE TABLE nvm_cb_ff (id int, pad text) USING nvm_am WITH (fillfactor = 50);
CREATE TABLE nvm_cb_ff_heap (id int, pad text) USING heap WITH (fillfactor = 50);
COPY nvm_cb_ff FROM PROGRAM 'seq 1 3000 | sed "s/$/\tpadpadpadpadpadpadpadpadpadpadpadpadpadpadpadpadpadpadpadpadpad/"';
COPY nvm_cb_ff_heap FROM PROGRAM 'seq 1 3000 | sed "s/$/\tpadpadpadpadpadpadpadpadpadpadpadpadpadpadpadpadpadpadpadpadpad/"';
SELECT pg_relation_size('nvm_cb_ff') = pg_relation_size('nvm_cb_ff_heap') AS same_pages,
       pg_relation_size('nvm_cb_ff') / 8192 AS pages;

-- a COPY that fails part-way leaves no row behind
CREATE TABLE nvm_cb_err (id int CHECK (id < 4000), pad text) USING nvm_am;
COPY nvm_cb_err FROM PROGRAM 'seq 1 5000 | sed "s/$/\tpadpadpadpadpadpadpadpadpadpadpadpadpadpadpadpadpadpadpadpadpad/"';
SELECT count(*) FROM nvm_cb_err;
SELECT count(*) FROM nvm_am.nvm_am_check('nvm_cb_err');

-- and one rolled back leaves none either
BEGIN;
COPY nvm_cb FROM PROGRAM 'seq 10001 12000 | sed "s/$/\tlater/"';
SELECT count(*) FROM nvm_cb WHERE id > 10000;
ROLLBACK;
SELECT count(*) FROM nvm_cb WHERE id > 10000;
DROP TABLE nvm_cb, nvm_cb_heap, nvm_cb_ff, nvm_cb_ff_heap, nvm_cb_err;
