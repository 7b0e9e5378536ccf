-- The Apple pass web service (D70, docs/wallet.md "Passes already in a wallet").
--
-- pass_updated_at: when the ticket last changed in a way its wallet pass shows (refund or void,
-- reissue: status, code, issue_version); null = unchanged since issued_at. The pass's Last-Modified.
-- Set by the trigger below in whole seconds and always at least one second after the value it
-- replaces, so that a device's If-Modified-Since (the Last-Modified it was given, second
-- resolution) is always older than any later change.
ALTER TABLE tickets ADD COLUMN pass_updated_at timestamptz;

-- Current body in src/db/functions/240_tickets_mark_pass_update.sql (defined here because the
-- trigger needs it now; the files are applied after the migrations).
CREATE OR REPLACE FUNCTION tickets_mark_pass_update() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  NEW.pass_updated_at := GREATEST(
    date_trunc('second', clock_timestamp()) + interval '1 second',
    date_trunc('second', COALESCE(OLD.pass_updated_at, OLD.issued_at)) + interval '1 second');
  RETURN NEW;
END;
$$;
CREATE TRIGGER tickets_mark_pass_update BEFORE UPDATE OF status, code, issue_version ON tickets
  FOR EACH ROW
  WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.code IS DISTINCT FROM NEW.code OR OLD.issue_version IS DISTINCT FROM NEW.issue_version)
  EXECUTE FUNCTION tickets_mark_pass_update();

-- A device (deviceLibraryIdentifier) that saved a ticket's pass asks to hear of its updates.
-- push_token: where APNs reaches the device (the same for every pass of the device).
-- pushed_until: the pass_updated_at (or issued_at) the device has been told of; the push job sends
-- a push when the ticket's is newer, then moves it (at registration: the pass's current value).
CREATE TABLE wallet_registrations (
  device_library_id text NOT NULL CHECK (char_length(device_library_id) BETWEEN 1 AND 255),
  pass_type_id text NOT NULL,
  serial_number text NOT NULL,
  ticket_id bigint NOT NULL REFERENCES tickets(id),
  push_token text NOT NULL CHECK (char_length(push_token) BETWEEN 1 AND 255),
  created_at timestamptz NOT NULL,
  pushed_until timestamptz NOT NULL,
  PRIMARY KEY (device_library_id, pass_type_id, serial_number)
);
CREATE INDEX wallet_registrations_ticket_idx ON wallet_registrations (ticket_id);
