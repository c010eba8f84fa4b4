-- An author's index entries carry kind and expiration (docs/decisions/0014-merged-reads.md): a
-- filter with several authors (a client's home feed: hundreds of follows, kinds 1 and 6) merges their
-- runs in SQLite's sorter, and with these columns in the index it picks the newest seqs without
-- visiting one events row; only the rows that survive are read. The same number of entries per stored
-- event as before, each a few bytes longer.
DROP INDEX IF EXISTS events_pubkey;
CREATE INDEX events_pubkey ON events(pubkey, created_at DESC, kind, expiration);
