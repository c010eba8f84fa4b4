-- One random index entry less per stored event (docs/decisions/0003-write-path.md): authors + kinds
-- filters walk events_pubkey (an author's events in time order) and skip other kinds; when every
-- kind asked for is replaceable or addressable they use events_address (pubkey, kind, d).
DROP INDEX IF EXISTS events_pubkey_kind;
