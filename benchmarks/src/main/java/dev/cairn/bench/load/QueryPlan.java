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
 * per line, {@code {"name":..., "filter":{...}, "expect":n?}}. Types: by author, by kind+since, by #t
 * tag (each with limit 100 and 500) and by ids (20 ids of regular events, all expected back).
 *
 * <pre>QueryPlan --file preload.jsonl --out queries.jsonl [--per-type 50] [--seed 1]</pre>
 */
public final class QueryPlan {
  public static void main(String[] argv) throws Exception {
    Args a = new Args(argv);
    Path file = Path.of(a.required("file"));
    Path out = Path.of(a.required("out"));
    int perType = a.integer("per-type", 50);
    Random rnd = new Random(a.lng("seed", 1));
    JsonObject meta = new JsonObject(Files.readString(Path.of(file + ".meta.json")));
    JsonArray pubkeys = meta.getJsonArray("pubkeys");
    JsonArray hashtags = meta.getJsonArray("hashtags");
    long minT = meta.getLong("min_created_at");
    long maxT = meta.getLong("max_created_at");

    // reservoir of regular-event ids for the ids queries
    List<String> ids = new ArrayList<>();
    int seen = 0;
    int want = perType * 20;
    try (EventFile f = new EventFile(file)) {
      List<EventLine> batch;
      while (!(batch = f.next(50_000)).isEmpty()) {
        for (EventLine e : batch) {
          if (e.address() != null) continue;
          seen++;
          if (ids.size() < want) ids.add(e.id());
          else {
            int j = rnd.nextInt(seen);
            if (j < want) ids.set(j, e.id());
          }
        }
      }
    }
    List<JsonObject> qs = new ArrayList<>();
    for (int i = 0; i < perType; i++) {
      for (int limit : new int[] {100, 500}) {
        qs.add(q("by-author limit=" + limit, new JsonObject()
            .put("authors", new JsonArray().add(pubkeys.getString(rnd.nextInt(Math.min(pubkeys.size(), 200)))))
            .put("limit", limit)));
        long since = maxT - (long) ((maxT - minT) * (0.05 + 0.2 * rnd.nextDouble()));
        qs.add(q("kind+since limit=" + limit, new JsonObject()
            .put("kinds", new JsonArray().add(1)).put("since", since).put("limit", limit)));
        qs.add(q("by-tag limit=" + limit, new JsonObject()
            .put("#t", new JsonArray().add(hashtags.getString(rnd.nextInt(Math.min(hashtags.size(), 20)))))
            .put("limit", limit)));
      }
      if (ids.size() >= 20) {
        JsonArray some = new JsonArray();
        for (int k = 0; k < 20; k++) some.add(ids.get((i * 20 + k) % ids.size()));
        qs.add(q("by-ids n=20", new JsonObject().put("ids", some)).put("expect", 20));
      }
    }
    Collections.shuffle(qs, rnd);
    try (BufferedWriter w = Files.newBufferedWriter(out, StandardCharsets.UTF_8)) {
      for (JsonObject q : qs) {
        w.write(q.encode());
        w.write('\n');
      }
    }
    System.err.println("wrote " + qs.size() + " queries to " + out);
  }

  private static JsonObject q(String name, JsonObject filter) {
    return new JsonObject().put("name", name).put("filter", filter);
  }
}
