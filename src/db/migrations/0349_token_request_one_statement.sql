-- Issue 27: a token request is one statement, issue_access_token_for_key
-- (src/db/functions/122_issue_access_token_for_key.sql, applied right after the migrations): the
-- key lookup and issue_access_token in one round trip. Nothing to change in the schema: this
-- migration marks the version, so that an older instance restarting during a rolling deploy leaves
-- the new function bodies alone (migrate.ts); issue_access_token stays, with the same signature,
-- for the instances of the previous version.
SELECT 1;
