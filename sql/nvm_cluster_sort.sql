CREATE EXTENSION IF NOT EXISTS nvm_am;
-- CLUSTER with index scans disabled reads the table in its own order and
-- sorts, as heap does: rows with equal keys keep their insertion order.
CREATE TABLE nvm_cs (id int, k int) USING nvm_am;
INSERT INTO nvm_cs SELECT g, g % 5 FROM generate_series(1, 50) g;
INSERT INTO nvm_cs VALUES (100, NULL), (101, NULL), (102, NULL);
CREATE INDEX nvm_cs_k ON nvm_cs (k);
BEGIN;
SET LOCAL enable_indexscan = false;
CLUSTER nvm_cs USING nvm_cs_k;
SELECT id, k FROM nvm_cs ORDER BY ctid LIMIT 12;
SELECT id, k FROM nvm_cs ORDER BY ctid DESC LIMIT 4;
ROLLBACK;
-- through the index, the same rows in the same order
CLUSTER nvm_cs USING nvm_cs_k;
SELECT id, k FROM nvm_cs ORDER BY ctid LIMIT 12;
SELECT count(*) FROM nvm_am.nvm_am_check('nvm_cs');
DROP TABLE nvm_cs;
