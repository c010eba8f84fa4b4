-- Leaner rows for the write path (docs/benchmarks.md, docs/decisions/0003-write-path.md).
--
-- events: id and pubkey as 32 raw bytes, json as a BLOB holding the event's UTF-8 JSON, seq assigned
-- by the writer (still AUTOINCREMENT: never reused). Smaller index entries, no text re-encoding.
CREATE TABLE events_v4 (
  seq        INTEGER PRIMARY KEY AUTOINCREMENT,
  id         BLOB    NOT NULL UNIQUE,
  pubkey     BLOB    NOT NULL,
  created_at INTEGER NOT NULL,
  kind       INTEGER NOT NULL,
  d_tag      TEXT,
  expiration INTEGER,
  json       BLOB    NOT NULL
);
INSERT INTO events_v4(seq, id, pubkey, created_at, kind, d_tag, expiration, json)
  SELECT seq, unhex(id), unhex(pubkey), created_at, kind, d_tag, expiration, CAST(json AS BLOB) FROM events ORDER BY seq;
INSERT OR REPLACE INTO sqlite_sequence(name, seq)
  SELECT 'events_v4', seq FROM sqlite_sequence WHERE name = 'events';

-- tags -> tag_index: one entry per single-letter tag, keyed by a 63-bit hash of (name, value), in
-- time order per key. tag_key() is dev.cairn.store.TagKey, registered on the writer connection.
CREATE TABLE tag_index (
  k          INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  seq        INTEGER NOT NULL,
  PRIMARY KEY (k, created_at, seq)
) WITHOUT ROWID;
INSERT OR IGNORE INTO tag_index(k, created_at, seq) SELECT tag_key(name, value), created_at, seq FROM tags;
DROP TABLE tags;

DROP TABLE events;
ALTER TABLE events_v4 RENAME TO events;
CREATE INDEX events_created ON events(created_at DESC);
CREATE INDEX events_pubkey ON events(pubkey, created_at DESC);
CREATE INDEX events_kind ON events(kind, created_at DESC);
CREATE INDEX events_pubkey_kind ON events(pubkey, kind, created_at DESC);
CREATE INDEX events_address ON events(pubkey, kind, d_tag) WHERE d_tag IS NOT NULL;
CREATE INDEX events_expiration ON events(expiration) WHERE expiration IS NOT NULL;

-- Outbox: an EventStored row names its event (stored_seq) with an empty body; the payload is joined
-- from events when the row is read, or kept in payload when the event left the store first.
ALTER TABLE event_queue ADD COLUMN stored_seq INTEGER;
ALTER TABLE event_queue ADD COLUMN payload BLOB;
CREATE INDEX event_queue_stored ON event_queue(stored_seq) WHERE stored_seq IS NOT NULL;

-- Change feed: a stored row names its event (store_seq) instead of copying its JSON; when the event
-- leaves the store within the feed's retention, its JSON is copied into the row (json).
ALTER TABLE feed_events ADD COLUMN store_seq INTEGER;
CREATE INDEX feed_events_store_seq ON feed_events(store_seq) WHERE store_seq IS NOT NULL;

-- NIP-50 index without a second copy of every content (contentless; rows can still be deleted).
-- Rebuilt from the stored events: the search handler's upserts are idempotent.
DROP TABLE search_fts;
CREATE VIRTUAL TABLE search_fts USING fts5(content, content = '', contentless_delete = 1,
  tokenize = 'unicode61 remove_diacritics 2');
INSERT INTO search_fts(rowid, content)
  SELECT seq, json_extract(CAST(json AS TEXT), '$.content') FROM events
  WHERE coalesce(json_extract(CAST(json AS TEXT), '$.content'), '') <> '';

-- The engine's local handlers (search) record here, in the claim's transaction, that they are done
-- with a row: their ledger is the row itself.
ALTER TABLE event_queue ADD COLUMN local_done INTEGER NOT NULL DEFAULT 0;
