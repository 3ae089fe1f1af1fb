#!/usr/bin/env bash
# The LockTable demo: four instances of samples/leader-demo share one lock table on a local dynalite.
# One of them runs the @Scheduled @LeaderOnly job; the demo kills it with SIGKILL, stops the next one
# gracefully, freezes the third with SIGSTOP in the middle of a sweep until the fourth has taken over, and
# shows the takeover times, the fencing tokens, the frozen leader's write refused, and the fenced records; and how
# many times each instance ran the @Scheduled @LockedRun report.
# Needs only JDK 17+ and Node.js 20+. Exits non-zero if what it shows did not happen.
set -euo pipefail
cd "$(dirname "$0")"

WORK=.demo
mkdir -p "$WORK"
PIDS=()
DYNALITE_PID=""

say() { printf '%s  %s\n' "$(date +%H:%M:%S.%3N)" "$*"; }
fail() { say "DEMO FAILED: $*" >&2; exit 1; } # on stderr: also seen when it fails inside $(...)

cleanup() {
  for pid in "${PIDS[@]:-}"; do [ -n "$pid" ] && kill -9 "$pid" 2>/dev/null || true; done
  [ -n "$DYNALITE_PID" ] && kill "$DYNALITE_PID" 2>/dev/null || true
  wait 2>/dev/null || true
}
trap cleanup EXIT
trap 'say "interrupted"; exit 130' INT TERM

# HTTP and JSON with the Node.js that dynalite needs anyway, so nothing else must be installed.
get() { node -e 'fetch(process.argv[1], { signal: AbortSignal.timeout(2000) }).then(r => r.ok ? r.text() : Promise.reject(r.status)).then(t => console.log(t)).catch(() => process.exit(1))' "$1"; }
json() { node -e 'const v = JSON.parse(process.argv[1]); const f = new Function("v", "return " + process.argv[2]); console.log(f(v))' "$1" "$2"; }
free_port() { node -e 'const s = require("net").createServer(); s.listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })'; }
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

say "BUILDING the sample and lock-test into target/, installing nothing (the first run downloads Maven and dependencies)"
build_start=$(date +%s%N)
# the build's output goes to a log (spring-boot:process-aot runs the application's context, banner included, which
# would look like a start): shown only if the build fails
if ! { ./mvnw -q -B -ntp -DskipTests -Dmaven.javadoc.skip=true -Dmaven.source.skip=true \
      -pl lock-test,lock-core,lock-spring-boot,lock-spring-boot-autoconfigure,lock-spring-boot-starter,lock-spring-boot-test,samples/leader-demo package &&
    ./mvnw -q -B -ntp -pl lock-test dependency:build-classpath -Dmdep.outputFile="$PWD/$WORK/lock-test.classpath"; } \
    >"$WORK/build.log" 2>&1; then
  tail -n 80 "$WORK/build.log"
  fail "the build failed (its whole output: $WORK/build.log)"
fi
build_s=$(( ($(date +%s%N) - build_start) / 1000000000 ))
say "built in $build_s s"
run_start=$(date +%s%N)
say "STARTING the demo"

say "starting dynalite through lock-test's installer"
java -cp "lock-test/target/classes:$(cat "$WORK/lock-test.classpath")" io.locktable.test.DynaliteMain >"$WORK/dynalite.out" 2>&1 &
DYNALITE_PID=$!
for _ in $(seq 1 600); do grep -q DYNALITE_ENDPOINT "$WORK/dynalite.out" && break; sleep 0.1; done
ENDPOINT=$(sed -n 's/^DYNALITE_ENDPOINT=//p' "$WORK/dynalite.out")
[ -n "$ENDPOINT" ] || { cat "$WORK/dynalite.out"; fail "dynalite did not start"; }
say "dynalite answers at $ENDPOINT"

NAMES=(a b c d)
# a and c run the ahead-of-time processed context (the jar is built with spring-boot:process-aot): each instance
# leads once in the demo, so AOT is shown electing, failing over and fencing as the plain JVM mode does
AOT_NAMES=(a c)
declare -A PORT PID
for name in "${NAMES[@]}"; do
  PORT[$name]=$(free_port)
  aot=false; [[ " ${AOT_NAMES[*]} " == *" $name "* ]] && aot=true
  AWS_ACCESS_KEY_ID=local AWS_SECRET_ACCESS_KEY=local DEMO_DYNAMODB_ENDPOINT="$ENDPOINT" \
    java -Dspring.aot.enabled=$aot -jar samples/leader-demo/target/leader-demo.jar --server.port="${PORT[$name]}" \
    --demo.instance="$name" --locktable.holder="instance-$name" --demo.sweep-work=1500ms \
    >"$WORK/instance-$name.log" 2>&1 &
  PID[$name]=$!
  PIDS+=("$!")
  disown "$!" # no job notices when the demo kills it
  say "started instance $name on port ${PORT[$name]} (pid ${PID[$name]})$([ $aot = true ] && echo ', AOT-processed')"
done

declare -A PAUSED
alive() { [ -z "${PAUSED[$1]:-}" ] && kill -0 "${PID[$1]}" 2>/dev/null; }
status() { get "http://127.0.0.1:${PORT[$1]}/demo/status" 2>/dev/null || echo '{}'; }

# prints "name token" of the one leader, nothing while none leads; fails on two leaders
leader() {
  local found="" count=0
  for name in "${NAMES[@]}"; do
    alive "$name" || continue
    local s; s=$(status "$name")
    if [ "$(json "$s" 'v.leader === true')" = "true" ]; then
      found="$name $(json "$s" 'v.fencingToken')"; count=$((count + 1))
    fi
  done
  [ "$count" -le 1 ] || fail "two instances lead at once"
  echo "$found"
}

wait_leader() { # $1: instance that must not lead (or ""), $2: timeout in s
  local deadline=$(( $(now_ms) + $2 * 1000 ))
  while [ "$(now_ms)" -lt "$deadline" ]; do
    local l; l=$(leader)
    if [ -n "$l" ] && [ "${l%% *}" != "$1" ]; then echo "$l"; return; fi
    sleep 0.2
  done
  fail "no new leader within $2 s"
}

say "waiting for the instances to start and elect a leader"
first=$(wait_leader "" 90)
first_name=${first%% *}; first_token=${first##* }
say "the instances started and elected a leader $(( ($(date +%s%N) - run_start) / 1000000000 )) s after the build"
say "instance $first_name leads order-sweeper with fencing token $first_token"
sleep 3

say "kill -9 of instance $first_name (a crash: no release)"
t0=$(now_ms)
kill -9 "${PID[$first_name]}"
second=$(wait_leader "$first_name" 40)
t1=$(now_ms)
second_name=${second%% *}; second_token=${second##* }
say "instance $second_name took over after $((t1 - t0)) ms (lease 6 s) with fencing token $second_token"
[ "$second_token" -gt "$first_token" ] || fail "the fencing token went back ($first_token -> $second_token)"
sleep 3

say "graceful stop (SIGTERM) of instance $second_name: it releases its lease"
t0=$(now_ms)
kill -TERM "${PID[$second_name]}"
third=$(wait_leader "$second_name" 30)
t1=$(now_ms)
third_name=${third%% *}; third_token=${third##* }
say "instance $third_name took over after $((t1 - t0)) ms with fencing token $third_token (graceful handover: one poll, not a whole lease)"
[ "$third_token" -gt "$second_token" ] || fail "the fencing token went back ($second_token -> $third_token)"

say "kill -STOP of instance $third_name in the middle of a sweep: it took its lease and froze before writing"
log3="$WORK/instance-$third_name.log"
begun=$(grep -c "sweep .* begins" "$log3" || true)
for _ in $(seq 1 100); do [ "$(grep -c "sweep .* begins" "$log3" || true)" -gt "$begun" ] && break; sleep 0.05; done
kill -STOP "${PID[$third_name]}"
PAUSED[$third_name]=1
t0=$(now_ms)
fourth=$(wait_leader "$third_name" 30)
t1=$(now_ms)
fourth_name=${fourth%% *}; fourth_token=${fourth##* }
say "instance $fourth_name took over from the frozen leader after $((t1 - t0)) ms with fencing token $fourth_token"
[ "$fourth_token" -gt "$third_token" ] || fail "the fencing token went back ($third_token -> $fourth_token)"
log4="$WORK/instance-$fourth_name.log"
for _ in $(seq 1 100); do grep -q "sweep $fourth_token:.* applied" "$log4" && break; sleep 0.1; done
grep -q "sweep $fourth_token:.* applied" "$log4" || fail "the new leader wrote nothing"
refused_before=$(grep -c "REFUSED" "$log3" || true)
kill -CONT "${PID[$third_name]}"
unset 'PAUSED[$third_name]'
say "kill -CONT of instance $third_name: it wakes up mid-sweep and writes with its old token $third_token"
for _ in $(seq 1 100); do [ "$(grep -c "REFUSED" "$log3" || true)" -gt "$refused_before" ] && break; sleep 0.1; done
refused=$(grep "REFUSED" "$log3" | tail -n 1 | sed 's/.*sweep /sweep /')
[ -n "$refused" ] || fail "the frozen leader's write was not refused"
say "instance $third_name: $refused"
sleep 2

leader_name=$fourth_name
say "GET /actuator/locks of the leader, instance $leader_name:"
get "http://127.0.0.1:${PORT[$leader_name]}/actuator/locks" || say "(the locks endpoint is not available in this build)"

records=$(get "http://127.0.0.1:${PORT[$leader_name]}/demo/records")
say "the fenced sweep log, in the order the table applied it (token:instance:run):"
json "$records" 'v.join("\n")' | sed 's/^/      /'
order=$(json "$records" 'v.every((r, i) => i === 0 || Number(r.split(":")[0]) >= Number(v[i - 1].split(":")[0]))')
[ "$order" = "true" ] || fail "a record with a lower token was applied after a higher one"
tokens=$(json "$records" '[...new Set(v.map(r => r.split(":")[0]))].join(" ")')
say "tokens in the log: $tokens; the frozen leader's stale write was refused by the token check, none was applied"

say "the @LockedRun sales report (every 2 s on every instance, one run per period in the cluster), per instance:"
# from each instance's log, which outlives it: the killed and stopped instances' runs count too
total=0
for name in "${NAMES[@]}"; do
  runs=$(grep -cE ': report [a-z]+:[0-9]+$' "$WORK/instance-$name.log" || true)
  total=$((total + runs))
  case "$name" in
    "$first_name") state="killed with -9" ;;
    "$second_name") state="stopped" ;;
    *) state="running" ;;
  esac
  say "      instance $name ($state) built $runs reports"
done
say "      $total reports in all, in $(( ($(date +%s%N) - run_start) / 1000000000 )) s since the instances started"

leaders=" $first_name $second_name $third_name $fourth_name "
for name in "${AOT_NAMES[@]}"; do
  grep -q "Starting AOT-processed" "$WORK/instance-$name.log" || fail "instance $name did not run the AOT-processed context"
  [[ "$leaders" == *" $name "* ]] || fail "AOT-processed instance $name never led"
done
say "AOT-processed instances ${AOT_NAMES[*]} (-Dspring.aot.enabled=true) each led once, as the others did"

say "demo passed: built in $build_s s, ran in $(( ($(date +%s%N) - run_start) / 1000000000 )) s"
