package dev.cairn.cli;

import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The command line of {@code cairn.jar}: {@code [serve]} runs the relay (Main), {@code export} and
 * {@code import} are tools over a store ({@link ExportCommand}, {@link ImportCommand}),
 * {@code --help} and {@code --version} answer and exit 0, anything else is a usage error (exit 2).
 */
public final class Cli {
  /** Exit codes: done; failed (I/O, store, connection); bad command line or config; done, some lines refused. */
  public static final int OK = 0;
  public static final int FAILED = 1;
  public static final int USAGE = 2;
  public static final int REFUSED = 3;

  static final String USAGE_TEXT = """
      usage: java -jar cairn.jar [serve] [--config FILE]
             java -jar cairn.jar export [--tenant T] [--since S] [--until U] [--kinds K,...]
                                        [--include-expired] [--config FILE] [--quiet]
             java -jar cairn.jar import [--tenant T] [--config FILE] [--url URL | --direct]
                                        [--batch N] [--threads N] [--in-flight N]
                                        [--allow-protected] [--quiet] [FILE]
             java -jar cairn.jar new-epoch (--tenant T | --all) [--config FILE]
             java -jar cairn.jar --help | --version

      serve (the default): run the relay. --config FILE is its JSON config; every key can be
        overridden by an environment variable CAIRN_<PATH> (CAIRN_HTTP_PORT=7778).

      export: write the tenant's stored events to stdout, one event JSON per line (JSONL, the
        stored bytes, like strfry export), in store order (seq ascending: the order the relay
        stored them). One consistent snapshot, read-only: safe while the relay runs.
        --tenant T         tenant id (default: default)
        --since S          only events with created_at >= S (epoch seconds)
        --until U          only events with created_at <= U (epoch seconds)
        --kinds K,...      only these kinds (comma-separated)
        --include-expired  also events whose NIP-40 expiration has passed (skipped by default)

      import: apply JSONL events (FILE, or stdin when FILE is absent or -) as live EVENTs would be:
        parsed, id and signature verified, the write rules applied (NIP-09 deletions, replaceable
        and addressable events, NIP-40 expiry, duplicates), stored with their outbox and change-feed
        rows. A line is an event object or an ["EVENT",{...}] / ["EVENT","<sub>",{...}] array;
        blank lines are skipped. Prints a count per outcome (stored, duplicate: ..., invalid: ...).
        Mode: while a relay runs on the store (it holds <store.dir>/cairn.lock) the events are
        published to it over WebSocket; otherwise they are written to the store directly.
        --url URL          publish to this relay (ws:// or wss://, with the tenant's path)
        --direct           write the store directly (refused while a relay holds the store)
        --batch N          direct: events per transaction (default: store.max_batch)
        --threads N        direct: signature-verification threads (default: one per core)
        --in-flight N      network: EVENTs sent and not yet answered (default 1000)
        --allow-protected  direct: import NIP-70 protected events too (refused by default)

      new-epoch: give the tenant (or every tenant) a new change-feed epoch, after restoring an
        older backup: every SSE cursor of the old epoch then gets reset(server_restart) and its
        consumer re-lists, instead of resuming at seqs the restore hands out again. Only while no
        relay runs on the store (refused otherwise). Prints "tenant T: feed epoch OLD -> NEW".

      common options:
        --tenant T         tenant id (default: default)
        --config FILE      the relay's config file (store.dir, tenants, limits, policy)
        --quiet            no progress lines on stderr

      exit status: 0 done; 1 failed; 2 bad command line or config; 3 import done but some lines
        were refused (invalid, blocked, ...). Details: docs/cli.md.
      """;

  private Cli() {}

  /** The streams and environment of one run; tests pass their own. */
  public record Io(Map<String, String> env, InputStream in, OutputStream out, PrintStream err) {
    public static Io system() {
      // stdout unbuffered-by-line would cost a syscall per event: the commands buffer it themselves.
      return new Io(System.getenv(), new FileInputStream(FileDescriptor.in), new FileOutputStream(FileDescriptor.out),
          System.err);
    }
  }

  /**
   * For Main: runs a command, {@code --help} or {@code --version} and exits with its status;
   * returns the relay's {@code --config} file (null when none) when {@code args} start the relay.
   */
  public static Path dispatch(String[] args) {
    List<String> argv = commandFirst(List.of(args));
    boolean serve = argv.isEmpty() || argv.get(0).equals("serve") || argv.get(0).equals("--config")
        || argv.get(0).startsWith("--config=");
    if (!serve || wantsHelp(argv)) {
      System.exit(run(serve ? List.of("--help") : argv, Io.system()));
    }
    try {
      return serveConfig(argv.isEmpty() || !argv.get(0).equals("serve") ? argv : argv.subList(1, argv.size()));
    } catch (UsageException e) {
      System.err.println("cairn: " + e.getMessage() + " (java -jar cairn.jar --help for usage)");
      System.exit(USAGE);
      return null;
    }
  }

  /**
   * {@code --config FILE export ...} as {@code export --config FILE ...}: an entrypoint that always
   * passes the relay's {@code --config} first (docker/Dockerfile) can still run the tools.
   */
  static List<String> commandFirst(List<String> argv) {
    Set<String> commands = Set.of("export", "import", "new-epoch");
    List<String> out = new java.util.ArrayList<>();
    if (argv.size() >= 3 && argv.get(0).equals("--config") && commands.contains(argv.get(2))) {
      out.add(argv.get(2));
      out.addAll(argv.subList(0, 2));
      out.addAll(argv.subList(3, argv.size()));
      return out;
    }
    if (argv.size() >= 2 && argv.get(0).startsWith("--config=") && commands.contains(argv.get(1))) {
      out.add(argv.get(1));
      out.add(argv.get(0));
      out.addAll(argv.subList(2, argv.size()));
      return out;
    }
    return argv;
  }

  /** The relay's {@code --config}, or null. */
  static Path serveConfig(List<String> argv) throws UsageException {
    Args a = Args.parse("the relay", argv, Set.of("--config"), Set.of(), 0);
    return a.value("--config") == null ? null : Path.of(a.value("--config"));
  }

  /** Runs one command line that is not the relay; returns its exit status. */
  public static int run(List<String> argv, Io io) {
    String first = argv.isEmpty() ? "--help" : argv.get(0);
    List<String> rest = argv.subList(Math.min(1, argv.size()), argv.size());
    try {
      switch (first) {
        case "--help", "-h", "help" -> {
          if (!rest.isEmpty()) {
            throw new UsageException(first + " takes no argument");
          }
          return printUsage(io);
        }
        case "--version", "-V", "version" -> {
          if (!rest.isEmpty()) {
            throw new UsageException(first + " takes no argument");
          }
          io.out().write(("cairn " + version() + "\n").getBytes(StandardCharsets.UTF_8));
          io.out().flush();
          return OK;
        }
        case "export" -> {
          quietLogs();
          return new ExportCommand(io).run(rest);
        }
        case "import" -> {
          quietLogs();
          return new ImportCommand(io).run(rest);
        }
        case "new-epoch" -> {
          quietLogs();
          return new NewEpochCommand(io).run(rest);
        }
        case "serve" -> throw new UsageException("serve runs the relay: java -jar cairn.jar serve [--config FILE]");
        default -> throw new UsageException(first.startsWith("-")
            ? "unknown option " + first
            : "unknown command \"" + first + "\" (commands: serve, export, import, new-epoch)");
      }
    } catch (UsageException e) {
      io.err().println("cairn: " + e.getMessage() + " (java -jar cairn.jar --help for usage)");
      return USAGE;
    } catch (java.io.IOException e) {
      io.err().println("cairn: " + e.getMessage());
      return FAILED;
    }
  }

  /** {@code Implementation-Version} of the jar's manifest (set by the shade plugin from the POM). */
  public static String version() {
    String v = Cli.class.getPackage().getImplementationVersion();
    return v == null ? "(development build: not run from cairn.jar)" : v;
  }

  /** The store logs at INFO; a tool's stderr is for its progress and its warnings. */
  private static void quietLogs() {
    Logger root = Logger.getLogger("");
    if (root.getLevel() == null || root.getLevel().intValue() < Level.WARNING.intValue()) {
      root.setLevel(Level.WARNING);
    }
  }

  /** Prints the usage text on stdout; the exit status of a help request. */
  static int printUsage(Io io) throws java.io.IOException {
    io.out().write(USAGE_TEXT.getBytes(StandardCharsets.UTF_8));
    io.out().flush();
    return OK;
  }

  /** Whether {@code arg} asks for a command's help. */
  static boolean wantsHelp(List<String> argv) {
    return argv.contains("--help") || argv.contains("-h");
  }
}
