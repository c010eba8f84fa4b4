package dev.cairn.bench.load;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.BufferedWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

/**
 * Builds the query mix for the query scenario from a generated (and preloaded) event file: one JSON
 * per line, {@code {"type":..., "filter":{...}, "ids":[...]?}}. Exactly four shapes, equally often:
 *
 * <ul>
 *   <li>{@code author}: {@code {"authors":[pk],"limit":100}}, pk drawn like a random stored event's author;
 *   <li>{@code kinds+since}: {@code {"kinds":[1],"since":t,"limit":500}}, t in the newest 5–25% of the store;
 *   <li>{@code tag}: {@code {"#t":[tag],"limit":100}}, one of the 20 most used hashtags;
 *   <li>{@code ids}: {@code {"ids":[20 ids]}} of stored regular events: every one must come back.
 * </ul>
 *
 * {@code --mix clients} builds what a client app's screens ask instead, five shapes equally often, whose
 * plans are not the four above's (several values of one field, merged newest first):
 *
 * <ul>
 *   <li>{@code timeline}: {@code {"authors":[300 pks],"kinds":[1,6],"limit":100}}, a home feed;
 *   <li>{@code reactions}: {@code {"kinds":[7],"#e":[50 ids]}} of stored notes, a screen of notes' likes;
 *   <li>{@code mentions}: {@code {"#p":[3 pks],"limit":100}}, notifications of a few accounts;
 *   <li>{@code hashtags}: {@code {"kinds":[1],"#t":[2 of the 20 most used],"limit":50}};
 *   <li>{@code global}: {@code {"kinds":[1,6,7],"limit":100}}.
 * </ul>
 *
 * Only the first --max-events lines are used (what the preload stored).
 *
 * <pre>QueryPlan --file preload.jsonl --out queries.jsonl [--max-events N] [--per-type 100] [--seed 1] [--mix clients]</pre>
 */
public final class QueryPlan {
  public static final List<String> TYPES = List.of("author", "kinds+since", "tag", "ids");
  public static final List<String> CLIENT_TYPES = List.of("timeline", "reactions", "mentions", "hashtags", "global");

  public static void main(String[] argv) throws Exception {
    Args a = new Args(argv);
    Path file = Path.of(a.required("file"));
    Path out = Path.of(a.required("out"));
    int perType = a.integer("per-type", 100);
    long max = a.lng("max-events", Long.MAX_VALUE);
    Random rnd = new Random(a.lng("seed", 1));
    boolean clients = "clients".equals(a.str("mix", "benchmark"));
    JsonObject meta = new JsonObject(Files.readString(Path.of(file + ".meta.json")));
    JsonArray hashtags = meta.getJsonArray("hashtags");

    List<String> authors = new ArrayList<>(); // one entry per event: drawing from it follows author activity
    List<String> ids = new ArrayList<>(); // reservoir of regular-event ids
    List<String> notes = new ArrayList<>(); // the same of kind-1 notes: targets of reactions
    long minT = Long.MAX_VALUE;
    long maxT = Long.MIN_VALUE;
    int seen = 0;
    int seenNotes = 0;
    int want = perType * 20;
    long read = 0;
    try (EventFile f = new EventFile(file)) {
      List<EventLine> batch;
      while (read < max && !(batch = f.next((int) Math.min(50_000, max - read))).isEmpty()) {
        read += batch.size();
        for (EventLine e : batch) {
          authors.add(e.pubkey());
          minT = Math.min(minT, e.createdAt());
          maxT = Math.max(maxT, e.createdAt());
          if (e.address() != null) continue; // replaceable versions may be gone
          sampleInto(ids, e.id(), ++seen, want, rnd);
          if (clients && e.kind() == 1) sampleInto(notes, e.id(), ++seenNotes, want, rnd);
        }
      }
    }
    if (ids.size() < 20) throw new IllegalArgumentException("fewer than 20 regular events in " + file);
    List<JsonObject> qs = new ArrayList<>();
    List<String> distinctAuthors = new ArrayList<>(new java.util.LinkedHashSet<>(authors));
    for (int i = 0; clients && i < perType; i++) {
      qs.add(q("timeline", new JsonObject().put("authors", sample(distinctAuthors, 300, rnd))
          .put("kinds", new JsonArray().add(1).add(6)).put("limit", 100)));
      qs.add(q("reactions", new JsonObject().put("kinds", new JsonArray().add(7)).put("#e", sample(notes, 50, rnd))));
      qs.add(q("mentions", new JsonObject().put("#p", sample(distinctAuthors, 3, rnd)).put("limit", 100)));
      qs.add(q("hashtags", new JsonObject().put("kinds", new JsonArray().add(1))
          .put("#t", sample(hashtags.getList().subList(0, Math.min(hashtags.size(), 20)), 2, rnd)).put("limit", 50)));
      qs.add(q("global", new JsonObject().put("kinds", new JsonArray().add(1).add(6).add(7)).put("limit", 100)));
    }
    for (int i = 0; !clients && i < perType; i++) {
      qs.add(q("author", new JsonObject()
          .put("authors", new JsonArray().add(authors.get(rnd.nextInt(authors.size())))).put("limit", 100)));
      long since = maxT - (long) ((maxT - minT) * (0.05 + 0.2 * rnd.nextDouble()));
      qs.add(q("kinds+since", new JsonObject()
          .put("kinds", new JsonArray().add(1)).put("since", since).put("limit", 500)));
      qs.add(q("tag", new JsonObject()
          .put("#t", new JsonArray().add(hashtags.getString(rnd.nextInt(Math.min(hashtags.size(), 20)))))
          .put("limit", 100)));
      JsonArray some = new JsonArray();
      for (int k = 0; k < 20; k++) some.add(ids.get((i * 20 + k) % ids.size()));
      qs.add(q("ids", new JsonObject().put("ids", some)).put("expect_ids", some));
    }
    Collections.shuffle(qs, rnd);
    try (BufferedWriter w = Files.newBufferedWriter(out, StandardCharsets.UTF_8)) {
      for (JsonObject q : qs) {
        w.write(q.encode());
        w.write('\n');
      }
    }
    System.err.println("wrote " + qs.size() + " queries (" + perType + " of each of " + (clients ? CLIENT_TYPES : TYPES)
        + ") over the first "
        + read + " events to " + out);
  }

  /** Reservoir sampling: {@code sample} holds {@code want} of the {@code seen} items so far, this one included. */
  private static void sampleInto(List<String> sample, String item, int seen, int want, Random rnd) {
    if (sample.size() < want) {
      sample.add(item);
    } else {
      int j = rnd.nextInt(seen);
      if (j < want) sample.set(j, item);
    }
  }

  /** {@code n} distinct entries of {@code from}, at random (all of them when there are fewer). */
  private static JsonArray sample(List<?> from, int n, Random rnd) {
    List<Object> copy = new ArrayList<>(from);
    Collections.shuffle(copy, rnd);
    return new JsonArray(new ArrayList<>(copy.subList(0, Math.min(n, copy.size()))));
  }

  private static JsonObject q(String type, JsonObject filter) {
    // "name" and "expect" keep the file readable by the Gatling QuerySimulation too
    JsonObject q = new JsonObject().put("type", type).put("name", type).put("filter", filter);
    if (filter.containsKey("ids")) q.put("expect", filter.getJsonArray("ids").size());
    return q;
  }
}
