#!/usr/bin/env bash
# Puts back each known defect (one patch of this folder at a time) in a scratch worktree of the current commit, and
# runs the simulation, then, if it found nothing, the race scenarios on real threads (RaceScenariosStressTest), then
# the lock workload, each for a bounded time, then, if none found it, lock-core's decision tables (no engine). Prints
# one table row per mutant: caught or missed, by what, how long it took, and the first violation.
#
#   lock-verification/mutants/run.sh                     # every mutant
#   lock-verification/mutants/run.sh 03 07               # the mutants whose names start with 03 and 07
#   SIM_BUDGET=60 WORKLOAD_ENGINE=moto WORKLOAD_SECONDS=20 lock-verification/mutants/run.sh
#
# Nothing is installed: each run builds the mutated lock-core in the scratch worktree's own reactor.
set -u
repo=$(git rev-parse --show-toplevel)
here="$repo/lock-verification/mutants"
scratch=${MUTANT_WORKTREE:-/tmp/locktable-mutants}
sim_budget=${SIM_BUDGET:-60}
engine=${WORKLOAD_ENGINE:-moto}
workload_seconds=${WORKLOAD_SECONDS:-20}
race_rounds=${RACE_ROUNDS:-1000}
decision_tests='ProtocolTest,ProtocolDecisionTest,TimingTest,AcquireDecisionTest'
out="$repo/lock-verification/target/mutants"
mkdir -p "$out"

git -C "$repo" worktree remove --force "$scratch" >/dev/null 2>&1 || true
git -C "$repo" worktree add -q --detach "$scratch" HEAD
trap 'git -C "$repo" worktree remove --force "$scratch" >/dev/null 2>&1' EXIT

patches=()
if [ $# -eq 0 ]; then
  patches=("$here"/*.patch)
else
  for prefix in "$@"; do patches+=("$here/$prefix"*.patch); done
fi

build=(./mvnw -B -ntp -pl lock-test,lock-core,lock-verification verify -Dspotless.check.skip=true
       -Dsurefire.failIfNoSpecifiedTests=false)

echo "| mutant | result | caught by | seconds | first violation |"
echo "|---|---|---|---|---|"
for patch in "${patches[@]}"; do
  name=$(basename "$patch" .patch)
  git -C "$scratch" checkout -q -- .
  if ! git -C "$scratch" apply "$patch"; then
    echo "| $name | does not apply | - | - | - |"
    continue
  fi
  started=$(date +%s)
  result=missed; by=-; detail=-
  log="$out/$name-simulation.log"
  (cd "$scratch" && "${build[@]}" -Dtest='SimulationTest#everySeedKeepsEveryInvariant' \
      -Dlocktable.sim.budgetSeconds="$sim_budget" -Dlocktable.sim.firstSeed=1) > "$log" 2>&1
  if grep -q "COMPILATION ERROR" "$log"; then
    result="does not compile"
  elif grep -q "^seed [0-9]*: t=" "$scratch"/lock-verification/target/surefire-reports/*SimulationTest-output.txt 2>/dev/null \
      || grep -q 'seed [0-9]*: t=' "$log"; then
    result=caught; by=simulation
    detail=$(grep -o 'seed [0-9]*: t=[^"]*' "$log" | head -1 | cut -c1-160)
  else
    log="$out/$name-races.log"
    (cd "$scratch" && "${build[@]}" -Dtest='RaceScenariosStressTest' -Dlocktable.races.rounds="$race_rounds") \
        > "$log" 2>&1
  fi
  if [ "$result" = missed ] && grep -qE 'Tests run:.*(Failures: [1-9]|Errors: [1-9])' "$log"; then
    result=caught; by="race scenarios"
    detail=$(grep -m1 -oE '(RaceScenariosStressTest\.[A-Za-z]+[^ ]* .*)' "$log" | cut -c1-160)
  elif [ "$result" = missed ]; then
    log="$out/$name-workload.log"
    (cd "$scratch" && "${build[@]}" -Dtest='LockWorkloadTest' -Dlocktable.test.engine="$engine" \
        -Dlocktable.workload.seconds="$workload_seconds" -Dlocktable.workload.seed=1) > "$log" 2>&1
    if grep -qE 'LockWorkloadTest\.writes[A-Za-z]*:[0-9]+' "$log"; then
      result=caught; by="workload ($engine)"
      detail=$(grep -hE '\[workload\] (HELD_CHECK|FENCING_TOKEN) .*(lost=[1-9]|tokenRegressions=[1-9]|sharedTokens=[1-9])' \
          "$scratch"/lock-verification/target/surefire-reports/*LockWorkloadTest-output.txt | head -1 | cut -c1-200)
    else
      # last, the decision tables without an engine: a boundary that no seed, round or history happened to hit is
      # still a row of these
      log="$out/$name-decisions.log"
      (cd "$scratch" && ./mvnw -B -ntp -pl lock-test,lock-core verify -Dspotless.check.skip=true \
          -Dsurefire.failIfNoSpecifiedTests=false -Dtest="$decision_tests") > "$log" 2>&1
      if grep -qE 'Tests run:.*(Failures: [1-9]|Errors: [1-9])' "$log"; then
        result=caught; by="decision tables"
        detail=$(grep -m1 -E '^\[ERROR\]   [A-Za-z]+Test\.' "$log" | cut -c1-200)
      fi
    fi
  fi
  echo "| $name | $result | $by | $(( $(date +%s) - started )) | ${detail//|/\\|} |"
done
