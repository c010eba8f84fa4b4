package dev.cairn;

import dev.cairn.config.CairnConfig;
import dev.cairn.config.ConfigException;
import dev.cairn.config.ConfigLoader;
import dev.cairn.config.LogSetup;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * {@code java -jar cairn.jar [serve] [--config conf/cairn.json]}: loads the config, boots the tree, stops on
 * SIGTERM. The other commands ({@code export}, {@code import}, {@code --help}, {@code --version}): dev.cairn.cli.
 */
public final class Main {
  private Main() {}

  public static void main(String[] args) throws Exception {
    // export, import, --help, --version run (and exit) there; what is left starts the relay
    Path configFile = dev.cairn.cli.Cli.dispatch(args);
    JvmTuning.apply();
    CairnConfig config;
    try {
      config = ConfigLoader.load(configFile, System.getenv());
    } catch (ConfigException e) {
      System.err.println("cairn: bad configuration: " + e.getMessage());
      System.exit(2);
      return;
    }
    LogSetup.apply(config);
    Logger log = Logger.getLogger(Main.class.getName());
    HeapBudget heapBudget = HeapBudget.start(config.limits().heapBudgetBytes());
    CairnServer server;
    try {
      server = CairnServer.start(config).toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
    } catch (Exception e) {
      // the innermost cause says why; the chain on the line says where (which store file, which node)
      Throwable chain = e instanceof java.util.concurrent.ExecutionException && e.getCause() != null ? e.getCause() : e;
      log.log(Level.SEVERE, "cairn failed to start: " + rootCause(e).getMessage(), chain);
      System.exit(1);
      return;
    }
    if (heapBudget != null) {
      heapBudget.bindTo(server.meterRegistry());
    }
    log.info("cairn is ready on " + config.binds());
    // SIGTERM/SIGINT: stop accepting, let the tree flush and close its DBs, then exit 0 (CONTRACT section 1).
    Runnable shutdown = () -> {
      log.info("shutting down");
      int status = 0;
      try {
        server.close().toCompletionStage().toCompletableFuture()
            .get(config.shutdownFlushBudget().toMillis() + 10_000, TimeUnit.MILLISECONDS);
      } catch (Exception e) {
        log.log(Level.WARNING, "shutdown did not finish cleanly", e);
        status = 1;
      }
      log.info("stopped");
      System.exit(status);
    };
    for (String name : new String[] {"TERM", "INT"}) {
      sun.misc.Signal.handle(new sun.misc.Signal(name), sig -> new Thread(shutdown, "cairn-shutdown").start());
    }
  }

  private static Throwable rootCause(Throwable t) {
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    return t;
  }
}
