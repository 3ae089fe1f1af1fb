#!/usr/bin/env bash
# Runs the benchmarks of benchmarks/ and writes their tables into docs/benchmarks.md, between the markers
# <!-- bench:table NAME --> and <!-- /bench:table -->; the prose around them is written by hand.
#   ./benchmarks/run.sh                    the full run (about 25 minutes on a 2-core machine)
#   ./benchmarks/run.sh --quick            every scenario briefly, to check the harness (writes benchmarks/target/quick.md)
#   ./benchmarks/run.sh --scale-max 50000  the largest scale scenario at 50,000 leases instead of 100,000
#   ./benchmarks/run.sh --only scale,slow,released
#                                          some phases (requests, latency, handover, failover, scale, slow,
#                                          released, waiters, cpu): only their tables and the goals they measure are rewritten
#   ./benchmarks/run.sh --only cpu         each library's own CPU and allocation per acquire + release, renewal and poll
#                                          over canned DynamoDB answers (JMH, -prof gc), and the CPU per cycle of the
#                                          client, dynalite and the proxy at 1 and 8 threads (about 20 minutes)
# Needs JDK 17+, Node.js 20+ (dynalite) and, for the second engine, Python 3 with moto ('pip install moto[server]');
# without moto its scenarios are left out. Set MAVEN_ARGS=-o to build offline. Nothing is left running.
set -euo pipefail
cd "$(dirname "$0")/.."

out=docs/benchmarks.md
if [[ " $* " == *" --quick "* ]]; then
  out=benchmarks/target/quick.md
fi

echo "== building lock-core, lock-test and benchmarks (profile -Pbenchmarks)"
./mvnw -B -q -ntp ${MAVEN_ARGS:-} -Pbenchmarks -pl benchmarks -am -DskipTests package

classpath="benchmarks/target/classes:$(cat benchmarks/target/classpath.txt)"
commit="$(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
if [[ -n "$(git status --porcelain -- lock-core 2>/dev/null)" ]]; then
  commit="${commit} (lock-core with uncommitted changes)"
fi

echo "== running (progress below; JMH's output goes to benchmarks/target/bench/jmh.log)"
exec java -Xms512m -Xmx2g -XX:+UseG1GC \
  -Dorg.slf4j.simpleLogger.defaultLogLevel=warn \
  -Dbench.commit="${commit}" \
  -cp "${classpath}" io.locktable.bench.Bench \
  --out "${out}" --command "./benchmarks/run.sh${*:+ $*}" "$@"
