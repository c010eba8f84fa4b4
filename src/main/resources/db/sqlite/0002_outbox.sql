-- Transactional outbox (seed 000). Rows are written by SqliteTenantStore in the same transaction as the
-- change that caused them, through OutboxWriter.enqueue only.
-- status: pending | processing | done | dead_lettered. Times are epoch milliseconds.
-- event_id: UUID, unique when set (the only insert path always sets it; a NULL id means no dedup).
CREATE TABLE event_queue (
  id           INTEGER PRIMARY KEY AUTOINCREMENT,
  event_id     TEXT,
  type         TEXT    NOT NULL,
  body         TEXT    NOT NULL,
  status       TEXT    NOT NULL DEFAULT 'pending',
  attempts     INTEGER NOT NULL DEFAULT 0,
  available_at INTEGER NOT NULL,
  claimed_at   INTEGER,
  created_at   INTEGER NOT NULL,
  last_error   TEXT
);
CREATE UNIQUE INDEX event_queue_event_id ON event_queue(event_id) WHERE event_id IS NOT NULL;
-- Due rows (pending by available_at) and stale claims (processing by claimed_at).
CREATE INDEX event_queue_due ON event_queue(status, available_at) WHERE status IN ('pending', 'processing');
CREATE INDEX event_queue_claimed ON event_queue(status, claimed_at) WHERE status = 'processing';

-- Processed-event ledger: one row per (event_id, handler). started_at (ms) is the claim's owner token.
-- status: in_progress | done. Rows are kept 30 days (pruned lazily).
CREATE TABLE processed_events (
  event_id     TEXT    NOT NULL,
  handler      TEXT    NOT NULL,
  status       TEXT    NOT NULL,
  started_at   INTEGER NOT NULL,
  processed_at INTEGER,
  PRIMARY KEY (event_id, handler)
) WITHOUT ROWID;
CREATE INDEX processed_events_started ON processed_events(started_at);

-- NIP-50 full-text index, maintained by the outbox "search" handler; rowid = events.seq.
CREATE VIRTUAL TABLE search_fts USING fts5(content, tokenize = 'unicode61 remove_diacritics 2');
