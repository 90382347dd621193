-- The nvm_am.* settings as the server defines them: names, defaults, ranges,
-- units and contexts come from one table in nvm_guc.c, and the README's
-- configuration section documents exactly these.
SELECT name,
       CASE WHEN vartype = 'string' THEN NULL ELSE boot_val END AS default,
       unit, min_val, max_val, enumvals, context
FROM pg_settings WHERE name LIKE 'nvm_am.%' ORDER BY name;

-- the prefix is reserved: a misspelt setting is an error
SET nvm_am.read_mod = 'copy';
-- an invalid value of a user-settable setting
SET nvm_am.read_mode = 'zero-copy';
SET nvm_am.read_mode = 'copy';
SHOW nvm_am.read_mode;
RESET nvm_am.read_mode;
-- settings fixed at server start
SET nvm_am.merge_cache_size = '128MB';
SET nvm_am.ipl_log_size = '100B';

-- nvm_am makes the WAL writer flush what it writes unless the configuration
-- sets wal_writer_flush_after (NvmCommitInit in nvm_commit.c says why)
SELECT setting, source FROM pg_settings WHERE name = 'wal_writer_flush_after';
