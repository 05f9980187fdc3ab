\set aid random(1, 100000 * :scale)
\set tid random(1, 10 * :scale)
\set delta random(-5000, 5000)
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
UPDATE pgbench_tellers SET tbalance = tbalance + :delta WHERE tid = :tid;
SELECT tbalance FROM pgbench_tellers WHERE tid = :tid;
