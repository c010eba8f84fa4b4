-- The index keeps which events hold each word, not where (detail = none): a search asks for single words
-- that must all be present (dev.cairn.nostr.SearchWords cuts them where the tokenizer does), never for
-- phrases or proximity; an insert then costs about half the CPU and the index a quarter of the space
-- (decision 0003). The index is derived data: dropped here and built again from the stored events by
-- the indexer (search_state emptied = a new index).
DROP TABLE search_fts;
CREATE VIRTUAL TABLE search_fts USING fts5(content, content = '', contentless_delete = 1, detail = none,
  tokenize = 'unicode61 remove_diacritics 2');
DELETE FROM search_state;
