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
 * jar first.
 */
final class NativeResource {
  static final String RESOURCE_DIR = "/dev/cairn/store/native/";

  private NativeResource() {}

  /**
   * {@code library} of this platform copied to a temporary file (deleted when the JVM exits), or null
   * when the jar has no build of it for this platform ({@link #missing()} says so).
   */
  static Path extract(String library) throws IOException {
    String platform = platform();
    if (platform == null) {
      return null;
    }
    try (InputStream in = NativeResource.class.getResourceAsStream(RESOURCE_DIR + platform + "/" + library)) {
      if (in == null) {
        return null;
      }
      String base = library.replaceFirst("\\.so$", "");
      Path file = Files.createTempFile(base + "-", ".so");
      file.toFile().deleteOnExit();
      Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
      return file;
    }
  }

  /** Why {@link #extract} found nothing. */
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
