CREATE EXTENSION IF NOT EXISTS nvm_am;
-- An update that changes an indexed column (not HOT) still puts the new
-- version on the page of the old one when it fits there, as heap does: the
-- table does not grow, and a BRIN index finds no new block ranges.
CREATE TABLE nvm_usp (id int, k int, pad text) USING nvm_am WITH (fillfactor = 40);
INSERT INTO nvm_usp SELECT g, g, repeat('p', 40) FROM generate_series(1, 400) g;
CREATE INDEX nvm_usp_k ON nvm_usp (k);
CREATE INDEX nvm_usp_brin ON nvm_usp USING brin (id) WITH (pages_per_range = 1);
SELECT pg_relation_size('nvm_usp') / 8192 AS pages;
CREATE TEMP TABLE usp_before AS SELECT id, (ctid::text::point)[0] AS page FROM nvm_usp;
UPDATE nvm_usp SET k = k + 1000;
SELECT pg_relation_size('nvm_usp') / 8192 AS pages;
SELECT count(*) AS moved FROM nvm_usp u JOIN usp_before b USING (id)
WHERE (u.ctid::text::point)[0] <> b.page;
SELECT brin_summarize_new_values('nvm_usp_brin');
-- the index finds the new versions
SET enable_seqscan = off;
SELECT count(*) FROM nvm_usp WHERE k BETWEEN 1001 AND 1400;
SELECT count(*) FROM nvm_usp WHERE k <= 400;
RESET enable_seqscan;
SELECT count(*) FROM nvm_am.nvm_am_check('nvm_usp');
DROP TABLE usp_before;
DROP TABLE nvm_usp;
