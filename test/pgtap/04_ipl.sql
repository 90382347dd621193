-- 04_ipl.sql: in-page logging and read modes as seen from SQL: the
-- counters of nvm_am.nvm_am_stats move as documented, both read modes give the
-- same rows, and the settings refuse bad values.
BEGIN;
SET LOCAL client_min_messages = warning;
SELECT plan(16);

CREATE FUNCTION pg_temp.stat(n text) RETURNS bigint LANGUAGE sql VOLATILE
  AS $$ SELECT value FROM nvm_am.nvm_am_stats WHERE name = n $$;
CREATE TEMP TABLE before AS SELECT name, value FROM nvm_am.nvm_am_stats;
CREATE FUNCTION pg_temp.delta(n text) RETURNS bigint LANGUAGE sql VOLATILE
  AS $$ SELECT pg_temp.stat(n) - (SELECT value FROM before WHERE name = n) $$;

SELECT ok(EXISTS (SELECT 1 FROM nvm_am.nvm_am_stats WHERE name = n), 'nvm_am.nvm_am_stats has ' || n)
  FROM unnest(ARRAY['ipl_records', 'ipl_bytes', 'merges_on_read', 'merges_on_full',
                    'merge_bytes_written', 'redirected_page_reads', 'copied_page_reads',
                    'merged_page_reads', 'frames_reclaimed']) n;

-- every change is a record in its page's log
CREATE TABLE il (id int PRIMARY KEY, v text) USING nvm_am;
INSERT INTO il SELECT g, 'v' || g FROM generate_series(1, 200) g;
UPDATE il SET v = v || '!' WHERE id % 3 = 0;
DELETE FROM il WHERE id % 10 = 0;
SELECT cmp_ok(pg_temp.delta('ipl_records'), '>=', 200::bigint,
  'INSERT, UPDATE and DELETE appended log records');

-- both read modes return the same rows, and count what they did
CREATE TEMP TABLE r_redirect AS SELECT * FROM il;
SET LOCAL nvm_am.read_mode = copy;
CREATE TEMP TABLE r_copy AS SELECT * FROM il;
SELECT cmp_ok(pg_temp.delta('copied_page_reads'), '>', 0::bigint, 'read_mode = copy copies pages');
RESET nvm_am.read_mode;
SELECT is((SELECT count(*) FROM (SELECT * FROM r_redirect EXCEPT ALL SELECT * FROM r_copy) d)
          + (SELECT count(*) FROM (SELECT * FROM r_copy EXCEPT ALL SELECT * FROM r_redirect) d),
          0::bigint, 'read_mode = copy and redirect return the same rows');
SELECT cmp_ok(pg_temp.delta('merged_page_reads') + pg_temp.delta('redirected_page_reads'),
  '>', 0::bigint, 'read_mode = redirect reads pages in place or from the merge cache');

-- bad values
SELECT throws_ok($$ SET nvm_am.read_mode = 'mmap' $$, '22023', NULL,
  'read_mode accepts redirect and copy only');
SELECT throws_ok($$ SET nvm_am.ipl_log_size = '2kB' $$, '55P02', NULL,
  'ipl_log_size cannot change while the server runs');
SELECT throws_ok($$ SET nvm_am.merge_cache_size = '128MB' $$, '55P02', NULL,
  'merge_cache_size cannot change while the server runs');

SELECT * FROM finish();
ROLLBACK;
