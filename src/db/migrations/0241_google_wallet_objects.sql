-- Google Wallet objects to keep in step with their tickets (D70, docs/wallet.md "Google Wallet").
-- A row is written when the service hands out a save link of a configured issuer (the object is
-- created by Google when the buyer saves it); the google-wallet-sync job PATCHes the object's state
-- (INACTIVE once refunded) or barcode (a reissue) when the ticket's pass_updated_at (0240) passes
-- synced_until, and then moves synced_until. A failed call stays pending and is retried.
CREATE TABLE google_wallet_objects (
  ticket_id bigint PRIMARY KEY REFERENCES tickets(id),
  object_id text NOT NULL,
  created_at timestamptz NOT NULL,
  synced_until timestamptz NOT NULL,
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz,
  last_error text
);
CREATE INDEX google_wallet_objects_pending_idx ON google_wallet_objects (synced_until);
