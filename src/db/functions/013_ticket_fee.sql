-- The management fees of one ticket: every fee rule of its event and of its session (fee_of_rule),
-- summed. Used by the one-statement hold (cart_hold_seats) and by reservations.
-- plpgsql rather than sql: a SQL function with a FROM is not inlined, and PostgreSQL 15 plans a
-- non-inlined SQL function's body on every call, while plpgsql caches the plan per connection.
CREATE OR REPLACE FUNCTION ticket_fee(p_price integer, p_event_id integer, p_session_id integer) RETURNS integer
LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN (SELECT COALESCE(sum(fee_of_rule(p_price, f.kind, f.amount)), 0)::integer
          FROM fees f WHERE f.event_id = p_event_id OR f.session_id = p_session_id);
END;
$$;
