-- session_seats_not_available_idx (0195) repeats session_seats_taken_idx (0010) column for column
-- and predicate for predicate. Every hold, sale and release changes a seat's status and so writes
-- an entry into both partial indexes; the planner uses one. Best available reads through the one
-- that stays.
DROP INDEX IF EXISTS session_seats_not_available_idx;
