package dev.cairn.network;

import dev.cairn.config.CairnConfig;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.List;

/**
 * Binds each configured address once and lets it go: with a start-up warm-up the listeners bind only
 * after it (docs/decisions/0011-startup-warmup.md), and an address in use must still fail the start at
 * once, with the system's own error. Blocking: call it on a worker.
 */
public final class BindProbe {
  private BindProbe() {}

  public static void check(List<CairnConfig.Bind> binds) throws IOException {
    for (CairnConfig.Bind b : binds) {
      if (b.port() == 0) {
        continue; // any free port: nothing to be in use
      }
      try (ServerSocket probe = new ServerSocket()) {
        probe.setReuseAddress(true); // as the listener's own bind: a socket in TIME_WAIT does not count
        probe.bind(new InetSocketAddress(b.host(), b.port()));
      } catch (IOException e) {
        throw new IOException(b + ": " + e.getMessage(), e);
      }
    }
  }
}
