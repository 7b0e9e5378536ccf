-- Check-in (issue 18, D53, D54; docs/checkin.md).

-- ---- Signed ticket secrets (D53)
-- The deployment's Ed25519 key pairs. The one without retired_at signs new tickets (at most one,
-- by the partial unique index, so that two instances starting together cannot both create one);
-- retired keys stay to verify the tickets they signed until an operator withdraws them.
CREATE TABLE ticket_signing_keys (
  kid text PRIMARY KEY CHECK (kid ~ '^[0-9a-f]{8}$'),
  -- b64url of the 32-byte raw public key: what devices import with WebCrypto.
  public_key text NOT NULL,
  -- AES-256-GCM of the PKCS#8 private key under a key derived from SIGNING_SECRET.
  private_key_enc text NOT NULL,
  created_at timestamptz NOT NULL,
  retired_at timestamptz,
  withdrawn_at timestamptz
);
CREATE UNIQUE INDEX ticket_signing_keys_one_active ON ticket_signing_keys ((true)) WHERE retired_at IS NULL;

-- issue_version: bumped by a reissue, so that the old secret stops scanning.
-- secret_format: 1 = the QR holds the plain code (tickets issued before this migration, which keep
-- scanning), 2 = the signed secret. Existing rows take 1, new rows 2.
-- signing_kid: the key that signs this ticket's secret (set on insert by the trigger below), so the
-- secret is the same in every copy (PDF, e-mail) and a retired key is known to be still needed.
-- change_xid: the transaction that last changed the row, the cursor of the list download.
ALTER TABLE tickets ADD COLUMN issue_version integer NOT NULL DEFAULT 1 CHECK (issue_version >= 1);
ALTER TABLE tickets ADD COLUMN secret_format smallint NOT NULL DEFAULT 1 CHECK (secret_format IN (1, 2));
ALTER TABLE tickets ALTER COLUMN secret_format SET DEFAULT 2;
ALTER TABLE tickets ADD COLUMN signing_kid text REFERENCES ticket_signing_keys(kid);
ALTER TABLE tickets ADD COLUMN change_xid bigint NOT NULL DEFAULT 0;
CREATE INDEX tickets_change_xid_idx ON tickets (change_xid);
CREATE INDEX tickets_signing_kid_idx ON tickets (signing_kid) WHERE signing_kid IS NOT NULL;

-- Current body in src/db/functions/100_tickets_mark_change.sql (defined here because the trigger
-- needs it now; the files are applied after the migrations).
CREATE OR REPLACE FUNCTION tickets_mark_change() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  NEW.change_xid := pg_current_xact_id()::text::bigint;
  IF TG_OP = 'INSERT' AND NEW.signing_kid IS NULL THEN
    NEW.signing_kid := (SELECT kid FROM ticket_signing_keys WHERE retired_at IS NULL);
  END IF;
  RETURN NEW;
END;
$$;
CREATE TRIGGER tickets_mark_change BEFORE INSERT OR UPDATE ON tickets
  FOR EACH ROW EXECUTE FUNCTION tickets_mark_change();

-- ---- Check-in lists and devices (D54)
CREATE TABLE checkin_lists (
  id serial PRIMARY KEY,
  organiser_id integer NOT NULL REFERENCES organisers(id),
  name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
  allow_reentry boolean NOT NULL DEFAULT false,
  -- Admission opens this many minutes before a session starts (not_yet_valid before).
  opens_minutes_before integer NOT NULL DEFAULT 360 CHECK (opens_minutes_before BETWEEN 0 AND 10080),
  created_at timestamptz NOT NULL
);
CREATE INDEX checkin_lists_organiser_idx ON checkin_lists (organiser_id);

CREATE TABLE checkin_list_sessions (
  list_id integer NOT NULL REFERENCES checkin_lists(id) ON DELETE CASCADE,
  session_id integer NOT NULL REFERENCES sessions(id),
  PRIMARY KEY (list_id, session_id)
);
CREATE INDEX checkin_list_sessions_session_idx ON checkin_list_sessions (session_id);

-- No row = every sector of the list's sessions.
CREATE TABLE checkin_list_sectors (
  list_id integer NOT NULL REFERENCES checkin_lists(id) ON DELETE CASCADE,
  sector_id integer NOT NULL REFERENCES sectors(id),
  PRIMARY KEY (list_id, sector_id)
);

-- A phone or scanner at a gate. The token is a credential: only its sha256 is kept.
CREATE TABLE checkin_devices (
  id serial PRIMARY KEY,
  organiser_id integer NOT NULL REFERENCES organisers(id),
  name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 100),
  token_hash text NOT NULL UNIQUE,
  token_last4 text NOT NULL,
  created_at timestamptz NOT NULL,
  last_seen_at timestamptz,
  revoked_at timestamptz
);
CREATE INDEX checkin_devices_organiser_idx ON checkin_devices (organiser_id);

CREATE TABLE checkin_device_lists (
  device_id integer NOT NULL REFERENCES checkin_devices(id) ON DELETE CASCADE,
  list_id integer NOT NULL REFERENCES checkin_lists(id) ON DELETE CASCADE,
  PRIMARY KEY (device_id, list_id)
);

-- ---- Scans
-- Every scan a device made, online or uploaded later: nothing is lost. client_scan_id makes an
-- upload idempotent per device. result is what the scan means now (an offline scan overtaken by an
-- earlier one uploaded later becomes already_used).
CREATE TABLE checkin_scans (
  id bigserial PRIMARY KEY,
  list_id integer NOT NULL REFERENCES checkin_lists(id),
  device_id integer NOT NULL REFERENCES checkin_devices(id),
  ticket_id bigint REFERENCES tickets(id),
  client_scan_id uuid,
  direction text NOT NULL CHECK (direction IN ('entry', 'exit')),
  result text NOT NULL CHECK (result IN ('valid', 'already_used', 'invalid', 'wrong_list', 'refunded', 'not_yet_valid', 'exited')),
  offline boolean NOT NULL,
  scanned_at timestamptz NOT NULL,
  received_at timestamptz NOT NULL,
  UNIQUE (device_id, client_scan_id)
);
CREATE INDEX checkin_scans_list_idx ON checkin_scans (list_id, id);
CREATE INDEX checkin_scans_ticket_idx ON checkin_scans (ticket_id, list_id) WHERE ticket_id IS NOT NULL;

-- The once-only claim: one row per ticket and list, inserted by the first valid entry (INSERT ...
-- ON CONFLICT DO NOTHING), so that of any number of parallel scans exactly one is valid. With
-- re-entry, `inside` flips back and forth by conditional UPDATEs.
CREATE TABLE checkin_entries (
  list_id integer NOT NULL REFERENCES checkin_lists(id),
  ticket_id bigint NOT NULL REFERENCES tickets(id),
  -- Deferred: the claim is written first, the scan row (with the claim's verdict) in the same statement.
  first_scan_id bigint NOT NULL REFERENCES checkin_scans(id) DEFERRABLE INITIALLY DEFERRED,
  first_scanned_at timestamptz NOT NULL,
  first_device_id integer NOT NULL REFERENCES checkin_devices(id),
  inside boolean NOT NULL DEFAULT true,
  entries integer NOT NULL DEFAULT 1,
  change_xid bigint NOT NULL,
  PRIMARY KEY (list_id, ticket_id)
);
CREATE INDEX checkin_entries_change_idx ON checkin_entries (list_id, change_xid);

-- The list download and the counts find a session's tickets through their items.
CREATE INDEX order_items_session_idx ON order_items (session_id);
