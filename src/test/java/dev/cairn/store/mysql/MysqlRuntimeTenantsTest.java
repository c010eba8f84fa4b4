package dev.cairn.store.mysql;

import static dev.cairn.store.mysql.TestMysqlServer.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Pool;
import java.util.List;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The registry's runtime-tenant rows (meta migration 0002) against a real server: what the admin API
 * writes and what each pod's poller reads above its high water.
 */
class MysqlRuntimeTenantsTest extends MysqlTestBase {
  private String metaDb;
  private Pool pool;
  private MysqlRuntimeTenants rows;
  private MysqlTenantRegistry registry;

  @BeforeEach
  void createMeta() throws Exception {
    metaDb = mysql.createDatabase("_meta");
    pool = mysql.pool(metaDb, 2);
    await(new MysqlMigrator("db/mysql-meta").migrate(pool));
    registry = new MysqlTenantRegistry(pool, metaDb);
    rows = new MysqlRuntimeTenants(pool, registry, MysqlPlacement.DEDICATED);
  }

  @AfterEach
  void dropMeta() throws Exception {
    await(pool.close());
    mysql.dropDatabase(metaDb);
  }

  @Test
  void everyChangeRaisesUpdatedAtAndRemovalIsAFlagThePollSees() throws Exception {
    var created = await(rows.put("acme", new JsonObject().put("name", "Acme"), null));
    assertTrue(created.created());
    assertEquals("dedicated", created.entry().placement());
    assertEquals("Acme", created.entry().config().getString("name"));
    long first = created.entry().updatedAt();

    var replaced = await(rows.put("acme", new JsonObject().put("name", "Acme 2"), "dedicated"));
    assertFalse(replaced.created());
    assertTrue(replaced.entry().updatedAt() > first, "a change in the same ms still moves updated_at");

    List<MysqlRuntimeTenants.Change> since = await(rows.changedSince(first));
    assertEquals(1, since.size());
    assertEquals("acme", since.get(0).id());
    assertTrue(await(rows.changedSince(replaced.entry().updatedAt())).isEmpty(), "nothing above the high water");

    assertTrue(await(rows.remove("acme")));
    assertFalse(await(rows.remove("acme")), "removed once");
    assertNull(await(rows.get("acme")));
    assertTrue(await(rows.list()).isEmpty());
    List<MysqlRuntimeTenants.Change> after = await(rows.changedSince(replaced.entry().updatedAt()));
    assertEquals(1, after.size());
    assertTrue(after.get(0).removed(), "a poll above its high water sees the removal");

    // PUT again: served again, same placement and feed epoch (its data stays where it was)
    String epoch = await(registry.find("acme")).feedEpoch();
    assertTrue(await(rows.put("acme", new JsonObject(), null)).created());
    assertEquals(epoch, await(registry.find("acme")).feedEpoch());
  }

  @Test
  void configFileRowsAreNotRuntimeTenantsAndPlacementIsFixed() throws Exception {
    await(registry.resolve("fromfile", MysqlPlacement.DEDICATED)); // what a pod does for its config tenants
    assertTrue(await(rows.list()).isEmpty());
    assertTrue(await(rows.changedSince(-1)).isEmpty());
    assertFalse(await(rows.remove("fromfile")), "the API does not remove a config-file tenant's row");

    await(rows.put("pooled", new JsonObject(), "shared"));
    assertEquals(metaDb + "_shared", await(registry.find("pooled")).dbName());
    ExecutionException e = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
        () -> await(rows.put("pooled", new JsonObject(), "dedicated")));
    assertInstanceOf(IllegalArgumentException.class, e.getCause());
  }
}
