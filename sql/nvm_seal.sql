CREATE EXTENSION IF NOT EXISTS nvm_am;
-- An inserter that leaves a page full seals it (IplSeal: merged once into a
-- frame without a log area, read in place from then on).  An update's new
-- version filling a page is no sign that the page stops changing: its rows
-- go on being updated, and a sealed page changed again moves back to a log
-- frame, two page writes for nothing.  So updates never seal.
CREATE TABLE seal_t (id int PRIMARY KEY, v int, pad text) USING nvm_am
  WITH (fillfactor = 100);
CREATE FUNCTION seal_count() RETURNS bigint LANGUAGE sql AS
$$ SELECT sum(value)::bigint FROM nvm_am.nvm_am_stats
   WHERE name IN ('log_frame_demotions', 'pages_sealed_in_place') $$;
SELECT seal_count() AS before \gset
INSERT INTO seal_t SELECT g, 0, repeat('x', 100) FROM generate_series(1, 120) g;
SELECT count(DISTINCT (ctid::text::point)[0]) AS pages FROM seal_t;
SELECT seal_count() > :before AS inserts_sealed;
-- new versions of rows on full pages (an indexed column changes: not HOT)
-- go to the last page, fill it and extend the table
SELECT seal_count() AS before \gset
UPDATE seal_t SET id = id + 1000 WHERE id <= 80;
SELECT count(DISTINCT (ctid::text::point)[0]) AS pages FROM seal_t;
SELECT seal_count() - :before AS updates_sealed;
SELECT count(*), min(id), max(id), sum(v) FROM seal_t;
SELECT * FROM nvm_am.nvm_am_check('seal_t');
DROP TABLE seal_t;
DROP FUNCTION seal_count();
