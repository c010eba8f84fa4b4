#!/usr/bin/env bash
# Fuzzes every parser target in turn with Jazzer (docs/fuzzing.md) and prints the executions each got.
#
#   scripts/fuzz.sh [minutes-per-target [target...]]
#
# minutes-per-target: default 5; a unit may be given instead: 10s, 2m. target: only the targets whose
# Class#method contains one of these words (e.g. ClientMessage, Negentropy); default all.
#
# One target at a time, niced, in its own Maven run (Jazzer fuzzes one @FuzzTest per JVM). The
# corpus each target grows is kept in .cifuzz-corpus/ (git-ignored) and reused by the next run; a
# finding fails that target and Jazzer saves its input as a crash-* seed under
# src/test/resources/<package>/<Class>Inputs/<method>/, where plain `mvn test` then replays it.
# Exit status: 0 when no target found anything.
set -uo pipefail
cd "$(dirname "$0")/.."

budget=${1:-5}
[[ $budget =~ ^[0-9]+$ ]] && budget="${budget}m"
shift || true
only=("$@")

TARGETS=(
  dev.cairn.network.Utf8FuzzTest#frame
  dev.cairn.nostr.ClientMessageFuzzTest#frame
  dev.cairn.nostr.EventFuzzTest#event
  dev.cairn.nostr.FilterFuzzTest#filter
  dev.cairn.nostr.FeedRequestFuzzTest#request
  dev.cairn.config.ConfigFuzzTest#config
  dev.cairn.config.ConfigFuzzTest#duration
  dev.cairn.nostr.negentropy.NegentropyFuzzTest#message
  dev.cairn.policy.PluginReplyFuzzTest#stdout
)
# Coverage feedback from the project and from the JSON code it drives.
INSTRUMENT='dev.cairn.**,com.fasterxml.jackson.core.**,io.vertx.core.json.**'
MVN=(mvn -B -ntp ${CAIRN_FUZZ_MVN_FLAGS:--o})

logs=target/fuzz
mkdir -p "$logs"
"${MVN[@]}" -q test-compile || exit 1

status=0
passed=0
failed=0
printf '%-52s %8s %14s %10s\n' target result executions exec/s
for t in "${TARGETS[@]}"; do
  if [[ ${#only[@]} -gt 0 ]]; then
    wanted=0
    for w in "${only[@]}"; do [[ $t == *"$w"* ]] && wanted=1; done
    [[ $wanted -eq 1 ]] || continue
  fi
  log="$logs/${t##*.}.log"
  log="${log//#/-}"
  start=$(date +%s)
  JAZZER_FUZZ=1 nice -n 19 "${MVN[@]}" surefire:test -Dtest="$t" -Dsurefire.failIfNoSpecifiedTests=false \
    -Djazzer.max_duration="$budget" -Djazzer.instrument="$INSTRUMENT" >"$log" 2>&1
  rc=$?
  secs=$(( $(date +%s) - start ))
  # libFuzzer's closing line: "Done 1234567 runs in 300 second(s)"; Jazzer's output goes to the
  # surefire report of the class when the console does not have it
  class=${t%%#*}
  runs=$(cat "$log" "target/surefire-reports/$class-output.txt" 2>/dev/null | grep -ao 'Done [0-9]* runs in [0-9]* second' | tail -1)
  execs=$(awk '{print $2}' <<<"$runs")
  fuzzsecs=$(awk '{print $5}' <<<"$runs")
  rate=$([[ -n $execs && ${fuzzsecs:-0} -gt 0 ]] && echo $(( execs / fuzzsecs )) || echo -)
  result=$([[ $rc -eq 0 ]] && echo ok || echo FINDING)
  if [[ $rc -eq 0 ]]; then passed=$((passed + 1)); else failed=$((failed + 1)); status=1; fi
  printf '%-52s %8s %14s %10s   (%ss, log %s)\n' "$t" "$result" "${execs:-?}" "$rate" "$secs" "$log"
done
echo "fuzz: $passed passed, $failed failed"
exit $status
