-- Issue 27, "a plan fault": with statistics taken while no token was live (after every bench reset,
-- at the start of a real on-sale), the revoke of issue_access_token (D38: the live token of one
-- group, `WHERE channel_id AND scope AND client_id AND revoked_at IS NULL`) was planned on
-- access_tokens_cap_idx (channel_id, scope, id): both partial indexes looked empty, the planner
-- costed them alike, and the revoke walked every live token of the channel and scope, filtering
-- on client_id (989 buffers per token request at 1,000 live tokens; 2 on the right plan).
--
-- Statistics cannot be kept right (they are whatever the last ANALYZE saw), so the fault is made
-- impossible instead: the cap index gets a second predicate term, `id > 0` (true of every row: ids
-- come from a bigserial), that the cap query of issue_access_token states and the revoke does not.
-- An index whose predicate a query does not imply is never a path of that query, so the revoke can
-- only use access_tokens_live_idx (channel_id, scope, client_id), which matches its predicate
-- exactly, whatever the statistics; the cap query keeps its ordered walk of the oldest live tokens.
-- test/auth/token-plan.test.ts takes statistics with no live token, issues 1,000 and reads the
-- revoke's plan. Any new query that needs the cap index must state `id > 0` too.
DROP INDEX access_tokens_cap_idx;
CREATE INDEX access_tokens_cap_idx ON access_tokens (channel_id, scope, id) WHERE revoked_at IS NULL AND id > 0;
