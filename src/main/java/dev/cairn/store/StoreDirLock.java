package dev.cairn.store;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code <store.dir>/cairn.lock}: who writes this store directory. The relay holds it while it runs,
 * a direct {@code cairn import} while it imports. Each tenant store keeps its seq high water in memory
 * and assigns seqs from it, so two writers on one store would hand out the same seqs: whoever holds
 * this lock is the only writer. The lock is an OS file lock ({@link FileChannel#tryLock}), released
 * by the OS when the process dies (a {@code kill -9} leaves the file, never a stale lock); the file
 * says who holds it: {@code {"pid", "role", "ws": [urls], "since"}}. Taking it empties the store's
 * {@link ScratchDir}.
 *
 * <p>Locks this JVM holds are kept in a table and never probed through a second channel: closing any
 * channel on the file would drop every POSIX lock the process has on it.
 */
public final class StoreDirLock implements AutoCloseable {
  public static final String FILE = "cairn.lock";

  private static final Map<Path, StoreDirLock> HELD = new HashMap<>();

  private final Path file;
  private final FileChannel channel;
  private final FileLock lock;
  private final JsonObject info;

  private StoreDirLock(Path file, FileChannel channel, FileLock lock, JsonObject info) {
    this.file = file;
    this.channel = channel;
    this.lock = lock;
    this.info = info;
  }

  /**
   * Takes the lock of {@code storeDir} (created if needed) for {@code role} ({@code relay},
   * {@code import}); {@code wsUrls} are where the holder takes EVENTs (empty for a tool). Throws
   * {@link StoreException} naming the holder when someone else has it.
   */
  public static synchronized StoreDirLock acquire(Path storeDir, String role, List<String> wsUrls) {
    Path file = SqliteFiles.withDirectory(storeDir.resolve(FILE)).normalize();
    StoreDirLock mine = HELD.get(file);
    if (mine != null) {
      throw new StoreException(inUse(file, mine.info));
    }
    FileChannel ch = null;
    try {
      ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
      FileLock l = ch.tryLock();
      if (l == null) {
        JsonObject holder = read(ch);
        ch.close();
        throw new StoreException(inUse(file, holder));
      }
      JsonObject info = new JsonObject()
          .put("pid", ProcessHandle.current().pid())
          .put("role", role)
          .put("ws", new JsonArray(List.copyOf(wsUrls)))
          .put("since", Instant.now().toString());
      ch.truncate(0);
      ch.write(ByteBuffer.wrap((info.encode() + "\n").getBytes(StandardCharsets.UTF_8)), 0);
      ch.force(false);
      StoreDirLock held = new StoreDirLock(file, ch, l, info);
      HELD.put(file, held);
      try {
        ScratchDir.reset(storeDir); // what a killed holder left there
      } catch (StoreException e) {
        held.close();
        throw e;
      }
      return held;
    } catch (IOException e) {
      closeQuietly(ch);
      throw new StoreException("cannot lock " + file, e);
    } catch (OverlappingFileLockException e) {
      closeQuietly(ch);
      throw new StoreException(inUse(file, new JsonObject().put("pid", ProcessHandle.current().pid())));
    }
  }

  /**
   * Who holds the lock of {@code storeDir} (this JVM included), or empty when nobody does. Never
   * creates the file.
   */
  public static synchronized Optional<JsonObject> holder(Path storeDir) {
    Path file = storeDir.toAbsolutePath().resolve(FILE).normalize();
    StoreDirLock mine = HELD.get(file);
    if (mine != null) {
      return Optional.of(mine.info.copy());
    }
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      FileLock l = ch.tryLock(0, Long.MAX_VALUE, true); // shared: fails only against a holder's exclusive lock
      if (l != null) {
        l.release();
        return Optional.empty();
      }
      return Optional.of(read(ch));
    } catch (NoSuchFileException e) {
      return Optional.empty();
    } catch (IOException e) {
      throw new StoreException("cannot read " + file, e);
    }
  }

  private static JsonObject read(FileChannel ch) {
    try {
      ByteBuffer buf = ByteBuffer.allocate((int) Math.min(ch.size(), 64 * 1024));
      ch.read(buf, 0);
      String text = new String(buf.array(), 0, buf.position(), StandardCharsets.UTF_8).trim();
      return text.isEmpty() ? new JsonObject() : new JsonObject(text);
    } catch (IOException | RuntimeException e) {
      return new JsonObject(); // held, but written by someone we cannot read
    }
  }

  private static String inUse(Path file, JsonObject holder) {
    String who = holder.getString("role", "another process");
    Object pid = holder.getValue("pid");
    return "store directory " + file.getParent() + " is in use by " + who + (pid == null ? "" : " (pid " + pid + ")")
        + " (" + file.getFileName() + "): one writer per store";
  }

  /** What this lock's file says. */
  public JsonObject info() {
    return info.copy();
  }

  @Override
  public void close() {
    synchronized (StoreDirLock.class) {
      if (HELD.get(file) != this) {
        return;
      }
      HELD.remove(file);
      try {
        channel.truncate(0); // nobody holds it now: say nobody
      } catch (IOException ignored) {
        // the lock is what counts, not the text
      }
      try {
        lock.release();
      } catch (IOException ignored) {
        // closing the channel releases it anyway
      }
      closeQuietly(channel);
    }
  }

  private static void closeQuietly(FileChannel ch) {
    if (ch == null) {
      return;
    }
    try {
      ch.close();
    } catch (IOException ignored) {
      // nothing left to do
    }
  }
}
