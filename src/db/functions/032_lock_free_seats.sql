-- Best available's claim step (D61, src/modules/orders/best-available.service.ts): locks the
-- chosen seats for the caller's transaction without waiting for anyone, so that parallel requests
-- never queue behind each other's choice (and never deadlock), then checks them free under the
-- lock. Returns the ids it could not take (locked by another transaction, not free, or gone):
-- empty means every seat is locked and free, and cart_hold_seats (the one hold) claims them next
-- in the same transaction. Otherwise nothing stays locked: the subtransaction of the inner block is
-- rolled back, which releases the locks it took, and the caller chooses again without them.
--
-- The lock is a statement of its own (as in cart_hold_seats): a filter over a locking subquery may
-- be pushed below it. The check after it runs on a new snapshot, under the locks.
CREATE OR REPLACE FUNCTION lock_free_seats(p_seat_ids bigint[], p_now timestamptz) RETURNS bigint[]
LANGUAGE plpgsql AS $$
DECLARE
  v_locked bigint[];
  v_missing bigint[];
BEGIN
  BEGIN
    SELECT COALESCE(array_agg(l.id), '{}') INTO v_locked
    FROM (SELECT id FROM session_seats WHERE id = ANY(p_seat_ids) ORDER BY id FOR UPDATE SKIP LOCKED) l;
    SELECT array_agg(r.id ORDER BY r.id) INTO v_missing
    FROM unnest(p_seat_ids) AS r(id)
    WHERE NOT (r.id = ANY(v_locked))
       OR EXISTS (SELECT 1 FROM session_seats ss WHERE ss.id = r.id AND NOT seat_is_free(ss.status, ss.hold_expires_at, p_now));
    IF v_missing IS NOT NULL THEN
      RAISE EXCEPTION 'lock_free_seats: taken' USING ERRCODE = 'P0001';
    END IF;
  EXCEPTION WHEN raise_exception THEN
    RETURN v_missing;
  END;
  RETURN '{}'::bigint[];
END;
$$;
