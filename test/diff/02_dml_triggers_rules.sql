-- DML with RETURNING, triggers, rules, foreign keys, ON CONFLICT, MERGE-free upserts
CREATE TABLE d_acct (id int PRIMARY KEY, owner text NOT NULL, balance numeric CHECK (balance >= 0));
CREATE TABLE d_log (seq serial PRIMARY KEY, acct int, op text, delta numeric);
CREATE FUNCTION d_log_trg() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN INSERT INTO d_log (acct, op, delta) VALUES (OLD.id, TG_OP, -OLD.balance); RETURN OLD;
  ELSE INSERT INTO d_log (acct, op, delta) VALUES (NEW.id, TG_OP, NEW.balance - COALESCE(CASE WHEN TG_OP = 'UPDATE' THEN OLD.balance END, 0)); RETURN NEW;
  END IF;
END $$;
CREATE TRIGGER d_acct_log AFTER INSERT OR UPDATE OR DELETE ON d_acct FOR EACH ROW EXECUTE FUNCTION d_log_trg();
INSERT INTO d_acct SELECT g, 'owner' || g, 100 FROM generate_series(1, 50) g RETURNING id, balance;
UPDATE d_acct SET balance = balance - 30 WHERE id % 5 = 0 RETURNING id, balance;
UPDATE d_acct SET balance = balance - 200 WHERE id = 1;
DELETE FROM d_acct WHERE id > 45 RETURNING *;
INSERT INTO d_acct VALUES (1, 'dup', 5) ON CONFLICT (id) DO UPDATE SET balance = d_acct.balance + excluded.balance RETURNING *;
INSERT INTO d_acct VALUES (2, 'dup', 5), (100, 'new', 7) ON CONFLICT DO NOTHING RETURNING *;
SELECT op, count(*), sum(delta) FROM d_log GROUP BY op;
-- rules
CREATE TABLE d_archive (LIKE d_acct);
CREATE RULE d_keep AS ON DELETE TO d_acct DO ALSO INSERT INTO d_archive VALUES (OLD.*);
DELETE FROM d_acct WHERE id BETWEEN 10 AND 12;
SELECT * FROM d_archive ORDER BY id;
CREATE VIEW d_rich AS SELECT * FROM d_acct WHERE balance > 90;
UPDATE d_rich SET balance = balance + 1 WHERE id < 5 RETURNING id, balance;
-- foreign keys with cascades
CREATE TABLE d_card (no int PRIMARY KEY, acct int REFERENCES d_acct ON DELETE CASCADE ON UPDATE CASCADE);
INSERT INTO d_card SELECT g, g FROM generate_series(1, 40) g WHERE g NOT BETWEEN 10 AND 12;
INSERT INTO d_card VALUES (999, 12345);
UPDATE d_acct SET id = id + 1000 WHERE id = 3;
DELETE FROM d_acct WHERE id = 4;
SELECT count(*), sum(acct) FROM d_card;
-- UPDATE ... FROM, DELETE ... USING, writable CTEs
UPDATE d_acct a SET balance = a.balance + c.no FROM d_card c WHERE c.acct = a.id AND c.no < 6 RETURNING a.id, a.balance;
DELETE FROM d_card c USING d_acct a WHERE a.id = c.acct AND a.balance < 80 RETURNING c.no;
WITH moved AS (DELETE FROM d_log WHERE op = 'DELETE' RETURNING *) SELECT count(*) FROM moved;
-- subtransactions
BEGIN;
UPDATE d_acct SET balance = 0 WHERE id = 5;
SAVEPOINT a;
UPDATE d_acct SET balance = -1 WHERE id = 6;
ROLLBACK TO a;
UPDATE d_acct SET balance = 1 WHERE id = 6;
COMMIT;
SELECT id, balance FROM d_acct WHERE id IN (5, 6) ORDER BY id;
SELECT count(*), sum(balance) FROM d_acct;
