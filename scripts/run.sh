#!/usr/bin/env bash
# make run: one API replica in single-machine mode (NATS in-process), with the
# 2025-26 demo season imported into an empty stream, the clock set to the day
# of that snapshot (DEMO_NOW= runs on the real clock), and a token printed
# with a limit no newcomer reaches. Ctrl-C stops it and exits 0.
set -euo pipefail
cd "$(dirname "$0")/.."

listen=${FD_LISTEN:-127.0.0.1:8080}
nats=${FD_NATS_URL:-nats://127.0.0.1:4222}
dir=${FD_EMBEDDED_NATS:-data/nats}
admin=${FD_ADMIN_LISTEN-127.0.0.1:9090}
now=${DEMO_NOW-2026-03-13T12:00:00Z}
# The demo season becomes a former season on its league's switch date.
season_end=2026-06-01

host=${listen%:*}; port=${listen##*:}; [ -z "$host" ] && host=127.0.0.1
hostport=${nats#nats://}; nhost=${hostport%:*}; nport=${hostport##*:}

# Whatever is in the way is named in one line, before anything starts.
# Port 0 takes a free port (the tests run it so), which the replica's log
# names once it listens.
in_use() { [ "$2" != 0 ] && (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null; }
if in_use "$host" "$port"; then
  echo "run: $host:$port is in use (another make run?); set FD_LISTEN=host:port to use another" >&2; exit 1
fi
if in_use "$nhost" "$nport"; then
  echo "run: NATS port $nhost:$nport is in use (another make run?); set FD_NATS_URL=nats://host:port to use another" >&2; exit 1
fi
if [ -n "$admin" ] && in_use "${admin%:*}" "${admin##*:}"; then
  echo "run: admin port $admin is in use (another make run?); set FD_ADMIN_LISTEN=host:port to use another, or empty for none" >&2; exit 1
fi
mkdir -p "$dir"
if [ -s "$dir/run.pid" ] && kill -0 "$(cat "$dir/run.pid")" 2>/dev/null; then
  echo "run: $dir is in use by another make run (pid $(cat "$dir/run.pid")); set FD_EMBEDDED_NATS=another/dir" >&2; exit 1
fi
echo $$ > "$dir/run.pid"

if [ -z "$now" ]; then
  if [[ $(date -u +%F) > $season_end ]]; then
    echo "run: on the real clock the demo season (2025-26) is a former season since $season_end: /v1/competitions lists this season's competitions, which the demo has none of; ask for ?season=2025, or run with the default DEMO_NOW=2026-03-13T12:00:00Z"
  fi
fi

go build -o bin/ ./cmd/...

# Job control puts the replica in a process group of its own: Ctrl-C at the
# terminal then reaches the replica alone, which stops cleanly, and neither
# this script nor make is interrupted.
set -m
api=
cleanup() { [ -n "$api" ] && { kill -TERM "$api" 2>/dev/null || true; wait "$api" 2>/dev/null || true; }; rm -f "$dir/run.pid"; }
trap 'cleanup; exit 0' INT TERM
# Any other end (a step that failed) stops the replica too: the import's
# private one was left running by a failed run.
trap cleanup EXIT

# logged MSG KEY: the value of KEY in the replica's last log line MSG.
logged() { sed -n "s/.*\"msg\":\"$1\",\"$2\":\"\([^\"]*\)\".*/\1/p" "$dir/api.log" 2>/dev/null | tail -n 1; }
# start LISTEN ADMIN: start the replica; host, port and nats are then the
# addresses it got. Its log goes to the terminal and to api.log, where
# this script reads them (not a former start's).
start() {
  local args=(--listen "$1" --admin-listen "$2" --nats "$nats_asked" --embedded-nats "$dir" --drain 0s) bound=
  [ -n "$now" ] && args+=(--now "$now")
  # Emptied here, not removed: tee makes the file when it gets to it, and
  # under load the loop below read the log before that, which failed
  # (sed: no such file) and ended the run with exit 2 and nothing said.
  : > "$dir/api.log"
  bin/api "${args[@]}" 2> >(tee "$dir/api.log" >&2) &
  api=$!
  for _ in $(seq 1 300); do
    bound=$(logged listening addr)
    [ -n "$bound" ] && break
    kill -0 "$api" 2>/dev/null || { echo "run: the API stopped; see its log above" >&2; exit 1; }
    sleep 0.1
  done
  [ -n "$bound" ] || { echo "run: the API did not log where it listens within 30 s (FD_LOG_LEVEL=info logs it)" >&2; exit 1; }
  listen=$bound nats=$(logged "embedded nats started" url)
  host=${listen%:*} port=${listen##*:}
  host=${host:-127.0.0.1}
}
stop() { kill -TERM "$api" 2>/dev/null || true; wait "$api" 2>/dev/null || true; api=; }

# get PATH [TOKEN]: the API's whole answer to GET PATH, asked without curl
# (bash speaks HTTP well enough); nothing when it does not answer.
get() {
  { exec 3<>"/dev/tcp/$host/$port"; } 2>/dev/null || return 0
  printf 'GET %s HTTP/1.0\r\nHost: %s\r\n%s\r\n' "$1" "$host" "${2:+X-Auth-Token: $2$'\r\n'}" >&3
  cat <&3 || true
  exec 3>&-
}
# ok PATH [TOKEN]: whether the API answers GET PATH with 200.
ok() { local r; r=$(get "$@"); [[ ${r%%$'\n'*} == *" 200 "* ]]; }
# until_ok PATH [TOKEN]: wait up to 30 s for ok.
until_ok() {
  for _ in $(seq 1 300); do
    ok "$@" && return 0
    kill -0 "$api" 2>/dev/null || { echo "run: the API stopped; see its log above" >&2; exit 1; }
    sleep 0.1
  done
  echo "run: GET $1 did not answer 200 within 30 s" >&2; exit 1
}
ingest() { FD_NATS_URL=$nats FD_EDITOR=demo bin/ingest "$@"; }

# start sets listen and nats to the addresses a replica got: the one the
# banner names starts on those asked for, not on the private one's.
nats_asked=$nats listen_asked=$listen
# The demo season goes into an empty stream through a replica on a
# private address: the address printed below answers nothing before the
# import has ended, rather than empty lists while it runs.
if [ ! -e "$dir/demo-imported" ]; then
  start 127.0.0.1:0 ''
  until_ok /readyz
  if ! ingest show competitionkey PL/2025 >/dev/null 2>&1; then
    echo "run: empty stream: importing the 2025-26 demo season"
    ingest import openfootball --aliases demo/aliases.csv --now "${now:-$(date -u +%FT%TZ)}" demo/2025-26/*.json
  fi
  touch "$dir/demo-imported"
  stop
fi
start "$listen_asked" "$admin"
until_ok /readyz

if ingest show client demo >/dev/null 2>&1; then
  token=$(ingest client rotate demo | sed -n 's/^token: //p')
else
  token=$(ingest client add demo --tier donating --per-minute 1000000 | sed -n 's/^token: //p')
fi
# Wait until the replica serves everything written so far (the token):
# /readyz says the stream sequence it serves.
last=$(ingest stream info | awk '$1 == "FOOTBALL" {print $4}')
served() { [[ $(get /readyz) =~ \"sequence\":([0-9]+) ]] && echo "${BASH_REMATCH[1]}" || echo 0; }
for _ in $(seq 1 300); do
  [ "$(served)" -ge "$last" ] && break
  sleep 0.1
done

# The requests the banner suggests, with what they show: on the demo's
# clock this season's; on the real clock, once the demo season is over,
# that season's by name.
if [ -n "$now" ]; then
  tries=("/v1/competitions/" "/v1/competitions/6/leagueTable        # Premier League 2025/26"
    "'/v1/fixtures/?timeFrame=n3&league=PL'" "/v1/teams/57                           # Arsenal FC")
else
  tries=("'/v1/competitions/?season=2025'       # the demo season" "/v1/competitions/6/leagueTable        # Premier League 2025/26"
    "'/v1/competitions/6/fixtures?matchday=38'" "/v1/teams/57                           # Arsenal FC")
fi
# Each answers with data before the banner says ready: not an empty list,
# not a count of 0.
for try in "${tries[@]}" "/v1/teams?name=arsenal"; do
  path=${try%% *}; path=${path//\'/}
  until_ok "$path" "$token"
  body=$(get "$path" "$token"); body=${body#*$'\r\n\r\n'}
  if [ "$body" = "[]" ] || [[ $body == *'"count":0,'* ]]; then
    echo "run: GET $path answers no data; the demo import in $dir is incomplete: delete the folder to start again" >&2; exit 1
  fi
done

cat <<MSG

footballd is ready on http://$listen (clock: ${now:-real time}); the API reference is at
http://$listen/docs. Try:
$(for try in "${tries[@]}"; do
  if [[ $try == \'* ]]; then echo "  curl 'http://$listen${try#\'}"; else echo "  curl http://$listen$try"; fi
done)
Anonymous callers get 100 requests a day; this token (client "demo", a million a minute) is new
at every start:
  export TOKEN=$token
  curl -H "X-Auth-Token: \$TOKEN" http://$listen/v1/teams?name=arsenal
Ctrl-C stops it; the data stays in $dir.
MSG

if [ -t 0 ]; then
  fg %1 >/dev/null || true
else
  wait "$api" || true
fi
