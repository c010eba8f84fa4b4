#!/bin/sh
# Builds the cairn-wal SQLite VFS (cairn_wal_vfs.c, docs/decisions/0016-wal-writes-coalesced.md) into
# $1/<os>-<arch>/libcairnwal.so, where the relay finds it on its class path. Linux only, and only with
# a C compiler and SQLite's extension header (Debian: gcc, libsqlite3-dev): elsewhere it says so and
# the relay writes its WAL through SQLite's own unix VFS, as it does with store.wal_vfs = off.
set -u
out=$1
src=$(dirname "$0")/cairn_wal_vfs.c
case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) dir=linux-x86_64 ;;
  Linux-aarch64) dir=linux-aarch64 ;;
  *) echo "cairn-wal VFS: not built on $(uname -s) $(uname -m) (Linux x86_64 or aarch64 only)"; exit 0 ;;
esac
cc=${CC:-gcc}
if ! command -v "$cc" > /dev/null 2>&1; then
  echo "cairn-wal VFS: not built, no C compiler ($cc); install gcc to build it"; exit 0
fi
if ! printf '#include <sqlite3ext.h>\n' | "$cc" -E - > /dev/null 2>&1; then
  echo "cairn-wal VFS: not built, sqlite3ext.h not found; install libsqlite3-dev to build it"; exit 0
fi
mkdir -p "$out/$dir"
if [ "$out/$dir/libcairnwal.so" -nt "$src" ]; then exit 0; fi
exec "$cc" -O2 -fPIC -shared -Wall -Werror -o "$out/$dir/libcairnwal.so" "$src"
