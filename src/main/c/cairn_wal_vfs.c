/*
 * cairn-wal: a SQLite VFS shim over the default "unix" VFS that writes a transaction's WAL frames with
 * one pwrite instead of two per frame (docs/decisions/0016-wal-writes-coalesced.md).
 *
 * SQLite writes each WAL frame as two write calls (its 24-byte header, then the page). A group commit
 * that dirties a few hundred B-tree pages makes a few hundred system calls; on hosts where a system
 * call is dear (a paravirtualized guest) they were the largest single cost of a stored event. Here the
 * WAL handle keeps contiguous appends in a buffer and writes them in one call when:
 *   - the page of a commit's last frame arrives (its frame header carries the database size): the
 *     write error of a full disk then fails that write, and the commit, as SQLite's own VFS would;
 *   - the database's shared-memory barrier runs (xShmBarrier: SQLite calls it while it publishes a
 *     commit's new WAL index header, after the frames are written and before the header readers check
 *     is complete, so no connection can see a frame that is still only in the buffer);
 *   - the WAL handle is read where the buffer covers, synced, truncated, sized or closed;
 *   - a write does not follow the buffer, or the buffer is full.
 * Nothing else changes: the bytes, their offsets and the order SQLite sees them are those of the unix
 * VFS, so durability (synchronous, fsync at checkpoints) and crash recovery are SQLite's own.
 * Every other file and method passes straight through.
 */
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT1
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define CAIRN_WAL_VFS "cairn-wal"
#define WAL_BUFFER_BYTES (2 * 1024 * 1024)
#define WRITE_PIECE_BYTES (124 * 1024)
#define WAL_FRAME_HEADER_BYTES 24

typedef struct ShimFile ShimFile;
struct ShimFile {
  sqlite3_file base;    /* pMethods: &shimIo */
  sqlite3_file *real;   /* the unix VFS's file, allocated right after this struct */
  int isWal;
  char *dbName;         /* main database and WAL: the database's name (a WAL's without "-wal") */
  unsigned bucket;      /* of dbName in walHandles */
  /* WAL handles only: */
  pthread_mutex_t mutex;
  char *buf;
  int n;                /* bytes buffered */
  sqlite3_int64 off;    /* file offset of buf[0] */
  int commitFrame;      /* the last write was the header of a commit's last frame: its page comes next */
  ShimFile *next;       /* in its walHandles bucket */
};

/* What the shim did since it was loaded (cairn_wal_vfs_stats()): SQLite's WAL writes it took into a
 * buffer, and the write calls it made for them. */
static sqlite3_int64 walWritesBuffered;
static sqlite3_int64 walWriteCalls;

static sqlite3_vfs *realVfs;
static sqlite3_vfs shimVfs;
static sqlite3_io_methods shimIo;
/*
 * Every open WAL handle, hashed by its database's name, so that a database's barrier finds the buffers
 * of its WAL among few others however many tenant files are open.
 */
#define BUCKETS 1024
static struct {
  pthread_mutex_t mutex;
  ShimFile *head;
} walHandles[BUCKETS];

static unsigned bucketOf(const char *name) {
  unsigned h = 2166136261u; /* FNV-1a */
  for (const unsigned char *c = (const unsigned char *)name; *c; c++) h = (h ^ *c) * 16777619u;
  return h % BUCKETS;
}

static sqlite3_file *realOf(sqlite3_file *f) { return ((ShimFile *)f)->real; }

/*
 * Writes what the buffer holds; caller holds p->mutex. In pieces below 128 KiB: the unix VFS writes at
 * most 0x1ffff bytes per call (it masks the length), so a longer write would come back SQLITE_FULL.
 */
static int flushLocked(ShimFile *p) {
  int rc = SQLITE_OK;
  for (int done = 0; done < p->n && rc == SQLITE_OK; done += WRITE_PIECE_BYTES) {
    int amt = p->n - done < WRITE_PIECE_BYTES ? p->n - done : WRITE_PIECE_BYTES;
    rc = p->real->pMethods->xWrite(p->real, p->buf + done, amt, p->off + done);
    __atomic_fetch_add(&walWriteCalls, 1, __ATOMIC_RELAXED);
  }
  p->n = 0;
  return rc;
}

static int flush(ShimFile *p) {
  pthread_mutex_lock(&p->mutex);
  int rc = flushLocked(p);
  pthread_mutex_unlock(&p->mutex);
  return rc;
}

static int shimClose(sqlite3_file *f) {
  ShimFile *p = (ShimFile *)f;
  int rc = SQLITE_OK;
  if (p->isWal) {
    pthread_mutex_lock(&walHandles[p->bucket].mutex);
    for (ShimFile **q = &walHandles[p->bucket].head; *q; q = &(*q)->next) {
      if (*q == p) { *q = p->next; break; }
    }
    pthread_mutex_unlock(&walHandles[p->bucket].mutex);
    rc = flush(p);
    pthread_mutex_destroy(&p->mutex);
    sqlite3_free(p->buf);
  }
  sqlite3_free(p->dbName);
  int rc2 = p->real->pMethods->xClose(p->real);
  return rc != SQLITE_OK ? rc : rc2;
}

static int shimRead(sqlite3_file *f, void *z, int amt, sqlite3_int64 off) {
  ShimFile *p = (ShimFile *)f;
  if (p->isWal) {
    pthread_mutex_lock(&p->mutex);
    int rc = SQLITE_OK;
    if (p->n > 0 && off < p->off + p->n && off + amt > p->off) rc = flushLocked(p);
    pthread_mutex_unlock(&p->mutex);
    if (rc != SQLITE_OK) return rc;
  }
  return p->real->pMethods->xRead(p->real, z, amt, off);
}

static int shimWrite(sqlite3_file *f, const void *z, int amt, sqlite3_int64 off) {
  ShimFile *p = (ShimFile *)f;
  if (!p->isWal || p->buf == 0) return p->real->pMethods->xWrite(p->real, z, amt, off);
  pthread_mutex_lock(&p->mutex);
  int rc = SQLITE_OK;
  int endsCommit = p->commitFrame;
  /* A frame header (24 bytes) whose "database size after commit" field is set: the commit's last frame. */
  p->commitFrame = amt == WAL_FRAME_HEADER_BYTES && (((const unsigned char *)z)[4] | ((const unsigned char *)z)[5]
      | ((const unsigned char *)z)[6] | ((const unsigned char *)z)[7]) != 0;
  if (p->n > 0 && (off != p->off + p->n || p->n + amt > WAL_BUFFER_BYTES)) rc = flushLocked(p);
  if (rc == SQLITE_OK) {
    if (amt > WAL_BUFFER_BYTES) { /* SQLite writes a frame at a time: never this long */
      rc = p->real->pMethods->xWrite(p->real, z, amt, off);
    } else {
      if (p->n == 0) p->off = off;
      memcpy(p->buf + p->n, z, amt);
      p->n += amt;
      __atomic_fetch_add(&walWritesBuffered, 1, __ATOMIC_RELAXED);
      /* The commit's last page: its frames go to the file now, so that a failed write (a full disk) fails
       * the commit here, as SQLite's own VFS would, before the commit is published. */
      if (endsCommit) rc = flushLocked(p);
    }
  }
  pthread_mutex_unlock(&p->mutex);
  return rc;
}

static int shimTruncate(sqlite3_file *f, sqlite3_int64 size) {
  ShimFile *p = (ShimFile *)f;
  if (p->isWal) { int rc = flush(p); if (rc != SQLITE_OK) return rc; }
  return p->real->pMethods->xTruncate(p->real, size);
}

static int shimSync(sqlite3_file *f, int flags) {
  ShimFile *p = (ShimFile *)f;
  if (p->isWal) { int rc = flush(p); if (rc != SQLITE_OK) return rc; }
  return p->real->pMethods->xSync(p->real, flags);
}

static int shimFileSize(sqlite3_file *f, sqlite3_int64 *pSize) {
  ShimFile *p = (ShimFile *)f;
  if (p->isWal) { int rc = flush(p); if (rc != SQLITE_OK) return rc; }
  return p->real->pMethods->xFileSize(p->real, pSize);
}

static int shimLock(sqlite3_file *f, int l) { return realOf(f)->pMethods->xLock(realOf(f), l); }
static int shimUnlock(sqlite3_file *f, int l) { return realOf(f)->pMethods->xUnlock(realOf(f), l); }
static int shimCheckReservedLock(sqlite3_file *f, int *r) {
  return realOf(f)->pMethods->xCheckReservedLock(realOf(f), r);
}
static int shimFileControl(sqlite3_file *f, int op, void *arg) {
  ShimFile *p = (ShimFile *)f;
  if (p->isWal) { int rc = flush(p); if (rc != SQLITE_OK) return rc; }
  if (op == SQLITE_FCNTL_VFSNAME) {
    /* sqlite3_free'd by the caller: name the shim in front of the real VFS's answer */
    int rc = p->real->pMethods->xFileControl(p->real, op, arg);
    char *inner = rc == SQLITE_OK ? *(char **)arg : 0;
    *(char **)arg = sqlite3_mprintf("%s/%s", CAIRN_WAL_VFS, inner ? inner : realVfs->zName);
    sqlite3_free(inner);
    return SQLITE_OK;
  }
  return p->real->pMethods->xFileControl(p->real, op, arg);
}
static int shimSectorSize(sqlite3_file *f) { return realOf(f)->pMethods->xSectorSize(realOf(f)); }
static int shimDeviceCharacteristics(sqlite3_file *f) {
  return realOf(f)->pMethods->xDeviceCharacteristics(realOf(f));
}
static int shimShmMap(sqlite3_file *f, int pg, int pgsz, int extend, void volatile **pp) {
  return realOf(f)->pMethods->xShmMap(realOf(f), pg, pgsz, extend, pp);
}
static int shimShmLock(sqlite3_file *f, int offset, int n, int flags) {
  return realOf(f)->pMethods->xShmLock(realOf(f), offset, n, flags);
}
static int shimShmUnmap(sqlite3_file *f, int deleteFlag) {
  return realOf(f)->pMethods->xShmUnmap(realOf(f), deleteFlag);
}

/*
 * The barrier of a database's shared memory: first every buffered frame of its WAL reaches the file,
 * whichever connection buffered it (a reader's barrier may flush the writer's frames early: harmless).
 */
static void shimShmBarrier(sqlite3_file *f) {
  ShimFile *p = (ShimFile *)f;
  if (!p->isWal && p->dbName) {
    pthread_mutex_lock(&walHandles[p->bucket].mutex);
    for (ShimFile *w = walHandles[p->bucket].head; w; w = w->next) {
      if (strcmp(w->dbName, p->dbName) == 0) flush(w); /* an error shows at the WAL's next sync/read */
    }
    pthread_mutex_unlock(&walHandles[p->bucket].mutex);
  }
  p->real->pMethods->xShmBarrier(p->real);
}

static int shimFetch(sqlite3_file *f, sqlite3_int64 off, int amt, void **pp) {
  return realOf(f)->pMethods->xFetch(realOf(f), off, amt, pp);
}
static int shimUnfetch(sqlite3_file *f, sqlite3_int64 off, void *pPage) {
  return realOf(f)->pMethods->xUnfetch(realOf(f), off, pPage);
}

static int shimOpen(sqlite3_vfs *vfs, sqlite3_filename zName, sqlite3_file *f, int flags, int *pOutFlags) {
  (void)vfs;
  ShimFile *p = (ShimFile *)f;
  memset(p, 0, sizeof(*p));
  p->real = (sqlite3_file *)&p[1];
  int rc = realVfs->xOpen(realVfs, zName, p->real, flags, pOutFlags);
  if (rc != SQLITE_OK || p->real->pMethods == 0) {
    p->base.pMethods = 0;
    return rc;
  }
  if (p->real->pMethods->iVersion < 3) { /* not the unix VFS we know: no shim for this file */
    p->base.pMethods = 0;
    p->real->pMethods->xClose(p->real);
    return SQLITE_CANTOPEN;
  }
  if (zName && (flags & SQLITE_OPEN_WAL)) {
    size_t len = strlen(zName);
    p->dbName = sqlite3_mprintf("%.*s", (int)(len > 4 ? len - 4 : len), zName); /* "<db>-wal" */
    p->buf = sqlite3_malloc(WAL_BUFFER_BYTES);
    if (p->dbName == 0 || p->buf == 0) {
      sqlite3_free(p->dbName);
      sqlite3_free(p->buf);
      p->real->pMethods->xClose(p->real);
      p->base.pMethods = 0;
      return SQLITE_NOMEM;
    }
    pthread_mutex_init(&p->mutex, 0);
    p->isWal = 1;
    p->bucket = bucketOf(p->dbName);
    pthread_mutex_lock(&walHandles[p->bucket].mutex);
    p->next = walHandles[p->bucket].head;
    walHandles[p->bucket].head = p;
    pthread_mutex_unlock(&walHandles[p->bucket].mutex);
  } else if (zName && (flags & SQLITE_OPEN_MAIN_DB)) {
    p->dbName = sqlite3_mprintf("%s", zName);
    if (p->dbName == 0) {
      p->real->pMethods->xClose(p->real);
      p->base.pMethods = 0;
      return SQLITE_NOMEM;
    }
    p->bucket = bucketOf(p->dbName);
  }
  p->base.pMethods = &shimIo;
  return SQLITE_OK;
}

/* cairn_wal_vfs_stats(): "<WAL writes buffered> <write calls made for them>", for tests and tools. */
static void statsFunction(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  (void)argv;
  char *out = sqlite3_mprintf("%lld %lld", (long long)__atomic_load_n(&walWritesBuffered, __ATOMIC_RELAXED),
      (long long)__atomic_load_n(&walWriteCalls, __ATOMIC_RELAXED));
  sqlite3_result_text(ctx, out, -1, sqlite3_free);
}

/*
 * Registers the shim as the default VFS (once per process; loading it again only adds the stats
 * function to the loading connection) and stays loaded after that connection closes.
 */
int sqlite3_cairnwal_init(sqlite3 *db, char **pzErrMsg, const sqlite3_api_routines *pApi) {
  SQLITE_EXTENSION_INIT2(pApi);
  int rc = sqlite3_create_function(db, "cairn_wal_vfs_stats", 0, SQLITE_UTF8, 0, statsFunction, 0, 0);
  if (rc != SQLITE_OK) return rc;
  if (sqlite3_vfs_find(CAIRN_WAL_VFS) != 0) return SQLITE_OK_LOAD_PERMANENTLY;
  for (int i = 0; i < BUCKETS; i++) pthread_mutex_init(&walHandles[i].mutex, 0);
  realVfs = sqlite3_vfs_find("unix");
  if (realVfs == 0 || realVfs->iVersion < 3) {
    *pzErrMsg = sqlite3_mprintf("cairn-wal: no unix VFS of version 3 to wrap");
    return SQLITE_ERROR;
  }
  shimVfs = *realVfs; /* every method but xOpen is the unix VFS's, with its pAppData */
  shimVfs.pNext = 0;
  shimVfs.zName = CAIRN_WAL_VFS;
  shimVfs.szOsFile = (int)sizeof(ShimFile) + realVfs->szOsFile;
  shimVfs.xOpen = shimOpen;
  memset(&shimIo, 0, sizeof(shimIo));
  shimIo.iVersion = 3;
  shimIo.xClose = shimClose;
  shimIo.xRead = shimRead;
  shimIo.xWrite = shimWrite;
  shimIo.xTruncate = shimTruncate;
  shimIo.xSync = shimSync;
  shimIo.xFileSize = shimFileSize;
  shimIo.xLock = shimLock;
  shimIo.xUnlock = shimUnlock;
  shimIo.xCheckReservedLock = shimCheckReservedLock;
  shimIo.xFileControl = shimFileControl;
  shimIo.xSectorSize = shimSectorSize;
  shimIo.xDeviceCharacteristics = shimDeviceCharacteristics;
  shimIo.xShmMap = shimShmMap;
  shimIo.xShmLock = shimShmLock;
  shimIo.xShmBarrier = shimShmBarrier;
  shimIo.xShmUnmap = shimShmUnmap;
  shimIo.xFetch = shimFetch;
  shimIo.xUnfetch = shimUnfetch;
  rc = sqlite3_vfs_register(&shimVfs, 1);
  return rc == SQLITE_OK ? SQLITE_OK_LOAD_PERMANENTLY : rc;
}
