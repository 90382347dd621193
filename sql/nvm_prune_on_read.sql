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
DROP TABLE prune_read;
-- The room a read looks for is the average size of the tuples on the page,
-- over the line pointers that hold one: a page that has been pruned has many
-- redirects and free line pointers, which must not make the average look
-- small.  Otherwise the read leaves a page without room for the next
-- version and the update prunes it instead, copy-on-write, as its own scan
-- has the page pinned.  Each read and each update its own transaction:
-- every update's page was pruned by the read before it.
SET enable_seqscan = off;
CREATE TABLE prune_avg (id int PRIMARY KEY, v int, pad text) USING nvm_am
  WITH (fillfactor = 100);
INSERT INTO prune_avg SELECT g, 0, repeat('x', 90) FROM generate_series(1, 60) g;
CREATE FUNCTION pruned() RETURNS bigint LANGUAGE sql AS
$$ SELECT value FROM nvm_am.nvm_am_stats WHERE name = 'pages_pruned' $$;
CREATE TABLE prunes_by (stmt text, n bigint) USING heap;
CREATE PROCEDURE read_then_update(rounds int) LANGUAGE plpgsql AS $$
DECLARE
  mark bigint;
  k int;
  val int;
BEGIN
  FOR i IN 0 .. rounds - 1 LOOP
    k := i % 60 + 1;
    mark := pruned();
    SELECT v INTO val FROM prune_avg WHERE id = k;
    INSERT INTO prunes_by VALUES ('read', pruned() - mark);
    COMMIT;
    mark := pruned();
    UPDATE prune_avg SET v = v + 1 WHERE id = k;
    INSERT INTO prunes_by VALUES ('update', pruned() - mark);
    COMMIT;
  END LOOP;
END $$;
CALL read_then_update(180);
SELECT stmt, count(*) AS statements, sum(n) > 0 AS pruned_some
  FROM prunes_by GROUP BY stmt ORDER BY stmt DESC;
SELECT count(*), sum(v) FROM prune_avg;
SELECT * FROM nvm_am.nvm_am_check('prune_avg');
DROP TABLE prune_avg, prunes_by;
DROP PROCEDURE read_then_update(int);
DROP FUNCTION pruned();
-- An index scan that comes back to the page of the row it returned last
-- does not prune it: heap's tuple slot still holds that row's buffer, so
-- heap_page_prune_opt gets no cleanup lock, and the fetch keeps the page
-- pinned the same way.  Row 1's update finds no room on page 0 and goes to
-- page 1; the scan then looks at a dead row on page 1 (an aborted insert
-- with the key 1) and comes back to page 0 for row 2, whose update goes to
-- page 1 as heap's (before, nvm_am pruned page 0 there, the deleted row 5
-- made room, and row 2 stayed on page 0).  A twin heap table, the same
-- statements.
CREATE TABLE pin_heap (id int, k int, v text) USING heap;
CREATE TABLE pin_nvm (id int, k int, v text) USING nvm_am;
CREATE INDEX ON pin_heap (k);
CREATE INDEX ON pin_nvm (k);
INSERT INTO pin_heap SELECT g, g, repeat('x', 400) FROM generate_series(1, 18) g;
INSERT INTO pin_nvm SELECT g, g, repeat('x', 400) FROM generate_series(1, 18) g;
-- page 0: 16 rows and 1,064 bytes free, more than a tenth of the page
DELETE FROM pin_heap WHERE k IN (17, 18);
DELETE FROM pin_nvm WHERE k IN (17, 18);
VACUUM pin_heap;
VACUUM pin_nvm;
DELETE FROM pin_heap WHERE k = 5;
DELETE FROM pin_nvm WHERE k = 5;
BEGIN;
INSERT INTO pin_heap VALUES (0, 1, repeat('y', 1200));
INSERT INTO pin_nvm VALUES (0, 1, repeat('y', 1200));
ROLLBACK;
UPDATE pin_heap SET v = v || repeat('r', 700) WHERE k BETWEEN 1 AND 2 RETURNING k, ctid;
UPDATE pin_nvm SET v = v || repeat('r', 700) WHERE k BETWEEN 1 AND 2 RETURNING k, ctid;
SELECT h.k, h.ctid AS heap, n.ctid AS nvm_am, h.ctid = n.ctid AS same
  FROM pin_heap h JOIN pin_nvm n USING (id) ORDER BY k;
SELECT * FROM nvm_am.nvm_am_check('pin_nvm');
DROP TABLE pin_heap, pin_nvm;
RESET enable_seqscan;
RESET enable_bitmapscan;
