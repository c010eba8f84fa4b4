package dev.cairn.cli;

import dev.cairn.config.CairnConfig;
import dev.cairn.store.MetaStore;
import dev.cairn.store.StoreDirLock;
import dev.cairn.store.StoreException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.List;
import java.util.Set;

/**
 * {@code cairn new-epoch}: gives tenants a new feed epoch, for after a restore of an older backup.
 *
 * <p>A restored store hands out again seqs its SSE consumers have already seen; with the old epoch
 * their cursors would resume silently at the wrong place once new writes pass them. A new epoch
 * makes every old cursor a {@code reset(server_restart)} instead (CONTRACT section 4), so each
 * consumer re-lists. Only while no relay runs on the store: a running relay keeps its epochs in
 * memory, so the command takes the store's lock (refused, naming the holder, otherwise).
 */
final class NewEpochCommand {
  private static final Set<String> VALUED = Set.of("--tenant", "--config");
  private static final Set<String> FLAGS = Set.of("--all");

  private final Cli.Io io;

  NewEpochCommand(Cli.Io io) {
    this.io = io;
  }

  int run(List<String> argv) throws UsageException, IOException {
    if (Cli.wantsHelp(argv)) {
      return Cli.printUsage(io);
    }
    Args a = Args.parse("new-epoch", argv, VALUED, FLAGS, 0);
    boolean all = a.has("--all");
    if (all == (a.value("--tenant") != null)) {
      throw new UsageException("new-epoch needs exactly one of --tenant T or --all");
    }
    String tenant = all ? null : CommandSupport.tenant(a);
    CairnConfig config = CommandSupport.config(a, io.env());
    if (!Files.isRegularFile(config.storeDir().resolve("meta.db"))) {
      io.err().println("cairn new-epoch: no store at " + config.storeDir().toAbsolutePath() + " (no meta.db)");
      return Cli.FAILED;
    }
    try (StoreDirLock lock = StoreDirLock.acquire(config.storeDir(), "new-epoch", List.of());
        MetaStore meta = MetaStore.open(config.storeDir().resolve("meta.db"))) {
      List<String> tenants = all ? meta.tenants() : List.of(tenant);
      for (String t : tenants) {
        String old = meta.feedEpoch(t);
        if (old == null) {
          io.err().println("cairn new-epoch: tenant " + t + " is not registered in " + config.storeDir().resolve("meta.db"));
          return Cli.FAILED;
        }
        String fresh = meta.rotateFeedEpoch(t);
        io.out().write(("tenant " + t + ": feed epoch " + old + " -> " + fresh + "\n").getBytes(StandardCharsets.UTF_8));
      }
      io.out().flush();
      return Cli.OK;
    } catch (StoreException e) {
      io.err().println("cairn new-epoch: " + e.getMessage());
      return Cli.FAILED;
    }
  }
}
