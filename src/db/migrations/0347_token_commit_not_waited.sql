-- Issue 27: issue_access_token commits without waiting for the WAL flush (`SET LOCAL
-- synchronous_commit = off` in src/db/functions/120_issue_access_token.sql, applied right after
-- the migrations). What a crash may lose and why that is allowed: docs/operations.md, "Why each
-- commit of a purchase is there". Nothing to change in the schema: this migration marks the
-- version, so that an older instance restarting during a rolling deploy leaves the new function
-- bodies alone (migrate.ts).
SELECT 1;
