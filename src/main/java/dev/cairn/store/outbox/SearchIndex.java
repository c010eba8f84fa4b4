package dev.cairn.store.outbox;

import dev.cairn.store.Sql;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * NIP-50 full-text index ({@code search_fts}, rowid = store seq), kept by the outbox {@code search}
 * handler with keyed upserts and removes, so re-running it is harmless. Queries join it with
 * {@code events}, so a deleted event never shows even before its EventDeleted is handled.
 */
public final class SearchIndex {
  private SearchIndex() {}

  /** EventStored: (re)indexes the stored row's content; nothing when the row is gone already. */
  public static void upsert(Sql sql, long seq) throws SQLException {
    remove(sql, seq);
    {
      PreparedStatement ps = sql.prepare("INSERT INTO search_fts(rowid, content)"
        + " SELECT seq, json_extract(CAST(json AS TEXT), '$.content') FROM events WHERE seq = ?"
        + " AND coalesce(json_extract(CAST(json AS TEXT), '$.content'), '') <> ''");
      ps.setLong(1, seq);
      ps.executeUpdate();
    }
  }

  /** EventDeleted: drops the row's entry. */
  public static void remove(Sql sql, long seq) throws SQLException {
    {
      PreparedStatement ps = sql.prepare("DELETE FROM search_fts WHERE rowid = ?");
      ps.setLong(1, seq);
      ps.executeUpdate();
    }
  }

  /**
   * The FTS5 MATCH expression for a NIP-50 search string: every word quoted (all must match), so user
   * input never reaches the FTS query syntax; {@code key:value} extensions are ignored. Null when the
   * string has no word (the filter then matches nothing).
   */
  public static String matchExpression(String search) {
    List<String> terms = new ArrayList<>();
    for (String token : search.split("\\s+")) {
      if (token.isEmpty() || token.contains(":")) {
        continue;
      }
      StringBuilder word = new StringBuilder();
      token.codePoints().filter(Character::isLetterOrDigit).forEach(word::appendCodePoint);
      if (word.length() > 0) {
        terms.add('"' + word.toString().toLowerCase(Locale.ROOT) + '"');
      }
    }
    return terms.isEmpty() ? null : String.join(" ", terms);
  }
}
