CREATE EXTENSION IF NOT EXISTS nvm_am;
-- The pool bytes a table takes: its pages, and an in-page log area only
-- for the pages that are being changed (log frames).  A page that its
-- inserter leaves full moves to a plain frame, without a log area.
CREATE TEMP TABLE c0 AS SELECT name, value FROM nvm_am.nvm_am_stats;
SELECT used_bytes AS used0, log_frames_used AS logs0 FROM nvm_am.nvm_am_pool_info() \gset
CREATE TABLE nvm_space (id int, v int, pad text) USING nvm_am;
INSERT INTO nvm_space SELECT g, 0, repeat('x', 100) FROM generate_series(1, 20000) g;
SELECT pg_relation_size('nvm_space') / current_setting('block_size')::int > 300 AS pages;
-- pages, page tables (2 frames) and at most the last page with its log
SELECT (used_bytes - :used0)::float8 / pg_relation_size('nvm_space') < 1.05 AS space_like_heap,
       log_frames_used - :logs0 <= 1 AS log_frame_for_the_last_page_only
FROM nvm_am.nvm_am_pool_info();
SELECT s.value - c.value >= 300 AS full_pages_moved_to_plain_frames
FROM nvm_am.nvm_am_stats s JOIN c0 c USING (name) WHERE name = 'log_frame_demotions';

-- changing rows of pages in plain frames gives those pages log frames;
-- their next changes are records in the log
UPDATE nvm_space SET v = v + 1 WHERE id <= 400;
UPDATE nvm_space SET v = v + 1 WHERE id <= 400;
SELECT s.value - c.value BETWEEN 4 AND 20 AS pages_given_log_frames
FROM nvm_am.nvm_am_stats s JOIN c0 c USING (name) WHERE name = 'log_frame_promotions';
SELECT log_frames_used - :logs0 BETWEEN 4 AND 20 AS log_frames_for_the_changed_pages
FROM nvm_am.nvm_am_pool_info();
SELECT count(*), sum(v), min(v), max(v) FROM nvm_space WHERE id <= 400;
SELECT count(*), sum(v) FROM nvm_space;
SELECT count(*) AS problems FROM nvm_am.nvm_am_check('nvm_space');

-- VACUUM FULL writes the table anew: plain frames but for its last page
VACUUM FULL nvm_space;
SELECT log_frames_used - :logs0 <= 1 AS log_frame_for_the_last_page_only
FROM nvm_am.nvm_am_pool_info();
SELECT count(*), sum(v) FROM nvm_space;
SELECT count(*) AS problems FROM nvm_am.nvm_am_check('nvm_space');
DROP TABLE nvm_space;
SELECT used_bytes <= :used0 AS space_given_back FROM nvm_am.nvm_am_pool_info();
