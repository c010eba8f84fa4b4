package dev.cairn.cli;

import dev.cairn.config.CairnConfig;
import dev.cairn.admin.RelayAdmin;
import dev.cairn.policy.OfflineRules;
import dev.cairn.store.MetaStore;
import dev.cairn.store.RemovalReason;
import dev.cairn.store.StoreDirLock;
import dev.cairn.store.StoreException;
import dev.cairn.store.SqliteTenantStore;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;

/**
 * {@code cairn import}: JSONL events into a tenant, each applied as a live EVENT would be, with a
 * count per outcome. Two modes (docs/cli.md):
 * <ul>
 *   <li><b>network</b> ({@link NetworkImport}): published over WebSocket to the relay that runs on
 *       the store (found through {@code <store.dir>/cairn.lock}), or to {@code --url};</li>
 *   <li><b>direct</b> ({@link DirectImport}): written into the tenant DB, when no relay holds the
 *       store (or with {@code --direct}, which is refused while one does); the import holds the
 *       lock itself meanwhile, so a relay cannot start on the store halfway.</li>
 * </ul>
 */
final class ImportCommand {
  private static final Set<String> VALUED =
      Set.of("--tenant", "--config", "--url", "--batch", "--threads", "--in-flight");
  private static final Set<String> FLAGS = Set.of("--direct", "--allow-protected", "--quiet");

  private final Cli.Io io;

  ImportCommand(Cli.Io io) {
    this.io = io;
  }

  int run(List<String> argv) throws UsageException, IOException {
    if (Cli.wantsHelp(argv)) {
      return Cli.printUsage(io);
    }
    Args a = Args.parse("import", argv, VALUED, FLAGS, 1);
    if (a.has("--url") && a.has("--direct")) {
      throw new UsageException("--url and --direct exclude each other");
    }
    String tenant = CommandSupport.tenant(a);
    CairnConfig config = CommandSupport.config(a, io.env());
    int batch = (int) a.number("--batch", config.maxBatch(), 1, 100_000);
    int threads = (int) a.number("--threads", Runtime.getRuntime().availableProcessors(), 1, 1024);
    int inFlight = (int) a.number("--in-flight", 1000, 1, 100_000);
    URI url = null;
    if (a.has("--url")) {
      url = wsUri(a.value("--url"));
    }
    String file = a.positional().isEmpty() ? "-" : a.positional().get(0);
    long size = -1;
    InputStream in;
    if (file.equals("-")) {
      in = io.in();
    } else {
      Path p = Path.of(file);
      if (!Files.isRegularFile(p) && !Files.exists(p)) {
        io.err().println("cairn import: " + file + ": no such file");
        return Cli.FAILED;
      }
      size = Files.isRegularFile(p) ? Files.size(p) : -1;
      in = Files.newInputStream(p);
    }
    try (InputStream input = in) {
      if (url == null) {
        Optional<JsonObject> holder = StoreDirLock.holder(config.storeDir());
        if (holder.isPresent() && a.has("--direct")) {
          io.err().println("cairn import: --direct refused: " + holderText(holder.get(), config) + ". Two writers"
              + " would hand out the same store seqs; import through the relay (without --direct), or stop it first");
          return Cli.FAILED;
        }
        if (holder.isPresent()) {
          url = relayUrl(holder.get(), tenant);
          if (url == null) {
            io.err().println("cairn import: " + holderText(holder.get(), config)
                + " and takes no EVENTs; wait for it to finish, or give --url");
            return Cli.FAILED;
          }
          if (!a.has("--quiet")) {
            io.err().println("import: a relay runs on " + config.storeDir() + " (pid " + holder.get().getValue("pid")
                + "): publishing to " + url);
          }
        }
      }
      if (url != null) {
        if (a.has("--allow-protected")) {
          io.err().println("import: --allow-protected has no effect through a relay (it applies its own rules)");
        }
        return network(url, tenant, config, inFlight, input, size, a.has("--quiet"));
      }
      if (!config.tenants().containsKey(tenant)) {
        throw new UsageException("tenant \"" + tenant + "\" is not in the config (tenants[].id): the relay would"
            + " not serve it");
      }
      return direct(tenant, config, batch, threads, a.has("--allow-protected"), input, size, a.has("--quiet"));
    }
  }

  private static URI wsUri(String s) throws UsageException {
    try {
      URI u = new URI(s);
      if (u.getScheme() == null || !(u.getScheme().equalsIgnoreCase("ws") || u.getScheme().equalsIgnoreCase("wss"))
          || u.getHost() == null) {
        throw new UsageException("--url must be a ws:// or wss:// URL, not \"" + s + "\"");
      }
      return u.getRawPath() == null || u.getRawPath().isEmpty() ? new URI(s + "/") : u;
    } catch (java.net.URISyntaxException e) {
      throw new UsageException("--url: " + e.getMessage());
    }
  }

  /** The tenant's URL at the relay that holds the lock, or null when the holder takes no EVENTs. */
  private static URI relayUrl(JsonObject holder, String tenant) {
    JsonArray ws = holder.getJsonArray("ws", new JsonArray());
    if (ws.isEmpty()) {
      return null;
    }
    return URI.create(RelayUrls.forTenant(ws.getString(0), tenant));
  }

  private static String holderText(JsonObject holder, CairnConfig config) {
    return config.storeDir() + " is in use by " + holder.getString("role", "another process") + " (pid "
        + holder.getValue("pid") + ")";
  }

  // ------------------------------------------------------------------------------------------ direct

  private int direct(String tenant, CairnConfig config, int batch, int threads, boolean allowProtected,
      InputStream input, long size, boolean quiet) throws IOException {
    Path db = CommandSupport.tenantDb(config, tenant);
    int maxLine = config.limits().maxMessageLength();
    String tooLong = "invalid: line longer than limits.max_message_length (" + maxLine + " bytes)";
    OfflineRules rules = OfflineRules.of(config.limits(), config.policy(), config.tenant(tenant), allowProtected);
    Outcomes outcomes = new Outcomes();
    LineReader lines = new LineReader(input, maxLine);
    long started = System.nanoTime();
    AtomicReference<DirectImport> job = new AtomicReference<>();
    try (StoreDirLock lock = StoreDirLock.acquire(config.storeDir(), "import", List.of())) {
      try (MetaStore meta = MetaStore.open(config.storeDir().resolve("meta.db"))) {
        meta.ensureTenant(tenant); // as the relay registers each tenant it opens
      }
      // the bans and allowed pubkeys NIP-86 admins set hold for an import as for a live EVENT
      try (RelayAdmin admin = new RelayAdmin(config.storeDir().resolve("meta.db"))) {
        admin.open();
        rules = rules.withAdmin(admin.of(tenant));
      }
      try (SqliteTenantStore store = SqliteTenantStore.open(db, 1);
          Progress p = Progress.start(io.err(), quiet, Progress.INTERVAL_MS,
              () -> progress(outcomes, lines, size, started))) {
        DirectImport d = new DirectImport(store, rules, batch, threads, tooLong, outcomes, io.err());
        job.set(d);
        d.run(lines);
      }
    } catch (StoreException e) {
      io.err().println("cairn import: " + e.getMessage() + (e.getCause() == null ? "" : ": " + e.getCause().getMessage()));
      summary("direct into " + db, tenant, outcomes, started, job.get());
      return Cli.FAILED;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Cli.FAILED;
    } catch (IOException e) {
      io.err().println("cairn import: reading the input failed at line " + lines.lineNo() + ": " + e.getMessage());
      summary("direct into " + db, tenant, outcomes, started, job.get());
      return Cli.FAILED;
    }
    summary("direct into " + db, tenant, outcomes, started, job.get());
    return outcomes.refused() > 0 ? Cli.REFUSED : Cli.OK;
  }

  // ----------------------------------------------------------------------------------------- network

  private int network(URI url, String tenant, CairnConfig config, int inFlight, InputStream input, long size,
      boolean quiet) throws IOException {
    int maxMessage = NetworkImport.maxMessageLength(url, config.limits().maxMessageLength());
    Outcomes outcomes = new Outcomes();
    LineReader lines = new LineReader(input, maxMessage);
    long started = System.nanoTime();
    String failure;
    try (Progress p = Progress.start(io.err(), quiet, Progress.INTERVAL_MS,
        () -> progress(outcomes, lines, size, started))) {
      failure = new NetworkImport(url, inFlight, outcomes, io.err()).run(lines, maxMessage);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Cli.FAILED;
    } catch (IOException e) {
      io.err().println("cairn import: reading the input failed at line " + lines.lineNo() + ": " + e.getMessage());
      summary("published to " + url, tenant, outcomes, started, null);
      return Cli.FAILED;
    }
    if (failure != null) {
      io.err().println("cairn import: " + failure + " (after line " + lines.lineNo() + ")");
    }
    summary("published to " + url, tenant, outcomes, started, null);
    return failure != null ? Cli.FAILED : outcomes.refused() > 0 ? Cli.REFUSED : Cli.OK;
  }

  // ----------------------------------------------------------------------------------------- output

  private static String progress(Outcomes o, LineReader lines, long size, long started) {
    double s = (System.nanoTime() - started) / 1e9;
    long done = o.total();
    StringBuilder b = new StringBuilder("import: ").append(done).append(" events, ")
        .append(Progress.rate(done, s));
    if (size > 0 && lines.lineNo() > 0) {
      // the reader runs ahead of the writer by the chunks in the pipeline: scale its position down
      double read = Math.min(1.0, lines.consumed() / (double) size);
      double frac = read * Math.min(1.0, (done + o.blank()) / (double) lines.lineNo());
      b.append(String.format(", %.0f%%", frac * 100));
      if (frac > 0.001) {
        b.append(", ETA ").append(CommandSupport.duration(s / frac - s));
      }
    }
    return b.append(" (").append(o.brief()).append(")").toString();
  }

  /** The summary, on stdout: what was imported where, how fast, and one line per outcome. */
  private void summary(String where, String tenant, Outcomes o, long started, DirectImport d) {
    double s = (System.nanoTime() - started) / 1e9;
    PrintStream out = new PrintStream(io.out(), true, StandardCharsets.UTF_8);
    out.printf("import: %d events, tenant %s, %s, in %s (%s)%n", o.total(), tenant, where,
        CommandSupport.duration(s), Progress.rate(o.total(), s));
    o.print(out);
    if (d != null) {
      Map<RemovalReason, Long> removed = d.removed();
      long replaced = removed.get(RemovalReason.REPLACED);
      long deleted = removed.get(RemovalReason.NIP09);
      if (replaced + deleted > 0) {
        out.printf("  stored events removed by later ones: %d replaced (NIP-01), %d deleted (NIP-09)%n",
            replaced, deleted);
      }
      out.printf("  writer: %s%n", d.writerTime());
      if (d.feedLost() > 0) {
        out.printf("  change-feed rows not written: %d%n", d.feedLost());
      }
    }
    out.flush();
  }
}
