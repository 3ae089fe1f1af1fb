#!/usr/bin/env bash
# Code lines of lock-core's production code per feature, as docs/architecture.md reports them: lines that are
# neither blank nor comments, counted per file and summed by the feature each file serves. Run from anywhere:
#   ./docs/lines-per-feature.sh
set -euo pipefail
cd "$(dirname "$0")/../lock-core/src/main/java/io/locktable"

code_lines() { # the lines of the given files that are not blank and not comments
  cat "$@" | sed -e 's://.*$::' | awk '
    /\/\*/ { in_comment = 1 }
    { if (!in_comment && $0 !~ /^[[:space:]]*$/) n++ }
    /\*\// { in_comment = 0 }
    END { print n + 0 }'
}

row() { # feature, files...
  local feature="$1"; shift
  printf '| %s | %s | %s |\n' "$feature" "$(code_lines "$@")" "$*"
}

echo '| feature | code lines | files |'
echo '|---|---|---|'
row 'core protocol (decisions, requests, leases, facade, threads)' \
  Protocol.java Timing.java LockStore.java DynamoDbLockStore.java Acquirer.java LeaseKeeper.java LeaseState.java \
  Lease.java LockTable.java LockTableNames.java LockRecord.java LockTableOptions.java LockClock.java LeaseEnd.java \
  LockItemConflictException.java LeaseLostException.java Scheduler.java LeaseTimer.java Handover.java
row 'the lease end reaching the work' WorkStop.java
row 'leader election' Leadership.java LeaderTermListener.java
row 'runAsLeader / runAsLeaderAsync' LeaderRun.java LeaderWork.java
row 'async acquire' AsyncAcquire.java
row 'in-memory table and test clock' MemoryLockStore.java ManualLockClock.java DrivenEvents.java
row 'observability (listeners, lateness)' Listeners.java LockTableListener.java AcquireOutcome.java RenewalLateness.java
row 'context propagation' CallerContext.java PropagatedContext.java LeaseThreadLocalAccessor.java
row 'fence marks and holders seen' LockMemory.java
echo
printf 'all of lock-core: %s code lines in %s files\n' "$(code_lines *.java)" "$(ls *.java | wc -l)"
