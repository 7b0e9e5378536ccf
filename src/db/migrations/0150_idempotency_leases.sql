-- Idempotency claims bound to the request's lifetime (D55, docs/idempotency.md "When the first
-- request fails"). A running claim now carries who holds it and until when: the holding process
-- renews `lease_until` (by the database's clock) about every second while the request runs, so a
-- claim whose request died with its process, or lost its database mid-request, is free again a few
-- seconds later instead of after five minutes. Rows written before this migration (no lease) keep
-- the old rule: free five minutes after created_at (src/platform/idempotency.repo.ts).
ALTER TABLE idempotency_keys
  -- The process that claimed it: `<host>/<pid>/<boot id>` (diagnostics: which instance runs it).
  ADD COLUMN owner text,
  -- A running claim counts only until then; renewed while its request runs, ignored once done.
  ADD COLUMN lease_until timestamptz;
