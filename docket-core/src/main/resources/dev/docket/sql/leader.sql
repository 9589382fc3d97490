-- Leaders: one row per role, held by a lease with a term.

-- name: leaderAttemptElect
-- Elects or re-elects in one statement: it takes the role when nobody holds it or the holder's
-- lease ran out, renews it when this node holds it, and returns nothing otherwise. The term goes
-- up whenever the holder changes or a lease had lapsed. `now` may be passed by tests.
INSERT INTO {{schema}}.leaders AS l (role, leader_id, term, elected_at, expires_at)
SELECT ?, ?, 1, t.now, t.now + ? * interval '1 millisecond'
  FROM (SELECT coalesce(?::timestamptz, now()) AS now) t
ON CONFLICT (role) DO UPDATE
   SET leader_id = EXCLUDED.leader_id,
       term = CASE WHEN l.leader_id = EXCLUDED.leader_id AND l.expires_at > EXCLUDED.elected_at
                   THEN l.term ELSE l.term + 1 END,
       elected_at = CASE WHEN l.leader_id = EXCLUDED.leader_id AND l.expires_at > EXCLUDED.elected_at
                         THEN l.elected_at ELSE EXCLUDED.elected_at END,
       expires_at = EXCLUDED.expires_at
 WHERE l.leader_id = EXCLUDED.leader_id OR l.expires_at <= EXCLUDED.elected_at
RETURNING term

-- name: leaderResign
-- Resigning expires the row rather than deleting it, so that the next holder's term is higher.
UPDATE {{schema}}.leaders SET expires_at = '-infinity' WHERE role = ? AND leader_id = ?
