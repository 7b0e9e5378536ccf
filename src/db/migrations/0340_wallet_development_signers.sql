-- The development wallet signers (D70, docs/wallet.md "Development signer"): outside production, a
-- provider left unconfigured signs with material generated at the first start and kept here, so that
-- every restart and every instance on this database signs with the same certificate and key.
-- provider: 'apple' (a self-signed certificate and its key) or 'google' (a service account key).
-- private_key_sealed: the PEM private key sealed under SIGNING_SECRET (lib/secrets.ts sealSecret),
-- like webhook secrets: a copy of the database alone does not reveal it. Never written in production.
-- The first start inserts with ON CONFLICT DO NOTHING and reads back: the row that won is the signer.
CREATE TABLE wallet_development_signers (
  provider text PRIMARY KEY CHECK (provider IN ('apple', 'google')),
  certificate text,
  private_key_sealed text NOT NULL,
  created_at timestamptz NOT NULL,
  CHECK ((provider = 'apple') = (certificate IS NOT NULL))
);
