package dev.cairn.store.mysql;

import dev.cairn.nostr.SearchWords;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * NIP-50 text on MySQL/MariaDB: what the writer puts in {@code search_docs.body} (db/mysql/0002_search.sql)
 * and the {@code MATCH ... AGAINST (... IN BOOLEAN MODE)} string a search filter asks with. Both sides
 * make the words of {@link SearchWords}, as SQLite's search index does; every query word must match.
 *
 * <p>Every token is written and asked for with {@link #PREFIX}: InnoDB ignores tokens shorter than
 * {@code innodb_ft_min_token_size} (default 3) and words of its stopword list ("the", "about", ...),
 * both server-wide settings. With the prefix no token is short or a stopword, so "a" or "the" match
 * as on SQLite with any server configuration.
 */
public final class MysqlSearchText {
  /** Two letters: lifts a one-letter word to the default minimum token size of 3. */
  static final String PREFIX = "zz";
  /**
   * innodb_ft_max_token_size's default (84 characters) less the prefix: a longer word is not indexed,
   * so a query with one matches nothing (InnoDB would silently drop the word and match more).
   */
  static final int MAX_WORD = 84 - PREFIX.length();

  private MysqlSearchText() {}

  /** The indexed text of an event's content, or null when it has no token (no search_docs row). */
  public static String body(String content) {
    if (content == null || content.isEmpty()) {
      return null;
    }
    StringBuilder out = new StringBuilder(content.length() + 16);
    for (String word : SearchWords.ofText(content)) {
      out.append(out.length() == 0 ? "" : " ").append(PREFIX).append(word.toLowerCase(Locale.ROOT));
    }
    return out.length() == 0 ? null : out.toString();
  }

  /**
   * The boolean-mode AGAINST string for a NIP-50 search: {@code +zzword} per word (only letters and
   * digits remain, so no operator of the user's reaches MySQL); {@code key:value} extensions are
   * ignored ({@link SearchWords#ofSearch}). Null when there is no word, or a word is
   * longer than InnoDB indexes (the filter then matches nothing).
   */
  public static String against(String search) {
    List<String> terms = new ArrayList<>();
    for (String word : SearchWords.ofSearch(search)) {
      if (word.codePointCount(0, word.length()) > MAX_WORD) {
        return null;
      }
      terms.add("+" + PREFIX + word.toLowerCase(Locale.ROOT));
    }
    return terms.isEmpty() ? null : String.join(" ", terms);
  }
}
