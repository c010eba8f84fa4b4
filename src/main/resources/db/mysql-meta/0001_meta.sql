-- The meta DB for MySQL 8, MariaDB 10.6+ and TiDB: db/sqlite-meta (tenant registry, NIP-86 admin
-- state) plus the multi-pod signal plane of seed 003 sections 4 and 6. Why: docs/decisions/0005-mysql-schema.md.
-- The meta DB is never on a Nostr write's commit path: only tenant creation, admin changes, the
-- coalesced notify rows and pod bookkeeping write here. Times are epoch ms unless named _s.

-- Tenant registry. feed_epoch: 8 chars of [a-z2-7], created once, identifies the tenant's change feed.
-- placement: dedicated (db_name is the tenant's own database, created on first use) | shared (db_name is
-- the pool database holding many tenants, keyed by tenant_id). db_name is a MySQL identifier (<= 64).
-- The CHECK is enforced by MySQL 8.0.16+ and MariaDB; TiDB parses it and, by default, ignores it.
CREATE TABLE tenants (
  id           VARCHAR(63) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  created_at_s BIGINT      NOT NULL,
  feed_epoch   CHAR(8) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  placement    VARCHAR(16) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  db_name      VARCHAR(64) NOT NULL,
  PRIMARY KEY (id),
  -- Which tenants live in a pool database (the shared pool's sweep and moves).
  KEY tenants_db (db_name),
  CONSTRAINT tenants_placement CHECK (placement IN ('dedicated', 'shared'))
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- NIP-86 relay management, as in db/sqlite-meta/0002_relay_admin.sql.
-- list: banned_pubkey | allowed_pubkey | banned_event; value: 64 hex; reason: as given ('' when none).
CREATE TABLE admin_entries (
  tenant     VARCHAR(63) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  list       VARCHAR(32) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  value      CHAR(64) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  reason     TEXT        NOT NULL,
  added_at_s BIGINT      NOT NULL,
  PRIMARY KEY (tenant, list, value)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- NIP-11 fields changed through the API (field: name | description | icon); they override the config.
CREATE TABLE admin_info (
  tenant       VARCHAR(63) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  field        VARCHAR(32) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  value        TEXT        NOT NULL,
  changed_at_s BIGINT      NOT NULL,
  PRIMARY KEY (tenant, field)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- Signal plane: a wake-up hint per tenant change, read by every pod's 200 ms poller (meta DB only, so
-- cold tenant DBs are never queried). Coalesced by the writing pod (one row per tenant and work per
-- window), kept 1 h, pruned by created_at down to the cursor floor. work: what to wake (e.g. 'feed').
-- id is AUTO_INCREMENT, taken at insert: a row can commit after a higher id is already visible, so a
-- poller must not treat "id > cursor" as exact (a lossy hint by design: the tenant DB is the truth).
CREATE TABLE tenant_notify_outbox (
  id         BIGINT NOT NULL AUTO_INCREMENT,
  tenant_id  VARCHAR(63) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  work       VARCHAR(16) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  created_at BIGINT NOT NULL,
  PRIMARY KEY (id),
  KEY tenant_notify_outbox_created (created_at)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- Each pod's poller position in tenant_notify_outbox. The prune floor is MIN(last_id) over cursors
-- updated in the last 10 min (a stalled pod must not pin the outbox); a dead pod's row is deleted
-- with it by the pod sweep.
CREATE TABLE tenant_outbox_cursor (
  pod_id     VARCHAR(191) NOT NULL,
  last_id    BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  PRIMARY KEY (pod_id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- Pod registry: each pod heartbeats its row; a row whose heartbeat_at is too old is a dead pod
-- (swept with its cursor). cairn_pods counts the live ones.
CREATE TABLE pods (
  pod_id       VARCHAR(191) NOT NULL,
  started_at   BIGINT NOT NULL,
  heartbeat_at BIGINT NOT NULL,
  PRIMARY KEY (pod_id),
  KEY pods_heartbeat (heartbeat_at)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- Cluster-wide claims of maintenance runs, one row per job and pool (e.g. 'feed_sweep:<db_name>'): a pod
-- runs the job only if it moves last_run_at forward past the interval in one conditional UPDATE
-- (or inserts the row first), so one pod runs it per interval.
CREATE TABLE shared_maintenance_state (
  name        VARCHAR(191) NOT NULL,
  last_run_at BIGINT NOT NULL,
  claimed_by  VARCHAR(191) NOT NULL,
  PRIMARY KEY (name)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
