package dev.cairn.bench.load;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/** Reads generated event files (one event JSON per line) and splits them between connections. */
public final class EventFile implements AutoCloseable {
  private final BufferedReader reader;
  private long lineNo;

  public EventFile(Path path) throws IOException {
    this.reader = Files.newBufferedReader(path, StandardCharsets.UTF_8);
  }

  /** Up to {@code max} further events; empty at the end of the file. */
  public List<EventLine> next(int max) throws IOException {
    List<EventLine> out = new ArrayList<>(Math.min(max, 1 << 16));
    String line;
    while (out.size() < max && (line = reader.readLine()) != null) {
      lineNo++;
      if (line.isBlank()) continue;
      out.add(parse(line, lineNo));
    }
    return out;
  }

  public static List<EventLine> readAll(Path path, int max) throws IOException {
    try (EventFile f = new EventFile(path)) {
      return f.next(max);
    }
  }

  @Override
  public void close() throws IOException {
    reader.close();
  }

  static EventLine parse(String line, long lineNo) {
    String id = stringField(line, "id");
    String pubkey = stringField(line, "pubkey");
    Long kind = numberField(line, "kind");
    Long createdAt = numberField(line, "created_at");
    if (id == null || pubkey == null || kind == null || createdAt == null) {
      // not in the generator's layout: use a real JSON parser
      JsonObject e = new JsonObject(line);
      id = e.getString("id");
      pubkey = e.getString("pubkey");
      kind = e.getLong("kind");
      createdAt = e.getLong("created_at");
      if (id == null || pubkey == null || kind == null || createdAt == null) {
        throw new IllegalArgumentException("line " + lineNo + " is not a Nostr event");
      }
    }
    int k = kind.intValue();
    String address = null;
    if (EventLine.replaceable(k)) {
      address = k + ":" + pubkey + ":";
    } else if (EventLine.addressable(k)) {
      String d = "";
      for (Object t : new JsonObject(line).getJsonArray("tags")) {
        JsonArray tag = (JsonArray) t;
        if (tag.size() >= 2 && "d".equals(tag.getString(0))) {
          d = tag.getString(1);
          break;
        }
      }
      address = k + ":" + pubkey + ":" + d;
    }
    return new EventLine(line, id, pubkey, k, createdAt, address);
  }

  /** Value of a top-level string key (the unescaped sequence "key":" only occurs as a key). */
  static String stringField(String line, String key) {
    String needle = "\"" + key + "\":\"";
    int i = line.indexOf(needle);
    if (i < 0) return null;
    int start = i + needle.length();
    int end = line.indexOf('"', start);
    return end < 0 ? null : line.substring(start, end);
  }

  static Long numberField(String line, String key) {
    String needle = "\"" + key + "\":";
    int i = line.indexOf(needle);
    if (i < 0) return null;
    int j = i + needle.length();
    int start = j;
    while (j < line.length() && Character.isDigit(line.charAt(j))) j++;
    return j == start ? null : Long.parseLong(line.substring(start, j));
  }

  /** Slice {@code k} of {@code n} equal consecutive slices of {@code events}. */
  public static List<EventLine> slice(List<EventLine> events, int k, int n) {
    int from = (int) ((long) events.size() * k / n);
    int to = (int) ((long) events.size() * (k + 1) / n);
    return events.subList(from, to);
  }

  /**
   * Splits events between {@code c} connections, keeping file order inside each: events with an
   * address (replaceable/addressable) go to the connection of their author, so successive versions
   * travel in order on one connection; the others are dealt round robin.
   */
  public static List<ArrayDeque<EventLine>> partition(List<EventLine> events, int c) {
    List<ArrayDeque<EventLine>> queues = new ArrayList<>(c);
    for (int i = 0; i < c; i++) queues.add(new ArrayDeque<>());
    int rr = 0;
    for (EventLine e : events) {
      int q;
      if (e.address() != null) {
        q = Math.floorMod(e.pubkey().hashCode(), c);
      } else {
        q = rr++ % c;
      }
      queues.get(q).add(e);
    }
    return queues;
  }
}
