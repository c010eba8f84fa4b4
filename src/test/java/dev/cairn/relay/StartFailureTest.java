package dev.cairn.relay;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.cairn.CairnServer;
import dev.cairn.config.ConfigLoader;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** A relay that cannot start says why at once and lets go of its store. */
class StartFailureTest {

  @Test
  void aPortInUseFailsTheStartWithTheBindErrorAndReleasesTheStoreLock() throws Exception {
    Path data = Files.createTempDirectory("cairn-start-failure");
    try (ServerSocket taken = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      var config = ConfigLoader.load(null, Map.of("CAIRN_HTTP_PORT", String.valueOf(taken.getLocalPort()),
          "CAIRN_STORE_DIR", data.toString()));
      try {
        // Before the fix the failure never arrived: Main gave up after 60 s with "null".
        CairnServer.start(config).toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS).close();
        fail("the relay started on a port that is in use");
      } catch (ExecutionException e) {
        Throwable t = e.getCause();
        StringBuilder causes = new StringBuilder();
        for (; t != null; t = t.getCause()) {
          causes.append(t).append(" / ");
        }
        assertTrue(causes.toString().toLowerCase().contains("address already in use"), causes.toString());
      }
    }
    // The store lock goes with the failed start (released once Vert.x has closed, in the background).
    long deadline = System.currentTimeMillis() + 30_000;
    TestRelay again = null;
    while (again == null) {
      try {
        again = TestRelay.startOn(data, new io.vertx.core.json.JsonObject());
      } catch (ExecutionException e) {
        if (System.currentTimeMillis() > deadline || !String.valueOf(e.getCause().getMessage()).contains("in use")) {
          throw e;
        }
        Thread.sleep(100);
      }
    }
    try (TestRelay r = again) {
      assertNotNull(r.server());
      assertTrue(r.server().ready());
    } finally {
      TestRelay.deleteTree(data);
    }
  }
}
