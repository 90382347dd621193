-- basic DML on an nvm_am table
CREATE EXTENSION IF NOT EXISTS nvm_am;
CREATE TABLE nb (id int PRIMARY KEY, v text) USING nvm_am;
INSERT INTO nb SELECT g, 'v' || g FROM generate_series(1, 1000) g;
SELECT count(*), sum(id) FROM nb;
DROP TABLE nb;
