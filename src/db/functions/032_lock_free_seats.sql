-- Best available's claim step (D61, src/modules/orders/best-available.service.ts): locks the
-- chosen seats for the caller's transaction without waiting for anyone, so that parallel requests
-- never queue behind each other's choice (and never deadlock), then checks them free under the
-- lock. Returns the ids it could not take (locked by another transaction, not free, or gone):
-- empty means every seat is locked and free, and cart_hold_seats (the one hold) claims them next
-- in the same transaction. Otherwise nothing stays locked: the subtransaction of the inner block is
-- rolled back, which releases the locks it took, and the caller chooses again without them.
--
-- The check is made on the rows as the lock returns them (each row's newest version, locked), on
-- the primary key only: a filter on status could be planned over the partial index of taken
-- seats and walk every seat sold so far (test/orders/hold-plan.test.ts), and a filter under a
-- locking subquery may be pushed below its lock.
CREATE OR REPLACE FUNCTION lock_free_seats(p_seat_ids bigint[], p_now timestamptz) RETURNS bigint[]
LANGUAGE plpgsql AS $$
DECLARE
  v_free bigint[] := '{}';
  v_row record;
  v_missing bigint[];
BEGIN
  BEGIN
    FOR v_row IN SELECT id, status, hold_expires_at FROM session_seats WHERE id = ANY(p_seat_ids) ORDER BY id FOR UPDATE SKIP LOCKED LOOP
      IF seat_is_free(v_row.status, v_row.hold_expires_at, p_now) THEN
        v_free := v_free || v_row.id;
      END IF;
    END LOOP;
    SELECT array_agg(r.id ORDER BY r.id) INTO v_missing
    FROM unnest(p_seat_ids) AS r(id)
    WHERE NOT (r.id = ANY(v_free));
    IF v_missing IS NOT NULL THEN
      RAISE EXCEPTION 'lock_free_seats: taken' USING ERRCODE = 'P0001';
    END IF;
  EXCEPTION WHEN raise_exception THEN
    RETURN v_missing;
  END;
  RETURN '{}'::bigint[];
END;
$$;
