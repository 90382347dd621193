-- Looking into nvm_am pages: nvm_am_get_raw_page() gives a page as readers
-- see it (its base image with its in-page log applied), which pageinspect's
-- functions read as they read heap's pages; nvm_am_page_log() lists the
-- records of the page's log.  The same changes give the same page layout
-- as heap's: line pointers, tuple lengths, ctid chains, HOT flags, the
-- page header, after inserts, updates, a delete and a VACUUM.
CREATE EXTENSION IF NOT EXISTS nvm_am;
CREATE EXTENSION IF NOT EXISTS pageinspect;
CREATE TABLE pi_heap (id int PRIMARY KEY, pad text) USING heap
  WITH (autovacuum_enabled = off);
CREATE TABLE pi_nvm (id int PRIMARY KEY, pad text) USING nvm_am
  WITH (autovacuum_enabled = off);

-- the layout of block 0 of either table, for comparing
CREATE FUNCTION pi_items(page bytea)
RETURNS TABLE (lp smallint, lp_flags smallint, lp_len smallint, t_ctid tid,
               hot_updated boolean, heap_only boolean)
LANGUAGE sql AS $$
  SELECT lp, lp_flags, lp_len, t_ctid,
         (t_infomask2 & 16384) <> 0, (t_infomask2 & 32768) <> 0
  FROM heap_page_items(page)
$$;
CREATE FUNCTION pi_same() RETURNS boolean LANGUAGE sql AS $$
  SELECT NOT EXISTS (SELECT * FROM pi_items(get_raw_page('pi_heap', 0))
                     EXCEPT ALL
                     SELECT * FROM pi_items(nvm_am.nvm_am_get_raw_page('pi_nvm', 0)))
     AND NOT EXISTS (SELECT * FROM pi_items(nvm_am.nvm_am_get_raw_page('pi_nvm', 0))
                     EXCEPT ALL
                     SELECT * FROM pi_items(get_raw_page('pi_heap', 0)))
     AND (SELECT row(lower, upper, special, pagesize, version)
          FROM page_header(get_raw_page('pi_heap', 0))) =
         (SELECT row(lower, upper, special, pagesize, version)
          FROM page_header(nvm_am.nvm_am_get_raw_page('pi_nvm', 0)))
$$;

INSERT INTO pi_heap SELECT g, repeat('x', 20) FROM generate_series(1, 10) g;
INSERT INTO pi_nvm SELECT g, repeat('x', 20) FROM generate_series(1, 10) g;
SELECT pi_same();
-- ten appends, one record each (the tuple's bytes went to the base's free space)
SELECT * FROM nvm_am.nvm_am_page_log('pi_nvm', 0);

-- a HOT update, a non-HOT update and a delete
UPDATE pi_heap SET pad = 'new' WHERE id = 3;
UPDATE pi_nvm SET pad = 'new' WHERE id = 3;
UPDATE pi_heap SET id = 30 WHERE id = 4;
UPDATE pi_nvm SET id = 30 WHERE id = 4;
DELETE FROM pi_heap WHERE id = 5;
DELETE FROM pi_nvm WHERE id = 5;
SELECT pi_same();
SELECT * FROM pi_items(nvm_am.nvm_am_get_raw_page('pi_nvm', 0));
SELECT * FROM nvm_am.nvm_am_page_log('pi_nvm', 0) WHERE byte_offset >= 480;

-- VACUUM prunes, frees the dead line pointers and cuts the array's end
VACUUM pi_heap;
VACUUM pi_nvm;
SELECT pi_same();
SELECT lp, lp_flags, t_ctid FROM pi_items(nvm_am.nvm_am_get_raw_page('pi_nvm', 0)) WHERE lp_flags <> 1;

-- the free space map and the visibility map are the table's own forks, in
-- heap's format: pageinspect's get_raw_page() reads them as heap's, and
-- they say what heap's say (the map pages' headers aside: heap's have LSNs)
SELECT pg_relation_size('pi_nvm', 'fsm') AS fsm_bytes,
       pg_relation_size('pi_nvm', 'vm') AS vm_bytes;
SELECT b, fsm_page_contents(get_raw_page('pi_nvm', 'fsm', b)) =
          fsm_page_contents(get_raw_page('pi_heap', 'fsm', b)) AS fsm_same
FROM generate_series(0, 2) b;
SELECT substr(get_raw_page('pi_nvm', 'vm', 0), 25) =
       substr(get_raw_page('pi_heap', 'vm', 0), 25) AS vm_same,
       get_byte(get_raw_page('pi_nvm', 'vm', 0), 24) AS vm_bits_page_0;
SELECT get_raw_page('pi_nvm', 'fsm', 3);
SELECT get_raw_page('pi_nvm', 'init', 0);

-- refusals
SELECT nvm_am.nvm_am_get_raw_page('pi_nvm', 1);
SELECT nvm_am.nvm_am_get_raw_page('pi_nvm', -1);
SELECT * FROM nvm_am.nvm_am_page_log('pi_heap', 0);
SELECT nvm_am.nvm_am_get_raw_page('pi_nvm_pkey', 0);
CREATE ROLE pi_user;
GRANT EXECUTE ON FUNCTION nvm_am.nvm_am_get_raw_page(regclass, bigint) TO pi_user;
GRANT SELECT ON pi_nvm TO pi_user;
SET ROLE pi_user;
SELECT length(nvm_am.nvm_am_get_raw_page('pi_nvm', 0));
SELECT * FROM nvm_am.nvm_am_page_log('pi_nvm', 0);
RESET ROLE;

DROP TABLE pi_heap, pi_nvm;
DROP FUNCTION pi_same(), pi_items(bytea);
REVOKE ALL ON FUNCTION nvm_am.nvm_am_get_raw_page(regclass, bigint) FROM pi_user;
DROP ROLE pi_user;
