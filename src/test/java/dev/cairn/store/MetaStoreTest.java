package dev.cairn.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MetaStoreTest {
  @TempDir Path dir;

  @Test
  void epochIsCreatedOnceAndStableAcrossReopen() {
    Path file = dir.resolve("data/meta.db");
    String epoch;
    try (MetaStore m = MetaStore.open(file)) {
      assertNull(m.feedEpoch("default"));
      epoch = m.ensureTenant("default");
      assertTrue(epoch.matches("[a-z2-7]{8}"), epoch);
      assertEquals(epoch, m.ensureTenant("default"));
      assertEquals(epoch, m.feedEpoch("default"));
    }
    try (MetaStore m = MetaStore.open(file)) {
      assertEquals(epoch, m.ensureTenant("default"));
      assertEquals(List.of("default"), m.tenants());
    }
  }

  @Test
  void tenantsGetTheirOwnEpochs() {
    try (MetaStore m = MetaStore.open(dir.resolve("meta.db"))) {
      String a = m.ensureTenant("a");
      String b = m.ensureTenant("b");
      // 32^8 possibilities: equal epochs would mean they are not random per tenant
      assertNotEquals(a, b);
      assertEquals(List.of("a", "b"), m.tenants());
    }
  }

  @Test
  void newEpochAlphabet() {
    for (int i = 0; i < 200; i++) {
      assertTrue(MetaStore.newEpoch().matches("[a-z2-7]{8}"));
    }
  }
}
