package dev.cairn.config;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * The policy rules of every tenant, typed and validated: the top-level {@code policy} block (the
 * default tenant's rules, and the base of every other tenant's) and each {@code tenants[].policy}.
 *
 * <p>How a tenant block combines with the top-level one (docs/decisions/0002-policy-rules.md):
 * the lists that take something away ({@code block_*}, {@code mute_pubkeys}) are the union of both,
 * so an operator-wide ban holds in every tenant; {@code allow_pubkeys} is per tenant (the top-level
 * list is the default tenant's own allowlist, never inherited); objects ({@code duplicate_content},
 * {@code rate} and each rate) are merged key by key, the tenant's keys winning; scalars
 * ({@code writes_per_second}, {@code max_queries_in_flight}, {@code plugin_timeout}, ...) are the
 * tenant's when it sets them. The external judges ({@code plugin}, {@code java_policies}) are, like
 * {@code allow_pubkeys}, each tenant's own: the top-level ones are the default tenant's.
 *
 * <p>This is the part of the config that is reloaded without a restart.
 */
public record PolicyConfig(Map<String, TenantPolicy> tenants, TenantPolicy runtimeDefault) {

  /** Lists a tenant block adds to the top-level ones. */
  private static final Set<String> INHERITED_LISTS =
      Set.of("block_pubkeys", "block_event_ids", "block_words", "block_regexes", "mute_pubkeys");
  private static final Set<String> KEYS = Set.of("writes_per_second", "allow_pubkeys", "block_pubkeys",
      "block_event_ids", "block_words", "block_regexes", "mute_pubkeys", "duplicate_content", "rate",
      "max_queries_in_flight", "plugin", "plugin_timeout", "plugin_timeout_action", "plugin_max_in_flight",
      "java_policies");
  /**
   * Lists that are a tenant's own, never inherited from the top-level block (which is the default
   * tenant's); a {@code tenants[]} entry with id {@code default} adds to them. {@code plugin} is a
   * tenant's own too, and is replaced rather than added to.
   */
  private static final Set<String> OWN_LISTS = Set.of("allow_pubkeys", "java_policies");
  private static final Pattern CLASS_NAME =
      Pattern.compile("\\p{javaJavaIdentifierStart}\\p{javaJavaIdentifierPart}*(\\.\\p{javaJavaIdentifierStart}\\p{javaJavaIdentifierPart}*)*");
  private static final Set<String> DUPLICATE_KEYS = Set.of("window", "scope", "kinds", "min_length", "max_entries");
  private static final List<String> RATE_KEYS =
      List.of("events_per_ip", "events_per_pubkey", "reqs_per_ip", "connections_per_ip");
  private static final Set<String> ONE_RATE_KEYS = Set.of("per_second", "burst");
  private static final Pattern HEX64 = Pattern.compile("[0-9a-f]{64}");

  /** A token bucket: {@code perSecond} tokens a second, at most {@code burst} saved; off when perSecond is 0. */
  public record Rate(double perSecond, int burst) {
    public static final Rate OFF = new Rate(0, 1);

    public boolean enabled() {
      return perSecond > 0;
    }

    @Override
    public String toString() {
      return enabled() ? perSecond + "/s (burst " + burst + ")" : "off";
    }
  }

  /** Whose earlier content a new event is compared with. */
  public enum Scope {
    /** the same author's */
    PUBKEY,
    /** anyone's */
    GLOBAL;

    @Override
    public String toString() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** Duplicate-content rule: off when {@code window} is zero; empty {@code kinds} means every kind. */
  public record Duplicates(Duration window, Scope scope, Set<Integer> kinds, int minLength, int maxEntries) {
    public boolean enabled() {
      return !window.isZero();
    }

    @Override
    public String toString() {
      return enabled() ? "{window " + window.toSeconds() + "s, scope " + scope + ", kinds "
          + (kinds.isEmpty() ? "all" : kinds.stream().sorted().toList()) + ", min_length " + minLength
          + ", max_entries " + maxEntries + "}" : "off";
    }
  }

  /**
   * The write-policy plugin of a tenant (docs/plugins.md): an external command speaking strfry's
   * plugin protocol. {@code command} is empty when there is none; with {@code shell} it is one
   * string run by {@code /bin/sh -c} (as strfry does), otherwise the program and its arguments.
   * Two tenants whose {@code shell} and {@code command} are equal share one process.
   */
  public record Plugin(List<String> command, boolean shell, Duration timeout, boolean acceptOnFailure,
      int maxInFlight) {
    public boolean enabled() {
      return !command.isEmpty();
    }

    /** What identifies the process: the same key, the same process. */
    public String key() {
      return (shell ? "sh:" : "exec:") + String.join("\u0000", command);
    }

    /** The command as written. */
    public String commandLine() {
      return shell ? command.get(0) : String.join(" ", command);
    }

    @Override
    public String toString() {
      return enabled() ? "\"" + commandLine() + "\" (timeout " + timeout.toMillis() + "ms, then "
          + (acceptOnFailure ? "accept" : "reject") + ", max " + maxInFlight + " in flight)" : "off";
    }
  }

  /** The effective rules of one tenant. Regexes are compiled once, here. */
  public record TenantPolicy(
      double writesPerSecond,
      Set<String> allowPubkeys,
      Set<String> blockPubkeys,
      Set<String> blockEventIds,
      List<String> blockWords,
      List<Pattern> blockRegexes,
      Set<String> mutePubkeys,
      Duplicates duplicateContent,
      Rate eventsPerIp,
      Rate eventsPerPubkey,
      Rate reqsPerIp,
      Rate connectionsPerIp,
      int maxQueriesInFlight,
      Plugin plugin,
      List<String> javaPolicies) {

    /** The regexes as written, for comparisons (Pattern has no value equality). */
    public List<String> blockRegexSources() {
      return blockRegexes.stream().map(Pattern::pattern).toList();
    }
  }

  public TenantPolicy tenant(String id) {
    return tenants.get(id);
  }

  /**
   * The rules of {@code id}: its config-file ones, else {@code runtimeDefault}, what a tenant without a
   * {@code policy} block gets (a runtime tenant of the registry, which has no block of its own).
   */
  public TenantPolicy forTenant(String id) {
    TenantPolicy p = tenants.get(id);
    return p != null ? p : runtimeDefault;
  }

  /** Reads the rules of every tenant from the merged config (defaults, file, env). */
  public static PolicyConfig from(JsonObject config) {
    try {
      Object topValue = config.getValue("policy");
      if (!(topValue instanceof JsonObject top)) {
        throw new ConfigException("policy: must be an object");
      }
      Map<String, TenantPolicy> out = new LinkedHashMap<>();
      JsonObject defaultBlock = null;
      List<JsonObject> tenantEntries = new ArrayList<>();
      for (Object o : config.getJsonArray("tenants", new JsonArray())) {
        if (o instanceof JsonObject t) {
          tenantEntries.add(t);
          if (TenantConfig.DEFAULT.equals(t.getString("id"))) {
            defaultBlock = block(t);
          }
        }
      }
      out.put(TenantConfig.DEFAULT, parse(effective(top, defaultBlock, true), "policy"));
      for (JsonObject t : tenantEntries) {
        String id = String.valueOf(t.getValue("id"));
        if (!id.equals(TenantConfig.DEFAULT)) {
          out.put(id, parse(effective(top, block(t), false), "tenants[" + id + "].policy"));
        }
      }
      return new PolicyConfig(Map.copyOf(out), parse(effective(top, null, false), "policy"));
    } catch (ClassCastException | NullPointerException | NumberFormatException e) {
      throw new ConfigException("policy: a value has the wrong type: " + e.getMessage());
    }
  }

  private static JsonObject block(JsonObject tenant) {
    Object p = tenant.getValue("policy");
    if (p == null) {
      return null;
    }
    if (!(p instanceof JsonObject o)) {
      throw new ConfigException("tenants[" + tenant.getValue("id") + "].policy: must be an object");
    }
    unknownKeys(o, KEYS, "tenants[" + tenant.getValue("id") + "].policy");
    return o;
  }

  /** The top-level block with a tenant block laid over it, as the class comment says. */
  static JsonObject effective(JsonObject top, JsonObject over, boolean isDefault) {
    JsonObject eff = top.copy();
    if (!isDefault) {
      eff.put("allow_pubkeys", new JsonArray());
      eff.put("java_policies", new JsonArray());
      eff.put("plugin", "");
    }
    if (over == null) {
      return eff;
    }
    for (String key : over.fieldNames()) {
      Object v = over.getValue(key);
      Object base = eff.getValue(key);
      if ((INHERITED_LISTS.contains(key) || OWN_LISTS.contains(key))
          && v instanceof JsonArray add && base instanceof JsonArray have) {
        JsonArray union = have.copy();
        add.forEach(union::add);
        eff.put(key, union);
      } else if (v instanceof JsonObject o && base instanceof JsonObject b) {
        eff.put(key, deepMerge(b, o));
      } else {
        eff.put(key, v);
      }
    }
    return eff;
  }

  private static JsonObject deepMerge(JsonObject base, JsonObject over) {
    JsonObject out = base.copy();
    for (String key : over.fieldNames()) {
      Object v = over.getValue(key);
      if (v instanceof JsonObject o && out.getValue(key) instanceof JsonObject b) {
        out.put(key, deepMerge(b, o));
      } else {
        out.put(key, v);
      }
    }
    return out;
  }

  static TenantPolicy parse(JsonObject p, String path) {
    unknownKeys(p, KEYS, path);
    double writes = number(p, "writes_per_second", path);
    if (writes < 0) {
      throw new ConfigException(path + ".writes_per_second: must be 0 (off) or more, got " + writes);
    }
    int inFlight = (int) integer(p, "max_queries_in_flight", path);
    if (inFlight < 0) {
      throw new ConfigException(path + ".max_queries_in_flight: must be 0 (off) or more, got " + inFlight);
    }
    JsonObject rate = object(p, "rate", path);
    unknownKeys(rate, Set.copyOf(RATE_KEYS), path + ".rate");
    return new TenantPolicy(
        writes,
        hexSet(p, "allow_pubkeys", path, "pubkey"),
        hexSet(p, "block_pubkeys", path, "pubkey"),
        hexSet(p, "block_event_ids", path, "event id"),
        words(p, path),
        regexes(p, path),
        hexSet(p, "mute_pubkeys", path, "pubkey"),
        duplicates(object(p, "duplicate_content", path), path + ".duplicate_content"),
        rate(rate, "events_per_ip", path + ".rate"),
        rate(rate, "events_per_pubkey", path + ".rate"),
        rate(rate, "reqs_per_ip", path + ".rate"),
        rate(rate, "connections_per_ip", path + ".rate"),
        inFlight,
        plugin(p, path),
        javaPolicies(p, path));
  }

  private static Plugin plugin(JsonObject p, String path) {
    Object c = p.getValue("plugin");
    List<String> command = new ArrayList<>();
    boolean shell;
    if (c == null || c instanceof String) {
      shell = true;
      String s = c == null ? "" : ((String) c).trim();
      if (!s.isEmpty()) {
        command.add(s);
      }
    } else if (c instanceof JsonArray a) {
      shell = false;
      for (int i = 0; i < a.size(); i++) {
        Object v = a.getValue(i);
        if (!(v instanceof String s) || (i == 0 && s.isBlank())) {
          throw new ConfigException(path + ".plugin[" + i + "]: must be a " + (i == 0 ? "non-empty " : "")
              + "string, got " + v);
        }
        command.add(s);
      }
    } else {
      throw new ConfigException(path + ".plugin: must be a command (a string, run by /bin/sh -c), a list "
          + "[program, args...], or \"\" for none; got " + c);
    }
    Object t = p.getValue("plugin_timeout");
    if (!(t instanceof String timeoutText)) {
      throw new ConfigException(path + ".plugin_timeout: must be a duration such as \"2s\" or \"500ms\", got " + t);
    }
    Duration timeout = Durations.parse(path + ".plugin_timeout", timeoutText);
    if (timeout.toMillis() < 10 || timeout.compareTo(Duration.ofMinutes(5)) > 0) {
      throw new ConfigException(path + ".plugin_timeout: must be between 10ms and 5m, got " + timeoutText);
    }
    Object a = p.getValue("plugin_timeout_action");
    boolean accept;
    if ("reject".equals(a)) {
      accept = false;
    } else if ("accept".equals(a)) {
      accept = true;
    } else {
      throw new ConfigException(path + ".plugin_timeout_action: must be \"reject\" or \"accept\", got " + a);
    }
    long max = integer(p, "plugin_max_in_flight", path);
    if (max < 1 || max > 100_000) {
      throw new ConfigException(path + ".plugin_max_in_flight: must be between 1 and 100000, got " + max);
    }
    return new Plugin(List.copyOf(command), shell, timeout, accept, (int) max);
  }

  private static List<String> javaPolicies(JsonObject p, String path) {
    JsonArray a = array(p, "java_policies", path);
    Set<String> out = new LinkedHashSet<>();
    for (int i = 0; i < a.size(); i++) {
      Object v = a.getValue(i);
      if (!(v instanceof String s) || !CLASS_NAME.matcher(s.trim()).matches()) {
        throw new ConfigException(path + ".java_policies[" + i + "]: must be a fully qualified class name, got " + v);
      }
      String name = s.trim();
      Set<String> registered = registeredWritePolicies();
      if (!registered.contains(name)) {
        throw new ConfigException(path + ".java_policies[" + i + "]: " + name + " is not a WritePolicy found on the "
            + "classpath (listed in " + SERVICES + "); found: "
            + (registered.isEmpty() ? "none" : String.join(", ", registered)));
      }
      out.add(name);
    }
    return List.copyOf(out);
  }

  /** The ServiceLoader file of the policy SPI ({@code dev.cairn.policy.WritePolicy}). */
  static final String SERVICES = "META-INF/services/dev.cairn.policy.WritePolicy";

  /**
   * The class names the classpath's {@link #SERVICES} files list (what {@link java.util.ServiceLoader}
   * will offer the policy node): read here so that a name that is not there is a config error, at
   * start as at a reload, like every other bad rule.
   */
  static Set<String> registeredWritePolicies() {
    Set<String> out = new LinkedHashSet<>();
    try {
      ClassLoader cl = PolicyConfig.class.getClassLoader();
      for (java.net.URL url : java.util.Collections.list(cl.getResources(SERVICES))) {
        try (java.io.InputStream in = url.openStream()) {
          String text = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
          for (String line : text.split("\\R")) {
            int hash = line.indexOf('#');
            String name = (hash >= 0 ? line.substring(0, hash) : line).trim();
            if (!name.isEmpty()) {
              out.add(name);
            }
          }
        }
      }
    } catch (java.io.IOException e) {
      throw new ConfigException("java_policies: cannot read " + SERVICES + " from the classpath: " + e.getMessage());
    }
    return out;
  }

  private static Duplicates duplicates(JsonObject d, String path) {
    unknownKeys(d, DUPLICATE_KEYS, path);
    Object w = d.getValue("window");
    if (!(w instanceof String window)) {
      throw new ConfigException(path + ".window: must be a duration such as \"10m\" (\"0s\" = off)");
    }
    Object s = d.getValue("scope");
    Scope scope;
    if ("pubkey".equals(s)) {
      scope = Scope.PUBKEY;
    } else if ("global".equals(s)) {
      scope = Scope.GLOBAL;
    } else {
      throw new ConfigException(path + ".scope: must be \"pubkey\" (the same author) or \"global\" (anyone), got " + s);
    }
    Set<Integer> kinds = new LinkedHashSet<>();
    JsonArray k = array(d, "kinds", path);
    for (int i = 0; i < k.size(); i++) {
      Object v = k.getValue(i);
      long kind;
      try {
        kind = v instanceof Number n ? n.longValue() : Long.parseLong(String.valueOf(v).trim());
      } catch (NumberFormatException e) {
        kind = -1;
      }
      if (kind < 0 || kind > 65535 || (v instanceof Number n && n.doubleValue() != kind)) {
        throw new ConfigException(path + ".kinds[" + i + "]: \"" + v + "\" is not an event kind (0-65535)");
      }
      kinds.add((int) kind);
    }
    long minLength = integer(d, "min_length", path);
    long maxEntries = integer(d, "max_entries", path);
    if (minLength < 0) {
      throw new ConfigException(path + ".min_length: must be 0 or more, got " + minLength);
    }
    if (maxEntries < 1 || maxEntries > 10_000_000) {
      throw new ConfigException(path + ".max_entries: must be between 1 and 10000000, got " + maxEntries);
    }
    return new Duplicates(Durations.parse(path + ".window", window), scope, Set.copyOf(kinds), (int) minLength,
        (int) maxEntries);
  }

  private static Rate rate(JsonObject rates, String key, String path) {
    String p = path + "." + key;
    JsonObject r = object(rates, key, path);
    unknownKeys(r, ONE_RATE_KEYS, p);
    double perSecond = number(r, "per_second", p);
    long burst = integer(r, "burst", p);
    if (perSecond < 0 || Double.isNaN(perSecond) || Double.isInfinite(perSecond)) {
      throw new ConfigException(p + ".per_second: must be 0 (off) or a positive number, got " + perSecond);
    }
    if (perSecond > 0 && (burst < 1 || burst > 1_000_000)) {
      throw new ConfigException(p + ".burst: must be between 1 and 1000000 when per_second is set, got " + burst);
    }
    return perSecond == 0 ? Rate.OFF : new Rate(perSecond, (int) burst);
  }

  private static Set<String> hexSet(JsonObject p, String key, String path, String what) {
    JsonArray a = array(p, key, path);
    Set<String> out = new LinkedHashSet<>();
    for (int i = 0; i < a.size(); i++) {
      String v = String.valueOf(a.getValue(i)).trim().toLowerCase(Locale.ROOT);
      if (!HEX64.matcher(v).matches()) {
        throw new ConfigException(path + "." + key + "[" + i + "]: \"" + a.getValue(i) + "\" is not a " + what
            + " (64 hex characters)");
      }
      out.add(v);
    }
    return Set.copyOf(out);
  }

  private static List<String> words(JsonObject p, String path) {
    JsonArray a = array(p, "block_words", path);
    List<String> out = new ArrayList<>();
    for (int i = 0; i < a.size(); i++) {
      Object v = a.getValue(i);
      if (!(v instanceof String s) || s.isBlank()) {
        throw new ConfigException(path + ".block_words[" + i + "]: must be a non-empty string, got " + v);
      }
      out.add(s);
    }
    return List.copyOf(out);
  }

  private static List<Pattern> regexes(JsonObject p, String path) {
    JsonArray a = array(p, "block_regexes", path);
    List<Pattern> out = new ArrayList<>();
    for (int i = 0; i < a.size(); i++) {
      Object v = a.getValue(i);
      if (!(v instanceof String s) || s.isEmpty()) {
        throw new ConfigException(path + ".block_regexes[" + i + "]: must be a non-empty string, got " + v);
      }
      try {
        out.add(Pattern.compile(s));
      } catch (PatternSyntaxException e) {
        throw new ConfigException(path + ".block_regexes[" + i + "]: \"" + s + "\" is not a valid Java regex: "
            + e.getDescription() + (e.getIndex() >= 0 ? " near index " + e.getIndex() : ""));
      }
    }
    return List.copyOf(out);
  }

  private static void unknownKeys(JsonObject o, Set<String> known, String path) {
    for (String k : o.fieldNames()) {
      if (!known.contains(k)) {
        throw new ConfigException(path + ": unknown key \"" + k + "\" (known: " + String.join(", ", known.stream().sorted().toList()) + ")");
      }
    }
  }

  private static JsonObject object(JsonObject o, String key, String path) {
    Object v = o.getValue(key);
    if (!(v instanceof JsonObject j)) {
      throw new ConfigException(path + "." + key + ": must be an object");
    }
    return j;
  }

  private static JsonArray array(JsonObject o, String key, String path) {
    Object v = o.getValue(key);
    if (!(v instanceof JsonArray a)) {
      throw new ConfigException(path + "." + key + ": must be a list");
    }
    return a;
  }

  private static double number(JsonObject o, String key, String path) {
    Object v = o.getValue(key);
    if (v instanceof Number n) {
      return n.doubleValue();
    }
    throw new ConfigException(path + "." + key + ": must be a number, got " + v);
  }

  private static long integer(JsonObject o, String key, String path) {
    Object v = o.getValue(key);
    if (v instanceof Number n && n.doubleValue() == n.longValue()) {
      return n.longValue();
    }
    throw new ConfigException(path + "." + key + ": must be a whole number, got " + v);
  }
}
