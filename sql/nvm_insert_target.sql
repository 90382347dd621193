-- Where an insert goes, as in heap: the page this backend last inserted
-- into for the relation, else a page the free space map offers (VACUUM
-- filled it), else the last page.  A new session's small row lands in the
-- room left on the first page, not at the end.
CREATE EXTENSION IF NOT EXISTS nvm_am;
CREATE TABLE nvm_it (a int, pad text) USING nvm_am WITH (autovacuum_enabled = off);
INSERT INTO nvm_it SELECT g, repeat('x', 40) FROM generate_series(1, 300) g;
SELECT (ctid::text::point)[0]::int AS blkno, count(*) FROM nvm_it GROUP BY 1 ORDER BY 1;
VACUUM nvm_it;
\c
INSERT INTO nvm_it VALUES (1000, 'new');
SELECT ctid, a FROM nvm_it WHERE a = 1000;
-- the first page is full now: the free space map offers the next with room
INSERT INTO nvm_it VALUES (1001, 'n');
SELECT (ctid::text::point)[0]::int AS blkno FROM nvm_it WHERE a = 1001;
-- a bigger row: only the last page has room for it
INSERT INTO nvm_it VALUES (1002, repeat('y', 100));
SELECT (ctid::text::point)[0]::int AS blkno FROM nvm_it WHERE a = 1002;
SELECT count(*) AS problems FROM nvm_am.nvm_am_check('nvm_it');
DROP TABLE nvm_it;
