-- D68: automatic erasure of buyers' personal data, per organiser. A row here means the organiser
-- erases the personal data of each order N days after the end (or, without an end, the start) of
-- the last session it bought; no row means never (the default). The erasure itself is
-- src/modules/audience/personal-data.repo.ts (docs/privacy.md).
CREATE TABLE organiser_privacy (
  organiser_id integer PRIMARY KEY REFERENCES organisers(id) ON DELETE CASCADE,
  erase_after_days integer NOT NULL CHECK (erase_after_days BETWEEN 1 AND 3650),
  updated_at timestamptz NOT NULL
);
-- The erasure sweep looks for orders of such organisers that still have a buyer's address.
CREATE INDEX customers_not_erased_idx ON customers (id) WHERE email NOT LIKE '%@erased.invalid';
