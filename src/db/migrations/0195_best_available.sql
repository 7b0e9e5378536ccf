-- Best available (issue 28 part 3, D61).
--
-- Seats carry the accessibility flags of D64: a wheelchair place, and a companion seat (beside a
-- wheelchair place, sold with it). Best available gives wheelchair places and companion seats only
-- to a request with `accessible` (docs/onsale.md "Best available"); a click on the map may still
-- take any free seat. The venues and layouts work (D64) sets them from its layouts; the demo
-- catalogue flags a few (src/demo/demo-data.ts).
ALTER TABLE seats
  ADD COLUMN wheelchair boolean NOT NULL DEFAULT false,
  ADD COLUMN companion boolean NOT NULL DEFAULT false,
  ADD CONSTRAINT seats_one_accessibility_role CHECK (NOT (wheelchair AND companion));

-- Best available reads the session's seats that are not 'available' (held, sold, blocked) on every
-- request; on a 20,000-seat session that is a handful at the on-sale and all of them at the end.
-- This index reads exactly those, not the session's 20,000 rows.
CREATE INDEX session_seats_not_available_idx ON session_seats (session_id) WHERE status <> 'available';
