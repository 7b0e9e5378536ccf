-- What a catalogue import created, by the document's own keys (issue 29, docs/catalogue-import.md):
-- importing a document with the same import_key again finds its objects here and updates them
-- instead of creating copies. The primary key decides between two parallel imports of one new
-- document: the second waits on the first's row and then updates what the first created.
CREATE TABLE catalogue_import_keys (
  scope text NOT NULL,
  kind text NOT NULL,
  key text NOT NULL,
  object_id integer NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (scope, kind, key)
);
