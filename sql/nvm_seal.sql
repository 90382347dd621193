CREATE EXTENSION IF NOT EXISTS nvm_am;
-- An inserter that leaves a page full seals it (IplSeal: merged once into a
-- frame without a log area, read in place from then on).  An update's new
-- version that fills a page seals it only when nothing but new tuples came
-- to the page since it got its frame (a bulk update filling new pages at
-- the end): a page whose rows were being changed goes on being changed,
-- and a sealed page changed again moves back to a log frame, two page
-- writes for nothing.
CREATE TABLE seal_t (id int PRIMARY KEY, v int, pad text) USING nvm_am
  WITH (fillfactor = 100);
CREATE FUNCTION seal_count() RETURNS bigint LANGUAGE sql AS
$$ SELECT sum(value)::bigint FROM nvm_am.nvm_am_stats
   WHERE name IN ('log_frame_demotions', 'pages_sealed_in_place') $$;
SELECT seal_count() AS before \gset
INSERT INTO seal_t SELECT g, 0, repeat('x', 100) FROM generate_series(1, 120) g;
SELECT (ctid::text::point)[0] AS page, count(*) FROM seal_t GROUP BY 1 ORDER BY 1;
SELECT seal_count() - :before AS sealed_by_inserts;
-- a row of the last page changes (in place, a HOT update)
UPDATE seal_t SET v = 1 WHERE id = 120;
-- new versions of rows on full pages (an indexed column changes: not HOT)
-- go to the last page, fill it and then a new one
SELECT seal_count() AS before \gset
UPDATE seal_t SET id = id + 1000 WHERE id <= 60;
SELECT (ctid::text::point)[0] AS page, count(*) FROM seal_t GROUP BY 1 ORDER BY 1;
SELECT seal_count() - :before AS sealed_by_updates;
-- more new versions fill the new page, which only they came to
SELECT seal_count() AS before \gset
UPDATE seal_t SET id = id + 1000 WHERE id BETWEEN 61 AND 116;
SELECT (ctid::text::point)[0] AS page, count(*) FROM seal_t GROUP BY 1 ORDER BY 1;
SELECT seal_count() - :before AS sealed_by_updates;
SELECT count(*), min(id), max(id), sum(v) FROM seal_t;
SELECT * FROM nvm_am.nvm_am_check('seal_t');
DROP TABLE seal_t;
DROP FUNCTION seal_count();
