-- partitioned tables, TOAST, COPY, prepared statements, cursors
CREATE TABLE d_meas (city int, day date, temp numeric, note text) PARTITION BY RANGE (day);
CREATE TABLE d_meas_2020 PARTITION OF d_meas FOR VALUES FROM ('2020-01-01') TO ('2021-01-01');
CREATE TABLE d_meas_2021 PARTITION OF d_meas FOR VALUES FROM ('2021-01-01') TO ('2022-01-01') PARTITION BY LIST (city);
CREATE TABLE d_meas_2021_a PARTITION OF d_meas_2021 FOR VALUES IN (1, 2, 3);
CREATE TABLE d_meas_2021_b PARTITION OF d_meas_2021 DEFAULT;
CREATE INDEX ON d_meas (city, day);
INSERT INTO d_meas SELECT 1 + g % 6, date '2020-06-01' + g, (g % 40) - 5, NULL FROM generate_series(0, 400) g;
SELECT tableoid::regclass, count(*), min(day), max(day) FROM d_meas GROUP BY 1;
UPDATE d_meas SET day = day + 365 WHERE day < '2020-07-01' AND city = 2;
SELECT tableoid::regclass, count(*) FROM d_meas GROUP BY 1;
EXPLAIN (COSTS OFF) SELECT * FROM d_meas WHERE day = '2021-03-01' AND city = 4;
SELECT city, temp FROM d_meas WHERE day = '2021-03-01';
DELETE FROM d_meas WHERE city = 6 RETURNING city, day;
-- TOAST
CREATE TABLE d_docs (id int PRIMARY KEY, body text, blob bytea);
INSERT INTO d_docs SELECT g, repeat('lorem ipsum ' || g, 3000 * g), decode(repeat(md5(g::text), 1000), 'hex') FROM generate_series(1, 6) g;
SELECT id, length(body), md5(body), length(blob), md5(blob) FROM d_docs ORDER BY id;
UPDATE d_docs SET body = body || 'tail' WHERE id = 2;
UPDATE d_docs SET id = id + 10 WHERE id = 3;
SELECT id, length(body), right(body, 8) FROM d_docs ORDER BY id;
ALTER TABLE d_docs ALTER COLUMN body SET STORAGE EXTERNAL;
INSERT INTO d_docs VALUES (7, repeat('x', 100000), NULL);
SELECT id, length(body) FROM d_docs WHERE id = 7;
-- COPY
CREATE TABLE d_copy (a int, b text, c float8);
COPY d_copy FROM STDIN WITH (FORMAT csv);
1,one,1.5
2,"two, with comma",2.5
3,,
\.
COPY d_copy TO STDOUT WITH (FORMAT csv, HEADER);
INSERT INTO d_copy SELECT g, 'bulk' || g, g FROM generate_series(4, 2000) g;
SELECT count(*), sum(a), sum(c) FROM d_copy;
-- prepared statements
PREPARE d_get(int) AS SELECT a, b FROM d_copy WHERE a = $1;
EXECUTE d_get(2);
EXECUTE d_get(1500);
PREPARE d_upd(int, text) AS UPDATE d_copy SET b = $2 WHERE a = $1 RETURNING *;
EXECUTE d_upd(3, 'three');
EXECUTE d_upd(3, 'THREE');
-- cursors: scrollable, WITH HOLD, FOR UPDATE
BEGIN;
DECLARE cur SCROLL CURSOR FOR SELECT a FROM d_copy WHERE a <= 10 ORDER BY a;
FETCH 3 FROM cur;
FETCH BACKWARD 2 FROM cur;
FETCH ABSOLUTE 8 FROM cur;
FETCH RELATIVE -3 FROM cur;
MOVE LAST IN cur;
FETCH PRIOR FROM cur;
COMMIT;
BEGIN;
DECLARE seqcur SCROLL CURSOR FOR SELECT a FROM d_copy WHERE a <= 5;
FETCH ALL FROM seqcur;
FETCH BACKWARD ALL FROM seqcur;
COMMIT;
BEGIN;
DECLARE held CURSOR WITH HOLD FOR SELECT a, b FROM d_copy WHERE a BETWEEN 100 AND 104 ORDER BY a;
COMMIT;
UPDATE d_copy SET b = 'changed' WHERE a = 101;
FETCH ALL FROM held;
CLOSE held;
BEGIN;
DECLARE upd CURSOR FOR SELECT a, b FROM d_copy WHERE a BETWEEN 200 AND 202 ORDER BY a FOR UPDATE;
FETCH 1 FROM upd;
UPDATE d_copy SET b = 'via cursor' WHERE CURRENT OF upd;
FETCH 1 FROM upd;
DELETE FROM d_copy WHERE CURRENT OF upd;
COMMIT;
SELECT a, b FROM d_copy WHERE a BETWEEN 200 AND 202 ORDER BY a;
