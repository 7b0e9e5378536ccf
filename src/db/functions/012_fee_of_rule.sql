-- One management fee rule applied to a ticket's base price, in minor units: a fixed amount per
-- ticket, or basis points of the price rounded half away from zero. The TypeScript twin is feeFor
-- in src/modules/orders/orders.pricing.ts (with percentOf of src/lib/money.ts), which prices the full cart
-- path; test/orders/hold-paths.property.test.ts holds the two to the same amounts.
-- Inlined by the planner (LANGUAGE sql, IMMUTABLE, one expression).
CREATE OR REPLACE FUNCTION fee_of_rule(p_price integer, p_kind text, p_amount integer) RETURNS integer
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN p_kind = 'fixed' THEN p_amount
              ELSE (sign(p_price) * round(abs(p_price)::numeric * p_amount / 10000))::integer END
$$;
