-- Issue 25 / issue 27: close_order runs with generic plans (`SET plan_cache_mode =
-- force_generic_plan` in src/db/functions/041_close_order.sql, applied right after the
-- migrations; docs/operations.md "Counting a purchase's database work in instructions"). Its
-- statements reach their rows by key; PostgreSQL's custom-or-generic choice planned them again on
-- each of the first five calls of a connection and, with some statistics samples, one of them on
-- every call. Nothing to change in the schema: this migration marks the version, so that an older
-- instance restarting during a rolling deploy leaves the new function bodies alone (migrate.ts).
SELECT 1;
