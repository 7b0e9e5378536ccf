-- Issue 27 (PostgreSQL work per purchase): the overview's kept inventory (migration 0271) was
-- updated by a statement trigger on every status change of a place, so every hold and every
-- closing paid for a transition table and an upsert (about 0.15-0.4 ms of PostgreSQL per
-- statement, measured with pgbench). The places of a session and sector change only when places are
-- inserted or deleted (a session made, a layout version saved): session_inventory now keeps only
-- that count. The overview takes the sold places from the kept sales figures (a counted order's
-- items less the refunded ones: the places completed purchases and reservations hold) and the
-- live holds and blocked places from their partial indexes (few rows); see overview.repo.ts.
DROP TRIGGER session_inventory_seats_update ON session_seats;
ALTER TABLE session_inventory DROP COLUMN sold, DROP COLUMN held, DROP COLUMN blocked;

-- The blocked places of a session, counted at read time. Only a place that becomes blocked gets an
-- entry: a hold or a sale of an available place does not write this index.
CREATE INDEX session_seats_blocked_idx ON session_seats (session_id, sector_id) WHERE status = 'blocked';
