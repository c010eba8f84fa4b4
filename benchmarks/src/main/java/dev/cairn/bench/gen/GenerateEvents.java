package dev.cairn.bench.gen;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ForkJoinPool;
import java.util.stream.IntStream;

/**
 * Pre-generates signed Nostr events, one event JSON object per line (ready to wrap as
 * {@code ["EVENT",<line>]}), so that load generators never sign on the hot path.
 *
 * <pre>
 * GenerateEvents --count N --authors A --seed S --out events.jsonl
 *                [--base-time EPOCH_S] [--spread SECONDS] [--mix 1:60,7:25,0:3,3:3,30023:9]
 *                [--threads T] [--verify-sample K]
 * </pre>
 *
 * <p>Output is byte-identical for the same (count, authors, seed, base-time, spread, mix): secret keys
 * and BIP-340 aux randomness are derived from the seed. {@code created_at} runs from base-time
 * (default: now minus one day) to base-time + spread (default 23 h), non-decreasing in file order;
 * successive versions of one replaceable/addressable address get strictly increasing created_at.
 * A sidecar {@code <out>.meta.json} lists the parameters, the authors' pubkeys and the hashtags.
 */
public final class GenerateEvents {
  static final String[] WORDS = {
    "relay", "note", "event", "signal", "morning", "coffee", "build", "ship", "tests", "green", "the", "a", "of",
    "and", "to", "in", "is", "it", "for", "on", "with", "as", "at", "this", "that", "from", "by", "we", "you",
    "they", "latency", "throughput", "queue", "batch", "commit", "index", "filter", "subscription", "socket",
    "frame", "lightning", "zap", "sats", "keys", "sign", "verify", "hash", "mountain", "river", "forest",
    "stone", "cairn", "trail", "summit", "weather", "rain", "snow", "sunny", "today", "tomorrow", "yesterday",
    "café", "naïve", "résumé", "Zürich", "São", "Paulo", "東京", "日本語", "привет", "мир", "γειά", "σου",
    "🌋", "⚡", "🧡", "🚀", "🤙", "👀", "🏔️", "☕", "🔥", "🎉", "think", "really", "maybe", "never", "always",
    "open", "source", "protocol", "client", "server", "network", "decentralized", "censorship", "resistant",
    "freedom", "speech", "photo", "video", "music", "podcast", "article", "long-form", "markdown", "thread",
    "reply", "repost", "reaction", "follow", "mute", "list", "profile", "badge", "community", "market",
    "\"quoted\"", "path\\to\\file", "tab\tseparated", "crlf\r\nline", "100%", "<tag>", "&amp;", "{json}",
    "[array]", "#hashtag", "@mention", "https://example.com/x?y=1&z=2", "nostr:npub1example", "…", "—",
  };
  static final String[] HASHTAGS = {
    "nostr", "bitcoin", "zap", "photography", "art", "music", "dev", "java", "vertx", "relay", "grownostr",
    "plebchain", "coffee", "hiking", "mountains", "news", "tech", "privacy", "freedom", "lightning", "memes",
    "books", "cooking", "travel", "gaming", "science", "space", "ai", "linux", "opensource", "design",
    "running", "cycling", "football", "chess", "garden", "cats", "dogs", "nature", "sunset", "weekend",
    "monday", "friday", "gm", "gn", "introductions", "asknostr", "foodstr", "artstr", "bench",
  };
  static final String[] REACTIONS = {"🤙", "🧡", "⚡", "🔥", "😂", "👀", "🫂", "💯"};

  record Options(int count, int authors, long seed, Path out, long baseTime, long spread, int[] mixKinds,
      int[] mixWeights, int threads, int verifySample) {}

  /** One event before signing: everything but the signature. Ids are unique within a file. */
  record Draft(long index, int author, long createdAt, int kind, List<List<String>> tags, String content,
      byte[] id) {}

  private final Options o;
  private final SplittableRandom rng;
  private final byte[][] secretKeys;
  private final String[] pubkeys;
  private final double[] authorCdf;
  private final int[] mixCdf;
  private final String[] recentIds = new String[4096];
  private final int[] recentAuthors = new int[4096];
  private int recentCount;
  private final Map<String, Long> lastAddressTime = new HashMap<>();
  private final java.util.Set<Long> seenIds = new java.util.HashSet<>();
  private final Map<Integer, Integer> kindCounts = new LinkedHashMap<>();
  private long minCreated = Long.MAX_VALUE;
  private long maxCreated = Long.MIN_VALUE;

  GenerateEvents(Options o) {
    this.o = o;
    this.rng = new SplittableRandom(o.seed());
    this.secretKeys = new byte[o.authors()][];
    this.pubkeys = new String[o.authors()];
    for (int a = 0; a < o.authors(); a++) {
      secretKeys[a] = BenchSigner.secretKey(o.seed(), a);
      pubkeys[a] = Canon.hex(BenchSigner.xOnlyPubkey(secretKeys[a]));
    }
    // mildly skewed activity: weight 1/(rank+10)
    authorCdf = new double[o.authors()];
    double sum = 0;
    for (int a = 0; a < o.authors(); a++) {
      sum += 1.0 / (a + 10);
      authorCdf[a] = sum;
    }
    for (int a = 0; a < o.authors(); a++) authorCdf[a] /= sum;
    mixCdf = new int[o.mixWeights().length];
    int acc = 0;
    for (int i = 0; i < mixCdf.length; i++) {
      acc += o.mixWeights()[i];
      mixCdf[i] = acc;
    }
  }

  public static void main(String[] args) throws Exception {
    if (!generate(args)) {
      System.exit(1);
    }
  }

  /** Generates as {@link #main} does; false when a sampled event does not verify. */
  public static boolean generate(String[] args) throws Exception {
    Options o = parse(args);
    long t0 = System.nanoTime();
    GenerateEvents g = new GenerateEvents(o);
    g.run();
    int bad = verifySample(o.out(), o.verifySample());
    double secs = (System.nanoTime() - t0) / 1e9;
    System.err.printf("generated %d events (%d authors, seed %d, created_at %d..%d, kinds %s) into %s in %.1f s; "
        + "verified %d sampled events with libsecp256k1: %s%n",
        o.count(), o.authors(), o.seed(), g.minCreated, g.maxCreated, g.kindCounts, o.out(), secs,
        Math.min(o.verifySample(), o.count()), bad == 0 ? "all valid" : bad + " INVALID");
    return bad == 0;
  }

  static Options parse(String[] args) {
    int count = 10_000;
    int authors = 200;
    long seed = 1;
    Path out = null;
    long baseTime = System.currentTimeMillis() / 1000 - 86_400;
    long spread = -1;
    String mix = "1:60,7:25,0:3,3:3,30023:9";
    int threads = Runtime.getRuntime().availableProcessors();
    int verifySample = 200;
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      String v = i + 1 < args.length ? args[i + 1] : null;
      switch (a) {
        case "--count" -> { count = Integer.parseInt(v); i++; }
        case "--authors" -> { authors = Integer.parseInt(v); i++; }
        case "--seed" -> { seed = Long.parseLong(v); i++; }
        case "--out" -> { out = Path.of(v); i++; }
        case "--base-time" -> { baseTime = Long.parseLong(v); i++; }
        case "--spread" -> { spread = Long.parseLong(v); i++; }
        case "--mix" -> { mix = v; i++; }
        case "--threads" -> { threads = Integer.parseInt(v); i++; }
        case "--verify-sample" -> { verifySample = Integer.parseInt(v); i++; }
        default -> throw new IllegalArgumentException("unknown option " + a
            + "\nusage: GenerateEvents --count N --authors A --seed S --out FILE [--base-time EPOCH_S] [--spread S]"
            + " [--mix kind:weight,...] [--threads T] [--verify-sample K]");
      }
    }
    if (out == null) throw new IllegalArgumentException("--out is required");
    if (count < 1 || authors < 1) throw new IllegalArgumentException("--count and --authors must be >= 1");
    if (spread < 0) spread = 23 * 3600;
    String[] parts = mix.split(",");
    int[] kinds = new int[parts.length];
    int[] weights = new int[parts.length];
    for (int i = 0; i < parts.length; i++) {
      String[] kv = parts[i].split(":");
      kinds[i] = Integer.parseInt(kv[0].trim());
      weights[i] = Integer.parseInt(kv[1].trim());
      if (kinds[i] != 0 && kinds[i] != 1 && kinds[i] != 3 && kinds[i] != 7 && kinds[i] != 30023) {
        throw new IllegalArgumentException("--mix supports kinds 0, 1, 3, 7, 30023");
      }
    }
    return new Options(count, authors, seed, out, baseTime, spread, kinds, weights, threads, verifySample);
  }

  void run() throws Exception {
    int chunk = 4096;
    ForkJoinPool pool = new ForkJoinPool(Math.max(1, o.threads()));
    Path parent = o.out().toAbsolutePath().getParent();
    if (parent != null) Files.createDirectories(parent);
    try (BufferedWriter w = Files.newBufferedWriter(o.out(), StandardCharsets.UTF_8)) {
      for (int start = 0; start < o.count(); start += chunk) {
        int n = Math.min(chunk, o.count() - start);
        Draft[] drafts = new Draft[n];
        for (int k = 0; k < n; k++) {
          drafts[k] = draft(start + k);
        }
        String[] lines = new String[n];
        pool.submit(() -> IntStream.range(0, n).parallel().forEach(k -> lines[k] = sign(drafts[k]))).get();
        for (String line : lines) {
          w.write(line);
          w.write('\n');
        }
      }
    } finally {
      pool.shutdown();
    }
    writeMeta();
  }

  private String sign(Draft d) {
    byte[] sig = BenchSigner.sign(d.id(), secretKeys[d.author()], BenchSigner.aux(o.seed(), d.index()));
    return Canon.eventJson(Canon.hex(d.id()), pubkeys[d.author()], d.createdAt(), d.kind(), d.tags(), d.content(),
        Canon.hex(sig));
  }

  private int pickAuthor() {
    double u = rng.nextDouble();
    int lo = 0;
    int hi = authorCdf.length - 1;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (authorCdf[mid] < u) lo = mid + 1; else hi = mid;
    }
    return lo;
  }

  private int pickKind() {
    int u = rng.nextInt(mixCdf[mixCdf.length - 1]);
    for (int i = 0; i < mixCdf.length; i++) {
      if (u < mixCdf[i]) return o.mixKinds()[i];
    }
    return o.mixKinds()[o.mixKinds().length - 1];
  }

  Draft draft(long index) {
    int author = pickAuthor();
    int kind = pickKind();
    if ((kind == 7) && recentCount == 0) kind = 1;
    long createdAt = o.baseTime() + (long) ((double) index * o.spread() / o.count());
    List<List<String>> tags = new ArrayList<>();
    String content;
    String address = null;
    switch (kind) {
      case 1 -> content = note(tags);
      case 7 -> content = reaction(tags);
      case 0 -> {
        content = profile(author);
        address = "0:" + author;
      }
      case 3 -> {
        content = "";
        int follows = 10 + rng.nextInt(141);
        for (int i = 0; i < follows; i++) {
          tags.add(List.of("p", pubkeys[rng.nextInt(pubkeys.length)]));
        }
        address = "3:" + author;
      }
      default -> { // 30023
        String d = "article-" + rng.nextInt(8);
        tags.add(List.of("d", d));
        tags.add(List.of("title", words(3 + rng.nextInt(6), false)));
        tags.add(List.of("published_at", Long.toString(createdAt)));
        tags.add(List.of("t", HASHTAGS[rng.nextInt(HASHTAGS.length)]));
        tags.add(List.of("t", HASHTAGS[rng.nextInt(HASHTAGS.length)]));
        content = "# " + words(4, false) + "\n\n" + text(500 + rng.nextInt(2501), true);
        address = "30023:" + author + ":" + d;
      }
    }
    if (address != null) {
      Long last = lastAddressTime.get(address);
      if (last != null && createdAt <= last) createdAt = last + 1;
      lastAddressTime.put(address, createdAt);
    }
    byte[] id = Canon.sha256(Canon.serialize(pubkeys[author], createdAt, kind, tags, content));
    // identical events (say two "+" reactions of one author to one note in the same second) would
    // share an id: the second is not a new event. Move such a copy one second later.
    while (!seenIds.add(idPrefix(id))) {
      createdAt++;
      if (kind == 30023) tags.set(2, List.of("published_at", Long.toString(createdAt)));
      id = Canon.sha256(Canon.serialize(pubkeys[author], createdAt, kind, tags, content));
    }
    if (address != null) lastAddressTime.put(address, createdAt);
    minCreated = Math.min(minCreated, createdAt);
    maxCreated = Math.max(maxCreated, createdAt);
    kindCounts.merge(kind, 1, Integer::sum);
    if (kind == 1) {
      int slot = recentCount++ % recentIds.length;
      recentIds[slot] = Canon.hex(id);
      recentAuthors[slot] = author;
    }
    return new Draft(index, author, createdAt, kind, tags, content, id);
  }

  private static long idPrefix(byte[] id) {
    long v = 0;
    for (int k = 0; k < 8; k++) v = (v << 8) | (id[k] & 0xff);
    return v;
  }

  private int recentSlot() {
    int n = Math.min(recentCount, recentIds.length);
    return rng.nextInt(n);
  }

  private String note(List<List<String>> tags) {
    if (recentCount > 0 && rng.nextInt(100) < 40) {
      int root = recentSlot();
      tags.add(List.of("e", recentIds[root], "", "root"));
      if (rng.nextBoolean()) {
        int parent = recentSlot();
        tags.add(List.of("e", recentIds[parent], "", "reply"));
        tags.add(List.of("p", pubkeys[recentAuthors[parent]]));
      }
      tags.add(List.of("p", pubkeys[recentAuthors[root]]));
    }
    if (rng.nextInt(100) < 20) {
      tags.add(List.of("p", pubkeys[rng.nextInt(pubkeys.length)]));
    }
    int hashtags = rng.nextInt(4);
    StringBuilder suffix = new StringBuilder();
    java.util.Set<String> seen = new java.util.HashSet<>();
    for (int i = 0; i < hashtags; i++) {
      String t = HASHTAGS[Math.min(HASHTAGS.length - 1, (int) (HASHTAGS.length * Math.pow(rng.nextDouble(), 2)))];
      if (!seen.add(t)) continue;
      tags.add(List.of("t", t));
      suffix.append(" #").append(t);
    }
    int targetBytes = 100 + rng.nextInt(1901);
    int suffixBytes = suffix.toString().getBytes(StandardCharsets.UTF_8).length;
    return text(Math.max(10, targetBytes - suffixBytes), false) + suffix;
  }

  private String reaction(List<List<String>> tags) {
    int slot = recentSlot();
    tags.add(List.of("e", recentIds[slot]));
    tags.add(List.of("p", pubkeys[recentAuthors[slot]]));
    tags.add(List.of("k", "1"));
    int r = rng.nextInt(100);
    return r < 70 ? "+" : r < 75 ? "-" : REACTIONS[rng.nextInt(REACTIONS.length)];
  }

  private String profile(int author) {
    StringBuilder sb = new StringBuilder();
    sb.append("{\"name\":\"bench-user-").append(author).append("\",\"display_name\":\"")
        .append(words(2, false).replace("\"", "").replace("\\", "").replace("\t", " ").replace("\r\n", " "))
        .append("\",\"about\":\"").append(words(12 + rng.nextInt(30), false)
            .replace("\\", "").replace("\"", "'").replace("\t", " ").replace("\r\n", " "))
        .append("\",\"picture\":\"https://example.com/avatars/").append(author)
        .append(".png\",\"nip05\":\"u").append(author).append("@example.com\",\"lud16\":\"u").append(author)
        .append("@example.com\"}");
    return sb.toString();
  }

  private String words(int n, boolean newlines) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < n; i++) {
      if (i > 0) sb.append(newlines && rng.nextInt(12) == 0 ? "\n" : " ");
      sb.append(WORDS[rng.nextInt(WORDS.length)]);
    }
    return sb.toString();
  }

  /** Text of about {@code targetBytes} UTF-8 bytes (never fewer). */
  private String text(int targetBytes, boolean markdown) {
    StringBuilder sb = new StringBuilder(targetBytes + 16);
    int bytes = 0;
    int sentence = 0;
    while (bytes < targetBytes) {
      String w = WORDS[rng.nextInt(WORDS.length)];
      String sep;
      if (sb.length() == 0) {
        sep = "";
      } else if (++sentence % (8 + rng.nextInt(8)) == 0) {
        sep = rng.nextInt(4) == 0 ? (markdown ? "\n\n" : "\n") : ". ";
      } else {
        sep = " ";
      }
      sb.append(sep).append(w);
      bytes += utf8Length(sep) + utf8Length(w);
    }
    return sb.toString();
  }

  static int utf8Length(String s) {
    int n = 0;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c < 0x80) n += 1;
      else if (c < 0x800) n += 2;
      else if (Character.isHighSurrogate(c)) { n += 4; i++; }
      else n += 3;
    }
    return n;
  }

  private void writeMeta() throws IOException {
    JsonObject kinds = new JsonObject();
    kindCounts.forEach((k, v) -> kinds.put(k.toString(), v));
    JsonObject meta = new JsonObject()
        .put("seed", o.seed())
        .put("count", o.count())
        .put("authors", o.authors())
        .put("base_time", o.baseTime())
        .put("spread", o.spread())
        .put("min_created_at", minCreated)
        .put("max_created_at", maxCreated)
        .put("kinds", kinds)
        .put("pubkeys", new JsonArray(List.of((Object[]) pubkeys)))
        .put("hashtags", new JsonArray(List.of((Object[]) HASHTAGS)));
    Files.writeString(Path.of(o.out() + ".meta.json"), meta.encodePrettily(), StandardCharsets.UTF_8);
  }

  /** Re-reads about {@code sample} evenly spaced lines of the file and checks id + signature; returns the failures. */
  static int verifySample(Path file, int sample) throws IOException {
    if (sample <= 0) return 0;
    List<String> lines;
    try (var stream = Files.lines(file, StandardCharsets.UTF_8)) {
      lines = stream.toList();
    }
    int step = Math.max(1, lines.size() / sample);
    int bad = 0;
    for (int i = 0; i < lines.size(); i += step) {
      if (!verifyLine(lines.get(i))) {
        System.err.println("INVALID event on line " + (i + 1) + ": " + lines.get(i));
        bad++;
      }
    }
    return bad;
  }

  /** Parses one event line with a JSON parser (not our serializer) and verifies id + signature. */
  public static boolean verifyLine(String line) {
    try {
      JsonObject e = new JsonObject(line);
      List<List<String>> tags = new ArrayList<>();
      for (Object t : e.getJsonArray("tags")) {
        List<String> tag = new ArrayList<>();
        for (Object v : (JsonArray) t) tag.add((String) v);
        tags.add(tag);
      }
      return BenchSigner.verifyEvent(e.getString("id"), e.getString("pubkey"), e.getLong("created_at"),
          e.getInteger("kind"), tags, e.getString("content"), e.getString("sig"));
    } catch (RuntimeException ex) {
      throw new UncheckedIOException(new IOException("unparsable event line: " + ex.getMessage(), ex));
    }
  }
}
