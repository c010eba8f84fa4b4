// A Cairn change-feed consumer: Java 17, java.net.http only, no other dependency.
//   java SseClient.java <feed-url> <cursor-file> [--once]
// e.g. java SseClient.java http://127.0.0.1:7777/v1/events cursor.txt
// --once: stop at the first heartbeat (a batch run; the next run goes on from the cursor file).
// Env CAIRN_TOKEN: sent as "Authorization: Bearer <token>". One line per change on stdout.
import java.io.*;
import java.net.URI;
import java.net.http.*;
import java.nio.charset.StandardCharsets;
import java.nio.file.*;
import java.util.concurrent.*;
import java.util.regex.*;

public class SseClient {
  static final long IDLE_MS = Long.parseLong(System.getenv().getOrDefault("IDLE_TIMEOUT_MS", "60000"));
  static Path cursorFile;
  static String cursor = "";
  static volatile long lastRead = System.nanoTime();
  static volatile InputStream stream;

  // Your application: apply one change idempotently (a repeat or a reorder must be harmless).
  static void apply(String type, String data) {
    System.out.println(type.equals("stored") ? "stored " + field(data, "seq") + " " + field(data, "id")
        : "deleted " + field(data, "seq") + " " + field(data, "id") + " " + field(data, "reason"));
  }

  // Your application: the stream cannot tell you what you missed; rebuild from a full listing (REQ).
  static void resync(String reason, String cursorAfter) {
    System.err.println(switch (reason) {
      case "initial_sync" -> "no cursor yet: take a full listing if you need the current state";
      case "seq_too_old" -> "away longer than the feed's retention: changes were missed, full listing";
      case "server_restart" -> "the feed was recreated (or restored from a backup): full listing";
      default -> "reset " + reason + ": full listing";
    });
    System.out.println("reset " + reason + " " + cursorAfter);
  }

  public static void main(String[] args) throws Exception {
    URI url = URI.create(args[0]);
    cursorFile = Path.of(args[1]);
    boolean once = args.length > 2 && args[2].equals("--once");
    if (Files.exists(cursorFile)) cursor = Files.readString(cursorFile).trim();
    HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    Executors.newSingleThreadScheduledExecutor(r -> { Thread t = new Thread(r); t.setDaemon(true); return t; })
        .scheduleAtFixedRate(() -> { // a silent connection (no heartbeat) is dead: reconnect
          InputStream s = stream;
          if (s != null && System.nanoTime() - lastRead > IDLE_MS * 1_000_000) try { s.close(); } catch (IOException e) { }
        }, 1, 1, TimeUnit.SECONDS);
    for (long backoff = 1000; ; ) {
      try {
        HttpRequest.Builder req = HttpRequest.newBuilder(url).header("Accept", "text/event-stream");
        if (!cursor.isEmpty()) req.header("Last-Event-ID", cursor);
        if (System.getenv("CAIRN_TOKEN") != null) req.header("Authorization", "Bearer " + System.getenv("CAIRN_TOKEN"));
        HttpResponse<InputStream> res = http.send(req.build(), HttpResponse.BodyHandlers.ofInputStream());
        if (res.statusCode() != 200) {
          String body = new String(res.body().readAllBytes(), StandardCharsets.UTF_8);
          if (res.statusCode() / 100 == 4) { System.err.println("fatal: HTTP " + res.statusCode() + " " + body); System.exit(1); }
          throw new IOException("HTTP " + res.statusCode() + " " + body);
        }
        backoff = 1000; // connected: retries start over at 1 s
        if (read(res.body(), once)) return;
        System.err.println("stream ended; resuming from " + cursor);
      } catch (IOException e) {
        System.err.println("disconnected (" + e + "); resuming from " + cursor + " in " + backoff + " ms");
      }
      Thread.sleep(backoff);
      backoff = Math.min(backoff * 2, 30_000);
    }
  }

  /** Reads frames until the stream ends; true at a heartbeat with {@code once}. */
  static boolean read(InputStream body, boolean once) throws IOException {
    stream = body;
    lastRead = System.nanoTime();
    try (BufferedReader in = new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8))) {
      String id = null, event = "message", line;
      StringBuilder data = null;
      while ((line = in.readLine()) != null) {
        lastRead = System.nanoTime();
        if (line.isEmpty()) { // a blank line ends a frame
          if (data != null) {
            switch (event) {
              case "stored", "deleted" -> apply(event, data.toString());
              case "reset" -> resync(field(data.toString(), "reason"), id);
              case "heartbeat" -> { } // liveness; its id is a valid cursor too
              default -> { } // unknown frame types: ignore, keep the cursor moving
            }
            if (id != null) save(id); // after the change is applied: at-least-once, never a gap
            if (once && event.equals("heartbeat")) return true;
          }
          id = null; event = "message"; data = null;
        } else if (!line.startsWith(":")) { // ":..." is a comment
          int c = line.indexOf(':');
          String name = c < 0 ? line : line.substring(0, c), value = c < 0 ? "" : line.substring(c + 1);
          if (value.startsWith(" ")) value = value.substring(1);
          switch (name) {
            case "id" -> id = value;
            case "event" -> event = value;
            case "data" -> data = data == null ? new StringBuilder(value) : data.append('\n').append(value);
            default -> { }
          }
        }
      }
      return false;
    } finally {
      stream = null;
    }
  }

  static void save(String id) throws IOException {
    cursor = id;
    Path tmp = cursorFile.resolveSibling(cursorFile.getFileName() + ".tmp");
    Files.writeString(tmp, id);
    Files.move(tmp, cursorFile, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }

  /** The first "name": value in a frame's JSON (a real application uses a JSON library). */
  static String field(String json, String name) {
    Matcher m = Pattern.compile("\"" + name + "\":(?:\"([^\"]*)\"|(-?\\d+))").matcher(json);
    return !m.find() ? null : m.group(1) != null ? m.group(1) : m.group(2);
  }
}
