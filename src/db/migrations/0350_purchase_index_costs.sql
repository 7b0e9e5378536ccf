-- Issue 27: what a purchase pays for index entries, made smaller without giving up a query's index
-- (docs/operations.md, "Counting a purchase's database work in instructions").
--
-- session_seats_session_idx (session_id, sector_id) and session_seats_taken_idx (session_id) have
-- few distinct keys (a session's seats share them), so with B-tree deduplication a key is one long
-- posting list, and every hold and every sale (an UPDATE of status that cannot be HOT: the partial
-- indexes read status) rewrote a posting list of it, and on a full page ran a deduplication or
-- bottom-up deletion pass over it. Without deduplication each version is a plain entry placed by
-- its heap TID: 0.18 M fewer instructions per two-seat purchase under callgrind, for an index a few
-- times larger (tens of bytes per seat). The readers (seat maps, availability, the taken count)
-- use them as before.
ALTER INDEX session_seats_session_idx SET (deduplicate_items = off);
REINDEX INDEX session_seats_session_idx;
ALTER INDEX session_seats_taken_idx SET (deduplicate_items = off);
REINDEX INDEX session_seats_taken_idx;

-- order_items_order_idx (order_id) is a prefix of order_items_report_idx (order_id, event_id)
-- INCLUDE (id, session_id), which serves every lookup of an order's items (the order view, the
-- closing, the cascade of an order's delete) as well: a second index entry per item for nothing
-- (0.026 M per two-seat purchase).
DROP INDEX order_items_order_idx;
