-- The index is given each content's words as dev.cairn.nostr.SearchWords cuts them (the words a search
-- asks for), no longer the content itself: unicode61's Unicode 6.1 tables take a newer character (the
-- emoji U+1FAA8 glued to "rock") for part of the word, so that word could be found neither as "rock"
-- nor with the emoji. An index built from raw content is dropped and built again from the stored events
-- (search_state emptied = a new index), as in 0002.
DROP TABLE search_fts;
CREATE VIRTUAL TABLE search_fts USING fts5(content, content = '', contentless_delete = 1, detail = none,
  tokenize = 'unicode61 remove_diacritics 2');
DELETE FROM search_state;
