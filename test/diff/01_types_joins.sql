-- types, joins, aggregates, window functions, CTEs
CREATE TABLE d_types (
  id int PRIMARY KEY, b bool, s smallint, i8 bigint, r real, f float8, n numeric(20,5),
  t text, vc varchar(20), c char(5), by bytea, d date, ts timestamptz, iv interval,
  u uuid, j jsonb, arr int[], rng int4range, ip inet, pt point);
INSERT INTO d_types
SELECT g, g % 2 = 0, g::smallint, g * 1000000000::bigint, g / 3.0, g / 7.0, g * 1.23456,
       'text ' || g, 'vc' || g, 'c' || (g % 10), decode(md5(g::text), 'hex'),
       date '2020-01-01' + g, timestamptz '2020-01-01 00:00+00' + g * interval '1 hour',
       g * interval '1 minute', md5(g::text)::uuid, jsonb_build_object('k', g, 'a', jsonb_build_array(g, g + 1)),
       ARRAY[g, g * 2], int4range(g, g + 10), ('10.0.' || (g % 256) || '.1')::inet, point(g, -g)
FROM generate_series(1, 500) g;
INSERT INTO d_types (id) VALUES (1000);
SELECT count(*), count(b), sum(s), sum(i8), round(sum(r)::numeric, 1), round(sum(f)::numeric, 6), sum(n) FROM d_types;
SELECT * FROM d_types WHERE id IN (1, 2, 250, 1000) ORDER BY id;
SELECT b, count(*), avg(n), string_agg(c, ',' ORDER BY id) FILTER (WHERE id < 20) FROM d_types GROUP BY b ORDER BY b;
SELECT j->>'k' AS k FROM d_types WHERE j @> '{"k": 42}';
SELECT id FROM d_types WHERE arr @> ARRAY[84];
SELECT id FROM d_types WHERE rng @> 255 ORDER BY id;

CREATE TABLE d_dept (id int PRIMARY KEY, name text);
CREATE TABLE d_emp (id int PRIMARY KEY, dept int REFERENCES d_dept, salary int, boss int);
INSERT INTO d_dept SELECT g, 'dept ' || g FROM generate_series(1, 10) g;
INSERT INTO d_emp SELECT g, 1 + g % 10, 1000 + (g * 37) % 500, NULLIF(g / 10, 0) FROM generate_series(1, 300) g;
SELECT d.name, count(e.id), sum(e.salary) FROM d_dept d LEFT JOIN d_emp e ON e.dept = d.id GROUP BY d.name;
SELECT e.id, d.name FROM d_emp e JOIN d_dept d ON d.id = e.dept WHERE e.salary > 1490;
SELECT d.id FROM d_dept d WHERE NOT EXISTS (SELECT 1 FROM d_emp e WHERE e.dept = d.id AND e.salary < 1010);
SELECT id, salary, rank() OVER (PARTITION BY dept ORDER BY salary DESC, id) FROM d_emp WHERE dept = 3 ORDER BY 3, 1;
WITH RECURSIVE chain AS (SELECT id, boss, 1 AS depth FROM d_emp WHERE id = 299
  UNION ALL SELECT e.id, e.boss, c.depth + 1 FROM d_emp e JOIN chain c ON e.id = c.boss)
SELECT * FROM chain ORDER BY depth;
SET enable_hashjoin = off; SET enable_mergejoin = off;
SELECT count(*) FROM d_emp a JOIN d_emp b ON a.boss = b.id;
SET enable_nestloop = off; SET enable_mergejoin = on;
SELECT count(*) FROM d_emp a JOIN d_emp b ON a.boss = b.id;
RESET ALL;
SELECT dept, percentile_cont(0.5) WITHIN GROUP (ORDER BY salary) FROM d_emp GROUP BY dept;
SELECT * FROM d_emp TABLESAMPLE SYSTEM (100) WHERE id < 5;
