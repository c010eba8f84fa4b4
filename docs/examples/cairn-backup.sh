#!/bin/sh
# Online backup of a Cairn data directory (SQLite), safe while the relay runs and writes.
#   sh cairn-backup.sh <store.dir> <backup-root>     e.g. sh cairn-backup.sh ./data /backups/cairn
# VACUUM INTO copies each DB inside one read transaction: a consistent snapshot that includes what
# is still in the -wal file, without blocking the relay's writer. Run it as the user the relay runs as.
set -eu
data=$1
out=$2/$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$out/tenants"
sqlite3 -cmd ".timeout 10000" "$data/meta.db" "VACUUM INTO '$out/meta.db'"
for db in "$data"/tenants/*.db; do
  sqlite3 -cmd ".timeout 10000" "$db" "VACUUM INTO '$out/tenants/$(basename "$db")'"
done
for db in "$out/meta.db" "$out"/tenants/*.db; do
  result=$(sqlite3 "$db" "PRAGMA integrity_check")
  [ "$result" = ok ] || { echo "integrity check failed for $db: $result" >&2; exit 1; }
done
echo "$out"
