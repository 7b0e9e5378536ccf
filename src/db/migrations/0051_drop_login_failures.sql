-- The admin sign-in throttle moved to the rate limits (src/http/rate-limits.ts, D45): its counters
-- live in memory or Redis like every other limit, and no longer in this table.
DROP TABLE IF EXISTS login_failures;
