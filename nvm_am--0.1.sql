/* nvm_am--0.1.sql */

-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "CREATE EXTENSION nvm_am" to load this file. \quit

CREATE FUNCTION nvm_am_handler(internal)
RETURNS table_am_handler
AS 'MODULE_PATHNAME'
LANGUAGE C STRICT;

CREATE ACCESS METHOD nvm_am TYPE TABLE HANDLER nvm_am_handler;
COMMENT ON ACCESS METHOD nvm_am IS 'heap pages in a persistent-memory pool';

CREATE FUNCTION nvm_am_stats_values(OUT name text, OUT value bigint)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'nvm_am_stats_values'
LANGUAGE C STRICT VOLATILE;

CREATE VIEW nvm_am_stats AS
  SELECT name, value FROM nvm_am_stats_values();
COMMENT ON VIEW nvm_am_stats IS 'nvm_am counters, one row per counter';

CREATE FUNCTION nvm_am_pool_info(OUT path text, OUT size bigint,
                                 OUT frames_total bigint, OUT frames_used bigint,
                                 OUT frames_free bigint, OUT frame_bytes integer,
                                 OUT log_frames_total bigint,
                                 OUT log_frames_used bigint,
                                 OUT log_frames_free bigint, OUT log_bytes integer,
                                 OUT used_bytes bigint, OUT free_bytes bigint,
                                 OUT metadata_bytes bigint,
                                 OUT format_version integer,
                                 OUT is_pmem boolean, OUT emulated boolean)
RETURNS record
AS 'MODULE_PATHNAME', 'nvm_am_pool_info'
LANGUAGE C STRICT VOLATILE;
COMMENT ON FUNCTION nvm_am_pool_info() IS 'the nvm_am pool: path, size, frames (a page each) and log frames (those with an in-page log area), bytes used and free, format and whether it is persistent memory';

CREATE FUNCTION nvm_am_stattuple(rel regclass, OUT table_len bigint,
                                 OUT tuple_count bigint, OUT tuple_len bigint,
                                 OUT tuple_percent float8,
                                 OUT dead_tuple_count bigint,
                                 OUT dead_tuple_len bigint,
                                 OUT dead_tuple_percent float8,
                                 OUT free_space bigint, OUT free_percent float8,
                                 OUT log_pages bigint, OUT log_bytes bigint)
RETURNS record
AS 'MODULE_PATHNAME', 'nvm_am_stattuple'
LANGUAGE C STRICT VOLATILE;
COMMENT ON FUNCTION nvm_am_stattuple(regclass) IS 'pgstattuple''s figures for an nvm_am table (live and dead tuples, free space), and its pages in log frames and the bytes in their in-page logs';

CREATE FUNCTION nvm_am_get_raw_page(rel regclass, blkno bigint)
RETURNS bytea
AS 'MODULE_PATHNAME', 'nvm_am_get_raw_page'
LANGUAGE C STRICT VOLATILE;
COMMENT ON FUNCTION nvm_am_get_raw_page(regclass, bigint) IS 'a page of an nvm_am table as readers see it (base image with its in-page log applied), for pageinspect''s heap_page_items() and page_header(); superuser only';

CREATE FUNCTION nvm_am_page_log(rel regclass, blkno bigint,
                                OUT byte_offset integer, OUT length integer,
                                OUT kind text, OUT append boolean,
                                OUT items integer, OUT bytes integer)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'nvm_am_page_log'
LANGUAGE C STRICT VOLATILE;
COMMENT ON FUNCTION nvm_am_page_log(regclass, bigint) IS 'the records of the in-page log of a page of an nvm_am table, oldest first; superuser only';

CREATE FUNCTION nvm_am_rowlocks(rel regclass, OUT locked_row tid,
                                OUT locker xid, OUT multi boolean,
                                OUT xids xid[], OUT modes text[],
                                OUT pids integer[])
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'nvm_am_rowlocks'
LANGUAGE C STRICT VOLATILE;
COMMENT ON FUNCTION nvm_am_rowlocks(regclass) IS 'pgrowlocks'' rows for an nvm_am table: the row versions that transactions in progress lock or change';

CREATE FUNCTION nvm_am_check(rel regclass, OUT blkno bigint, OUT offnum integer,
                             OUT problem text)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'nvm_am_check'
LANGUAGE C STRICT VOLATILE;
COMMENT ON FUNCTION nvm_am_check(regclass) IS 'verify the pages of an nvm_am table and the entries of its indexes; no rows when sound';

-- Who may see what (the rule of pg_stat_* details that reveal the server):
-- the pool's path, space and counters are for superusers and members of
-- pg_monitor (nvm_am.pool_path and nvm_am.persist_trace are shown only to
-- superusers and pg_read_all_settings, which pg_monitor includes);
-- nvm_am_check() reads every page of a table, so it is for superusers and
-- whom they grant it to (as amcheck), and it requires SELECT on the table;
-- nvm_am_stattuple() and nvm_am_rowlocks() read every page too: for
-- superusers and pg_stat_scan_tables, as pgstattuple and pgrowlocks, and
-- they require SELECT on the table;
-- the raw page functions show what privileges and row security hide: for
-- superusers only (checked in C too, as pageinspect does).
REVOKE ALL ON FUNCTION nvm_am_stats_values() FROM PUBLIC;
REVOKE ALL ON FUNCTION nvm_am_pool_info() FROM PUBLIC;
REVOKE ALL ON FUNCTION nvm_am_check(regclass) FROM PUBLIC;
REVOKE ALL ON FUNCTION nvm_am_stattuple(regclass) FROM PUBLIC;
REVOKE ALL ON FUNCTION nvm_am_get_raw_page(regclass, bigint) FROM PUBLIC;
REVOKE ALL ON FUNCTION nvm_am_page_log(regclass, bigint) FROM PUBLIC;
REVOKE ALL ON FUNCTION nvm_am_rowlocks(regclass) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION nvm_am_stats_values() TO pg_monitor;
GRANT EXECUTE ON FUNCTION nvm_am_pool_info() TO pg_monitor;
GRANT EXECUTE ON FUNCTION nvm_am_stattuple(regclass) TO pg_stat_scan_tables;
GRANT EXECUTE ON FUNCTION nvm_am_rowlocks(regclass) TO pg_stat_scan_tables;
GRANT SELECT ON nvm_am_stats TO pg_monitor;
GRANT USAGE ON SCHEMA @extschema@ TO PUBLIC;
