package dev.cairn.relay;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;

/** Test plugins from src/test/resources/plugins, installed as executables, and the relay's metrics. */
final class Plugins {
  private Plugins() {}

  /** Copies {@code plugins/<name>} into {@code dir} as an executable file (resources lose the x bit). */
  static Path install(Path dir, String name) throws IOException {
    Path target = dir.resolve(name);
    try (InputStream in = Plugins.class.getResourceAsStream("/plugins/" + name)) {
      if (in == null) {
        throw new IOException("no test plugin " + name);
      }
      Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
    }
    executable(target);
    return target;
  }

  static void executable(Path file) throws IOException {
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
  }

  /** The sum of the samples of {@code metric} whose labels include every pair of {@code labels}. */
  static double metric(TestRelay relay, String metric, Map<String, String> labels) throws Exception {
    HttpResponse<String> r = TestRelay.http().send(
        HttpRequest.newBuilder(URI.create(relay.httpUrl() + "/metrics")).build(), HttpResponse.BodyHandlers.ofString());
    return r.body().lines()
        .filter(l -> l.startsWith(metric + "{"))
        .filter(l -> labels.entrySet().stream().allMatch(e -> l.contains(e.getKey() + "=\"" + e.getValue() + "\"")))
        .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
        .sum();
  }

  static double requests(TestRelay relay, String tenant, String action) throws Exception {
    return metric(relay, "cairn_policy_plugin_requests_total", Map.of("tenant", tenant, "action", action));
  }
}
