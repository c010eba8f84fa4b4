package dev.cairn.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.store.MetaStore;
import dev.cairn.store.StoreDirLock;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code cairn new-epoch}: the restore-an-older-backup step of docs/operations.md. */
class NewEpochCommandTest {
  @TempDir Path data;

  private Map<String, String> env() {
    return CliHarness.env(data);
  }

  private String[] register(String... tenants) {
    String[] epochs = new String[tenants.length];
    try (MetaStore meta = MetaStore.open(data.resolve("meta.db"))) {
      for (int i = 0; i < tenants.length; i++) {
        epochs[i] = meta.ensureTenant(tenants[i]);
      }
    }
    return epochs;
  }

  private String epochOf(String tenant) {
    try (MetaStore meta = MetaStore.open(data.resolve("meta.db"))) {
      return meta.feedEpoch(tenant);
    }
  }

  @Test
  void oneTenantGetsANewEpochAndTheOthersKeepTheirs() {
    String[] before = register("default", "shop");
    CliHarness.Result r = CliHarness.run(env(), "new-epoch", "--tenant", "shop");
    assertEquals(Cli.OK, r.code(), r.toString());
    String now = epochOf("shop");
    assertNotEquals(before[1], now);
    assertTrue(now.matches("[a-z2-7]{8}"), now);
    assertEquals(List.of("tenant shop: feed epoch " + before[1] + " -> " + now), r.lines());
    assertEquals(before[0], epochOf("default"));
  }

  @Test
  void allRotatesEveryRegisteredTenant() {
    String[] before = register("a", "b");
    CliHarness.Result r = CliHarness.run(env(), "new-epoch", "--all");
    assertEquals(Cli.OK, r.code(), r.toString());
    assertEquals(2, r.lines().size(), r.toString());
    assertNotEquals(before[0], epochOf("a"));
    assertNotEquals(before[1], epochOf("b"));
  }

  @Test
  void refusedWhileARelayHoldsTheStoreAndNothingChanges() {
    String[] before = register("default");
    try (StoreDirLock relay = StoreDirLock.acquire(data, "relay", List.of("ws://127.0.0.1:7777/"))) {
      CliHarness.Result r = CliHarness.run(env(), "new-epoch", "--tenant", "default");
      assertEquals(Cli.FAILED, r.code(), r.toString());
      assertTrue(r.err().contains("cairn new-epoch:") && r.err().contains("relay"), r.err());
    }
    assertEquals(before[0], epochOf("default"));
  }

  @Test
  void badCommandLinesAndUnknownTenantsAreRefusedClearly() {
    register("default");
    CliHarness.Result neither = CliHarness.run(env(), "new-epoch");
    assertEquals(Cli.USAGE, neither.code());
    assertTrue(neither.err().contains("exactly one of --tenant T or --all"), neither.err());
    assertEquals(Cli.USAGE, CliHarness.run(env(), "new-epoch", "--all", "--tenant", "default").code());
    assertEquals(Cli.USAGE, CliHarness.run(env(), "new-epoch", "--tenant", "../x").code());
    CliHarness.Result unknown = CliHarness.run(env(), "new-epoch", "--tenant", "nobody");
    assertEquals(Cli.FAILED, unknown.code());
    assertTrue(unknown.err().contains("tenant nobody is not registered"), unknown.err());
  }

  @Test
  void aDirectoryWithoutAStoreIsNotCreated() {
    CliHarness.Result r = CliHarness.run(CliHarness.env(data.resolve("missing")), "new-epoch", "--all");
    assertEquals(Cli.FAILED, r.code());
    assertTrue(r.err().contains("no store at"), r.err());
    assertTrue(!data.resolve("missing").toFile().exists());
  }
}
