package dev.cairn.store;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads a migration directory from the classpath: the file names listed in {@code <dir>/migrations.txt}
 * (one a line, {@code #} comments; a classpath directory cannot be listed inside a fat jar), and
 * splits a script into statements. Shared by the SQLite {@link Migrator} and the MySQL migrator so
 * both read the same listing the same way.
 */
public final class MigrationFiles {

  private static final Pattern FILE = Pattern.compile("^(\\d+)_([A-Za-z0-9_\\-]+)\\.sql$");

  private MigrationFiles() {}

  /**
   * The migrations listed in {@code <dir>/migrations.txt}, by ascending version.
   *
   * @throws StoreException when the index or a listed file is missing, a name is malformed or the
   *     versions are not strictly ascending
   */
  public static List<Migration> load(String dir) {
    ClassLoader cl = MigrationFiles.class.getClassLoader();
    String index = read(cl, dir + "/migrations.txt");
    if (index == null) {
      throw new StoreException("missing migration index " + dir + "/migrations.txt");
    }
    List<Migration> out = new ArrayList<>();
    int last = 0;
    for (String raw : index.split("\n")) {
      String line = raw.strip();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      Matcher m = FILE.matcher(line);
      if (!m.matches()) {
        throw new StoreException("bad migration file name in " + dir + "/migrations.txt: " + line);
      }
      int version = Integer.parseInt(m.group(1));
      if (version <= last) {
        throw new StoreException("migrations out of order in " + dir + ": " + line);
      }
      last = version;
      String sql = read(cl, dir + "/" + line);
      if (sql == null) {
        throw new StoreException("missing migration file " + dir + "/" + line);
      }
      out.add(new Migration(version, m.group(2), sql));
    }
    return List.copyOf(out);
  }

  private static String read(ClassLoader cl, String resource) {
    try (InputStream in = cl.getResourceAsStream(resource)) {
      return in == null ? null : new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new StoreException("cannot read " + resource, e);
    }
  }

  /**
   * Splits a script into statements on {@code ;} outside quotes and comments; a {@code CREATE
   * TRIGGER} body ends only at {@code END;}.
   */
  public static List<String> statements(String script) {
    List<String> out = new ArrayList<>();
    StringBuilder cur = new StringBuilder();
    int n = script.length();
    for (int i = 0; i < n; i++) {
      char c = script.charAt(i);
      if (c == '-' && i + 1 < n && script.charAt(i + 1) == '-') {
        while (i < n && script.charAt(i) != '\n') {
          i++;
        }
        cur.append('\n');
        continue;
      }
      if (c == '/' && i + 1 < n && script.charAt(i + 1) == '*') {
        int end = script.indexOf("*/", i + 2);
        i = end < 0 ? n : end + 1;
        cur.append(' ');
        continue;
      }
      if (c == '\'' || c == '"' || c == '`') {
        int j = i + 1;
        while (j < n) {
          if (script.charAt(j) == c) {
            if (j + 1 < n && script.charAt(j + 1) == c) {
              j += 2;
              continue;
            }
            break;
          }
          j++;
        }
        cur.append(script, i, Math.min(j + 1, n));
        i = j;
        continue;
      }
      if (c == ';') {
        String stmt = cur.toString().strip();
        String upper = stmt.toUpperCase(Locale.ROOT);
        boolean trigger = upper.matches("(?s)^CREATE\\s+(TEMP\\s+|TEMPORARY\\s+)?TRIGGER\\b.*");
        if (trigger && !upper.matches("(?s).*\\bEND$")) {
          cur.append(c);
          continue;
        }
        if (!stmt.isEmpty()) {
          out.add(stmt);
        }
        cur.setLength(0);
        continue;
      }
      cur.append(c);
    }
    String tail = cur.toString().strip();
    if (!tail.isEmpty()) {
      out.add(tail);
    }
    return out;
  }
}
