-- The history of completed and cancelled jobs, range-partitioned by day of finish.

-- name: historyCreatePartitions
SELECT {{schema}}.create_history_partitions(?::int) AS created

-- name: historyDropPartitions
-- Retention drops whole day partitions, never a row-by-row DELETE.
SELECT {{schema}}.drop_history_partitions(? * interval '1 millisecond') AS dropped
