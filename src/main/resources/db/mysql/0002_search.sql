-- NIP-50 on MySQL/MariaDB: the searchable text of each stored event (what SQLite's search_fts indexes:
-- the event's content), under an InnoDB FULLTEXT index. Written by the writer in the write transaction
-- (dev.cairn.store.mysql.MysqlPlanWriter): a row with its event, deleted with it, so several pods
-- writing one tenant keep it exact with no cursor to share, and a REQ sees its own writes.
--
-- body is not the raw content but its tokens as dev.cairn.store.mysql.MysqlSearchText writes them:
-- lower-cased runs of letters and digits (SQLite's unicode61 tokens), each prefixed with "zz". The
-- prefix lifts every token over innodb_ft_min_token_size (3) and out of InnoDB's stopword list
-- (server settings a relay cannot change per table), so "a", "of" and "the" are searchable as on
-- SQLite. utf8mb4_unicode_ci folds case and diacritics (SQLite: remove_diacritics 2).
-- Events without content get no row. The FULLTEXT index cannot lead with tenant_id: in a shared pool
-- MATCH finds every tenant's documents with the words, then tenant_id filters.
CREATE TABLE search_docs (
  tenant_id VARCHAR(63) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  seq       BIGINT NOT NULL,
  body      MEDIUMTEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci NOT NULL,
  PRIMARY KEY (tenant_id, seq),
  FULLTEXT KEY search_docs_body (body)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- Events stored before this migration. The same tokens in SQL (\p{L}\p{N}: PCRE on MariaDB, ICU on
-- MySQL 8); the case of a token does not matter under the collation. One statement: on a large
-- database run it in a quiet hour (the migration lock holds other pods' start until it is done).
INSERT INTO search_docs(tenant_id, seq, body)
SELECT tenant_id, seq, CONCAT('zz', REGEXP_REPLACE(
    JSON_UNQUOTE(JSON_EXTRACT(CONVERT(json USING utf8mb4), '$.content')), '[^\\p{L}\\p{N}]+', ' zz'))
FROM events
WHERE JSON_UNQUOTE(JSON_EXTRACT(CONVERT(json USING utf8mb4), '$.content')) REGEXP '[\\p{L}\\p{N}]';
