package dev.cairn.store;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.logging.Logger;
import java.util.stream.Stream;

/**
 * {@code <store.dir>/cairn-tmp}: files the relay needs only while it runs. The start-up warm-up's
 * stores, the native libraries sqlite-jdbc and libsecp256k1 copy out of their jars, and Vert.x's file
 * cache lived in the system's temporary directory, where a relay killed with SIGKILL left them for
 * good (the libraries' own clean-up trusts lock files deleted only at a normal exit): ~2.4 MB of
 * libraries per kill, and ~50 MB of warm-up store per kill during the warm-up. Here, whoever takes
 * the store directory's lock ({@link StoreDirLock}) empties it first, so what a killed relay left
 * goes at the next start.
 */
public final class ScratchDir {
  private static final Logger LOG = Logger.getLogger(ScratchDir.class.getName());
  public static final String NAME = "cairn-tmp";
  /** The system properties through which the two libraries are told where to copy themselves. */
  static final String SQLITE_TMPDIR = "org.sqlite.tmpdir";
  static final String SECP256K1_TMPDIR = "fr.acinq.secp256k1.tmpdir";

  private ScratchDir() {}

  /** The scratch directory of {@code storeDir}. */
  public static Path of(Path storeDir) {
    return storeDir.toAbsolutePath().normalize().resolve(NAME);
  }

  /**
   * Empties (or creates) the scratch directory of {@code storeDir}; only the store lock's holder may
   * (nobody else uses it then). Symbolic links inside are removed, never followed.
   */
  static void reset(Path storeDir) {
    Path dir = of(storeDir);
    delete(dir);
    if (Files.exists(dir)) {
      throw new StoreException("cannot empty " + dir + ": a file in it could not be deleted");
    }
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new StoreException("cannot create " + dir, e);
    }
  }

  /**
   * Deletes {@code dir} and what is in it, as far as it can (null: nothing); links are removed, never
   * followed. What is left in the scratch directory goes at the next start.
   */
  static void delete(Path dir) {
    if (dir == null) {
      return;
    }
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // what could not be listed stays: reset() says so, the warm-up's stores go at the next start
    }
  }

  /** A new directory named {@code prefix...} in the scratch directory of {@code storeDir}. */
  static Path newDirectory(Path storeDir, String prefix) {
    try {
      return Files.createTempDirectory(Files.createDirectories(of(storeDir)), prefix);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Points sqlite-jdbc and libsecp256k1 at the scratch directory of {@code storeDir} for the copies of
   * their native libraries: JVM-wide, read when each library loads (once per JVM, at its first use);
   * a property the operator set is kept. Not where the directory's file system cannot map a library
   * for execution (mounted {@code noexec}, as data volumes often are), nor where it has less than
   * {@link #NATIVE_ROOM} free (a copy cut short by a full volume does not load): they stay in the
   * system's temporary directory then, as the log says.
   */
  public static void holdNativeLibraries(Path storeDir) {
    Path dir = of(storeDir);
    String elsewhere = ": sqlite-jdbc and libsecp256k1 copy their native libraries to the system's temporary"
        + " directory, where a relay killed with SIGKILL leaves them";
    if (!allowsExecution(dir)) {
      LOG.warning(dir + " does not allow executable files (a noexec mount?)" + elsewhere);
      return;
    }
    long free = usableSpace(dir);
    if (free < NATIVE_ROOM) {
      LOG.warning(dir + " has " + (free >> 20) + " MiB free" + elsewhere + " (a truncated copy would not load)");
      return;
    }
    for (String property : new String[] {SQLITE_TMPDIR, SECP256K1_TMPDIR}) {
      if (System.getProperty(property) == null) {
        System.setProperty(property, dir.toString());
      }
    }
  }

  /** Bytes free below which the libraries' copies (~2.4 MB) do not go to the scratch directory: a full store volume. */
  static final long NATIVE_ROOM = 64L << 20;

  /** Bytes this JVM may still write on {@code dir}'s file system (0 when it cannot tell). */
  static long usableSpace(Path dir) {
    try {
      return Files.getFileStore(dir).getUsableSpace();
    } catch (IOException e) {
      return 0;
    }
  }

  /** Whether an executable file in {@code dir} may be executed: access(2) says no on a noexec mount. */
  static boolean allowsExecution(Path dir) {
    Path probe = null;
    try {
      probe = Files.createTempFile(Files.createDirectories(dir), "exec-probe-", ".so");
      return probe.toFile().setExecutable(true, true) && Files.isExecutable(probe);
    } catch (IOException e) {
      return false;
    } finally {
      if (probe != null) {
        probe.toFile().delete();
      }
    }
  }
}
