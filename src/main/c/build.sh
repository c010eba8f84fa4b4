#!/bin/sh
# Builds Cairn's native libraries into $1/<os>-<arch>/, where the relay finds them on its class path:
#   libcairnwal.so   the cairn-wal SQLite VFS (cairn_wal_vfs.c, docs/decisions/0016-wal-writes-coalesced.md);
#                    needs SQLite's extension header (Debian: libsqlite3-dev)
#   libcairnprio.so  the background priority of the store threads (cairn_thread_priority.c, docs/decisions/0017-store-thread-priorities.md);
#                    needs the JDK's jni.h ($2: the JDK's home, as Maven's java.home)
# Linux only, and only with a C compiler (gcc). A library that cannot be built is left out with a message;
# the relay then goes without it: SQLite's own VFS, every thread at the JVM's default priority.
set -u
out=$1
java_home=${2:-${JAVA_HOME:-}}
here=$(dirname "$0")
case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) dir=linux-x86_64 ;;
  Linux-aarch64) dir=linux-aarch64 ;;
  *) echo "native libraries: not built on $(uname -s) $(uname -m) (Linux x86_64 or aarch64 only)"; exit 0 ;;
esac
cc=${CC:-gcc}
if ! command -v "$cc" > /dev/null 2>&1; then
  echo "native libraries: not built, no C compiler ($cc); install gcc to build them"; exit 0
fi
mkdir -p "$out/$dir"

# build NAME SOURCE [CFLAGS...]: compiles SOURCE into lib NAME unless it is up to date
build() {
  lib="$out/$dir/$1"; src="$here/$2"; shift 2
  if [ "$lib" -nt "$src" ]; then return 0; fi
  "$cc" -O2 -fPIC -shared -Wall -Werror "$@" -o "$lib" "$src" || exit 1
}

if printf '#include <sqlite3ext.h>\n' | "$cc" -E - > /dev/null 2>&1; then
  build libcairnwal.so cairn_wal_vfs.c
else
  echo "cairn-wal VFS: not built, sqlite3ext.h not found; install libsqlite3-dev to build it"
fi

# Maven's java.home is the JDK's home (JDK 9+); a JRE-only home has no include directory
if [ -n "$java_home" ] && [ -f "$java_home/include/jni.h" ]; then
  build libcairnprio.so cairn_thread_priority.c -I"$java_home/include" -I"$java_home/include/linux"
else
  echo "store thread priorities: not built, jni.h not found under '${java_home}/include' (a JDK's home is needed)"
fi
