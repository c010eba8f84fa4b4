-- The tenant schema for MySQL 8, MariaDB 10.6+ and TiDB: the final layout of db/sqlite/0001-0005 (no
-- history to replay). Why it looks like this: docs/decisions/0005-mysql-schema.md and, for the row
-- layout itself, docs/decisions/0003-write-path.md.
--
-- Every table leads with tenant_id (the ids TenantConfig accepts: [a-z0-9][a-z0-9_-]{0,62}) so the
-- same schema serves a dedicated database (one tenant_id) and a shared pool (many): every key and
-- index is per tenant, and moving a tenant between placements is an INSERT ... SELECT.
-- Times are epoch seconds (events) or milliseconds (outbox, feed), as in SQLite. Ids and pubkeys are
-- the 32 raw bytes. Binary collations: tags, d-tags and JSON compare byte for byte, like SQLite.

-- Sequence counters, one row per tenant. seq, feed seq and the outbox id are taken from here in the
-- write transaction (UPDATE ... SET event_seq = event_seq + n), not from AUTO_INCREMENT: the row lock
-- serializes a tenant's writers across pods, so numbers are handed out in commit order and "every seq
-- below a seen seq is committed" holds (AUTO_INCREMENT numbers are taken at insert and can commit out
-- of order; under TiDB they are not even monotonic across TiDB servers). Each value is the last one
-- handed out (0 = none yet); never decreased, so numbers are never reused.
CREATE TABLE tenant_counters (
  tenant_id VARCHAR(63) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  event_seq BIGINT NOT NULL DEFAULT 0,
  feed_seq  BIGINT NOT NULL DEFAULT 0,
  queue_id  BIGINT NOT NULL DEFAULT 0,
  PRIMARY KEY (tenant_id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- Stored events. Clustered by (tenant_id, seq): a tenant's rows sit together, appended in seq order
-- (on TiDB a composite primary key is clustered only if tidb_enable_clustered_index allows it).
-- d_tag: NULL for regular kinds, '' for replaceable kinds, the d-tag for addressable kinds; unbounded
-- bytes, so its index takes a 255-byte prefix (equality lookups still work: InnoDB re-checks the row).
-- json: the event's UTF-8 JSON as stored bytes (MEDIUMBLOB: up to 16 MiB, above any sane max_event_bytes).
CREATE TABLE events (
  tenant_id  VARCHAR(63) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  seq        BIGINT     NOT NULL,
  id         BINARY(32) NOT NULL,
  pubkey     BINARY(32) NOT NULL,
  created_at BIGINT     NOT NULL,
  kind       INT        NOT NULL,
  d_tag      BLOB       NULL,
  expiration BIGINT     NULL,
  json       MEDIUMBLOB NOT NULL,
  PRIMARY KEY (tenant_id, seq),
  UNIQUE KEY events_id (tenant_id, id),
  -- Ascending indexes, walked backwards for ORDER BY created_at DESC (InnoDB scans either way; TiDB
  -- ignores DESC in index definitions anyway).
  KEY events_created (tenant_id, created_at),
  KEY events_pubkey (tenant_id, pubkey, created_at),
  KEY events_kind (tenant_id, kind, created_at),
  -- SQLite's partial "WHERE d_tag IS NOT NULL": no partial indexes here, so regular events get an
  -- entry with a NULL d_tag; lookups always name d_tag, so those entries are never visited.
  KEY events_address (tenant_id, pubkey, kind, d_tag(255)),
  -- SQLite's partial "WHERE expiration IS NOT NULL": the NIP-40 purge asks "expiration <= ?", a range
  -- that starts after the NULL entries (NULL sorts first), so it reads only expiring events.
  KEY events_expiration (tenant_id, expiration)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- Single-letter tags: k is the 63-bit hash of (name, value) (dev.cairn.store.TagKey), in time order per
-- key. No foreign key to events (none in SQLite's tag_index either): the writer deletes both together.
CREATE TABLE tag_index (
  tenant_id  VARCHAR(63) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  k          BIGINT NOT NULL,
  created_at BIGINT NOT NULL,
  seq        BIGINT NOT NULL,
  PRIMARY KEY (tenant_id, k, created_at, seq)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- NIP-09 tombstones. target: an event id (64 hex) or an address "kind:pubkey:d" (unbounded: the d part),
-- so the key is target_key = SHA-256 of target's UTF-8 bytes (written by the store, or in SQL as
-- UNHEX(SHA2(target, 256))) and target itself is kept for reading. pubkey is the deleter (raw bytes).
-- For an address, created_at is the newest deletion's created_at.
CREATE TABLE deletions (
  tenant_id   VARCHAR(63) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  target_key  BINARY(32) NOT NULL,
  pubkey      BINARY(32) NOT NULL,
  target      BLOB       NOT NULL,
  created_at  BIGINT     NOT NULL,
  deletion_id BINARY(32) NOT NULL,
  PRIMARY KEY (tenant_id, target_key, pubkey)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- Transactional outbox (seed 000), written in the same transaction as the change. id comes from
-- tenant_counters.queue_id (commit order: the search indexer keeps a cursor on it).
-- status: pending | processing | done | dead_lettered. Times in ms. stored_seq names the event of an
-- EventStored row (body empty; the payload is joined from events or removed_events).
CREATE TABLE event_queue (
  tenant_id    VARCHAR(63) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  id           BIGINT       NOT NULL,
  event_id     CHAR(36) CHARACTER SET ascii COLLATE ascii_bin NULL,
  type         VARCHAR(64)  NOT NULL,
  body         MEDIUMBLOB   NOT NULL,
  status       VARCHAR(16) CHARACTER SET ascii COLLATE ascii_bin NOT NULL DEFAULT 'pending',
  attempts     INT          NOT NULL DEFAULT 0,
  available_at BIGINT       NOT NULL,
  claimed_at   BIGINT       NULL,
  created_at   BIGINT       NOT NULL,
  last_error   TEXT         NULL,
  stored_seq   BIGINT       NULL,
  PRIMARY KEY (tenant_id, id),
  -- A UNIQUE index allows any number of NULLs, which is what SQLite's "WHERE event_id IS NOT NULL" was for.
  UNIQUE KEY event_queue_event_id (tenant_id, event_id),
  -- Replaces SQLite's partial claim index (available_at, id) WHERE status = 'pending': status leads, so
  -- "status = 'pending' AND available_at <= ? ORDER BY available_at, id LIMIT n" is one range in
  -- claim order (id is the clustered key, so it is in every entry). Done rows sit in their own
  -- status range and are never visited; the price is that a status change moves the entry.
  KEY event_queue_pending (tenant_id, status, available_at),
  -- Stale claims: status = 'processing' AND claimed_at < ?.
  KEY event_queue_claimed (tenant_id, status, claimed_at)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- Processed-event ledger: one row per (event_id, handler). started_at (ms) is the claim's owner token.
-- status: in_progress | done. Pruned lazily after 30 days.
CREATE TABLE processed_events (
  tenant_id    VARCHAR(63) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  event_id     CHAR(36) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  handler      VARCHAR(64) NOT NULL,
  status       VARCHAR(16) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  started_at   BIGINT NOT NULL,
  processed_at BIGINT NULL,
  PRIMARY KEY (tenant_id, event_id, handler),
  KEY processed_events_started (tenant_id, started_at)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- The change feed (seed 003): seq from tenant_counters.feed_seq. type 'stored' names its event
-- (store_seq; json NULL); type 'deleted' carries reason nip09 | replaced | expired. kind and pubkey are
-- the event's, for ?kinds= / ?authors= narrowing. ts: ms, the retention sweep deletes by it.
CREATE TABLE feed_events (
  tenant_id VARCHAR(63) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  seq       BIGINT     NOT NULL,
  ts        BIGINT     NOT NULL,
  type      VARCHAR(16) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  event_id  BINARY(32) NOT NULL,
  kind      INT        NOT NULL,
  pubkey    BINARY(32) NOT NULL,
  reason    VARCHAR(16) CHARACTER SET ascii COLLATE ascii_bin NULL,
  json      MEDIUMBLOB NULL,
  store_seq BIGINT     NULL,
  PRIMARY KEY (tenant_id, seq),
  -- By ts alone, not (tenant_id, ts): the shared pool's retention sweep is pool-wide
  -- ("DELETE ... WHERE ts < ? LIMIT n", seed 003), and a dedicated database has one tenant anyway.
  KEY feed_events_ts (ts)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- The JSON of events that left the store (replaced, deleted, expired), written with the removal.
-- Pruned with the feed's retention, pool-wide like feed_events.
CREATE TABLE removed_events (
  tenant_id  VARCHAR(63) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  seq        BIGINT     NOT NULL,
  removed_at BIGINT     NOT NULL,
  json       MEDIUMBLOB NOT NULL,
  PRIMARY KEY (tenant_id, seq),
  KEY removed_events_at (removed_at)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
