--
-- Errors are reported cleanly and leave the table intact.
--
CREATE EXTENSION IF NOT EXISTS nvm_am;
-- a row that cannot fit a page even after TOAST
SELECT 'CREATE TABLE ewide (' || string_agg('c' || g || ' int8', ', ') || ') USING nvm_am'
  FROM generate_series(1, 1100) g \gexec
SELECT 'INSERT INTO ewide VALUES (' || string_agg(g::text, ', ') || ')'
  FROM generate_series(1, 1100) g \gexec
SELECT count(*) FROM ewide;
DROP TABLE ewide;

CREATE TABLE et (a int, b text) USING nvm_am;
INSERT INTO et VALUES (1, 'one');

-- errors inside a transaction roll back the changes made before them
BEGIN;
INSERT INTO et VALUES (2, 'two');
SELECT 1 / 0;
COMMIT;
SELECT * FROM et;

-- a failed statement in a subtransaction, then more work
BEGIN;
INSERT INTO et VALUES (3, 'three');
SAVEPOINT s;
INSERT INTO et VALUES (4, repeat('x', 10)::int::text);
ROLLBACK TO s;
UPDATE et SET b = 'uno' WHERE a = 1;
COMMIT;
SELECT * FROM et ORDER BY a;

-- nvm_am.nvm_am_check() takes nvm_am tables only
CREATE TABLE eheap (a int) USING heap;
SELECT * FROM nvm_am.nvm_am_check('eheap');
SELECT * FROM nvm_am.nvm_am_check(0);
SELECT * FROM nvm_am.nvm_am_check(NULL);
SELECT * FROM nvm_am.nvm_am_check('et');
DROP TABLE eheap;

-- settings are reserved and fixed at server start
SET nvm_am.pool_size = '2GB';
SET nvm_am.no_such_setting = 1;
DROP TABLE et;
