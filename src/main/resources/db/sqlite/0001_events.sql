-- Stored Nostr events. seq is the store sequence: strictly monotonic, never reused (AUTOINCREMENT).
-- d_tag: NULL for regular kinds, '' for replaceable kinds, the d-tag for addressable kinds.
CREATE TABLE events (
  seq        INTEGER PRIMARY KEY AUTOINCREMENT,
  id         TEXT    NOT NULL UNIQUE,
  pubkey     TEXT    NOT NULL,
  created_at INTEGER NOT NULL,
  kind       INTEGER NOT NULL,
  d_tag      TEXT,
  expiration INTEGER,
  json       TEXT    NOT NULL
);

-- Every index ends with created_at DESC so "ORDER BY created_at DESC, id ASC LIMIT n" walks it in
-- order; ties on created_at are sorted within their group only (SQLite "RIGHT PART OF ORDER BY").
CREATE INDEX events_created ON events(created_at DESC);
CREATE INDEX events_pubkey ON events(pubkey, created_at DESC);
CREATE INDEX events_kind ON events(kind, created_at DESC);
CREATE INDEX events_pubkey_kind ON events(pubkey, kind, created_at DESC);
-- Replaceable/addressable lookups by address.
CREATE INDEX events_address ON events(pubkey, kind, d_tag) WHERE d_tag IS NOT NULL;
-- NIP-40 purge.
CREATE INDEX events_expiration ON events(expiration) WHERE expiration IS NOT NULL;

-- Single-letter tags (tag[0] of length 1, value tag[1]) for #x filters.
-- created_at is copied from the event so a tag lookup can walk in time order.
CREATE TABLE tags (
  seq        INTEGER NOT NULL REFERENCES events(seq) ON DELETE CASCADE,
  name       TEXT    NOT NULL,
  value      TEXT    NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (seq, name, value)
) WITHOUT ROWID;

CREATE INDEX tags_name_value ON tags(name, value, created_at DESC);

-- NIP-09 tombstones. target is an event id (64 hex) or an address "kind:pubkey:d" (contains ':').
-- pubkey is the deleter. For an address, created_at is the newest deletion's created_at:
-- versions with created_at <= it are refused.
CREATE TABLE deletions (
  target      TEXT    NOT NULL,
  pubkey      TEXT    NOT NULL,
  created_at  INTEGER NOT NULL,
  deletion_id TEXT    NOT NULL,
  PRIMARY KEY (target, pubkey)
) WITHOUT ROWID;
