package dev.cairn.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Taking the store's lock empties its scratch directory, and nothing outside it. */
class ScratchDirTest {
  @TempDir Path dir;

  @Test
  void takingTheLockEmptiesTheScratchDirectoryWithoutFollowingLinks() throws Exception {
    Path store = dir.resolve("store");
    Path scratch = ScratchDir.of(store);
    Files.createDirectories(scratch.resolve("warmup-tenant1/nested"));
    Files.writeString(scratch.resolve("warmup-tenant1/nested/events.db"), "left by a killed relay");
    Files.writeString(scratch.resolve("sqlite-x-libsqlitejdbc.so"), "a library copy");
    Path outside = Files.writeString(Files.createDirectories(dir.resolve("elsewhere")).resolve("keep.txt"), "keep");
    Files.createSymbolicLink(scratch.resolve("link"), outside.getParent());
    Path tenants = Files.writeString(Files.createDirectories(store.resolve("tenants")).resolve("t.db"), "a store");

    try (StoreDirLock lock = StoreDirLock.acquire(store, "relay", List.of())) {
      try (var left = Files.list(scratch)) {
        assertEquals(List.of(), left.toList(), "the scratch directory after the lock was taken");
      }
      assertEquals("keep", Files.readString(outside), "a link's target is not the scratch directory's");
      assertEquals("a store", Files.readString(tenants), "the store beside it is untouched");
      assertTrue(ScratchDir.newDirectory(store, "warmup").startsWith(scratch));
    }
  }

  @Test
  void aFileSystemThatMapsNoExecutableIsToldApart() throws Exception {
    assertTrue(ScratchDir.allowsExecution(dir.resolve("plain")), "an ordinary directory");
    Path noexec = Files.createDirectories(dir.resolve("noexec"));
    // a noexec mount needs root and the mount capability: where there are none, nothing to tell apart
    assumeTrue(Tmpfs.mount(noexec, "noexec,size=1m"), "cannot mount a noexec tmpfs here");
    try {
      assertFalse(ScratchDir.allowsExecution(noexec.resolve("cairn-tmp")), "a noexec mount");
    } finally {
      assertTrue(Tmpfs.unmount(noexec), "unmounting " + noexec);
    }
  }
}
