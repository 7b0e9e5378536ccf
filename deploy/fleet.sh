#!/usr/bin/env bash
# A local fleet: two Taquilla instances on one PostgreSQL database (and one Redis, if REDIS_URL is
# set) behind HAProxy with deploy/haproxy.cfg. Ctrl-C stops all three, each instance draining first.
#
#   DATABASE_URL=postgres://postgres@127.0.0.1:5432/taquilla REDIS_URL=redis://127.0.0.1:6379 \
#     deploy/fleet.sh [balancer port, 8080] [first instance port, 3001] [second instance port, 3002]
#
# Both instances start at once: the first to take the migration lock migrates, the other waits for
# it (docs/operations.md "A fleet"). Only the first may load the demo catalogue (DEMO_DATA), so that
# two fresh instances never import it twice. Every other variable (SIGNING_SECRET, SMTP_URL, ...) is
# passed to both, as a fleet needs: the same values on every instance.
set -euo pipefail
cd "$(dirname "$0")/.."

LB_PORT=${1:-8080}
PORT1=${2:-3001}
PORT2=${3:-3002}
: "${DATABASE_URL:?set DATABASE_URL: a fleet shares one PostgreSQL database (the embedded PGlite belongs to one process)}"
command -v haproxy >/dev/null || { echo "haproxy is not installed (Debian: apt-get install haproxy)" >&2; exit 1; }
[ -n "${REDIS_URL:-}" ] || echo "warning: REDIS_URL is not set: each instance counts rate limits on its own" >&2

export TRUST_PROXY=${TRUST_PROXY:-127.0.0.1}
export SHUTDOWN_DRAIN_SECONDS=${SHUTDOWN_DRAIN_SECONDS:-5}
export PUBLIC_BASE_URL=${PUBLIC_BASE_URL:-http://localhost:$LB_PORT}
export HOST=${HOST:-127.0.0.1}

pids=()
stop() {
  trap - INT TERM EXIT
  # SIGTERM: each instance answers /readyz 503 for SHUTDOWN_DRAIN_SECONDS, then closes.
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  wait || true
}
trap stop INT TERM EXIT

PORT=$PORT1 node --import tsx src/server.ts & pids+=($!)
PORT=$PORT2 DEMO_DATA=false node --import tsx src/server.ts & pids+=($!)
TAQUILLA_LB_BIND="127.0.0.1:$LB_PORT" TAQUILLA_APP1="127.0.0.1:$PORT1" TAQUILLA_APP2="127.0.0.1:$PORT2" \
  haproxy -f deploy/haproxy.cfg -db & pids+=($!)
echo "fleet: balancer http://127.0.0.1:$LB_PORT -> instances :$PORT1 and :$PORT2 (Ctrl-C stops)"
wait -n "${pids[@]}"
