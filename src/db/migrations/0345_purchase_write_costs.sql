-- Issue 27: what every token request pays for on the row it writes, made smaller without changing
-- what is allowed (docs/operations.md, "Counting a purchase's database work in instructions").
--
-- PostgreSQL reads a table's CHECK constraints from their stored text and prepares them again in
-- every statement that writes the table. access_tokens_credential_check already allows only
-- 'widget' and 'server' (scope is NOT NULL, so that check is never unknown): the scope check said
-- it twice, and every token paid for reading it.
ALTER TABLE access_tokens DROP CONSTRAINT access_tokens_scope_check;
