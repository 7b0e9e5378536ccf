-- Issue 25 (bench:confirm): the closing no longer upserts the kept sales figures (D66) itself.
-- complete_order marks the order `figures_pending` in the update that completes it (no statement
-- more; the partial index below is its only cost), and sales_figures_apply_pending adds the marked
-- orders in one set-based statement per table from the `sales-figures` job. The overview reads
-- sales_figures_current() and sales_figures_hourly_current(): the kept rows plus what the marked
-- orders add now, in one snapshot, so a purchase shows at once (src/db/functions/278-280). Under
-- callgrind the two upserts were 0.35 M of the closing's 3.33 M instructions (docs/operations.md).
ALTER TABLE orders ADD COLUMN figures_pending boolean NOT NULL DEFAULT false;
CREATE INDEX orders_figures_pending_idx ON orders (id) WHERE figures_pending;
