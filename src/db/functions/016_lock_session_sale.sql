-- D74 "no ticket after a cancellation": the lock that serialises selling a session with changing
-- it. close_order takes it shared for each session of the order (many closings of one session run
-- side by side); a change of the session (cancel, move, edit: session-changes.service.ts,
-- catalogue-admin.service.ts) takes it exclusive in the transaction that writes the session row.
-- So a closing either commits before the change or waits for it and then sees it.
--
-- An advisory lock rather than the session row FOR SHARE: a row lock shared by the many closings
-- of one hot session writes the row's lock word each time (a multixact once two hold it), which
-- cost the flash sale and bench:confirm a quarter of the closing's database time. The lock
-- manager holds this one in memory only.

-- The key: session_sale_key (015_session_sale_key.sql).
CREATE OR REPLACE FUNCTION lock_session_sale(p_session_ids integer[], p_exclusive boolean) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  v_id integer;
BEGIN
  -- In id order, so that two transactions over several sessions cannot deadlock.
  FOR v_id IN SELECT DISTINCT s FROM unnest(p_session_ids) s ORDER BY s LOOP
    IF p_exclusive THEN
      PERFORM pg_advisory_xact_lock(session_sale_key(v_id));
    ELSE
      PERFORM pg_advisory_xact_lock_shared(session_sale_key(v_id));
    END IF;
  END LOOP;
END;
$$;
