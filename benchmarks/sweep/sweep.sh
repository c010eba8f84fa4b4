#!/usr/bin/env bash
# Per-shape query sweep against one relay that already holds the events the shapes were built from:
# the whole mix for --warm seconds (the JIT, the page cache), then each shape alone, closed loop, for
# --seconds, printing queries/s, the relay's CPU per query (with --pid), REQ->EOSE p99 and events per REQ.
#
#   benchmarks/sweep/shapes.py --file main.jsonl --max-events 200000 --out shapes.jsonl
#   benchmarks/sweep/sweep.sh --url ws://127.0.0.1:7777 --queries shapes.jsonl [--pid PID] \
#       [--connections 10] [--seconds 6] [--warm 15]
#
# Preload a relay with the same events first, e.g. IngestLoad --preload (see run.sh's query scenario).
# Needs the benchmarks module built (cd benchmarks && mvn -q -DskipTests package). Loopback URLs only.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
BENCH_DIR=$(dirname "$HERE")
URL="" QUERIES="" PID_ARGS=() CONNS=10 SECONDS_EACH=6 WARM=15
while [ $# -gt 0 ]; do
  case "$1" in
    --url) URL="$2"; shift ;;
    --queries) QUERIES="$2"; shift ;;
    --pid) PID_ARGS=(--pid "$2"); shift ;;
    --connections) CONNS="$2"; shift ;;
    --seconds) SECONDS_EACH="$2"; shift ;;
    --warm) WARM="$2"; shift ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    *) echo "unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
[ -n "$URL" ] && [ -f "$QUERIES" ] || { echo "--url and an existing --queries file are required" >&2; exit 2; }
case "$URL" in
  ws://127.*|ws://localhost*|ws://\[::1\]*) ;;
  *) echo "load tests only target this machine; got $URL" >&2; exit 2 ;;
esac
[ -f "$BENCH_DIR/target/classpath.txt" ] || { echo "benchmarks not built (cd benchmarks && mvn -q -DskipTests package)" >&2; exit 1; }
CP="$BENCH_DIR/target/classes:$(cat "$BENCH_DIR/target/classpath.txt")"
WORK=$(mktemp -d /tmp/cairn-sweep.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
load() { # load FILE SECONDS RESULTS
  java -Xmx2g -cp "$CP" dev.cairn.bench.load.QueryLoad --url "$URL" "${PID_ARGS[@]}" --queries "$1" \
    --connections "$CONNS" --duration "$2" --result-file "$3" > "$WORK/last.out" 2>&1 \
    || { echo "QueryLoad failed:" >&2; tail -5 "$WORK/last.out" >&2; return 1; }
}
load "$QUERIES" "$WARM" "$WORK/warm.jsonl"
printf '| shape | queries/s | relay CPU ms per query | REQ->EOSE p99 ms | events per REQ |\n| --- | ---: | ---: | ---: | ---: |\n'
for shape in $(python3 -c "import json,sys; print(' '.join(sorted({json.loads(l)['type'] for l in open(sys.argv[1])})))" "$QUERIES"); do
  python3 -c "import json,sys; [sys.stdout.write(l) for l in open(sys.argv[1]) if json.loads(l)['type'] == sys.argv[2]]" \
    "$QUERIES" "$shape" > "$WORK/one.jsonl"
  rm -f "$WORK/one-result.jsonl"
  if load "$WORK/one.jsonl" "$SECONDS_EACH" "$WORK/one-result.jsonl"; then
    python3 -c "
import json, sys
r = next(json.loads(l) for l in open(sys.argv[1]) if '\"level\":\"all\"' in l)
cpu = r.get('relay_cpu_ms_per_query')
print('| %s | %.0f | %s | %.1f | %.0f |' % (sys.argv[2], r['reqs_per_s'], '%.3f' % cpu if cpu is not None else 'n/a',
      r['req_eose_p99_ms'], r['events_per_req']))" "$WORK/one-result.jsonl" "$shape"
  else
    echo "| $shape | failed: $(grep -m1 -o 'FAILED.*' "$WORK/last.out" | cut -c1-120) | | | |"
  fi
done
