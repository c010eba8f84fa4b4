package dev.cairn.store;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The WAL checkpoints of one tenant's SQLite store (decision 0003): its checkpointer connection copies
 * committed WAL pages into the DB file off the writer's thread ({@link #run}, called by the store's
 * upkeep), and once the WAL is past its bound the writer finishes the copy between two transactions
 * ({@link #finishOnWriter}), so that the WAL starts over instead of growing for as long as writes go on;
 * once the tenant is quiet the file is cut back to nothing ({@link #cutBack}).
 */
final class WalCheckpoints {
  /**
   * WAL frames (of 4 KiB pages) past which the writer finishes the checkpointer's work between two
   * transactions so that the WAL starts over ({@link #finishOnWriter}): 16 MiB. Under sustained writes
   * the file still grows well past it between restarts (the checkpointer's cycle, its syncs); it is cut
   * back only past {@link SqliteFiles#WAL_SIZE_LIMIT}.
   */
  static final int WAL_RESTART_FRAMES = 4096;
  /**
   * A checkpoint pass that copied at most this many frames was short enough: the writer, which finishes
   * the checkpoint, then finds about as many to copy. More passes than {@link #HANDOVER_PASSES} only
   * chase a writer that commits faster than they copy.
   */
  private static final int HANDOVER_FRAMES = 512;
  private static final int HANDOVER_PASSES = 4;
  private static final String PASSIVE = "PRAGMA wal_checkpoint(PASSIVE)";
  private static final int WAL_HEADER_BYTES = 32;
  private static final int WAL_FRAME_HEADER_BYTES = 24;

  private final Path file;
  private final Connection checkpointer;
  /**
   * A descriptor of the DB file kept open for the store's life, to flush what checkpoints copied into it
   * ({@link #flushForRestart}); null if it could not be opened. Closed only after every connection of the
   * store ({@link #closeFile}): closing a descriptor of the file drops the POSIX locks SQLite holds on it
   * in this process.
   */
  private final FileChannel dbFile;
  private final ReentrantLock lock = new ReentrantLock();
  /** WAL frames past which the writer finishes a checkpoint ({@link #WAL_RESTART_FRAMES}; tests set fewer). */
  private volatile int restartFrames = WAL_RESTART_FRAMES;
  /** Set by the checkpointer when the WAL is past {@code restartFrames}; the writer clears it. */
  private volatile boolean restartDue;
  private volatile boolean closed;

  WalCheckpoints(Path file, Connection checkpointer, FileChannel dbFile) {
    this.file = file;
    this.checkpointer = checkpointer;
    this.dbFile = dbFile;
  }

  /** Opened after SQLite's connections (see {@link #dbFile}); null if it cannot be: the flushes are then left to SQLite. */
  static FileChannel openForFlush(Path file) {
    try {
      return FileChannel.open(file, StandardOpenOption.READ);
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  /**
   * Copies committed WAL pages into the DB file (PASSIVE: never waits for readers or the writer),
   * on the caller's thread, which is not the writer's. Returns the WAL frames left uncopied. A WAL past
   * its bound has the writer finish the copy between two transactions ({@link #finishOnWriter}).
   */
  int run() {
    if (closed || !lock.tryLock()) {
      return 0;
    }
    try (Statement st = checkpointer.createStatement()) {
      Pass pass = passive(st);
      if (pass.log() > restartFrames) {
        // The writer will copy what was committed while this ran, then sync the DB file: run again while
        // a pass still had much to copy, flush the DB file and the WAL, copy what came meanwhile and flush
        // the DB file again, so that it finds little to copy and to sync.
        int copied = pass.log();
        for (int n = 1; n < HANDOVER_PASSES && copied > HANDOVER_FRAMES && !closed; n++) {
          Pass again = passive(st);
          copied = again.log() - pass.log();
          pass = again;
        }
        flushForRestart(true);
        pass = passive(st);
        flushForRestart(false);
        restartDue = true;
      } else {
        restartDue = false;
      }
      return pass.left();
    } catch (SQLException e) {
      throw new StoreException("checkpoint failed on " + file, e);
    } finally {
      lock.unlock();
    }
  }

  /**
   * On the writer, between two transactions, once the checkpointer found the WAL past its bound: copies
   * the frames committed since the checkpointer's last run into the DB file. With every frame copied (and
   * no reader still on an older snapshot) SQLite starts the WAL over at the next commit, reusing the file
   * from its beginning. The checkpointer alone never gets there while commits keep coming (each adds
   * frames while it copies), and the WAL then grows for as long as the writes go on: 1.9 GB after 20 s
   * of ingest, with the writer's time going to the kernel zeroing the file's new blocks. A reader that
   * holds an old snapshot keeps the WAL from starting over; the next run of the checkpointer asks again.
   * While the checkpointer itself is copying, the writer tries again after its next transaction.
   */
  void finishOnWriter(Sql writer) {
    if (!restartDue) {
      return;
    }
    try (ResultSet rs = writer.prepare(PASSIVE).executeQuery()) {
      // busy: the checkpointer is copying right now, so again after the next transaction; else done
      // (with frames left only when a reader holds them: then the checkpointer's next run asks again)
      restartDue = rs.next() && rs.getInt(1) != 0;
    } catch (SQLException e) {
      restartDue = false; // the checkpointer's next run asks again
      writer.clear();
    }
  }

  /** What {@link #cutBack} did: the WAL file's size before it, and what it found. */
  record Cut(long bytesBefore, Outcome outcome) {}

  /** What {@link #cutBack} found. */
  enum Outcome {
    /** The WAL file held at most its restart bound: left as it is. */
    SMALL,
    /** The WAL file is empty now. */
    DONE,
    /** A transaction of the writer, or a reader on an older snapshot, was in the way: ask again later. */
    BLOCKED
  }

  /**
   * Cuts the WAL file back to nothing, for a tenant that has gone quiet ({@link SqliteUpkeep}). A busy
   * tenant's WAL file keeps its high-water mark, hundreds of MB, since cutting it back at every restart
   * cost the writer the file's new blocks again (decision 0003); once the writes stop, that is disk held
   * for nothing for as long as the store is open, per tenant. A TRUNCATE checkpoint on the checkpointer's
   * connection, which waits for nobody: it gives way to a writer's transaction and to any reader on an
   * older snapshot. A file within the restart bound is left alone.
   */
  Cut cutBack() {
    long before = walBytes();
    if (closed || !lock.tryLock()) {
      return new Cut(before, Outcome.BLOCKED);
    }
    try (Statement st = checkpointer.createStatement()) {
      if (before <= restartBytes()) {
        return new Cut(before, Outcome.SMALL);
      }
      st.execute("PRAGMA busy_timeout = 0");
      try (ResultSet rs = st.executeQuery("PRAGMA wal_checkpoint(TRUNCATE)")) {
        return new Cut(before, rs.next() && rs.getInt(1) == 0 ? Outcome.DONE : Outcome.BLOCKED);
      } finally {
        st.execute("PRAGMA busy_timeout = " + SqliteFiles.BUSY_TIMEOUT_MS);
      }
    } catch (SQLException e) {
      throw new StoreException("cutting back the WAL failed on " + file, e);
    } finally {
      lock.unlock();
    }
  }

  /** The WAL file's size now (0 when there is none). */
  private long walBytes() {
    try {
      return Files.size(Path.of(file + "-wal"));
    } catch (IOException e) {
      return 0;
    }
  }

  /** The WAL file's size at the restart bound: its header and {@code restartFrames} frames of 4 KiB pages. */
  private long restartBytes() {
    return WAL_HEADER_BYTES + (long) restartFrames * (SqliteFiles.PAGE_SIZE + WAL_FRAME_HEADER_BYTES);
  }

  /** Tests: WAL frames past which the writer finishes a checkpoint (default {@link #WAL_RESTART_FRAMES}). */
  void restartFrames(int frames) {
    this.restartFrames = frames;
  }

  /** Closes the checkpointer's connection, once a running pass is done. */
  void closeConnection() {
    closed = true;
    lock.lock();
    try {
      SqliteFiles.closeQuietly(checkpointer);
    } finally {
      lock.unlock();
    }
  }

  /** Closes the DB file's descriptor: last, after every connection of the store (see {@link #dbFile}). */
  void closeFile() {
    closeQuietly(dbFile);
  }

  static void closeQuietly(FileChannel ch) {
    if (ch != null) {
      try {
        ch.close();
      } catch (IOException ignored) {
        // closing anyway
      }
    }
  }

  /**
   * One PASSIVE checkpoint on the checkpointer's connection: copies the frames committed when it began
   * (those committed during it are not in its counts).
   */
  private static Pass passive(Statement st) throws SQLException {
    try (ResultSet rs = st.executeQuery(PASSIVE)) {
      int log = rs.next() ? rs.getInt(2) : 0;
      return new Pass(log, Math.max(0, log - rs.getInt(3)));
    }
  }

  /** The WAL's frames when a checkpoint pass began, and those it left uncopied (readers on older snapshots). */
  private record Pass(int log, int left) {}

  /**
   * Flushes to disk, on the checkpointer's thread, what the writer's checkpoint would otherwise wait for:
   * it syncs the WAL before copying (every commit since the WAL's last sync) and the DB file after (every
   * page the checkpointer's passes copied since the DB's last sync: a pass syncs it only when no commit
   * came while it copied, so under steady writes never, and that was tens of MB, 30-113 ms on the writer's
   * lane). The DB file through the descriptor kept open for this ({@link #dbFile}); the WAL file, which
   * carries no locks, through one opened for the flush. A failed flush only leaves the work to SQLite.
   */
  private void flushForRestart(boolean wal) {
    try {
      if (dbFile != null) {
        dbFile.force(false);
      }
      if (wal) {
        try (FileChannel ch = FileChannel.open(Path.of(file + "-wal"), StandardOpenOption.READ)) {
          ch.force(false);
        }
      }
    } catch (IOException | RuntimeException e) {
      // SQLite syncs both itself when the writer finishes the checkpoint
    }
  }
}
