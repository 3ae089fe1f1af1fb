#!/usr/bin/env bash
# A local DynamoDB-compatible engine for your own application, safe and complete for several instances at once:
# moto served one request at a time, by the launcher lock-test's moto engine uses for our tests. Conditional writes
# are atomic there, and it has what the locks use: transactions (fenced writes, Lease.transactWrite and heldCheck()),
# the item on a condition failure, the time-to-live API. In memory: its tables go when it stops (Ctrl-C).
#
#   ./local-engine.sh [--port N]        (default 8000; LOCKTABLE_TEST_PYTHON names the Python, default python3)
#
# Needs Python 3 with moto: pip install 'moto[server]'. Prints the properties that point an application at it, then
# runs until stopped. Why not another local engine: a plain moto_server answers concurrent requests on several
# threads and its conditional writes are not atomic (two instances can both be granted one lock, and an acquire can
# see a half-written item); dynalite has no TransactWriteItems, so every fenced write is refused.
set -euo pipefail
cd "$(dirname "$0")"

PORT=8000
while [[ $# -gt 0 ]]; do
  case "$1" in
    --port) PORT="${2:?--port needs a number}"; shift 2 ;;
    *) echo "usage: $0 [--port N]" >&2; exit 2 ;;
  esac
done
PYTHON="${LOCKTABLE_TEST_PYTHON:-python3}"
LAUNCHER=lock-test/src/main/resources/io/locktable/test/moto/server.py
REGION=us-east-1

OUT="$(mktemp)"
SERVER_PID=""
stop() {
  [[ -n "$SERVER_PID" ]] && kill "$SERVER_PID" 2>/dev/null || true
  rm -f "$OUT"
}
trap stop EXIT
trap 'exit 130' INT TERM

LOCKTABLE_MOTO_STANDALONE=1 "$PYTHON" "$LAUNCHER" "$PORT" 127.0.0.1 > "$OUT" 2>&1 &
SERVER_PID=$!
until grep -q "serving one request at a time" "$OUT"; do
  if ! kill -0 "$SERVER_PID" 2>/dev/null; then
    cat "$OUT" >&2
    RC=0; wait "$SERVER_PID" || RC=$?
    if [[ $RC -ne 3 ]]; then
      echo "local-engine.sh: the engine did not start on port $PORT (is the port taken? choose another with --port N)" >&2
    fi
    exit 1
  fi
  sleep 0.1
done

ENDPOINT="http://127.0.0.1:$PORT"
cat <<TEXT
$(head -n 1 "$OUT")
LockTable's local engine is up at $ENDPOINT: safe for several instances (one request at a time). Ctrl-C stops it.

Point each instance of your application at it (application.properties, or --name=value on its command line):

  locktable.dynamodb.endpoint=$ENDPOINT
  locktable.dynamodb.region=$REGION
  locktable.create-table=true

and give it any credentials (the engine checks none):

  export AWS_ACCESS_KEY_ID=local AWS_SECRET_ACCESS_KEY=local

An application with a DynamoDbClient bean of its own points that client at $ENDPOINT in $REGION instead (the
locktable.dynamodb.* properties are used only when the starter builds the client). Every instance must name the same
region: the engine keeps the tables of each region apart.
TEXT
wait "$SERVER_PID"
