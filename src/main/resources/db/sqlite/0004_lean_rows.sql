-- Leaner rows for the write path (docs/decisions/0003-write-path.md). Every event is written once, with
-- the index entries queries use; the outbox and the change feed name it instead of copying it.

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

-- The JSON of events that left the store (replaced, deleted, expired), written with the removal: an
-- EventStored outbox row or a stored feed row whose event is gone still has its event to show.
-- Pruned with the feed's retention (the lazy sweep).
CREATE TABLE removed_events (
  seq        INTEGER PRIMARY KEY,
  removed_at INTEGER NOT NULL,
  json       BLOB    NOT NULL
);
CREATE INDEX removed_events_at ON removed_events(removed_at);

-- Outbox: an EventStored row names its event (stored_seq) with an empty body; the payload is joined
-- from events (or removed_events) when the row is read.
ALTER TABLE event_queue ADD COLUMN stored_seq INTEGER;
-- Claims read the pending rows in due order and stop at their limit: an index whose WHERE is exactly
-- the claim's (the planner cannot use event_queue_due's IN list for "status = 'pending'").
DROP INDEX event_queue_due;
CREATE INDEX event_queue_pending ON event_queue(available_at, id) WHERE status = 'pending';

-- Change feed: a stored row names its event (store_seq) instead of copying its JSON.
ALTER TABLE feed_events ADD COLUMN store_seq INTEGER;

-- The NIP-50 index lives in its own file next to the tenant DB (<tenant>.search.db, kept by the
-- search indexer on its own thread): no second copy of every content here, no FTS work on the writer.
DROP TABLE search_fts;
