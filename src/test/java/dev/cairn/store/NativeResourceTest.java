package dev.cairn.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A native library's copy lives only while it is loaded: a relay killed with SIGKILL must not leave
 * copies in the temporary directory (each CI run's crash tests left eight).
 */
class NativeResourceTest {
  private static final String LIBRARY = SqliteWalVfs.LIBRARY;

  @BeforeAll
  static void built() {
    assumeTrue(NativeResourceTest.class.getResource(resource()) != null, "no cairn-wal build for this platform");
  }

  @Test
  void theLoaderReadsTheLibraryAndTheCopyIsGoneWhenItReturns() throws Exception {
    byte[] expected;
    try (InputStream in = getClass().getResourceAsStream(resource())) {
      expected = in.readAllBytes();
    }
    AtomicReference<byte[]> seen = new AtomicReference<>();
    Path copy = NativeResource.load(LIBRARY, file -> {
      seen.set(Files.readAllBytes(file));
      return file;
    });
    assertArrayEquals(expected, seen.get(), "the loader got the jar's library byte for byte");
    assertTrue(copy.getFileName().toString().startsWith("libcairnwal-"), copy.toString());
    assertTrue(Files.notExists(copy), "the copy is deleted once loaded: " + copy);
  }

  @Test
  void aLoaderThatFailsLeavesNoCopyEither() {
    AtomicReference<Path> copy = new AtomicReference<>();
    IOException thrown = assertThrows(IOException.class, () -> NativeResource.load(LIBRARY, file -> {
      copy.set(file);
      throw new IOException("refused");
    }));
    assertEquals("refused", thrown.getMessage());
    assertTrue(Files.notExists(copy.get()), "the copy is deleted after a failed load: " + copy.get());
  }

  @Test
  void aLibraryTheJarHasNoBuildOfIsNull() throws Exception {
    assertNull(NativeResource.load("libnot-built.so", file -> {
      throw new AssertionError("no copy to load");
    }));
  }

  private static String resource() {
    return NativeResource.RESOURCE_DIR + NativeResource.platform() + "/" + LIBRARY;
  }
}
