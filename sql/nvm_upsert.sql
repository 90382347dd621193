CREATE EXTENSION IF NOT EXISTS nvm_am;
-- INSERT ... ON CONFLICT DO UPDATE locks the conflicting row, then updates
-- it; as in heap, the lock stays on the new version, so its xmax is the
-- updating transaction, while a plain insert leaves xmax empty.
CREATE TABLE nvm_ups (k int PRIMARY KEY, v text) USING nvm_am;
BEGIN;
INSERT INTO nvm_ups VALUES (1, 'first') ON CONFLICT (k) DO UPDATE SET v = 'again'
  RETURNING v, xmin = pg_current_xact_id()::xid AS xmin_is_mine, xmax = 0 AS no_xmax;
INSERT INTO nvm_ups VALUES (1, 'second') ON CONFLICT (k) DO UPDATE SET v = 'again'
  RETURNING v, xmin = pg_current_xact_id()::xid AS xmin_is_mine,
            xmax = pg_current_xact_id()::xid AS xmax_is_mine;
COMMIT;
-- a row locked FOR UPDATE and then updated in the same transaction keeps
-- the lock on its new version too
BEGIN;
SELECT v FROM nvm_ups WHERE k = 1 FOR UPDATE;
UPDATE nvm_ups SET v = 'third' WHERE k = 1
  RETURNING v, xmax = pg_current_xact_id()::xid AS xmax_is_mine;
COMMIT;
-- and a later change of the row by another transaction is not hindered
UPDATE nvm_ups SET v = 'fourth' WHERE k = 1 RETURNING v;
SELECT k, v FROM nvm_ups;
SELECT count(*) FROM nvm_am.nvm_am_check('nvm_ups');
DROP TABLE nvm_ups;
