package dev.cairn.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import dev.cairn.nostr.Filter;
import dev.cairn.nostr.NostrEvent;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

abstract class StoreTestBase {
  static final long NOW = 1_700_000_000L;

  @TempDir Path dir;
  SqliteTenantStore store;

  @BeforeEach
  void openStore() {
    store = SqliteTenantStore.open(dir.resolve("tenants/t.db"), 2);
  }

  @AfterEach
  void closeStore() {
    if (store != null) {
      store.close();
    }
  }

  PersistResult put(NostrEvent e) {
    return store.persistBatch(List.of(e), NOW).get(0);
  }

  PersistResult.Stored stored(NostrEvent e) {
    return assertInstanceOf(PersistResult.Stored.class, put(e));
  }

  List<StoredEvent> q(Filter... filters) {
    return store.query(List.of(filters), Long.MAX_VALUE, 500, 5000, NOW);
  }

  List<String> ids(Filter... filters) {
    return q(filters).stream().map(StoredEvent::id).toList();
  }

  boolean present(String id) {
    return !q(Ev.ids(id)).isEmpty();
  }

  /** {@code PRAGMA quick_check} on a connection of its own: "ok", or SQLite's findings joined. */
  static String quickCheck(Path file) throws Exception {
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file);
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("PRAGMA quick_check")) {
      List<String> findings = new ArrayList<>();
      while (rs.next()) {
        findings.add(rs.getString(1));
      }
      return String.join(" | ", findings);
    }
  }

  static void assertDuplicate(String msg, PersistResult r) {
    assertEquals(new PersistResult.Duplicate(msg), r);
  }

  static void assertRejected(String msg, PersistResult r) {
    assertEquals(new PersistResult.Rejected(msg), r);
  }
}
