-- Failing loudly, never silently (issue 13): an invalid index is skipped by
-- nvm_am_check() with a notice; a second access method with nvm_am's
-- handler stores its tables in the pool and frees them when they are
-- dropped; who may see the pool's path, space and counters; the pool's
-- space adds up.
CREATE EXTENSION IF NOT EXISTS nvm_am;

-- an index that a failed CREATE UNIQUE INDEX CONCURRENTLY left invalid
CREATE TABLE nvm_fl (a int, b text) USING nvm_am;
INSERT INTO nvm_fl VALUES (1, 'one'), (1, 'again'), (2, 'two');
CREATE INDEX nvm_fl_b ON nvm_fl (b);
CREATE UNIQUE INDEX CONCURRENTLY nvm_fl_a ON nvm_fl (a);
SELECT indexrelid::regclass, indisvalid FROM pg_index
WHERE indrelid = 'nvm_fl'::regclass ORDER BY 1::text;
SELECT * FROM nvm_am.nvm_am_check('nvm_fl');
DROP TABLE nvm_fl;

-- a second access method with the same handler: its tables are nvm_am's
CREATE ACCESS METHOD nvm_fl_am TYPE TABLE HANDLER nvm_am.nvm_am_handler;
SELECT frames_used AS frames_before FROM nvm_am.nvm_am_pool_info() \gset
CREATE TABLE nvm_fl2 (a int PRIMARY KEY, pad text) USING nvm_fl_am;
INSERT INTO nvm_fl2 SELECT g, repeat('x', 200) FROM generate_series(1, 2000) g;
SELECT frames_used > :frames_before AS in_the_pool FROM nvm_am.nvm_am_pool_info();
SELECT count(*) AS problems FROM nvm_am.nvm_am_check('nvm_fl2');
DROP TABLE nvm_fl2;
SELECT frames_used <= :frames_before AS space_given_back FROM nvm_am.nvm_am_pool_info();
DROP ACCESS METHOD nvm_fl_am;

-- the pool's space: frames and bytes that add up
SELECT size = used_bytes + free_bytes AS bytes_add_up,
       frames_total = frames_used + frames_free AS frames_add_up,
       log_frames_total = log_frames_used + log_frames_free AS log_frames_add_up,
       frame_bytes = current_setting('block_size')::int AS frame_is_a_page,
       log_bytes = (SELECT setting::int FROM pg_settings WHERE name = 'nvm_am.ipl_log_size') AS log_area_is_ipl_log_size,
       log_frames_total * 8 >= frames_total AND log_frames_total * 8 < frames_total + 8 AS one_frame_in_8_has_a_log,
       used_bytes = frames_used * frame_bytes + log_frames_used * log_bytes + metadata_bytes
         AS used_is_frames_logs_and_metadata
FROM nvm_am.nvm_am_pool_info();

-- privileges: superusers and pg_monitor see the pool; nvm_am_check is
-- granted explicitly and needs SELECT on the table
CREATE ROLE regress_nvm_plain;
CREATE SCHEMA regress_nvm_s AUTHORIZATION regress_nvm_plain;
CREATE TABLE nvm_fl3 (a int) USING nvm_am;
INSERT INTO nvm_fl3 VALUES (1);
SET ROLE regress_nvm_plain;
SELECT path FROM nvm_am.nvm_am_pool_info();
SELECT count(*) FROM nvm_am.nvm_am_stats;
SELECT count(*) FROM nvm_am.nvm_am_stats_values();
SHOW nvm_am.pool_path;
SELECT count(*) FROM pg_settings WHERE name = 'nvm_am.pool_path' AND setting IS NOT NULL;
SELECT * FROM nvm_am.nvm_am_check('nvm_fl3');
CREATE TABLE regress_nvm_s.mine (a int) USING nvm_am;
INSERT INTO regress_nvm_s.mine VALUES (1);
SELECT a FROM regress_nvm_s.mine;
DROP TABLE regress_nvm_s.mine;
RESET ROLE;
GRANT pg_monitor TO regress_nvm_plain;
GRANT EXECUTE ON FUNCTION nvm_am.nvm_am_check(regclass) TO regress_nvm_plain;
SET ROLE regress_nvm_plain;
SELECT path IS NOT NULL AS sees_path FROM nvm_am.nvm_am_pool_info();
SELECT count(*) > 0 AS sees_counters FROM nvm_am.nvm_am_stats;
SELECT current_setting('nvm_am.pool_path') IS NOT NULL AS sees_setting;
SELECT * FROM nvm_am.nvm_am_check('nvm_fl3');
RESET ROLE;
GRANT SELECT ON nvm_fl3 TO regress_nvm_plain;
SET ROLE regress_nvm_plain;
SELECT count(*) AS problems FROM nvm_am.nvm_am_check('nvm_fl3');
RESET ROLE;
DROP TABLE nvm_fl3;
REVOKE EXECUTE ON FUNCTION nvm_am.nvm_am_check(regclass) FROM regress_nvm_plain;
DROP SCHEMA regress_nvm_s;
DROP ROLE regress_nvm_plain;
