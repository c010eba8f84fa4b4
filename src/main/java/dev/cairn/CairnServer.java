package dev.cairn;

import dev.cairn.config.CairnConfig;
import dev.cairn.config.ConfigLoader;
import dev.cairn.metrics.CairnMetrics;
import dev.cairn.root.Root;
import dev.cairn.tree.LocalCodec;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.file.FileSystemOptions;
import io.vertx.micrometer.MicrometerMetricsFactory;
import io.vertx.micrometer.MetricsDomain;
import io.vertx.micrometer.MicrometerMetricsOptions;
import io.vertx.micrometer.VertxPrometheusOptions;
import java.util.logging.Logger;

/**
 * One running Cairn: a Vert.x instance with its own meter registry and the verticle tree under
 * root. Main runs one; tests run several side by side in one JVM (nothing here is static).
 */
public final class CairnServer {
  private static final Logger LOG = Logger.getLogger(CairnServer.class.getName());

  private final CairnConfig config;
  private final Vertx vertx;
  private final PrometheusMeterRegistry registry;
  private final Root root;
  /** {@code <store.dir>/cairn.lock}: this relay is the store's one writer (a direct import waits for it to stop). */
  private dev.cairn.store.StoreDirLock storeLock;

  private CairnServer(CairnConfig config) {
    this.config = config;
    this.registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    // Vert.x's own meters for the event bus and for every HTTP request/WebSocket would cost a timer
    // per tree hop and an object per connection; the tree counts what matters itself (channels,
    // connections, subscriptions). Worker pools, net and JVM meters stay.
    MicrometerMetricsOptions metricsOptions = new MicrometerMetricsOptions()
        .setEnabled(true)
        .setJvmMetricsEnabled(true)
        .addDisabledMetricsCategory(MetricsDomain.EVENT_BUS)
        .addDisabledMetricsCategory(MetricsDomain.HTTP_SERVER)
        .addDisabledMetricsCategory(MetricsDomain.HTTP_CLIENT)
        .setPrometheusOptions(new VertxPrometheusOptions().setEnabled(true));
    this.vertx = Vertx.builder()
        .with(new VertxOptions().setMetricsOptions(metricsOptions).setEventLoopPoolSize(config.eventLoops())
            .setFileSystemOptions(new FileSystemOptions()
                .setFileCacheDir(dev.cairn.store.ScratchDir.of(config.storeDir()).toString())))
        .withMetrics(new MicrometerMetricsFactory(registry))
        .build();
    vertx.eventBus().registerCodec(new LocalCodec());
    this.root = new Root(config, new CairnMetrics(registry), registry::scrape);
  }

  /** Deploys the whole tree; completes when every node is up and every listener is bound. */
  public static Future<CairnServer> start(CairnConfig config) {
    dev.cairn.store.StoreDirLock lock;
    try {
      lock = dev.cairn.store.StoreDirLock.acquire(config.storeDir(), "relay", dev.cairn.cli.RelayUrls.of(config));
    } catch (RuntimeException e) {
      return Future.failedFuture(e);
    }
    dev.cairn.store.ScratchDir.holdNativeLibraries(config.storeDir()); // before SQLite's or secp256k1's first use
    CairnServer server;
    try {
      server = new CairnServer(config);
    } catch (RuntimeException e) {
      lock.close();
      throw e;
    }
    server.storeLock = lock;
    LOG.info("effective config: " + ConfigLoader.masked(config.raw()).encode());
    OpenFilesLimit.report();
    return server.vertx.deployVerticle(server.root)
        .map(id -> server)
        .recover(t -> {
          // Fail at once with the cause (a port in use, a bad store). Vert.x is closed from a plain
          // thread: a close chained here would report back on this event loop, which the close
          // itself terminates, and the failure would never arrive (Main waited 60 s, then said "null").
          Thread closer = new Thread(server::closeAfterFailedStart, "cairn-failed-start-close");
          closer.setDaemon(true);
          closer.start();
          return Future.failedFuture(t);
        });
  }

  private void closeAfterFailedStart() {
    try {
      vertx.close().toCompletionStage().toCompletableFuture().get(30, java.util.concurrent.TimeUnit.SECONDS);
    } catch (Exception e) {
      LOG.warning("closing after a failed start: " + e);
    } finally {
      storeLock.close();
    }
  }

  private Future<Void> unlock() {
    storeLock.close();
    return Future.succeededFuture();
  }

  public Vertx vertx() {
    return vertx;
  }

  /** The registry /metrics renders: process-wide meters (Main's) join the tree's there. */
  public io.micrometer.core.instrument.MeterRegistry meterRegistry() {
    return registry;
  }

  public CairnConfig config() {
    return config;
  }

  public boolean ready() {
    return root.ready();
  }

  /** Stops accepting, undeploys the tree (DBs are closed by the engine) and closes Vert.x. */
  public Future<Void> close() {
    return vertx.close().eventually(this::unlock);
  }
}
