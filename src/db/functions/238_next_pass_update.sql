-- When a wallet pass last changed, after a change now (D70, docs/wallet.md): a whole second, at
-- least one second after the value it replaces (`p_previous`: the ticket's pass_updated_at, else its
-- issued_at), so that a device's If-Modified-Since (the Last-Modified it was given, second
-- resolution) is always older than any later change. The one rule of both triggers that move it:
-- tickets_mark_pass_update (the ticket changed) and sessions_mark_pass_update (its session moved).
CREATE OR REPLACE FUNCTION next_pass_update(p_previous timestamptz) RETURNS timestamptz
LANGUAGE sql VOLATILE AS $$
  SELECT GREATEST(date_trunc('second', clock_timestamp()) + interval '1 second',
                  date_trunc('second', p_previous) + interval '1 second')
$$;
