-- A tenant's NIP-50 index (<tenant>.search.db), kept by the search indexer (dev.cairn.store.outbox.SearchIndex)
-- from the tenant DB's outbox rows, in its own file so that full-text work never holds the tenant's
-- writer. rowid = the event's store seq; contentless (queries join the tenant's events).
CREATE VIRTUAL TABLE search_fts USING fts5(content, content = '', contentless_delete = 1,
  tokenize = 'unicode61 remove_diacritics 2');

-- queue_cursor: the highest event_queue id applied (its ledger: the cursor commits with the index
-- changes, so each row is applied once); build_seq: while the index is first built from the stored
-- events, the highest seq indexed (-1 once built).
CREATE TABLE search_state (
  k TEXT PRIMARY KEY,
  v INTEGER NOT NULL
);
