package dev.cairn.policy;

import dev.cairn.config.ConfigException;
import dev.cairn.config.PolicyConfig;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The {@link WritePolicy} implementations on the classpath (found once, with
 * {@link ServiceLoader}, when the policy node starts) and the instances the config enables: one per
 * class, created the first time a tenant lists it, shared by every tenant that lists it. Finding
 * and creating run on a worker thread (class loading is I/O); {@link #get} is for the event loop.
 */
final class JavaPolicies {
  private static final Logger LOG = Logger.getLogger(JavaPolicies.class.getName());

  private final Map<String, ServiceLoader.Provider<WritePolicy>> available;
  private final Map<String, WritePolicy> instances = new ConcurrentHashMap<>();

  private JavaPolicies(Map<String, ServiceLoader.Provider<WritePolicy>> available) {
    this.available = available;
  }

  /** Lists the implementations on the classpath. Worker thread. */
  static JavaPolicies discover() {
    Map<String, ServiceLoader.Provider<WritePolicy>> found = new LinkedHashMap<>();
    var it = ServiceLoader.load(WritePolicy.class, WritePolicy.class.getClassLoader()).stream().iterator();
    while (true) {
      try {
        if (!it.hasNext()) {
          break;
        }
        ServiceLoader.Provider<WritePolicy> p = it.next();
        found.put(p.type().getName(), p);
      } catch (ServiceConfigurationError e) {
        LOG.log(Level.WARNING, "a WritePolicy listed in META-INF/services cannot be loaded: " + e.getMessage());
      }
    }
    if (!found.isEmpty()) {
      LOG.info("Java write policies on the classpath: " + String.join(", ", found.keySet()));
    }
    return new JavaPolicies(Map.copyOf(found));
  }

  /**
   * Creates the instances of the classes the tenants list that are not made yet. Worker thread.
   * (The config already checked that each is listed in a services file.) A class that cannot be
   * loaded or created is, when {@code strict} (a reload), a config error that keeps the old rules;
   * otherwise (the node starting) it is logged and stands in as a policy that refuses every event
   * with {@code error: internal error}, so a broken policy fails closed rather than disappearing.
   */
  void prepare(PolicyConfig config, boolean strict) {
    for (PolicyConfig.TenantPolicy p : config.tenants().values()) {
      for (String name : p.javaPolicies()) {
        if (instances.containsKey(name)) {
          continue;
        }
        String problem;
        ServiceLoader.Provider<WritePolicy> provider = available.get(name);
        if (provider == null) {
          problem = name + " is not a WritePolicy found on the classpath (META-INF/services/"
              + WritePolicy.class.getName() + "); found: "
              + (available.isEmpty() ? "none" : String.join(", ", available.keySet()));
        } else {
          try {
            instances.putIfAbsent(name, provider.get());
            continue;
          } catch (ServiceConfigurationError | RuntimeException e) {
            problem = name + " cannot be created: " + e.getMessage();
          }
        }
        if (strict) {
          throw new ConfigException("java_policies: " + problem);
        }
        LOG.severe("java_policies: " + problem + "; events of the tenants that list it are refused");
        instances.putIfAbsent(name, request -> WritePolicy.Decision.reject("error: internal error"));
      }
    }
  }

  /** The instance of a listed class ({@link #prepare} made it). */
  WritePolicy get(String name) {
    return instances.get(name);
  }
}
