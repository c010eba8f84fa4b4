package dev.cairn.store;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;

/**
 * The native libraries the build puts on the class path ({@code src/main/c/build.sh}) under
 * {@code RESOURCE_DIR/<platform>/}: a library must be a file to be loaded, so it is copied out of the
 * jar first, and the copy deleted once loaded.
 */
final class NativeResource {
  static final String RESOURCE_DIR = "/dev/cairn/store/native/";

  private NativeResource() {}

  /** What is done with a library's copy: load it (and return what the caller keeps of it, not null). */
  @FunctionalInterface
  interface Loader<T, E extends Exception> {
    T load(Path copy) throws E;
  }

  /**
   * Loads {@code library} of this platform through {@code loader} from a temporary copy, deleted as soon
   * as the loader returns: a loaded library stays mapped, so nothing is left behind, even by a process
   * killed with SIGKILL (copies marked delete-on-exit were, one per library and process). Returns what the
   * loader returned, or null when the jar has no build of the library for this platform ({@link
   * #missing()} says so).
   */
  static <T, E extends Exception> T load(String library, Loader<T, E> loader) throws IOException, E {
    String platform = platform();
    if (platform == null) {
      return null;
    }
    Path copy;
    try (InputStream in = NativeResource.class.getResourceAsStream(RESOURCE_DIR + platform + "/" + library)) {
      if (in == null) {
        return null;
      }
      copy = Files.createTempFile(library.replaceFirst("\\.so$", "") + "-", ".so");
      try {
        Files.copy(in, copy, StandardCopyOption.REPLACE_EXISTING);
      } catch (IOException e) {
        Files.deleteIfExists(copy);
        throw e;
      }
    }
    try {
      return loader.load(copy);
    } finally {
      Files.deleteIfExists(copy);
    }
  }

  /** Why {@link #load} found nothing. */
  static String missing() {
    return "no build of it for " + System.getProperty("os.name") + " " + System.getProperty("os.arch") + " in this jar";
  }

  /** The build's name for this platform ({@code src/main/c/build.sh}), null where there is none. */
  static String platform() {
    if (!System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("linux")) {
      return null;
    }
    return switch (System.getProperty("os.arch", "")) {
      case "amd64", "x86_64" -> "linux-x86_64";
      case "aarch64", "arm64" -> "linux-aarch64";
      default -> null;
    };
  }
}
