-- A transaction-scoped advisory lock whose wait is bounded: lock_timeout is p_wait_ms for the wait
-- only and put back after it, so the transaction's other lock waits are as they were. A wait that
-- runs out fails with SQLSTATE 55P03 (lock_not_available), answered 503 with Retry-After.
-- The keyspaces and the bound: src/db/advisory-locks.ts.
CREATE OR REPLACE FUNCTION advisory_xact_lock_within(p_key bigint, p_shared boolean, p_wait_ms integer) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  v_was text := current_setting('lock_timeout');
BEGIN
  PERFORM set_config('lock_timeout', p_wait_ms || 'ms', true);
  IF p_shared THEN
    PERFORM pg_advisory_xact_lock_shared(p_key);
  ELSE
    PERFORM pg_advisory_xact_lock(p_key);
  END IF;
  PERFORM set_config('lock_timeout', v_was, true);
END;
$$;
