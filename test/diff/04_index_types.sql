-- every index type over nvm_am tables: btree, hash, GIN, GiST, SP-GiST,
-- BRIN, with index, bitmap and (where possible) index-only scans
CREATE TABLE d_ix (id int, tags text[], doc jsonb, span int4range, pt point, word text, ts timestamptz);
INSERT INTO d_ix
SELECT g, ARRAY['t' || (g % 7), 't' || (g % 11)], jsonb_build_object('k', g % 13, 'n', g),
       int4range(g, g + (g % 20) + 1), point(g % 100, g / 100), 'w' || (g * 7919 % 1000),
       timestamptz '2024-01-01 00:00+00' + g * interval '1 minute'
FROM generate_series(1, 5000) g;
CREATE INDEX d_ix_hash ON d_ix USING hash (id);
CREATE INDEX d_ix_gin ON d_ix USING gin (tags);
CREATE INDEX d_ix_gin_json ON d_ix USING gin (doc jsonb_path_ops);
CREATE INDEX d_ix_gist ON d_ix USING gist (span);
CREATE INDEX d_ix_gist_pt ON d_ix USING gist (pt);
CREATE INDEX d_ix_spgist ON d_ix USING spgist (word);
CREATE INDEX d_ix_brin ON d_ix USING brin (ts);
UPDATE d_ix SET tags = tags || ARRAY['upd'], word = word || 'x' WHERE id % 50 = 0;
DELETE FROM d_ix WHERE id % 97 = 0;
SET enable_seqscan = off;
SELECT count(*) FROM d_ix WHERE id = 4242;
SELECT count(*) FROM d_ix WHERE tags @> ARRAY['t3', 't5'];
SELECT count(*) FROM d_ix WHERE tags @> ARRAY['upd'];
SELECT count(*) FROM d_ix WHERE doc @> '{"k": 4}';
SELECT count(*) FROM d_ix WHERE span && int4range(100, 120);
SELECT count(*) FROM d_ix WHERE pt <@ box(point(10, 10), point(20, 20));
SELECT id FROM d_ix ORDER BY pt <-> point(50, 25) LIMIT 3;
SELECT count(*) FROM d_ix WHERE word = 'w123';
SELECT count(*) FROM d_ix WHERE word LIKE 'w12%';
SELECT count(*) FROM d_ix WHERE ts BETWEEN '2024-01-02' AND '2024-01-03';
RESET enable_seqscan;
SELECT count(*) FROM d_ix WHERE tags @> ARRAY['t3', 't5'];
