#!/usr/bin/env bash
# Long form of the crash harness (src/test/java/dev/cairn/crash/CrashHarnessIT, tag "crash"): N rounds
# (default 20) of kill -9 under publish + REQ + SSE load against target/cairn.jar, then restart and
# check that nothing OK'd was lost and no handler effect was doubled (docs/outbox.md, "Crash harness").
#
#   scripts/crash-harness.sh [rounds]        CRASH_SEED=<n> to replay the kill moments of a run
#   MVN_FLAGS=-o scripts/crash-harness.sh    extra Maven flags (e.g. offline)
#   CRASH_BACKEND=db|nats|both               outbox backend of the rounds (default db; nats and both need
#                                            JetStream at 127.0.0.1:4222, and a nats round takes ~75 s)
#
# Builds the jar first when it is missing or older than the sources. Prints the per-round counts and
# the summary line; exits non-zero when a round failed (its data directory is kept, see the output).
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-20}
read -r -a mvn_flags <<< "${MVN_FLAGS:-}"
jar=target/cairn.jar
if [ ! -f "$jar" ] || [ -n "$(find pom.xml src/main -type f -newer "$jar" -print -quit)" ]; then
  echo "crash-harness: building $jar"
  mvn -B -q "${mvn_flags[@]}" package -DskipTests
fi
report=target/crash-harness.txt
rm -f "$report"
status=0
mvn -B -ntp "${mvn_flags[@]}" test-compile failsafe:integration-test failsafe:verify \
  -Dit.test=CrashHarnessIT -Dgroups=crash -Dcrash.rounds="$rounds" -Dcrash.report="$report" \
  ${CRASH_SEED:+-Dcrash.seed="$CRASH_SEED"} ${CRASH_BACKEND:+-Dcrash.backend="$CRASH_BACKEND"} > target/crash-harness-mvn.log 2>&1 || status=$?
if [ -f "$report" ]; then
  cat "$report"
fi
if [ "$status" -ne 0 ]; then
  echo "crash-harness: FAILED (exit $status); Maven's output: target/crash-harness-mvn.log," \
    "the test's: target/failsafe-reports/" >&2
  tail -n 30 target/crash-harness-mvn.log >&2
fi
exit "$status"
