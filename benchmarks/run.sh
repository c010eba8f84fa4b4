#!/usr/bin/env bash
# Cairn benchmarks: builds, generates pre-signed events, and runs every load scenario against Cairn and,
# with --peer, against a peer relay in the same run: each relay on a fresh, empty store per scenario
# (a fresh Cairn process and data directory; strfry restarted through its run script), one relay after
# the other so both see the same machine. Writes benchmarks/results/<date>-<commit>.md with the relays
# side by side (Cairn/peer ratios) and prints it.
#
#   benchmarks/run.sh [--quick] [--peer strfry | --peer ws://HOST:PORT [--peer-pid PID]] [--peer-name NAME]
#                     [--relay ws://HOST:PORT/PATH [--relay-pid PID]] [--only NAME[,NAME...]]
#                     [--no-build] [--jar PATH] [--jfr] [--keep]
#
#   --quick       small sizes: under 3 minutes for Cairn alone on 2 cores, about twice that with a peer
#   --peer strfry start strfry ($STRFRY_RUN, default ../shared/peers/strfry/run beside this repository) on a
#                 free port, on a fresh database, for each scenario, and stop it by its PID afterwards
#   --peer URL    a peer relay that is already running (loopback only); --peer-pid PID gives its RSS.
#                 Its store is NOT reset between scenarios (use a fresh one)
#   --peer cairn  a second Cairn (this jar) on embedded SQLite as the peer: with --dialect mysql, MariaDB vs SQLite
#   --peer-name   the peer's column title (default strfry, or "peer" for a URL)
#   --dialect D   the store of the Cairn in slot 0: sqlite (default) or mysql (a fresh meta database per
#                 scenario on $CAIRN_BENCH_MYSQL, default mysql://root@127.0.0.1:3306, dropped afterwards)
#   --relay URL   benchmark this relay instead of starting Cairn (loopback only); --relay-pid PID for RSS
#   --only        comma list of: ingest, fanout, query, idle, sse, outbox, jmh (default: all).
#                 sse (change feed) and outbox (NATS) run on a started Cairn only, never on the peer
#   --no-build    skip both Maven builds (use what is already built; warns when a source is newer than the jar)
#   --jar PATH    the Cairn jar to start (default: target/cairn.jar of this repository; given, Cairn is not built)
#   --jfr         record the ingest scenario's Cairn with JFR (profile) and add its CPU profile to the summary
#   --keep        keep the work directory (event files, relay data and logs)
#
# Sizes come from the environment when set (e.g. INGEST_DURATION=2 FANOUT_DURATION=2 run.sh --quick):
#   MAIN_EVENTS MAIN_AUTHORS INGEST_LEVELS INGEST_DURATION FANOUT_SUBS FANOUT_PUBLISHERS FANOUT_LEVELS
#   FANOUT_DURATION FANOUT_OVERLOAD_DURATION FANOUT_DRAIN_MAX QUERY_PRELOAD QUERY_CONNS QUERY_DURATION
#   QUERY_CLIENTS_DURATION IDLE_CONNS IDLE_HOLD SSE_EVENTS SSE_WARMUP OUTBOX_RATE OUTBOX_DURATION JMH_SELECT
#   RELAY_WARMUP (Cairn's startup.warmup for every start: empty = its default, 6s; the quick run's is 500ms,
#   a smoke test of seven relay starts that would otherwise spend ~50 s more warming relays up)
#
# Exit status: 0 when every scenario ran and passed its checks on every relay, 1 otherwise.
set -uo pipefail

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(dirname "$BENCH_DIR")
QUICK=0
RELAY_URL_ARG=""
RELAY_PID_ARG=""
PEER_ARG=""
PEER_PID_ARG=""
PEER_NAME_ARG=""
ALL_SCENARIOS="ingest,fanout,query,idle,sse,outbox,jmh"
ONLY="$ALL_SCENARIOS"
BUILD=1
BUILD_CAIRN=1
JAR="$TOP/target/cairn.jar"
KEEP=0
JFR=0
DIALECT=sqlite
CAIRN_BENCH_MYSQL=${CAIRN_BENCH_MYSQL:-mysql://root@127.0.0.1:3306}
STRFRY_RUN=${STRFRY_RUN:-$(dirname "$TOP")/shared/peers/strfry/run}

while [ $# -gt 0 ]; do
  case "$1" in
    --quick) QUICK=1 ;;
    --relay) RELAY_URL_ARG="$2"; shift ;;
    --relay-pid) RELAY_PID_ARG="$2"; shift ;;
    --peer) PEER_ARG="$2"; shift ;;
    --peer-pid) PEER_PID_ARG="$2"; shift ;;
    --peer-name) PEER_NAME_ARG="$2"; shift ;;
    --dialect) DIALECT="$2"; shift ;;
    --only) ONLY="$2"; shift ;;
    --no-build) BUILD=0 ;;
    --jar) JAR="$2"; BUILD_CAIRN=0; shift ;;
    --keep) KEEP=1 ;;
    --jfr) JFR=1 ;;
    -h|--help) sed -n '2,31p' "$0"; exit 0 ;;
    *) echo "unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
for s in ${ONLY//,/ }; do
  [[ ",$ALL_SCENARIOS," == *",$s,"* ]] || { echo "unknown scenario $s (known: $ALL_SCENARIOS)" >&2; exit 2; }
done

wants() { [[ ",$ONLY," == *",$1,"* ]]; }
log() { printf '\n=== %s  %s\n' "$(date +%H:%M:%S)" "$*"; }
T0=$(date +%s)
LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)

# ------------------------------------------------------------------ sizes (full and quick differ in duration and store size only)
if [ $QUICK = 1 ]; then
  MODE=quick
  : "${MAIN_EVENTS:=30000}" "${MAIN_AUTHORS:=300}" "${INGEST_DURATION:=4}" "${FANOUT_DURATION:=2}"
  : "${FANOUT_OVERLOAD_DURATION:=1}"   # 2,000 events x 200 subscribers = 400k deliveries to drain
  : "${FANOUT_DRAIN_MAX:=120}" "${QUERY_PRELOAD:=20000}" "${QUERY_DURATION:=5}" "${IDLE_CONNS:=1000}"
  : "${QUERY_CLIENTS_DURATION:=3}"
  : "${IDLE_HOLD:=3}" "${SSE_EVENTS:=10000}" "${OUTBOX_RATE:=1000}" "${OUTBOX_DURATION:=3}" "${SSE_WARMUP:=1}"
  : "${RELAY_WARMUP:=500ms}" "${CLIENT_WARMUP:=1}"
  JMH_ARGS=(-f 1 -wi 1 -w 1s -i 2 -r 1s); : "${JMH_SELECT:=VerifyBench}"; JMH_CEILING='VerifyBench.bareLibsecp256k1'
else
  MODE=full
  # fan-out: 10 s at 2,000/s is already 4M deliveries to drain (strfry ~37k/s, Cairn less on 2 cores)
  : "${MAIN_EVENTS:=600000}" "${MAIN_AUTHORS:=5000}" "${INGEST_DURATION:=30}" "${FANOUT_DURATION:=10}"
  : "${FANOUT_DRAIN_MAX:=180}" "${QUERY_PRELOAD:=200000}" "${QUERY_DURATION:=60}" "${IDLE_CONNS:=10000}"
  : "${QUERY_CLIENTS_DURATION:=30}"
  : "${IDLE_HOLD:=15}" "${SSE_EVENTS:=200000}" "${OUTBOX_RATE:=5000}" "${OUTBOX_DURATION:=10}" "${SSE_WARMUP:=3}"
  : "${FANOUT_OVERLOAD_DURATION:=$FANOUT_DURATION}"
  : "${RELAY_WARMUP:=}" "${CLIENT_WARMUP:=2}"
  JMH_ARGS=()
  : "${JMH_SELECT:=EventPipelineBench|VerifyBench|SubscriptionMatchBench|GroupCommitBench|FrameEncodingBench|SseFrameBench}"
  JMH_CEILING='VerifyBench.bareLibsecp256k1'
fi
: "${INGEST_LEVELS:=1x50,50x20}"                 # connections x EVENTs in flight per connection
: "${FANOUT_SUBS:=200}" "${FANOUT_PUBLISHERS:=4}"
: "${FANOUT_LEVELS:=overload:2000,latency:50}"   # name:offered events/s; "overload" may close subscribers
: "${QUERY_CONNS:=10}"
PRELOAD_ARGS=(--connections 8 --window 64)

# ------------------------------------------------------------------ relays: slot 0 = Cairn (or --relay), slot 1 = the peer
case "$DIALECT" in sqlite|mysql) ;; *) echo "--dialect takes sqlite or mysql, got $DIALECT" >&2; exit 2 ;; esac
R_NAME=(); R_KIND=(); R_URL=(); R_PID=(); R_LOG=(); R_DESC=(); R_DIALECT=(); R_DB=()
if [ -n "$RELAY_URL_ARG" ]; then
  R_NAME+=("relay"); R_KIND+=("external"); R_URL+=("$RELAY_URL_ARG"); R_PID+=("$RELAY_PID_ARG"); R_LOG+=(""); R_DIALECT+=(""); R_DB+=("")
  R_DESC+=("external relay $RELAY_URL_ARG${RELAY_PID_ARG:+ (pid $RELAY_PID_ARG)}")
else
  R_NAME+=("Cairn$([ "$DIALECT" = mysql ] && echo '-MariaDB')"); R_KIND+=("cairn"); R_URL+=(""); R_PID+=(""); R_LOG+=("")
  R_DIALECT+=("$DIALECT"); R_DB+=("")
  R_DESC+=("Cairn $JAR on $([ "$DIALECT" = mysql ] && echo "MySQL ($CAIRN_BENCH_MYSQL, a fresh meta database per scenario)" || echo 'embedded SQLite'), default JVM flags$([ -n "$RELAY_WARMUP" ] && echo ", startup.warmup $RELAY_WARMUP"), a fresh process and data directory per scenario$([ $JFR = 1 ] && echo ' (ingest recorded with JFR)')")
fi
case "$PEER_ARG" in
  "") ;;
  cairn)
    R_NAME+=("${PEER_NAME_ARG:-Cairn-SQLite}"); R_KIND+=("cairn"); R_URL+=(""); R_PID+=(""); R_LOG+=(""); R_DIALECT+=("sqlite"); R_DB+=("")
    R_DESC+=("Cairn $JAR on embedded SQLite, default JVM flags$([ -n "$RELAY_WARMUP" ] && echo ", startup.warmup $RELAY_WARMUP"), a fresh process and data directory per scenario") ;;
  strfry)
    [ -x "$STRFRY_RUN" ] || { echo "no strfry run script at $STRFRY_RUN (set STRFRY_RUN)" >&2; exit 2; }
    R_NAME+=("${PEER_NAME_ARG:-strfry}"); R_KIND+=("strfry"); R_URL+=(""); R_PID+=(""); R_LOG+=(""); R_DIALECT+=(""); R_DB+=("")
    R_DESC+=("strfry $(sed -n 's/.*Build: strfry \([^ ]*\).*/\1/p' "$(dirname "$STRFRY_RUN")/README.md" 2>/dev/null | head -1) via $STRFRY_RUN, default config, a fresh database per scenario") ;;
  ws://*|wss://*)
    R_NAME+=("${PEER_NAME_ARG:-peer}"); R_KIND+=("external"); R_URL+=("$PEER_ARG"); R_PID+=("$PEER_PID_ARG"); R_LOG+=(""); R_DIALECT+=(""); R_DB+=("")
    R_DESC+=("external peer $PEER_ARG${PEER_PID_ARG:+ (pid $PEER_PID_ARG)}, store not reset between scenarios") ;;
  *) echo "--peer takes strfry, cairn or ws://HOST:PORT, got $PEER_ARG" >&2; exit 2 ;;
esac
[ "${#R_NAME[@]}" -lt 2 ] || [ "${R_NAME[0]}" != "${R_NAME[1]}" ] || { echo "the two relays need different names (--peer-name)" >&2; exit 2; }
loopback_only() {
  case "$1" in
    ws://127.*|ws://localhost*|ws://\[::1\]*|wss://127.*|wss://localhost*) ;;
    *) echo "load tests only target this machine (127.0.0.0/8, localhost, [::1]); got $1" >&2; exit 2 ;;
  esac
}
for i in "${!R_NAME[@]}"; do [ "${R_KIND[$i]}" = external ] && loopback_only "${R_URL[$i]}"; done

# ------------------------------------------------------------------ build
if [ $BUILD = 1 ]; then
  if [ $BUILD_CAIRN = 1 ] && [ "${R_KIND[0]}" = cairn ]; then
    log "building Cairn (mvn -q -DskipTests install at the top level)"
    (cd "$TOP" && mvn -q -DskipTests install) || { echo "Cairn build failed" >&2; exit 1; }
  fi
  log "building the benchmarks module"
  (cd "$BENCH_DIR" && mvn -q -DskipTests package) || { echo "benchmarks build failed" >&2; exit 1; }
fi
if [ ! -f "$BENCH_DIR/target/classpath.txt" ]; then
  echo "benchmarks not built: run without --no-build" >&2; exit 1
fi
CP="$BENCH_DIR/target/classes:$(cat "$BENCH_DIR/target/classpath.txt")"
JAVA=(java -cp "$CP")
# --no-build runs the jar that is there: one built before the sources last changed (an edit taken back
# with git checkout included) is not the code the commit names, and the summary says so
STALE=""
if [ $BUILD_CAIRN = 1 ] && [ "${R_KIND[0]}" = cairn ] && [ -f "$JAR" ]; then
  NEWER=$(find "$TOP/src/main" "$TOP/pom.xml" -newer "$JAR" -print -quit 2>/dev/null)
  if [ -n "$NEWER" ]; then
    STALE="+jar-older-than-src"
    echo "warning: $JAR is older than $NEWER: it may not hold the code of the commit; run without --no-build" >&2
  fi
fi

# The commit and its state as the run starts, which is the code the relays run: sources edited while it
# runs (a long run) are not in its figures
COMMIT=$(git -C "$TOP" rev-parse --short HEAD 2>/dev/null || echo unknown)
DIRTY=""
[ -n "$(git -C "$TOP" status --porcelain -- src pom.xml 2>/dev/null)" ] && DIRTY="+uncommitted-src"
DIRTY="$DIRTY$STALE"

WORK=$(mktemp -d /tmp/cairn-bench.XXXXXX)
RESULTS="$WORK/results.jsonl"
: > "$RESULTS"
FAILED=()
OUTBOX_STREAM=""
if [ "${R_KIND[0]}" = cairn ]; then
  [ -f "$JAR" ] || { echo "no relay jar at $JAR (build it, pass --jar PATH, or --relay URL)" >&2; exit 1; }
  cp "$JAR" "$WORK/cairn.jar"
fi

# ------------------------------------------------------------------ starting and stopping relays
free_port() { # a port nothing listens on, below the ephemeral range
  local p
  for _ in $(seq 1 200); do
    p=$((20000 + RANDOM % 10000))
    (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo "$p"; return 0; }
  done
  return 1
}

# relay_up I TAG [VAR=VALUE...]: relay I with a fresh, empty store for scenario TAG (an external relay is
# used as it is); sets R_URL[I], R_PID[I], R_LOG[I]
relay_up() {
  local i=$1 tag=$2; shift 2
  local port dir
  case "${R_KIND[$i]}" in
    external) return 0 ;;
    cairn)
      port=$(free_port) || return 1
      dir="$WORK/cairn-$tag"; mkdir -p "$dir"
      local jvm=()
      [ $JFR = 1 ] && [ "$tag" = ingest ] && \
        jvm=(-XX:StartFlightRecording=filename="$WORK/relay.jfr",settings=profile,method-profiling=normal,dumponexit=true)
      local store_env=()
      if [ "${R_DIALECT[$i]}" = mysql ]; then
        R_DB[$i]="cairn_bench_${tag//[^a-z0-9]/_}_$$_$i"
        store_env=(CAIRN_STORE_DIALECT=mysql CAIRN_STORE_URL="$CAIRN_BENCH_MYSQL/${R_DB[$i]}")
      fi
      [ -n "$RELAY_WARMUP" ] && store_env+=(CAIRN_STARTUP_WARMUP="$RELAY_WARMUP")
      env CAIRN_HTTP_HOST=127.0.0.1 CAIRN_HTTP_PORT="$port" CAIRN_STORE_DIR="$dir/data" "${store_env[@]}" "$@" \
        java "${jvm[@]}" -jar "$WORK/cairn.jar" > "$dir/relay.log" 2>&1 &
      R_PID[$i]=$!; R_URL[$i]="ws://127.0.0.1:$port"; R_LOG[$i]="$dir/relay.log"
      for _ in $(seq 1 240); do
        if ! kill -0 "${R_PID[$i]}" 2>/dev/null; then
          echo "Cairn exited during start; its log:" >&2; tail -30 "${R_LOG[$i]}" >&2; R_PID[$i]=""; return 1
        fi
        [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/readyz")" = 200 ] && break
        sleep 0.25
      done
      [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/readyz")" = 200 ] \
        || { echo "Cairn not ready after 60 s; its log:" >&2; tail -30 "${R_LOG[$i]}" >&2; return 1; }
      echo "  ${R_NAME[$i]} on ${R_URL[$i]}, pid ${R_PID[$i]}, data in $dir/data" ;;
    strfry)
      port=$(free_port) || return 1
      local pid
      # STRFRY_KEEP: left to itself the run script deletes strfry's directory, log included, as soon as
      # strfry exits, so a crash could not be read; relay_down deletes it once strfry is stopped
      pid=$(STRFRY_KEEP=1 "$STRFRY_RUN" "$port" 2> "$WORK/strfry-$tag.err") || { cat "$WORK/strfry-$tag.err" >&2; return 1; }
      R_PID[$i]=$pid; R_URL[$i]="ws://127.0.0.1:$port"
      R_LOG[$i]="$(readlink -f "/proc/$pid/cwd" 2>/dev/null)/strfry.log"
      echo "  ${R_NAME[$i]} on ${R_URL[$i]}, pid $pid, log ${R_LOG[$i]}" ;;
  esac
}

# relay_down I: stops a relay this script started (SIGTERM to its PID, SIGKILL after 20 s)
relay_down() {
  local i=$1 pid=${R_PID[$1]}
  [ "${R_KIND[$i]}" = external ] && return 0
  [ -n "$pid" ] || return 0
  R_PID[$i]=""
  kill "$pid" 2>/dev/null
  for _ in $(seq 1 80); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
  if kill -0 "$pid" 2>/dev/null; then
    FAILED+=("${R_NAME[$i]} (pid $pid) did not stop on SIGTERM within 20 s"); kill -9 "$pid" 2>/dev/null
  elif [ "${R_KIND[$i]}" = cairn ]; then
    wait "$pid" 2>/dev/null; local rc=$?
    [ $rc = 0 ] || FAILED+=("${R_NAME[$i]} exited $rc on SIGTERM")
  fi
  drop_mysql "$i"
  drop_strfry_dir "$i"
}

# drop_strfry_dir I: deletes the directory (database and log) of the strfry relay I ran, unless --keep;
# only a directory the run script made (/tmp/strfry.XXXXXX with its strfry.conf)
drop_strfry_dir() {
  local i=$1 dir
  [ "${R_KIND[$i]}" = strfry ] && [ -n "${R_LOG[$i]}" ] || return 0
  dir=$(dirname "${R_LOG[$i]}")
  R_LOG[$i]=""
  [ $KEEP = 0 ] && [[ $dir == /tmp/strfry.* ]] && [ -f "$dir/strfry.conf" ] && rm -rf "$dir"
  return 0
}

# drop_mysql I: drops the MySQL databases of relay I's scenario (its meta DB and the tenant DBs beside it)
drop_mysql() {
  local i=$1 db=${R_DB[$1]}
  [ -n "$db" ] || return 0
  R_DB[$i]=""
  local h=${CAIRN_BENCH_MYSQL#mysql://}; local user=${h%%@*}; h=${h#*@}
  local host=${h%%:*} port=3306; [[ "$h" == *:* ]] && port=${h##*:}
  mysql -u"${user%%:*}" $([[ "$user" == *:* ]] && echo "-p${user#*:}") -h"$host" -P"$port" -N \
    -e "SELECT schema_name FROM information_schema.schemata WHERE schema_name LIKE '${db}%'" 2>/dev/null \
    | while read -r d; do
        mysql -u"${user%%:*}" $([[ "$user" == *:* ]] && echo "-p${user#*:}") -h"$host" -P"$port" -e "DROP DATABASE \`$d\`"
      done
}

relay_alive() { # relay_alive I: the relay's process is still there (when we know its PID)
  local i=$1 pid=${R_PID[$1]}
  [ -z "$pid" ] || kill -0 "$pid" 2>/dev/null && return 0
  echo "${R_NAME[$i]} (pid $pid) died; log tail:" >&2
  [ -n "${R_LOG[$i]}" ] && tail -30 "${R_LOG[$i]}" >&2
  return 1
}

cleanup() {
  for i in "${!R_NAME[@]}"; do relay_down "$i"; done
  if [ -n "$OUTBOX_STREAM" ]; then
    "${JAVA[@]}" dev.cairn.bench.load.OutboxLoad --cleanup --stream "$OUTBOX_STREAM" > /dev/null 2>&1
  fi
  if [ $KEEP = 0 ]; then rm -rf "$WORK"; else echo "work directory kept: $WORK"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# run_step I NAME CMD...: one step against relay I; a non-zero exit or a dead relay is a failure
run_step() {
  local i=$1 name=$2; shift 2
  log "$name"
  local t=$(date +%s)
  if "$@"; then
    relay_alive "$i" || FAILED+=("$name (relay died)")
  else
    FAILED+=("$name (exit $?)")
    relay_alive "$i" || true
  fi
  echo "  ($(( $(date +%s) - t )) s)"
}

# on_relays TAG FN: for each relay in turn, a fresh relay for TAG, then FN I, then stop it
on_relays() {
  local tag=$1 fn=$2 i
  for i in "${!R_NAME[@]}"; do
    if [ "${R_KIND[$i]}" = external ]; then
      log "$tag on ${R_NAME[$i]}: the running relay at ${R_URL[$i]} (its store is not reset)"
    else
      log "$tag on ${R_NAME[$i]}: starting a fresh relay"
    fi
    if ! relay_up "$i" "$tag"; then FAILED+=("$tag on ${R_NAME[$i]}: the relay did not start"); continue; fi
    "$fn" "$i"
    relay_down "$i"
  done
}

tool_args() { # tool_args I: what every load tool gets for relay I
  TOOL_ARGS=(--url "${R_URL[$1]}" --relay-name "${R_NAME[$1]}" --result-file "$RESULTS")
  PID_ARGS=()
  [ -n "${R_PID[$1]}" ] && PID_ARGS=(--pid "${R_PID[$1]}")
  return 0
}

gen() { # gen OUT COUNT AUTHORS SEED [extra...]
  local out=$1 count=$2 authors=$3 seed=$4; shift 4
  "${JAVA[@]}" dev.cairn.bench.gen.GenerateEvents --count "$count" --authors "$authors" --seed "$seed" \
    --out "$out" --verify-sample 200 "$@"
}

SEED=$(date +%s)
ceil_mul() { awk -v a="$1" -v b="$2" 'BEGIN { x = a * b; printf "%d", (x == int(x)) ? x : int(x) + 1 }'; }

# ------------------------------------------------------------------ the events: one main file (ingest slices, query and sse preloads, outbox)
CAIRN_STARTED=0; [ "${R_KIND[0]}" = cairn ] && CAIRN_STARTED=1
MAIN_COUNT=0
if wants ingest; then MAIN_COUNT=$MAIN_EVENTS; fi
wants query && [ "$QUERY_PRELOAD" -gt "$MAIN_COUNT" ] && MAIN_COUNT=$QUERY_PRELOAD
wants sse && [ $CAIRN_STARTED = 1 ] && [ "$SSE_EVENTS" -gt "$MAIN_COUNT" ] && MAIN_COUNT=$SSE_EVENTS
if wants outbox && [ $CAIRN_STARTED = 1 ]; then
  NEED=$(( $(ceil_mul "$OUTBOX_RATE" "$OUTBOX_DURATION") * 5 / 4 + 100 )) # ~85% of the mix is regular events
  [ "$NEED" -gt "$MAIN_COUNT" ] && MAIN_COUNT=$NEED
fi
if [ "$MAIN_COUNT" -gt 0 ]; then
  run_step 0 "generate $MAIN_COUNT events" gen "$WORK/main.jsonl" "$MAIN_COUNT" "$MAIN_AUTHORS" "$SEED"
fi

# ------------------------------------------------------------------ ingest
ingest_on() {
  tool_args "$1"
  run_step "$1" "ingest on ${R_NAME[$1]} (C x in-flight: $INGEST_LEVELS, ${INGEST_DURATION} s each)" \
    "${JAVA[@]}" -Xmx3g dev.cairn.bench.load.IngestLoad "${TOOL_ARGS[@]}" "${PID_ARGS[@]}" --file "$WORK/main.jsonl" \
    --levels "$INGEST_LEVELS" --duration "$INGEST_DURATION"
}
wants ingest && on_relays ingest ingest_on

# ------------------------------------------------------------------ fanout: one fresh relay per level
if wants fanout; then
  for LV in ${FANOUT_LEVELS//,/ }; do
    LV_NAME=${LV%%:*}; LV_RATE=${LV#*:}; LV_DUR=$FANOUT_DURATION
    [ "$LV_NAME" = overload ] && LV_DUR=$FANOUT_OVERLOAD_DURATION
    # dated from now on: the subscribers' "since" sees only these
    run_step 0 "generate fan-out events for $LV_NAME ($LV_RATE/s x $LV_DUR s)" gen "$WORK/fanout-$LV_NAME.jsonl" \
      "$(ceil_mul "$LV_RATE" "$LV_DUR")" 500 $((SEED + 1)) --base-time "$(date +%s)" --spread 120 --mix 1:70,7:30
    fanout_on() {
      tool_args "$1"
      run_step "$1" "fanout $LV_NAME on ${R_NAME[$1]} ($FANOUT_SUBS subscribers, $LV_RATE events/s offered for $LV_DUR s)" \
        "${JAVA[@]}" -Xmx3g dev.cairn.bench.load.FanoutLoad "${TOOL_ARGS[@]}" "${PID_ARGS[@]}" --client-warmup "$CLIENT_WARMUP" \
        --file "$WORK/fanout-$LV_NAME.jsonl" --levels "$LV" --subscribers "$FANOUT_SUBS" \
        --publishers "$FANOUT_PUBLISHERS" --duration "$LV_DUR" --drain-max "$FANOUT_DRAIN_MAX"
    }
    on_relays "fanout-$LV_NAME" fanout_on
  done
fi

# ------------------------------------------------------------------ query
if wants query; then
  run_step 0 "plan the query mix (author, kinds+since, tag, ids)" "${JAVA[@]}" dev.cairn.bench.load.QueryPlan \
    --file "$WORK/main.jsonl" --max-events "$QUERY_PRELOAD" --out "$WORK/queries.jsonl" --per-type 100 --seed "$SEED"
  run_step 0 "plan the client mix (timeline, reactions, mentions, hashtags, global)" "${JAVA[@]}" \
    dev.cairn.bench.load.QueryPlan --file "$WORK/main.jsonl" --max-events "$QUERY_PRELOAD" \
    --out "$WORK/queries-clients.jsonl" --per-type 100 --seed "$SEED" --mix clients
  query_on() {
    tool_args "$1"
    run_step "$1" "preload ${R_NAME[$1]} with $QUERY_PRELOAD events" "${JAVA[@]}" -Xmx3g dev.cairn.bench.load.IngestLoad \
      "${TOOL_ARGS[@]}" --preload --level query --file "$WORK/main.jsonl" --max-events "$QUERY_PRELOAD" "${PRELOAD_ARGS[@]}"
    run_step "$1" "query on ${R_NAME[$1]} ($QUERY_CONNS connections, closed loop, $QUERY_DURATION s)" \
      "${JAVA[@]}" -Xmx2g dev.cairn.bench.load.QueryLoad "${TOOL_ARGS[@]}" "${PID_ARGS[@]}" --client-warmup "$CLIENT_WARMUP" --queries "$WORK/queries.jsonl" \
      --connections "$QUERY_CONNS" --duration "$QUERY_DURATION"
    run_step "$1" "query-clients on ${R_NAME[$1]} ($QUERY_CONNS connections, closed loop, $QUERY_CLIENTS_DURATION s)" \
      "${JAVA[@]}" -Xmx2g dev.cairn.bench.load.QueryLoad "${TOOL_ARGS[@]}" "${PID_ARGS[@]}" --client-warmup "$CLIENT_WARMUP" --scenario query-clients \
      --queries "$WORK/queries-clients.jsonl" --connections "$QUERY_CONNS" --duration "$QUERY_CLIENTS_DURATION"
  }
  on_relays query query_on
fi

# ------------------------------------------------------------------ idle
idle_on() {
  tool_args "$1"
  run_step "$1" "idle on ${R_NAME[$1]} ($IDLE_CONNS connections)" "${JAVA[@]}" -Xmx3g dev.cairn.bench.load.IdleLoad \
    "${TOOL_ARGS[@]}" "${PID_ARGS[@]}" --connections "$IDLE_CONNS" --hold "$IDLE_HOLD"
}
wants idle && on_relays idle idle_on

# ------------------------------------------------------------------ sse and outbox: Cairn only
if wants sse; then
  if [ $CAIRN_STARTED = 1 ]; then
    log "sse on Cairn: starting a fresh relay"
    if relay_up 0 sse; then
      tool_args 0
      run_step 0 "preload Cairn with $SSE_EVENTS events" "${JAVA[@]}" -Xmx3g dev.cairn.bench.load.IngestLoad \
        "${TOOL_ARGS[@]}" --preload --level sse --file "$WORK/main.jsonl" --max-events "$SSE_EVENTS" "${PRELOAD_ARGS[@]}"
      run_step 0 "sse replay on Cairn (GET /v1/events?since=0 over $SSE_EVENTS events)" "${JAVA[@]}" -Xmx2g \
        dev.cairn.bench.load.SseLoad "${TOOL_ARGS[@]}" --file "$WORK/main.jsonl" --max-events "$SSE_EVENTS" --warmup "$SSE_WARMUP"
      relay_down 0
    else
      FAILED+=("sse: Cairn did not start")
    fi
  else
    echo "sse skipped: it runs on a Cairn started by this script (not with --relay)"
  fi
fi

if wants outbox; then
  if [ $CAIRN_STARTED = 1 ]; then
    if ! (exec 3<>/dev/tcp/127.0.0.1/4222) 2>/dev/null; then
      FAILED+=("outbox: no NATS on 127.0.0.1:4222")
    else
      OUTBOX_STREAM="CAIRN_BENCH_$(date +%s)_$$"
      OUTBOX_PREFIX="cairnbench$(date +%s)x$$"
      log "outbox on Cairn: starting a fresh relay with outbox.backend=nats, stream $OUTBOX_STREAM, subjects $OUTBOX_PREFIX.>"
      if relay_up 0 outbox CAIRN_OUTBOX_BACKEND=nats CAIRN_NATS_STREAM="$OUTBOX_STREAM" \
          CAIRN_NATS_SUBJECT_PREFIX="$OUTBOX_PREFIX"; then
        tool_args 0
        run_step 0 "outbox on Cairn ($OUTBOX_RATE events/s for $OUTBOX_DURATION s, commit->JetStream)" \
          "${JAVA[@]}" -Xmx2g dev.cairn.bench.load.OutboxLoad "${TOOL_ARGS[@]}" --file "$WORK/main.jsonl" \
          --rate "$OUTBOX_RATE" --duration "$OUTBOX_DURATION" --stream "$OUTBOX_STREAM" --prefix "$OUTBOX_PREFIX"
        relay_down 0
      else
        FAILED+=("outbox: Cairn did not start")
      fi
      # the relay is gone: make sure nothing recreated the stream
      "${JAVA[@]}" dev.cairn.bench.load.OutboxLoad --cleanup --stream "$OUTBOX_STREAM" | sed 's/^/  /'
      OUTBOX_STREAM=""
    fi
  else
    echo "outbox skipped: it runs on a Cairn started by this script (not with --relay)"
  fi
fi

if [ $JFR = 1 ] && [ -s "$WORK/relay.jfr" ]; then
  mkdir -p "$BENCH_DIR/target" && cp "$WORK/relay.jfr" "$BENCH_DIR/target/relay-last.jfr"
  jfr_report() {
    "${JAVA[@]}" dev.cairn.bench.report.JfrTop --file "$WORK/relay.jfr" --results "$RESULTS" --relay "${R_NAME[0]}" \
      --scenario ingest > "$WORK/jfr.md" && cat "$WORK/jfr.md"
  }
  run_step 0 "JFR profile of the ingest scenario's Cairn (benchmarks/target/relay-last.jfr)" jfr_report
fi

# ------------------------------------------------------------------ JMH, with every relay stopped (same cores)
jmh() { # jmh LOGNAME ARGS...: JMH's own output goes to a log, its result table is printed
  local logname=$1; shift
  # JMH's lock file (java.io.tmpdir/jmh.lock) goes with the run's work directory, not into /tmp for good
  "${JAVA[@]}" -Djava.io.tmpdir="$WORK" org.openjdk.jmh.Main "$@" > "$WORK/$logname.log" 2>&1
  local rc=$?
  sed -n '/^Benchmark  /,/^Benchmark result/p' "$WORK/$logname.log" | sed 's/^/  /'
  if [ $rc != 0 ] || grep -q -E '<failure>|Exception' "$WORK/$logname.log"; then
    echo "  JMH failed (exit $rc); last lines of $WORK/$logname.log:"; tail -30 "$WORK/$logname.log" | sed 's/^/  | /'
    return 1
  fi
}
if wants jmh; then
  CORES=$(nproc)
  run_step 0 "JMH ($JMH_SELECT), 1 thread" jmh jmh-t1 "$JMH_SELECT" "${JMH_ARGS[@]}" -t 1 -rf json -rff "$WORK/jmh-t1.json"
  run_step 0 "JMH verify ceiling, $CORES threads" jmh jmh-tn "$JMH_CEILING" "${JMH_ARGS[@]}" -t "$CORES" \
    -rf json -rff "$WORK/jmh-tn.json"
fi

# ------------------------------------------------------------------ summary
DATE=$(date -u +%Y-%m-%dT%H%M%SZ)
mkdir -p "$BENCH_DIR/results"
SUFFIX=""; [ "${#R_NAME[@]}" -gt 1 ] && SUFFIX="-vs-${R_NAME[1]}"
OUT="$BENCH_DIR/results/$DATE-$COMMIT$SUFFIX.md"
STATUS="passed"
[ ${#FAILED[@]} -gt 0 ] && STATUS="FAILED: $(IFS=';'; echo "${FAILED[*]}")"
json_str() { printf '%s' "$1" | sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' | tr '\n' ' '; }
RELAYS_JSON=$(for n in "${R_NAME[@]}"; do printf '"%s",' "$(json_str "$n")"; done | sed 's/,$//')
cat > "$WORK/machine.json" <<EOF
{"date": "$(date -u '+%Y-%m-%d %H:%M UTC')", "mode": "$MODE", "commit": "$COMMIT$DIRTY",
 "cpu": "$(json_str "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')")",
 "cores": $(nproc), "memory": "$(free -g | awk '/Mem:/{print $2" GiB"}')",
 "os": "$(json_str "$(uname -sr)")", "jvm": "$(json_str "$(java -version 2>&1 | head -2 | tr '\n' ' ')")",
 "relays": [$RELAYS_JSON],
 "relay": "$(json_str "${R_DESC[0]}")"$([ "${#R_NAME[@]}" -gt 1 ] && printf ',\n "peer": "%s"' "$(json_str "${R_DESC[1]}")"),
 "scenarios": "$ONLY",
 "load_average": "$LOAD_START at start, $(cut -d' ' -f1-3 /proc/loadavg) at end (1/5/15 min; other processes on these cores distort every figure)",
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
