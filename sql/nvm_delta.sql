-- Compact in-page log records (DELTA, pools of format version 7): a
-- change is logged as operations against the page before it, leaving out
-- what can be derived from that page, so an update that changes one column
-- logs about the bytes it changes rather than its whole new row version,
-- and a delete logs the header fields it changes.  nvm_am_page_log()
-- replays the log onto a copy of the page's base image as it lists it:
-- each DELTA record decodes against the page before it into the patches it
-- stands for (items, bytes).
CREATE EXTENSION IF NOT EXISTS nvm_am;
SELECT format_version >= 7 AS writes_delta_records FROM nvm_am.nvm_am_pool_info();
CREATE TABLE dl (id int PRIMARY KEY, a int, pad text, b text) USING nvm_am
  WITH (autovacuum_enabled = off);
CREATE TABLE dl_heap (id int PRIMARY KEY, a int, pad text, b text) USING heap
  WITH (autovacuum_enabled = off);
INSERT INTO dl SELECT g, 0, repeat('p', 100), md5(g::text) FROM generate_series(1, 40) g;
INSERT INTO dl_heap SELECT * FROM dl;

-- 170-byte rows, one int column changed: the page fills with new versions,
-- a prune comes into the log, and the versions after it travel in records
UPDATE dl SET a = a + 1 WHERE id <= 10;
UPDATE dl SET a = a + 1 WHERE id <= 10;
UPDATE dl SET a = a + 1 WHERE id <= 10;
UPDATE dl SET a = a + 1 WHERE id <= 10;
UPDATE dl SET a = a + 1 WHERE id <= 10;
UPDATE dl SET a = a + 1 WHERE id <= 10;
UPDATE dl_heap SET a = a + 6 WHERE id <= 10;
-- the updates' records: each shorter than half the row version it places
-- (a patch record carries all 170 bytes of it), and each decodes into its
-- patches (the tuple, its line pointer, pd_lower/pd_upper, the old
-- version's header, and pd_prune_xid when that changes) of more bytes
SELECT count(*) > 0 AS some_delta,
       bool_and(length < 170 / 2) AS shorter_than_half_a_row,
       bool_and(items IN (4, 5)) AS four_or_five_patches,
       bool_and(bytes > 170) AS decoded_tuple_bytes
FROM nvm_am.nvm_am_page_log('dl', 0) WHERE kind = 'delta';
SELECT count(*) > 0 AS some_prune
FROM nvm_am.nvm_am_page_log('dl', 0) WHERE kind LIKE 'prune%';

-- a delete changes the visibility fields of a tuple header (22 bytes in a
-- patch record): its DELTA record carries xmax and the infomasks
DELETE FROM dl WHERE id = 40;
DELETE FROM dl_heap WHERE id = 40;
SELECT kind, length, items, bytes
FROM nvm_am.nvm_am_page_log('dl', 0) ORDER BY byte_offset DESC LIMIT 1;

-- what the records say is what the table holds: the same rows as heap's,
-- by sequential and index scans, and a sound table
SELECT count(*) AS differing FROM (
  (SELECT * FROM dl EXCEPT ALL SELECT * FROM dl_heap)
  UNION ALL
  (SELECT * FROM dl_heap EXCEPT ALL SELECT * FROM dl)) d;
SET enable_seqscan = off;
SELECT id, a FROM dl WHERE id IN (1, 10, 11, 39) ORDER BY id;
RESET enable_seqscan;
SELECT * FROM nvm_am.nvm_am_check('dl');

-- records of a subtransaction, of a rolled-back one, of a second command
-- of a transaction (a command id that is not the first travels too)
BEGIN;
UPDATE dl SET a = a + 100 WHERE id = 1;
SAVEPOINT s;
UPDATE dl SET a = a + 1000 WHERE id = 2;
ROLLBACK TO s;
UPDATE dl SET b = 'changed' WHERE id = 3;
COMMIT;
BEGIN;
UPDATE dl_heap SET a = a + 100 WHERE id = 1;
UPDATE dl_heap SET b = 'changed' WHERE id = 3;
COMMIT;
SELECT count(*) AS differing FROM (
  (SELECT * FROM dl EXCEPT ALL SELECT * FROM dl_heap)
  UNION ALL
  (SELECT * FROM dl_heap EXCEPT ALL SELECT * FROM dl)) d;
SELECT bool_and(items > 0) AS every_record_decodes
FROM nvm_am.nvm_am_page_log('dl', 0);
SELECT * FROM nvm_am.nvm_am_check('dl');

DROP TABLE dl, dl_heap;
