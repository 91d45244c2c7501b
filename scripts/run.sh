#!/usr/bin/env bash
# make run: one API replica in single-machine mode (NATS in-process), with the
# 2025-26 demo season imported into an empty stream and the clock set to the
# day of that snapshot. DEMO_NOW= (empty) runs on the real clock.
set -euo pipefail
cd "$(dirname "$0")/.."

listen=${FD_LISTEN:-127.0.0.1:8080}
nats=${FD_NATS_URL:-nats://127.0.0.1:4222}
dir=${FD_EMBEDDED_NATS:-data/nats}
now=${DEMO_NOW-2026-03-13T12:00:00Z}

go build -o bin/ ./cmd/...
mkdir -p "$dir"

args=(--listen "$listen" --nats "$nats" --embedded-nats "$dir" --drain 0s)
[ -n "$now" ] && args+=(--now "$now")
bin/api "${args[@]}" &
api=$!
trap 'kill -TERM $api 2>/dev/null; wait $api' INT TERM EXIT

# Wait for /readyz without needing curl: bash speaks HTTP well enough.
host=${listen%:*}; port=${listen##*:}; [ -z "$host" ] && host=127.0.0.1
for _ in $(seq 1 300); do
  if { exec 3<>"/dev/tcp/$host/$port"; } 2>/dev/null; then
    printf 'GET /readyz HTTP/1.0\r\nHost: %s\r\n\r\n' "$host" >&3
    status=$(head -n1 <&3 || true); exec 3>&-
    [[ $status == *" 200 "* ]] && break
  fi
  kill -0 $api 2>/dev/null || { echo "run: the API stopped; see its log above" >&2; exit 1; }
  sleep 0.1
done

if ! FD_NATS_URL=$nats bin/ingest show competition 1 >/dev/null 2>&1; then
  echo "run: empty stream: importing the 2025-26 demo season"
  FD_NATS_URL=$nats FD_EDITOR=demo bin/ingest import openfootball demo/2025-26/*.json
fi

cat <<MSG

footballd is ready on http://$listen (clock: ${now:-real time}). Try:
  curl http://$listen/v1/competitions/
  curl http://$listen/v1/competitions/6/leagueTable
  curl 'http://$listen/v1/fixtures/?timeFrame=n3&league=PL'
  curl http://$listen/v1/teams?name=arsenal
Ctrl-C stops it; the data stays in $dir.
MSG
wait $api
