package dev.cairn.cli;

import dev.cairn.config.CairnConfig;
import dev.cairn.config.ConfigException;
import dev.cairn.config.ConfigLoader;
import dev.cairn.config.TenantConfig;
import java.nio.file.Path;
import java.util.Map;

/** What the commands share: the relay's config (file and CAIRN_* environment) and the tenant's DB file. */
final class CommandSupport {
  private CommandSupport() {}

  /** The effective config of {@code --config} (or the defaults) with the environment's overrides. */
  static CairnConfig config(Args a, Map<String, String> env) throws UsageException {
    String file = a.value("--config");
    try {
      return ConfigLoader.load(file == null ? null : Path.of(file), env);
    } catch (ConfigException e) {
      throw new UsageException("bad configuration: " + e.getMessage());
    } catch (RuntimeException e) {
      throw new UsageException("cannot read the configuration " + (file == null ? "" : file + ": ") + e.getMessage());
    }
  }

  /** {@code --tenant}, checked for its spelling (default {@code default}). */
  static String tenant(Args a) throws UsageException {
    String t = a.value("--tenant", TenantConfig.DEFAULT);
    if (!TenantConfig.isValidId(t)) {
      throw new UsageException("--tenant \"" + t + "\" is not a tenant id ([a-z0-9][a-z0-9_-]{0,62})");
    }
    return t;
  }

  /** {@code <store.dir>/tenants/<tenant>.db}, where the relay keeps the tenant's events. */
  static Path tenantDb(CairnConfig config, String tenant) {
    return config.storeDir().resolve("tenants").resolve(tenant + ".db").toAbsolutePath().normalize();
  }

  /** "1.2 s", "3 m 04 s", "1 h 02 m". */
  static String duration(double seconds) {
    if (seconds < 60) {
      return String.format("%.1f s", seconds);
    }
    long s = Math.round(seconds);
    if (s < 3600) {
      return String.format("%d m %02d s", s / 60, s % 60);
    }
    return String.format("%d h %02d m", s / 3600, (s % 3600) / 60);
  }
}
