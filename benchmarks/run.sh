#!/usr/bin/env bash
# Cairn benchmarks: builds, generates pre-signed events, starts Cairn (unless --relay is given), runs the
# scenarios, writes benchmarks/results/<date>-<commit>.md and prints each scenario's figures.
#
#   benchmarks/run.sh [--quick] [--relay ws://HOST:PORT/PATH] [--relay-pid PID] [--only NAME[,NAME...]]
#                     [--no-build] [--jar PATH] [--jfr] [--keep]
#
#   --quick       small sizes (finishes in under 3 minutes on 2 cores)
#   --relay URL   benchmark this NIP-01 relay instead of starting Cairn (any relay; loopback only)
#   --relay-pid   PID of that relay, for RSS (idle) and a GC before memory readings
#   --only        comma list of: ingest, fanout, query, idle, jmh (default: all)
#   --no-build    skip both Maven builds (use what is already built)
#   --jar PATH    the Cairn jar to start (default: target/cairn.jar of this repository)
#   --jfr         record the started Cairn with JFR (profile settings) and add its CPU profile to the
#                 summary (use with --only ingest for the cost per ingested event)
#   --keep        keep the work directory (event files, relay data and log)
#
# Exit status: 0 when every scenario ran and passed its checks, 1 otherwise.
set -uo pipefail

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(dirname "$BENCH_DIR")
QUICK=0
RELAY_URL_ARG=""
RELAY_PID_ARG=""
ONLY="ingest,fanout,query,idle,jmh"
BUILD=1
JAR="$TOP/target/cairn.jar"
KEEP=0
JFR=0

while [ $# -gt 0 ]; do
  case "$1" in
    --quick) QUICK=1 ;;
    --relay) RELAY_URL_ARG="$2"; shift ;;
    --relay-pid) RELAY_PID_ARG="$2"; shift ;;
    --only) ONLY="$2"; shift ;;
    --no-build) BUILD=0 ;;
    --jar) JAR="$2"; shift ;;
    --keep) KEEP=1 ;;
    --jfr) JFR=1 ;;
    -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
    *) echo "unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done

wants() { [[ ",$ONLY," == *",$1,"* ]]; }
log() { printf '\n=== %s  %s\n' "$(date +%H:%M:%S)" "$*"; }
T0=$(date +%s)
LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)

# ------------------------------------------------------------------ sizes
if [ $QUICK = 1 ]; then
  MODE=quick
  INGEST_EVENTS=30000; INGEST_AUTHORS=300; INGEST_LEVELS="1,50"; INGEST_DURATION=4; INGEST_WINDOW=32
  FANOUT_EVENTS=2000; FANOUT_SUBS="100"; FANOUT_RATES="100"; FANOUT_PUBLISHERS=2; FANOUT_DURATION=5
  QUERY_PRELOAD=10000; QUERY_AUTHORS=200; QUERY_USERS=8; QUERY_DURATION=6
  IDLE_CONNS=1000; IDLE_HOLD=3
  JMH_ARGS=(-f 1 -wi 2 -w 1s -i 3 -r 1s); JMH_SELECT='VerifyBench'; JMH_CEILING='VerifyBench.bareLibsecp256k1'
else
  MODE=full
  INGEST_EVENTS=${INGEST_EVENTS:-600000}; INGEST_AUTHORS=5000; INGEST_LEVELS="1,50,500"; INGEST_DURATION=30; INGEST_WINDOW=32
  FANOUT_EVENTS=20000; FANOUT_SUBS="100,1000,5000"; FANOUT_RATES="200,40,8"; FANOUT_PUBLISHERS=4; FANOUT_DURATION=30
  QUERY_PRELOAD=${QUERY_PRELOAD:-1000000}; QUERY_AUTHORS=10000; QUERY_USERS=16; QUERY_DURATION=60
  IDLE_CONNS=10000; IDLE_HOLD=15
  JMH_ARGS=(); JMH_SELECT='EventPipelineBench|VerifyBench|SubscriptionMatchBench|GroupCommitBench|FrameEncodingBench|SseFrameBench'
  JMH_CEILING='VerifyBench'
fi

# ------------------------------------------------------------------ build
if [ $BUILD = 1 ]; then
  log "building Cairn (mvn -q -DskipTests install at the top level)"
  (cd "$TOP" && mvn -q -DskipTests install) || { echo "Cairn build failed" >&2; exit 1; }
  log "building the benchmarks module"
  (cd "$BENCH_DIR" && mvn -q -DskipTests package) || { echo "benchmarks build failed" >&2; exit 1; }
fi
if [ ! -f "$BENCH_DIR/target/classpath.txt" ]; then
  echo "benchmarks not built: run without --no-build" >&2; exit 1
fi
CP="$BENCH_DIR/target/classes:$(cat "$BENCH_DIR/target/classpath.txt")"
JAVA=(java -cp "$CP")
GATLING_JVM=(--add-opens=java.base/java.lang=ALL-UNNAMED --add-opens=java.base/java.nio=ALL-UNNAMED
  --add-opens=java.base/jdk.internal.misc=ALL-UNNAMED -XX:+UseG1GC -Xms512m -Xmx2g)

WORK=$(mktemp -d /tmp/cairn-bench.XXXXXX)
RESULTS="$WORK/results.jsonl"
: > "$RESULTS"
FAILED=()
RELAY_PID=""

cleanup() {
  if [ -n "$RELAY_PID" ] && kill -0 "$RELAY_PID" 2>/dev/null; then
    kill "$RELAY_PID" 2>/dev/null
    for _ in $(seq 1 40); do kill -0 "$RELAY_PID" 2>/dev/null || break; sleep 0.5; done
    kill -0 "$RELAY_PID" 2>/dev/null && kill -9 "$RELAY_PID" 2>/dev/null
  fi
  if [ $KEEP = 0 ]; then rm -rf "$WORK"; else echo "work directory kept: $WORK"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ------------------------------------------------------------------ relay
if [ -n "$RELAY_URL_ARG" ]; then
  RELAY_URL="$RELAY_URL_ARG"
  RELAY_PID_USE="$RELAY_PID_ARG"
  RELAY_DESC="external"
else
  [ -f "$JAR" ] || { echo "no relay jar at $JAR (build it, or pass --relay URL)" >&2; exit 1; }
  cp "$JAR" "$WORK/cairn.jar"
  PORT=$("${JAVA[@]}" dev.cairn.bench.report.FreePort)
  RELAY_URL="ws://127.0.0.1:$PORT"
  log "starting Cairn on $RELAY_URL (data in $WORK/data)"
  RELAY_JVM=()
  [ $JFR = 1 ] && RELAY_JVM=(-XX:StartFlightRecording=filename="$WORK/relay.jfr",settings=profile,method-profiling=normal,dumponexit=true)
  CAIRN_HTTP_HOST=127.0.0.1 CAIRN_HTTP_PORT=$PORT CAIRN_STORE_DIR="$WORK/data" \
    java "${RELAY_JVM[@]}" -jar "$WORK/cairn.jar" > "$WORK/relay.log" 2>&1 &
  RELAY_PID=$!
  RELAY_PID_USE=$RELAY_PID
  RELAY_DESC="Cairn $JAR (pid $RELAY_PID, default JVM flags$([ $JFR = 1 ] && echo ', JFR profile recording'))"
  for _ in $(seq 1 120); do
    if ! kill -0 "$RELAY_PID" 2>/dev/null; then
      echo "Cairn exited during start; its log:" >&2; tail -50 "$WORK/relay.log" >&2; exit 1
    fi
    [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/readyz")" = 200 ] && break
    sleep 0.5
  done
  [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/readyz")" = 200 ] \
    || { echo "Cairn not ready after 60 s; its log:" >&2; tail -50 "$WORK/relay.log" >&2; exit 1; }
fi
export RELAY_URL
case "$RELAY_URL" in
  ws://127.*|ws://localhost*|ws://\[::1\]*|wss://127.*|wss://localhost*) ;;
  *) echo "load tests only target this machine (127.0.0.0/8, localhost, [::1]); got $RELAY_URL" >&2; exit 2 ;;
esac

relay_alive() {
  [ -z "$RELAY_PID" ] || kill -0 "$RELAY_PID" 2>/dev/null || { echo "the relay process died; log tail:" >&2; tail -30 "$WORK/relay.log" >&2; return 1; }
}

# run NAME CMD...: runs one step, records a failure when it exits non-zero
run_step() {
  local name=$1; shift
  log "$name"
  if "$@"; then
    relay_alive || FAILED+=("$name (relay died)")
  else
    FAILED+=("$name (exit $?)")
    relay_alive || true
  fi
}

gen() { # gen OUT COUNT AUTHORS SEED [extra...]
  local out=$1 count=$2 authors=$3 seed=$4; shift 4
  "${JAVA[@]}" dev.cairn.bench.gen.GenerateEvents --count "$count" --authors "$authors" --seed "$seed" \
    --out "$out" --verify-sample 200 "$@"
}

gatling() { # gatling SIMULATION -Dk=v...
  local sim=$1; shift
  java "${GATLING_JVM[@]}" "$@" -DRELAY_URL="$RELAY_URL" -DresultFile="$RESULTS" -cp "$CP" \
    io.gatling.app.Gatling -s "dev.cairn.bench.gatling.$sim" -rf "$BENCH_DIR/target/gatling" -l cairn-bench \
    > "$WORK/gatling-$sim.log" 2>&1
  local rc=$?
  grep -E '^(ingest|query)|^RESULT|FAILED|Global: |KO ' "$WORK/gatling-$sim.log" | grep -v '^> ' | sed 's/^/  /'
  if [ $rc != 0 ]; then
    echo "  Gatling exited $rc; last lines of $WORK/gatling-$sim.log:"; tail -25 "$WORK/gatling-$sim.log" | sed 's/^/  | /'
  fi
  return $rc
}

SEED=$(date +%s)

# ------------------------------------------------------------------ ingest
if wants ingest; then
  run_step "generate $INGEST_EVENTS ingest events" gen "$WORK/ingest.jsonl" $INGEST_EVENTS $INGEST_AUTHORS $SEED
  NLEV=$(echo "$INGEST_LEVELS" | tr ',' '\n' | wc -l)
  run_step "ingest (Gatling, window 1, connections $INGEST_LEVELS)" gatling IngestSimulation \
    -Dfile="$WORK/ingest.jsonl" -Dconnections="$INGEST_LEVELS" -Dduration=$INGEST_DURATION \
    -Dslices=$((2 * NLEV)) -DfirstSlice=0
  run_step "ingest (Java client, window $INGEST_WINDOW, connections $INGEST_LEVELS)" \
    "${JAVA[@]}" -Xmx3g dev.cairn.bench.load.IngestLoad --file "$WORK/ingest.jsonl" --connections "$INGEST_LEVELS" \
    --window $INGEST_WINDOW --duration $INGEST_DURATION --slices $((2 * NLEV)) --first-slice $NLEV \
    --result-file "$RESULTS"
fi

# ------------------------------------------------------------------ fanout
if wants fanout; then
  # dated from now on, later than every other generated event: the subscribers' "since" sees only these
  run_step "generate $FANOUT_EVENTS fan-out events" gen "$WORK/fanout.jsonl" $FANOUT_EVENTS 500 $((SEED + 1)) \
    --base-time "$(date +%s)" --spread 120 --mix 1:70,7:30
  run_step "fanout (subscribers $FANOUT_SUBS)" "${JAVA[@]}" -Xmx3g dev.cairn.bench.load.FanoutLoad \
    --file "$WORK/fanout.jsonl" --subscribers "$FANOUT_SUBS" --rates "$FANOUT_RATES" \
    --publishers $FANOUT_PUBLISHERS --duration $FANOUT_DURATION --result-file "$RESULTS"
fi

# ------------------------------------------------------------------ query
if wants query; then
  run_step "generate $QUERY_PRELOAD events to preload" gen "$WORK/preload.jsonl" $QUERY_PRELOAD $QUERY_AUTHORS $((SEED + 2))
  run_step "preload the store" "${JAVA[@]}" -Xmx3g dev.cairn.bench.load.IngestLoad --preload \
    --file "$WORK/preload.jsonl" --connections 8 --window 64 --result-file "$RESULTS"
  run_step "plan the query mix" "${JAVA[@]}" dev.cairn.bench.load.QueryPlan --file "$WORK/preload.jsonl" \
    --out "$WORK/queries.jsonl" --per-type 100 --seed $SEED
  run_step "query (Gatling, $QUERY_USERS users)" gatling QuerySimulation -Dqueries="$WORK/queries.jsonl" \
    -Dusers=$QUERY_USERS -Dduration=$QUERY_DURATION
fi

# ------------------------------------------------------------------ idle
if wants idle; then
  PIDARG=()
  [ -n "${RELAY_PID_USE:-}" ] && PIDARG=(--pid "$RELAY_PID_USE")
  run_step "idle ($IDLE_CONNS connections)" "${JAVA[@]}" -Xmx3g dev.cairn.bench.load.IdleLoad \
    --connections $IDLE_CONNS --hold $IDLE_HOLD "${PIDARG[@]}" --result-file "$RESULTS"
fi

# ------------------------------------------------------------------ stop the relay before JMH (same cores)
if [ -n "$RELAY_PID" ]; then
  log "stopping Cairn (pid $RELAY_PID)"
  kill "$RELAY_PID" 2>/dev/null
  for _ in $(seq 1 40); do kill -0 "$RELAY_PID" 2>/dev/null || break; sleep 0.5; done
  if kill -0 "$RELAY_PID" 2>/dev/null; then
    FAILED+=("relay did not stop on SIGTERM within 20 s"); kill -9 "$RELAY_PID" 2>/dev/null
  else
    wait "$RELAY_PID" 2>/dev/null; RC=$?
    [ $RC = 0 ] || FAILED+=("relay exited $RC on SIGTERM")
  fi
  RELAY_PID=""
  if [ $JFR = 1 ] && [ -s "$WORK/relay.jfr" ]; then
    mkdir -p "$BENCH_DIR/target" && cp "$WORK/relay.jfr" "$BENCH_DIR/target/relay-last.jfr"
    jfr_report() {
      "${JAVA[@]}" dev.cairn.bench.report.JfrTop --file "$WORK/relay.jfr" --results "$RESULTS" > "$WORK/jfr.md" \
        && cat "$WORK/jfr.md"
    }
    run_step "JFR profile of the relay (benchmarks/target/relay-last.jfr)" jfr_report
  fi
fi

# ------------------------------------------------------------------ JMH
jmh() { # jmh LOGNAME ARGS...: JMH's own output goes to a log, its result table is printed
  local logname=$1; shift
  "${JAVA[@]}" org.openjdk.jmh.Main "$@" > "$WORK/$logname.log" 2>&1
  local rc=$?
  sed -n '/^Benchmark  /,/^Benchmark result/p' "$WORK/$logname.log" | sed 's/^/  /'
  if [ $rc != 0 ] || grep -q -E '<failure>|Exception' "$WORK/$logname.log"; then
    echo "  JMH failed (exit $rc); last lines of $WORK/$logname.log:"; tail -30 "$WORK/$logname.log" | sed 's/^/  | /'
    return 1
  fi
}
if wants jmh; then
  CORES=$(nproc)
  run_step "JMH ($JMH_SELECT), 1 thread" jmh jmh-t1 "$JMH_SELECT" "${JMH_ARGS[@]}" -t 1 -rf json -rff "$WORK/jmh-t1.json"
  run_step "JMH verify ceiling, $CORES threads" jmh jmh-tn "$JMH_CEILING" "${JMH_ARGS[@]}" -t "$CORES" \
    -rf json -rff "$WORK/jmh-tn.json"
fi

# ------------------------------------------------------------------ summary
COMMIT=$(git -C "$TOP" rev-parse --short HEAD 2>/dev/null || echo unknown)
DIRTY=""
[ -n "$(git -C "$TOP" status --porcelain -- src pom.xml 2>/dev/null)" ] && DIRTY="+uncommitted-src"
DATE=$(date -u +%Y-%m-%dT%H%M%SZ)
mkdir -p "$BENCH_DIR/results"
OUT="$BENCH_DIR/results/$DATE-$COMMIT.md"
STATUS="passed"
[ ${#FAILED[@]} -gt 0 ] && STATUS="FAILED: $(IFS=';'; echo "${FAILED[*]}")"
json_str() { printf '%s' "$1" | sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' | tr '\n' ' '; }
cat > "$WORK/machine.json" <<EOF
{"date": "$(date -u '+%Y-%m-%d %H:%M UTC')", "mode": "$MODE", "commit": "$COMMIT$DIRTY",
 "cpu": "$(json_str "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')")",
 "cores": $(nproc), "memory": "$(free -g | awk '/Mem:/{print $2" GiB"}')",
 "os": "$(json_str "$(uname -sr)")", "jvm": "$(json_str "$(java -version 2>&1 | head -2 | tr '\n' ' ')")",
 "relay": "$(json_str "$RELAY_DESC")", "relay_url": "$RELAY_URL", "scenarios": "$ONLY",
 "load_average": "$LOAD_START at start, $(cut -d' ' -f1-3 /proc/loadavg) at end (other processes on these cores distort every figure)",
 "status": "$(json_str "$STATUS")"}
EOF
log "summary"
"${JAVA[@]}" dev.cairn.bench.report.Summary --results "$RESULTS" --jmh "$WORK/jmh-t1.json,$WORK/jmh-tn.json" \
  --machine "$WORK/machine.json" --append "$WORK/jfr.md" --out "$OUT" || FAILED+=("summary")
echo "written: $OUT   ($(( $(date +%s) - T0 )) s in all)"
if [ ${#FAILED[@]} -gt 0 ]; then
  echo "FAILED steps:" >&2
  printf '  - %s\n' "${FAILED[@]}" >&2
  exit 1
fi
exit 0
