#!/usr/bin/env bash
# Runs every benchmark of benchmarks/ on one local dynalite and writes docs/benchmarks.md.
#   ./benchmarks/run.sh            the full run (about 12 minutes on a 2-core machine)
#   ./benchmarks/run.sh --quick    every scenario briefly, to check the harness (writes benchmarks/target/quick.md)
# Needs JDK 17+ and Node.js 20+, like the tests. Nothing is left running: dynalite and the child JVMs stop with it.
set -euo pipefail
cd "$(dirname "$0")/.."

out=docs/benchmarks.md
args=()
if [[ "${1:-}" == "--quick" ]]; then
  out=benchmarks/target/quick.md
  args+=(--quick)
fi

echo "== building lock-core, lock-test and benchmarks"
./mvnw -B -q -ntp -Pbenchmarks -pl benchmarks -am -DskipTests package

classpath="benchmarks/target/classes:$(cat benchmarks/target/classpath.txt)"
commit="$(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
if [[ -n "$(git status --porcelain -- lock-core 2>/dev/null)" ]]; then
  commit="${commit} (lock-core with uncommitted changes)"
fi

echo "== running the benchmarks (progress below; JMH's own output goes to benchmarks/target/bench/jmh.log)"
exec java -Xms1g -Xmx2g -XX:+UseG1GC \
  -Dorg.slf4j.simpleLogger.defaultLogLevel=warn \
  -Dbench.commit="${commit}" \
  -cp "${classpath}" io.locktable.bench.BenchMain \
  --out "${out}" --command "./benchmarks/run.sh${1:+ $1}" "${args[@]}"
