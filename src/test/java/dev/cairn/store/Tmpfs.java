package dev.cairn.store;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * A tmpfs mounted by a test, for what only a file system can do: refuse to map executables
 * ({@code noexec}), run out of space ({@code size}). Mounting needs root and the mount capability;
 * where either is missing {@link #mount} says false and the test is skipped, not failed.
 */
public final class Tmpfs {
  private Tmpfs() {}

  /** Mounts a tmpfs with {@code options} (say {@code size=8m}) on the existing directory {@code dir}. */
  public static boolean mount(Path dir, String options) {
    return run("mount", "-t", "tmpfs", "-o", options, "tmpfs", dir.toString()) == 0;
  }

  /** Changes a mounted tmpfs's options (a larger {@code size} frees space without touching its files). */
  public static boolean remount(Path dir, String options) {
    return run("mount", "-o", "remount," + options, dir.toString()) == 0;
  }

  public static boolean unmount(Path dir) {
    return run("umount", dir.toString()) == 0;
  }

  private static int run(String... command) {
    try {
      Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD)
          .start();
      return p.waitFor(30, TimeUnit.SECONDS) ? p.exitValue() : -1;
    } catch (IOException e) {
      return -1; // no mount command
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }
}
