-- The change feed (seed 003): one row per change, seq assigned at insert (its own AUTOINCREMENT,
-- distinct from the store seq: a retried change is sequenced when its insert lands).
-- type 'stored': json is the Nostr event. type 'deleted': reason is nip09 | replaced | expired.
-- kind and pubkey are the (deleted) event's, for ?kinds= / ?authors= narrowing.
-- ts: when the change happened, ms; the retention sweep deletes by it.
CREATE TABLE feed_events (
  seq      INTEGER PRIMARY KEY AUTOINCREMENT,
  ts       INTEGER NOT NULL,
  type     TEXT    NOT NULL,
  event_id TEXT    NOT NULL,
  kind     INTEGER NOT NULL,
  pubkey   TEXT    NOT NULL,
  reason   TEXT,
  json     TEXT
);

CREATE INDEX feed_events_ts ON feed_events(ts);
