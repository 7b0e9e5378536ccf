-- D74: the key of a session's sale lock (seed 74, src/db/advisory-locks.ts), one definition for
-- lock_session_sale and for close_order, which takes the lock of an order of one session straight
-- (lock_session_sale's query over the array costs a closing more than the lock itself,
-- docs/operations.md). An SQL function that PostgreSQL inlines into its callers' plans: the cast
-- keeps the body immutable, as the function is declared (text || integer is only stable).
CREATE OR REPLACE FUNCTION session_sale_key(p_session_id integer) RETURNS bigint
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT hashtextextended('session-sale:' || p_session_id::text, 74)
$$;
