#!/usr/bin/env bash
# Cross-pod latency of a scale-out Cairn (docs/scale-out.md): starts two pods of target/cairn.jar on a fresh
# MariaDB meta database and the local NATS, writes on pod A at a fixed rate, and measures the arrival on
# pod B of each event at a REQ subscriber (live fan-out over NATS) and at an SSE consumer (the signal
# plane). Stops the pods and drops the databases afterwards.
#   benchmarks/scaleout.sh [--rate 50] [--duration 30]      (MYSQL=mysql://root@127.0.0.1:3306 by default)
set -euo pipefail
cd "$(dirname "$0")/.."
MYSQL=${MYSQL:-mysql://root@127.0.0.1:3306}
RATE=50; DURATION=30
while [ $# -gt 0 ]; do
  case "$1" in
    --rate) RATE=$2; shift ;;
    --duration) DURATION=$2; shift ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
[ -f target/cairn.jar ] || { echo "target/cairn.jar missing: mvn -q -DskipTests package" >&2; exit 2; }
[ -f benchmarks/target/classpath.txt ] || mvn -q -B -f benchmarks/pom.xml -DskipTests package
DB="cairn_xpod_$$"; PREFIX="xpod$$"; WORK=$(mktemp -d)
free_port() { for _ in $(seq 1 200); do p=$((20000 + RANDOM % 10000)); (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo "$p"; return; }; done; }
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
  for d in $(mysql -uroot -h127.0.0.1 -N -e "SELECT schema_name FROM information_schema.schemata WHERE schema_name LIKE '${DB}%'"); do
    mysql -uroot -h127.0.0.1 -e "DROP DATABASE \`$d\`"
  done
  rm -rf "$WORK"
}
trap cleanup EXIT
start_pod() { # start_pod ID PORT
  env CAIRN_POD_ID="$1" CAIRN_HTTP_PORT="$2" CAIRN_STORE_DIR="$WORK/$1" CAIRN_STORE_DIALECT=mysql \
    CAIRN_STORE_URL="$MYSQL/$DB" CAIRN_NATS_SUBJECT_PREFIX="$PREFIX" java -jar target/cairn.jar > "$WORK/$1.log" 2>&1 &
  PIDS+=($!)
  for _ in $(seq 1 240); do
    [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$2/readyz")" = 200 ] && return 0; sleep 0.25
  done
  echo "pod $1 not ready; log:" >&2; tail -20 "$WORK/$1.log" >&2; return 1
}
PA=$(free_port); start_pod pod-a "$PA"
PB=$(free_port); start_pod pod-b "$PB"
echo "machine: $(nproc) cores, $(java -version 2>&1 | head -1); MariaDB $(mysql -uroot -h127.0.0.1 -N -e 'SELECT VERSION()')"
java -cp "benchmarks/target/classes:$(cat benchmarks/target/classpath.txt)" dev.cairn.bench.load.CrossPodLatency \
  --writer "ws://127.0.0.1:$PA" --reader "127.0.0.1:$PB" --rate "$RATE" --duration "$DURATION"
