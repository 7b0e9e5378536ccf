-- Catalogue: the session detail reads the live state of a session as "its units that are not plainly
-- available" (held, sold, blocked). This partial index keeps that read proportional to the taken
-- units, not to the size of the venue. status is not otherwise indexed; claims already change the
-- indexed order_id, so the extra index costs writers little.
CREATE INDEX session_seats_taken_idx ON session_seats (session_id) WHERE status <> 'available';
