-- The sales overview's kept figures (D66, migration 0270, docs/reports.md "Sales overview"): adds
-- signed per-item deltas to sales_figures (per session, channel, rate and sector) and
-- sales_figures_hourly (per session and UTC hour of completion). One upsert per affected group and
-- table, in key order (two transactions touching the same groups lock them in the same order: no
-- deadlock), into the slot of this backend: concurrent writers on different backends mostly touch
-- different rows, so they do not queue on one row lock until commit. Readers sum the slots.
-- 64 slots: with 8, a pool of 20 connections closing orders of one hot group put 2-3 backends on
-- each row, and each waited for the other's commit (track_functions on bench:confirm: 3.8 ms of
-- lock wait per call, the closing's largest cost); with 64 they rarely meet, and a group has at
-- most 64 rows for the overview to sum.
-- An increment under ON CONFLICT DO UPDATE re-reads the row's latest committed version under its
-- lock, so concurrent writers never lose each other's counts.
CREATE OR REPLACE FUNCTION sales_figures_add(p_deltas sales_figures_delta[]) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  v_slot smallint := sales_figures_slot();
BEGIN
  IF COALESCE(cardinality(p_deltas), 0) = 0 THEN
    RETURN;
  END IF;
  INSERT INTO sales_figures AS f (session_id, channel_id, rate_id, sector_id, slot, items, refunded,
                                  base_amount, discount_amount, fee_amount, total_amount, refund_amount)
  SELECT d.session_id, d.channel_id, d.rate_id, d.sector_id, v_slot, sum(d.items), sum(d.refunded),
         sum(d.base_amount), sum(d.discount_amount), sum(d.fee_amount), sum(d.total_amount), sum(d.refund_amount)
  FROM unnest(p_deltas) d
  GROUP BY d.session_id, d.channel_id, d.rate_id, d.sector_id
  ORDER BY d.session_id, d.channel_id, d.rate_id, d.sector_id
  ON CONFLICT (session_id, channel_id, rate_id, sector_id, slot) DO UPDATE
    SET items = f.items + EXCLUDED.items, refunded = f.refunded + EXCLUDED.refunded,
        base_amount = f.base_amount + EXCLUDED.base_amount, discount_amount = f.discount_amount + EXCLUDED.discount_amount,
        fee_amount = f.fee_amount + EXCLUDED.fee_amount, total_amount = f.total_amount + EXCLUDED.total_amount,
        refund_amount = f.refund_amount + EXCLUDED.refund_amount;
  -- A refund changes no hourly figure (the timeline counts what was sold, when): no write then.
  INSERT INTO sales_figures_hourly AS h (session_id, hour, slot, items, total_amount)
  SELECT d.session_id, d.hour, v_slot, sum(d.items), sum(d.total_amount)
  FROM unnest(p_deltas) d
  WHERE d.hour IS NOT NULL AND d.items <> 0
  GROUP BY d.session_id, d.hour
  ORDER BY d.session_id, d.hour
  ON CONFLICT (session_id, hour, slot) DO UPDATE
    SET items = h.items + EXCLUDED.items, total_amount = h.total_amount + EXCLUDED.total_amount;
END;
$$;
