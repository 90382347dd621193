-- 01_catalog.sql: the catalog objects of nvm_am and their basic sanity.
BEGIN;
SELECT plan(51);

-- the OUT columns of function fn of the extension, "name type" in order
CREATE FUNCTION pg_temp.out_columns(fn name) RETURNS text[] LANGUAGE sql AS $$
  SELECT array_agg(a.n || ' ' || format_type(a.t, NULL) ORDER BY a.i)
  FROM pg_proc p,
       unnest(p.proargnames, p.proallargtypes, p.proargmodes)
         WITH ORDINALITY AS a(n, t, m, i)
  WHERE p.proname = fn AND p.pronamespace = 'nvm_am'::regnamespace AND a.m = 'o'
$$;

-- the access method and its handler
SELECT ok(EXISTS (SELECT 1 FROM pg_am WHERE amname = 'nvm_am'),
          'access method nvm_am exists');
SELECT is((SELECT amtype::text FROM pg_am WHERE amname = 'nvm_am'), 't',
          'nvm_am is a table access method');
SELECT is((SELECT amhandler::regproc::text FROM pg_am WHERE amname = 'nvm_am'),
          'nvm_am.nvm_am_handler', 'nvm_am uses handler nvm_am.nvm_am_handler');
SELECT has_function('nvm_am', 'nvm_am_handler', ARRAY['internal'],
                    'function nvm_am.nvm_am_handler(internal) exists');
SELECT function_returns('nvm_am', 'nvm_am_handler', ARRAY['internal'], 'table_am_handler',
                        'nvm_am.nvm_am_handler returns table_am_handler');
SELECT ok((SELECT e.extname = 'nvm_am'
             FROM pg_depend d JOIN pg_extension e ON e.oid = d.refobjid
            WHERE d.classid = 'pg_am'::regclass
              AND d.objid = (SELECT oid FROM pg_am WHERE amname = 'nvm_am')
              AND d.deptype = 'e'),
          'the access method belongs to extension nvm_am');

-- the extension's functions and view live in schema nvm_am, not in public
SELECT is((SELECT extnamespace::regnamespace::text FROM pg_extension
            WHERE extname = 'nvm_am'), 'nvm_am', 'the extension is in schema nvm_am');
SELECT is((SELECT array_agg(DISTINCT coalesce(p.pronamespace, c.relnamespace)::regnamespace::text)
             FROM pg_depend d
             LEFT JOIN pg_proc p ON d.classid = 'pg_proc'::regclass AND p.oid = d.objid
             LEFT JOIN pg_class c ON d.classid = 'pg_class'::regclass AND c.oid = d.objid
            WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
              AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'nvm_am')
              AND d.classid IN ('pg_proc'::regclass, 'pg_class'::regclass)),
          ARRAY['nvm_am'], 'every function and view of the extension is in schema nvm_am');
SELECT hasnt_view('public', 'nvm_am_stats', 'public has no view of the extension');

-- the stats view
SELECT has_view('nvm_am', 'nvm_am_stats', 'view nvm_am.nvm_am_stats exists');
SELECT columns_are('nvm_am', 'nvm_am_stats', ARRAY['name', 'value'],
                   'nvm_am.nvm_am_stats has columns name, value');
SELECT col_type_is('nvm_am', 'nvm_am_stats', 'name', 'text', 'nvm_am.nvm_am_stats.name is text');
SELECT col_type_is('nvm_am', 'nvm_am_stats', 'value', 'bigint', 'nvm_am.nvm_am_stats.value is bigint');
SELECT ok((SELECT count(*) FROM nvm_am.nvm_am_stats
            WHERE name IN ('relations', 'frames_allocated', 'frames_free',
                           'pmem_bytes_written', 'tuples_inserted',
                           'tuples_updated', 'tuples_deleted')) = 7,
          'nvm_am.nvm_am_stats has the documented counters');
SELECT is((SELECT count(*) FROM nvm_am.nvm_am_stats
            WHERE name IN ('commit_records', 'commit_drains', 'commits_through_wal',
                           'commit_log_full', 'prepared_resolved_commit',
                           'prepared_resolved_abort', 'recovered_losers',
                           'frozen_winners', 'orphans_reclaimed', 'recovery_ms',
                           'recovery_us')), 11::bigint,
          'nvm_am.nvm_am_stats has the commit and recovery counters');
SELECT is((SELECT count(*) FROM nvm_am.nvm_am_stats), (SELECT count(DISTINCT name) FROM nvm_am.nvm_am_stats),
          'counter names are unique');
SELECT is((SELECT count(*) FROM nvm_am.nvm_am_stats WHERE value < 0 OR value IS NULL), 0::bigint,
          'no counter is negative or NULL');

-- the pool info function
SELECT has_function('nvm_am', 'nvm_am_pool_info', ARRAY[]::text[],
                    'function nvm_am.nvm_am_pool_info() exists');
SELECT function_returns('nvm_am', 'nvm_am_pool_info', ARRAY[]::text[], 'record',
                        'nvm_am.nvm_am_pool_info() returns record');
SELECT is(pg_temp.out_columns('nvm_am_pool_info'),
          ARRAY['path text', 'size bigint', 'frames_total bigint', 'frames_used bigint',
                'frames_free bigint', 'frame_bytes integer', 'log_frames_total bigint',
                'log_frames_used bigint', 'log_frames_free bigint', 'log_bytes integer',
                'used_bytes bigint',
                'free_bytes bigint', 'metadata_bytes bigint',
                'format_version integer', 'is_pmem boolean', 'emulated boolean'],
          'nvm_am.nvm_am_pool_info() OUT columns and types');
SELECT is((SELECT count(*) FROM nvm_am.nvm_am_pool_info()), 1::bigint,
          'nvm_am.nvm_am_pool_info() returns one row');

-- sane values
SELECT is((SELECT size FROM nvm_am.nvm_am_pool_info()),
          (SELECT used_bytes + free_bytes FROM nvm_am.nvm_am_pool_info()),
          'size = used_bytes + free_bytes');
SELECT is((SELECT frames_total FROM nvm_am.nvm_am_pool_info()),
          (SELECT frames_used + frames_free FROM nvm_am.nvm_am_pool_info()),
          'frames_total = frames_used + frames_free');
SELECT is((SELECT log_frames_total FROM nvm_am.nvm_am_pool_info()),
          (SELECT log_frames_used + log_frames_free FROM nvm_am.nvm_am_pool_info()),
          'log_frames_total = log_frames_used + log_frames_free');
SELECT is((SELECT frame_bytes FROM nvm_am.nvm_am_pool_info()),
          current_setting('block_size')::int, 'a frame takes a page');
SELECT is((SELECT log_bytes FROM nvm_am.nvm_am_pool_info()),
          (SELECT setting::int FROM pg_settings WHERE name = 'nvm_am.ipl_log_size'),
          'a log area takes nvm_am.ipl_log_size');
SELECT is((SELECT used_bytes FROM nvm_am.nvm_am_pool_info()),
          (SELECT frames_used * frame_bytes + log_frames_used * log_bytes + metadata_bytes
             FROM nvm_am.nvm_am_pool_info()),
          'used_bytes = frames and log areas in use and the metadata');
SELECT is((SELECT format_version FROM nvm_am.nvm_am_pool_info()), 7, 'format_version = 7');
SELECT cmp_ok((SELECT size FROM nvm_am.nvm_am_pool_info()), '>', 0::bigint, 'size > 0');
SELECT ok((SELECT used_bytes > 0 AND free_bytes > 0 AND metadata_bytes > 0
             FROM nvm_am.nvm_am_pool_info()),
          'used_bytes, free_bytes and metadata_bytes are positive');
SELECT ok((SELECT path IS NOT NULL AND path <> '' AND is_pmem IS NOT NULL
                  AND emulated IS NOT NULL FROM nvm_am.nvm_am_pool_info()),
          'path, is_pmem and emulated are set');
SELECT is((SELECT free_bytes FROM nvm_am.nvm_am_pool_info()),
          (SELECT frames_free * frame_bytes + log_frames_free * log_bytes
             FROM nvm_am.nvm_am_pool_info()),
          'free_bytes = free frames and log areas');
SELECT is((SELECT frames_free FROM nvm_am.nvm_am_pool_info()),
          (SELECT value FROM nvm_am.nvm_am_stats WHERE name = 'frames_free'),
          'frames_free as in nvm_am_stats');

-- the per-table figures function: pgstattuple's columns, then the logs'
SELECT has_function('nvm_am', 'nvm_am_stattuple', ARRAY['regclass'],
                    'function nvm_am.nvm_am_stattuple(regclass) exists');
SELECT is(pg_temp.out_columns('nvm_am_stattuple'),
          ARRAY['table_len bigint', 'tuple_count bigint', 'tuple_len bigint',
                'tuple_percent double precision', 'dead_tuple_count bigint',
                'dead_tuple_len bigint', 'dead_tuple_percent double precision',
                'free_space bigint', 'free_percent double precision',
                'log_pages bigint', 'log_bytes bigint'],
          'nvm_am.nvm_am_stattuple() OUT columns: pgstattuple''s, then log_pages and log_bytes');
SELECT ok(NOT has_function_privilege('public', 'nvm_am.nvm_am_stattuple(regclass)', 'EXECUTE'),
          'PUBLIC may not run nvm_am_stattuple()');
SELECT ok(has_function_privilege('pg_stat_scan_tables', 'nvm_am.nvm_am_stattuple(regclass)', 'EXECUTE'),
          'pg_stat_scan_tables may run nvm_am_stattuple(), as pgstattuple');

-- the row locks function: pgrowlocks' columns, for pg_stat_scan_tables
SELECT is(pg_temp.out_columns('nvm_am_rowlocks'),
          ARRAY['locked_row tid', 'locker xid', 'multi boolean', 'xids xid[]',
                'modes text[]', 'pids integer[]'],
          'nvm_am.nvm_am_rowlocks() OUT columns: pgrowlocks''');
SELECT ok(NOT has_function_privilege('public', 'nvm_am.nvm_am_rowlocks(regclass)', 'EXECUTE')
          AND has_function_privilege('pg_stat_scan_tables', 'nvm_am.nvm_am_rowlocks(regclass)', 'EXECUTE'),
          'nvm_am_rowlocks() is for pg_stat_scan_tables, not PUBLIC, as pgrowlocks');

-- the raw page functions: superusers only
SELECT has_function('nvm_am', 'nvm_am_get_raw_page', ARRAY['regclass', 'bigint'],
                    'function nvm_am.nvm_am_get_raw_page(regclass, bigint) exists');
SELECT function_returns('nvm_am', 'nvm_am_get_raw_page', ARRAY['regclass', 'bigint'], 'bytea',
                        'nvm_am.nvm_am_get_raw_page() returns bytea, as get_raw_page');
SELECT is(pg_temp.out_columns('nvm_am_page_log'),
          ARRAY['byte_offset integer', 'length integer', 'kind text', 'append boolean',
                'items integer', 'bytes integer'],
          'nvm_am.nvm_am_page_log() OUT columns');
SELECT ok(NOT has_function_privilege('public', 'nvm_am.nvm_am_page_log(regclass, bigint)', 'EXECUTE')
          AND NOT has_function_privilege('public', 'nvm_am.nvm_am_get_raw_page(regclass, bigint)', 'EXECUTE'),
          'PUBLIC may not run the raw page functions');

-- a table created USING nvm_am
CREATE TABLE cat_t (id int PRIMARY KEY, v text) USING nvm_am;
SELECT is((SELECT a.amname::text FROM pg_class c JOIN pg_am a ON a.oid = c.relam
            WHERE c.oid = 'cat_t'::regclass), 'nvm_am',
          'pg_class.relam of a USING nvm_am table is nvm_am');
SELECT is((SELECT a.amname::text FROM pg_class c JOIN pg_am a ON a.oid = c.relam
            WHERE c.oid = 'cat_t_pkey'::regclass), 'btree',
          'its index is a btree');
INSERT INTO cat_t VALUES (1, 'one');
SELECT is((SELECT v FROM cat_t WHERE id = 1), 'one', 'the table is usable');

-- default_table_access_method
SET LOCAL default_table_access_method = nvm_am;
SELECT is(current_setting('default_table_access_method'), 'nvm_am',
          'default_table_access_method can be set to nvm_am');
CREATE TABLE cat_d (a int);
SELECT is((SELECT a.amname::text FROM pg_class c JOIN pg_am a ON a.oid = c.relam
            WHERE c.oid = 'cat_d'::regclass), 'nvm_am',
          'CREATE TABLE without USING takes the default nvm_am');
CREATE TABLE cat_ctas AS SELECT g AS a FROM generate_series(1, 10) g;
SELECT is((SELECT a.amname::text FROM pg_class c JOIN pg_am a ON a.oid = c.relam
            WHERE c.oid = 'cat_ctas'::regclass), 'nvm_am',
          'CREATE TABLE AS takes the default nvm_am');
SELECT is((SELECT count(*) FROM cat_ctas), 10::bigint, 'CREATE TABLE AS data is there');
CREATE TABLE cat_h (a int) USING heap;
SELECT is((SELECT a.amname::text FROM pg_class c JOIN pg_am a ON a.oid = c.relam
            WHERE c.oid = 'cat_h'::regclass), 'heap',
          'USING heap overrides the default');

SELECT * FROM finish();
ROLLBACK;
