#!/usr/bin/env bash
# The production setup of deploy/README.md on one machine, step for step:
# three nats-server nodes from deploy/nats (TLS, users from auth.conf), the
# stream created by `ingest stream init --replicas 3` as admin, API replicas
# configured as deploy/systemd/footballd-api@.service configures them, nginx
# with deploy/nginx/footballd.conf terminating TLS in front, and an import as
# the user ingest. Only what cannot work on one machine is rewritten: paths
# under /etc and /var/lib, ports, and the nodes' host names in the routes
# (127.0.0.1: the certificates from gencerts.sh are valid for it).
#
#   deploy/local-cluster.sh up       start everything (refuses if already up)
#   deploy/local-cluster.sh up --restore FILE
#                                    the same, with the stream and webhook
#                                    states of a backup (ingest backup) put
#                                    back before the replicas start, and no
#                                    import
#   deploy/local-cluster.sh status   what runs, and where
#   deploy/local-cluster.sh env [api|ingest|admin]
#                                    export lines for a shell: FD_NATS_URL as
#                                    that user (default ingest), FD_NATS_CA,
#                                    FD_URL (the proxy), FD_CA (its CA),
#                                    TOKEN (an API client), FD_REPLICAS,
#                                    BACKUPS (a folder beside the work dir)
#   deploy/local-cluster.sh down [--purge]
#                                    stop what up started; --purge also
#                                    deletes the work dir (data, keys, logs)
#
# Environment:
#   LOCAL_CLUSTER_DIR       work dir (default data/local-cluster)
#   LOCAL_CLUSTER_PORT      first of the ports it uses (default 14400):
#                           +0 the proxy (https), +11..13 NATS clients,
#                           +21..23 NATS routes, +31..33 NATS monitoring,
#                           +41.. the replicas, +51.. their admin listeners;
#                           0: every server takes a port of its own (what
#                           tests use: nobody picks a port for another to
#                           bind). up records the ports in run/ports
#                           (KIND-N=PORT; route-N is where node N listens);
#                           what must be known before its server starts
#                           comes from the two settings below.
#   LOCAL_CLUSTER_ROUTES    with port 0: where the nodes reach each other's
#                           routes, three host:port in node order (a test
#                           holds them, as relays to run/ports' route-N)
#   LOCAL_CLUSTER_PROXY     with port 0: the host:port where the proxy is
#                           reached (a test holds it, as a relay to nginx's
#                           unix socket nginx/https.sock)
#   LOCAL_CLUSTER_REPLICAS  API replicas (default 3, at most 9)
#   LOCAL_CLUSTER_IMPORT    openfootball files `up` imports, a glob (default
#                           the demo season, demo/2025-26/*.json; empty for
#                           none); imports are idempotent
#   NATS_SERVER, NGINX      the binaries (default: $(go env GOPATH)/bin or
#                           PATH for nats-server, PATH or /usr/sbin for nginx)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
dir=${LOCAL_CLUSTER_DIR:-$root/data/local-cluster}
mkdir -p "$(dirname "$dir")"
dir=$(cd "$(dirname "$dir")" && pwd)/$(basename "$dir")
base=${LOCAL_CLUSTER_PORT:-14400}
replicas=${LOCAL_CLUSTER_REPLICAS:-3}
import=${LOCAL_CLUSTER_IMPORT-demo/2025-26/*.json}
cd "$root"

die() { echo "local-cluster: $*" >&2; exit 1; }

if ! [[ $base =~ ^[0-9]+$ ]] || ((base != 0 && (base < 1024 || base > 65400))); then
  die "LOCAL_CLUSTER_PORT \"$base\": must be 0 or a port from 1024 to 65400"
fi
[[ $replicas =~ ^[1-9]$ ]] || die "LOCAL_CLUSTER_REPLICAS \"$replicas\": must be 1 to 9"

nodes=(1 2 3)
# planned KIND N: the port server N of KIND (client, route, monitor: a
# NATS node's; api, admin: a replica's) is told to listen on; with
# LOCAL_CLUSTER_PORT=0, -1 (NATS) or 0 (a replica), which take their own.
planned() {
  local offset
  case $1 in client) offset=10 ;; route) offset=20 ;; monitor) offset=30 ;; api) offset=40 ;; admin) offset=50 ;; esac
  if ((base != 0)); then
    echo $((base + offset + $2))
  elif [[ $1 == api || $1 == admin ]]; then
    echo 0
  else
    echo -1
  fi
}
# The ports the servers got, as up recorded them in run/ports.
got() { sed -n "s/^$1=//p" "$dir/run/ports" 2>/dev/null | tail -n 1; }
record() { echo "$1=$2" >>"$dir/run/ports"; }
proxy_port() { got proxy; }
client_port() { got "client-$1"; }
api_port() { got "api-$1"; }

# What up starts, in the order down stops it: replicas before the proxy,
# NATS last (a replica's drain still reads the stream).
components() {
  local f
  for f in "$dir"/run/api-*.pid "$dir/run/nginx.pid" "$dir"/run/nats-*.pid; do
    [ -e "$f" ] && basename "$f" .pid
  done
  return 0
}
pid_of() { cat "$dir/run/$1.pid" 2>/dev/null; }
alive() { local p; p=$(pid_of "$1") && [ -n "$p" ] && kill -0 "$p" 2>/dev/null; }
in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

find_nats_server() {
  local gobin
  if [ -n "${NATS_SERVER:-}" ]; then echo "$NATS_SERVER"; return; fi
  gobin=$(go env GOBIN 2>/dev/null || true)
  [ -n "$gobin" ] || gobin=$(go env GOPATH 2>/dev/null || true)/bin
  if [ -x "$gobin/nats-server" ]; then echo "$gobin/nats-server"; return; fi
  command -v nats-server && return
  die "nats-server not found: make deploy-tools (or go install github.com/nats-io/nats-server/v2@$(awk '$1 == "github.com/nats-io/nats-server/v2" {print $2}' go.mod)), or set NATS_SERVER"
}
find_nginx() {
  if [ -n "${NGINX:-}" ]; then echo "$NGINX"; return; fi
  command -v nginx && return
  [ -x /usr/sbin/nginx ] && { echo /usr/sbin/nginx; return; }
  die "nginx not found: apt-get install nginx-light (Debian), or set NGINX"
}

# rewrite FILE OLD NEW: every OLD in FILE becomes NEW; a shipped file that
# no longer has OLD stops the script instead of going unrewritten.
rewrite() {
  local text
  text=$(<"$1")
  [[ $text == *"$2"* ]] || die "$1: no \"$2\" to rewrite"
  printf '%s\n' "${text//"$2"/"$3"}" >"$1"
}

# wait_until SECONDS COMMAND...: poll COMMAND every 0.2 s until it
# succeeds or SECONDS have passed.
wait_until() {
  local deadline=$((SECONDS + $1))
  shift
  until "$@"; do
    ((SECONDS < deadline)) || return 1
    sleep 0.2
  done
}
http_ok() { curl -fsS -o /dev/null --max-time 2 "$@" 2>/dev/null; }
# serves I SEQ: whether replica I is ready and serves the stream up to
# SEQ.
serves() {
  [[ $(curl -fsS --max-time 2 "http://127.0.0.1:$(api_port "$1")/readyz" 2>/dev/null) =~ \"sequence\":([0-9]+) ]] &&
    ((BASH_REMATCH[1] >= $2))
}

# start NAME LOG COMMAND...: run COMMAND in the background, detached from
# this script's output, and record its pid.
start() {
  local name=$1 log=$2
  shift 2
  nohup "$@" </dev/null >>"$log" 2>&1 &
  echo $! >"$dir/run/$name.pid"
}

# nats_url USER: the URL of all three nodes with USER's password.
nats_url() {
  local pw n urls=()
  pw=$(<"$dir/secrets/$1.password")
  for n in "${nodes[@]}"; do urls+=("nats://$1:$pw@127.0.0.1:$(client_port "$n")"); done
  local IFS=,
  echo "${urls[*]}"
}

# with USER COMMAND...: run COMMAND with USER's connection settings, which
# are what an operator puts in that user's env file (deploy/README.md).
with() {
  local settings=()
  read_env "$dir/$1.env"
  shift
  env "${settings[@]}" "$@"
}
# read_env FILE: its KEY=VALUE lines into the array settings.
read_env() {
  local line
  while IFS= read -r line; do
    [[ -z $line || $line == \#* ]] || settings+=("$line")
  done <"$1"
}

certificates() {
  [ -e "$dir/certs/ca.pem" ] && return
  deploy/nats/gencerts.sh "$dir/certs" fd-nats-1 fd-nats-2 fd-nats-3 proxy
}

# secrets: a password for every user of secrets.conf.example, kept in
# secrets/USER.password, and secrets.conf with their bcrypt hashes made by
# `ingest passwd`.
secrets() {
  local line user pw
  [ -e "$dir/secrets/secrets.conf" ] && return
  mkdir -p "$dir/secrets"
  chmod 0700 "$dir/secrets"
  : >"$dir/secrets/secrets.conf.new"
  while IFS= read -r line; do
    if [[ $line =~ ^([A-Z]+)_PASSWORD:\ \" ]]; then
      user=${BASH_REMATCH[1],,}
      pw=$(openssl rand -hex 16)
      (umask 077 && printf '%s\n' "$pw" >"$dir/secrets/$user.password")
      line="${BASH_REMATCH[1]}_PASSWORD: \"$(printf '%s\n' "$pw" | bin/ingest passwd)\""
    fi
    printf '%s\n' "$line" >>"$dir/secrets/secrets.conf.new"
  done <deploy/nats/secrets.conf.example
  chmod 0600 "$dir/secrets/secrets.conf.new"
  mv "$dir/secrets/secrets.conf.new" "$dir/secrets/secrets.conf"
}

# env files: what an operator writes for each user (mode 0600).
env_files() {
  local user
  for user in api ingest admin; do
    (umask 077 && printf '%s\n' "FD_NATS_URL=$(nats_url "$user")" "FD_NATS_CA=$dir/certs/ca.pem" >"$dir/$user.env")
  done
}

nats_configs() {
  local n m conf
  for n in "${nodes[@]}"; do
    conf=$dir/nats-$n
    mkdir -p "$conf/jetstream"
    cp "deploy/nats/nats-$n.conf" deploy/nats/cluster.conf deploy/nats/auth.conf "$conf/"
    cp "$dir/secrets/secrets.conf" "$conf/secrets.conf"
    rewrite "$conf/cluster.conf" /etc/nats/tls/ "$dir/certs/fd-nats-$n/"
    rewrite "$conf/cluster.conf" /var/lib/nats "$conf/jetstream"
    rewrite "$conf/cluster.conf" 0.0.0.0:4222 "127.0.0.1:$(planned client "$n")"
    rewrite "$conf/cluster.conf" 0.0.0.0:6222 "127.0.0.1:$(planned route "$n")"
    rewrite "$conf/cluster.conf" 127.0.0.1:8222 "127.0.0.1:$(planned monitor "$n")"
    for m in "${nodes[@]}"; do
      rewrite "$conf/cluster.conf" "fd-nats-$m:6222" "$(route_address "$m")"
    done
    "$nats_server" -t -c "$conf/nats-$n.conf" >"$conf/check.log" 2>&1 ||
      die "nats-server -t $conf/nats-$n.conf: $(tail -n 3 "$conf/check.log")"
  done
}

# nginx: deploy/nginx/footballd.conf, included by a main configuration
# that stands for the distribution's /etc/nginx/nginx.conf.
nginx_config() {
  local conf=$dir/nginx i template servers=""
  mkdir -p "$conf/tmp" "$conf/logs"
  cp deploy/nginx/footballd.conf "$conf/footballd.conf"
  template=$(grep -m1 'server 127.0.0.1:8081' "$conf/footballd.conf") || die "deploy/nginx/footballd.conf: no server 127.0.0.1:8081 to rewrite"
  for i in $(seq 1 "$replicas"); do
    servers+=${template/127.0.0.1:8081/127.0.0.1:$(api_port "$i")}$'\n'
  done
  grep -v 'server 127.0.0.1:808[0-9]' "$conf/footballd.conf" >"$conf/footballd.conf.new"
  mv "$conf/footballd.conf.new" "$conf/footballd.conf"
  rewrite "$conf/footballd.conf" "    least_conn;" "    least_conn;"$'\n'"${servers%$'\n'}"
  if ((base == 0)); then
    rewrite "$conf/footballd.conf" "listen 443 ssl;" "listen unix:$conf/https.sock ssl;"
  else
    rewrite "$conf/footballd.conf" "listen 443 ssl;" "listen 127.0.0.1:$(proxy_port) ssl;"
  fi
  rewrite "$conf/footballd.conf" /etc/nginx/tls/fullchain.pem "$dir/certs/proxy/server.pem"
  rewrite "$conf/footballd.conf" /etc/nginx/tls/privkey.pem "$dir/certs/proxy/server-key.pem"
  {
    echo "# Written by deploy/local-cluster.sh: stands for /etc/nginx/nginx.conf."
    # A master started by root runs its workers as nobody, who cannot
    # write the temporary files under a private work dir.
    [ "$(id -u)" = 0 ] && echo "user root;"
    echo "worker_processes 1;"
    echo "pid $conf/nginx.pid;"
    echo "error_log $conf/logs/error.log;"
    echo "events { worker_connections 1024; }"
    echo "http {"
    echo "    access_log $conf/logs/access.log;"
    for t in client_body proxy fastcgi uwsgi scgi; do echo "    ${t}_temp_path $conf/tmp/$t;"; done
    echo "    include $conf/footballd.conf;"
    echo "}"
  } >"$conf/nginx.conf"
  "$nginx" -t -q -p "$conf" -c "$conf/nginx.conf" -e "$conf/logs/error.log" 2>"$conf/logs/check.log" ||
    die "nginx -t $conf/nginx.conf: $(tail -n 3 "$conf/logs/check.log")"
}

# The replicas' settings: the unit's ExecStart and Environment lines, with
# the unit's paths, ports and public URL for this machine, and its
# EnvironmentFile (api.env).
replica_command() {
  local i=$1 port line key value
  port=$(planned api "$i")
  line=$(grep -m1 '^ExecStart=' deploy/systemd/footballd-api@.service) || die "footballd-api@.service: no ExecStart"
  line=${line#ExecStart=}
  line=${line//%i/$port}
  replica_env=()
  while IFS= read -r line2; do
    line2=${line2#Environment=}
    key=${line2%%=*}
    value=${line2#*=}
    case $key in
    FD_ADMIN_LISTEN) value=127.0.0.1:$(planned admin "$i") ;;
    FD_PUBLIC_URL) value=https://localhost:$(proxy_port) ;;
    FD_NATS_CA) value=$dir/certs/ca.pem ;;
    *) value=${value//%i/$port} ;;
    esac
    replica_env+=("$key=$value")
  done < <(grep '^Environment=' deploy/systemd/footballd-api@.service)
  local settings=()
  read_env "$dir/api.env"
  replica_env+=("${settings[@]}")
  # A webhook receiver on this machine is on loopback, which replicas
  # refuse unless told.
  replica_env+=(FD_WEBHOOK_ALLOW=127.0.0.1/32)
  read -r -a replica_cmd <<<"$line"
  [ "${replica_cmd[0]}" = /usr/local/bin/api ] || die "footballd-api@.service: ExecStart is not /usr/local/bin/api"
  replica_cmd[0]=bin/api
}

# nats_ready N: whether node N is in the cluster; a stopped node ends up.
nats_ready() {
  local m
  for m in "${nodes[@]}"; do
    alive "nats-$m" || failed "nats-$m exited" "$dir/nats-$m/nats.log"
  done
  http_ok "http://127.0.0.1:$(got "monitor-$1")/healthz"
}

# nats_ports N: whether node N has written its ports file (nats-server
# --ports_file_dir), which up then records; a stopped node ends up.
nats_ports() {
  local f text kind got=()
  alive "nats-$1" || failed "nats-$1 exited" "$dir/nats-$1/nats.log"
  for f in "$dir/nats-$1/ports"/*.ports; do
    [ -e "$f" ] || return 1
    text=$(<"$f")
    # The file may be read while it is being written: all three or none.
    for kind in nats cluster monitoring; do
      [[ $text =~ \"$kind\":\[\"[a-z]+://[^\"]*:([0-9]+)\" ]] || return 1
      got+=("${BASH_REMATCH[1]}")
    done
    record "client-$1" "${got[0]}"
    record "route-$1" "${got[1]}"
    record "monitor-$1" "${got[2]}"
    return 0
  done
  return 1
}

# api_ports I FROM: whether replica I has logged where it listens, after
# byte FROM of its log (an earlier up's lines come before), which up then
# records; a stopped replica ends up.
api_ports() {
  local log=$dir/api-$1/api.log api admin
  alive "api-$1" || failed "api-$1 exited" "$log"
  api=$(tail -c "+$(($2 + 1))" "$log" | sed -n 's/.*"msg":"listening","addr":"[^"]*:\([0-9]*\)".*/\1/p' | tail -n 1)
  admin=$(tail -c "+$(($2 + 1))" "$log" | sed -n 's/.*"msg":"admin listening","addr":"[^"]*:\([0-9]*\)".*/\1/p' | tail -n 1)
  [ -n "$api" ] && [ -n "$admin" ] || return 1
  record "api-$1" "$api"
  record "admin-$1" "$admin"
}

# route_address N: where the nodes reach node N's routes.
route_address() {
  local routes
  if ((base != 0)); then
    echo "127.0.0.1:$(planned route "$1")"
    return
  fi
  IFS=, read -r -a routes <<<"$LOCAL_CLUSTER_ROUTES"
  echo "${routes[$1 - 1]}"
}

# ports: what up knows before it starts anything, in a fresh run/ports.
ports() {
  local n i p
  mkdir -p "$dir/run"
  : >"$dir/run/ports"
  if ((base != 0)); then
    for p in "$base" $(for n in "${nodes[@]}"; do planned client "$n"; planned route "$n"; planned monitor "$n"; done) \
      $(for i in $(seq 1 "$replicas"); do planned api "$i"; planned admin "$i"; done); do
      in_use "$p" && die "port $p is in use; set LOCAL_CLUSTER_PORT to another first port (it uses $base to $((base + 59)))"
    done
    record proxy "$base"
    return 0
  fi
  [[ ${LOCAL_CLUSTER_ROUTES:-} =~ ^[^,:]+:[0-9]+,[^,:]+:[0-9]+,[^,:]+:[0-9]+$ ]] ||
    die "LOCAL_CLUSTER_ROUTES \"${LOCAL_CLUSTER_ROUTES:-}\": with LOCAL_CLUSTER_PORT=0, must be three host:port, one for each node's routes"
  [[ ${LOCAL_CLUSTER_PROXY:-} =~ ^[^,:]+:([0-9]+)$ ]] ||
    die "LOCAL_CLUSTER_PROXY \"${LOCAL_CLUSTER_PROXY:-}\": with LOCAL_CLUSTER_PORT=0, must be the host:port of the proxy"
  record proxy "${BASH_REMATCH[1]}"
}

# failed WHAT LOG: stop with WHAT and the end of LOG.
failed() {
  echo "--- $2 (last lines)" >&2
  tail -n 20 "$2" >&2 2>/dev/null || true
  die "$1"
}

# stop_if_failed: the exit trap of up, which stops what a failed up
# started.
stop_if_failed() {
  local status=$?
  if ((status != 0)); then
    echo "local-cluster: up failed; stopping what it started" >&2
    down >/dev/null 2>&1 || true
  fi
  exit "$status"
}

up() {
  local n i p name restore=""
  case ${1:-} in
  "") ;;
  --restore)
    restore=${2:-}
    [ -f "$restore" ] || die "up --restore \"$restore\": no such file"
    restore=$(cd "$(dirname "$restore")" && pwd)/$(basename "$restore")
    ;;
  *) die "up \"$1\": the only option is --restore FILE" ;;
  esac
  for name in $(components); do
    alive "$name" && die "already up in $dir ($name runs, pid $(pid_of "$name")); deploy/local-cluster.sh status, or down first"
  done
  ports
  if [ ! -x bin/api ] || [ ! -x bin/ingest ]; then die "no bin/api or bin/ingest: make build first"; fi
  command -v openssl >/dev/null || die "openssl not found: apt-get install openssl"
  command -v curl >/dev/null || die "curl not found: apt-get install curl"
  nats_server=$(find_nats_server)
  nginx=$(find_nginx)

  mkdir -p "$dir/run"
  touch "$dir/.local-cluster"
  # Whatever fails from here on stops what was started.
  trap stop_if_failed EXIT

  certificates
  secrets
  nats_configs
  for n in "${nodes[@]}"; do
    rm -rf "$dir/nats-$n/ports"
    mkdir "$dir/nats-$n/ports"
    start "nats-$n" "$dir/nats-$n/nats.log" "$nats_server" -c "$dir/nats-$n/nats-$n.conf" --ports_file_dir "$dir/nats-$n/ports"
  done
  for n in "${nodes[@]}"; do
    wait_until 30 nats_ports "$n" ||
      failed "nats-$n did not report its ports within 30 s" "$dir/nats-$n/nats.log"
  done
  env_files
  for n in "${nodes[@]}"; do
    # /healthz answers 200 once the node is in the cluster with JetStream
    # current; a node that exited (a port taken meanwhile) is named at once.
    wait_until 60 nats_ready "$n" ||
      failed "nats-$n did not join the cluster within 60 s" "$dir/nats-$n/nats.log"
  done
  echo "local-cluster: NATS: three nodes on 127.0.0.1:$(client_port 1), :$(client_port 2) and :$(client_port 3), TLS, users from auth.conf"

  # deploy/README.md, "Backups": the backup goes back before the stream
  # init that makes what a backup leaves out.
  if [ -n "$restore" ]; then
    wait_until 30 with admin bin/ingest restore "$restore" >"$dir/restore.log" 2>&1 ||
      failed "ingest restore $restore failed for 30 s" "$dir/restore.log"
    echo "local-cluster: restored $restore as admin"
  fi
  # deploy/README.md, "4. The stream, as admin". A freshly
  # formed cluster may take a moment to elect its JetStream leader.
  wait_until 30 with admin bin/ingest stream init --replicas 3 >"$dir/stream-init.log" 2>&1 ||
    failed "ingest stream init failed for 30 s" "$dir/stream-init.log"

  local from=()
  for i in $(seq 1 "$replicas"); do
    mkdir -p "$dir/api-$i"
    from[i]=$(stat -c %s "$dir/api-$i/api.log" 2>/dev/null || echo 0)
    replica_command "$i"
    start "api-$i" "$dir/api-$i/api.log" env "${replica_env[@]}" "${replica_cmd[@]}"
  done
  for i in $(seq 1 "$replicas"); do
    wait_until 60 api_ports "$i" "${from[i]}" ||
      failed "api-$i did not log where it listens within 60 s" "$dir/api-$i/api.log"
    wait_until 120 http_ok "http://127.0.0.1:$(api_port "$i")/readyz" ||
      failed "api-$i not ready within 120 s" "$dir/api-$i/api.log"
  done
  echo "local-cluster: $replicas API replicas ready on$(for i in $(seq 1 "$replicas"); do printf ' 127.0.0.1:%s' "$(api_port "$i")"; done)"

  nginx_config
  start nginx "$dir/nginx/logs/stderr.log" "$nginx" -g "daemon off;" -p "$dir/nginx" -c "$dir/nginx/nginx.conf" -e "$dir/nginx/logs/error.log"
  wait_until 30 http_ok --cacert "$dir/certs/ca.pem" "https://localhost:$(proxy_port)/readyz" ||
    failed "nginx did not answer /readyz within 30 s" "$dir/nginx/logs/error.log"
  echo "local-cluster: nginx terminating TLS on https://localhost:$(proxy_port)"

  if [ -n "$import" ] && [ -z "$restore" ]; then
    # shellcheck disable=SC2086 # the glob is meant to expand
    with ingest FD_EDITOR=local-cluster bin/ingest import openfootball --aliases demo/aliases.csv $import >"$dir/import.log" 2>&1 ||
      [ $? = 2 ] || failed "the import failed" "$dir/import.log"
    echo "local-cluster: $(grep -m1 '^imported' "$dir/import.log") as ingest ($import; report in $dir/import.log)"
  fi
  # A client whose limit nobody reaches, so that trying things is not cut
  # short by the anonymous 100 a day; its token is new at every up.
  if with ingest bin/ingest show client local >/dev/null 2>&1; then
    with ingest bin/ingest client rotate local >"$dir/client.log"
  else
    with ingest bin/ingest client add local --tier donating --per-minute 1000000 >"$dir/client.log"
  fi
  (umask 077 && sed -n 's/^token: //p' "$dir/client.log" >"$dir/token")
  rm "$dir/client.log"
  # The replicas learn of what was written (the import, the token) from
  # the stream: wait until each serves all of it (/readyz says the
  # sequence it serves), so that the first request sees it whichever
  # replica nginx picks. A token alone proves nothing: a replica asks the
  # stream for one it does not know yet.
  last=$(with admin bin/ingest stream info | awk '$1 == "FOOTBALL" {print $4}')
  [[ $last =~ ^[0-9]+$ ]] || die "ingest stream info: no last sequence for the stream FOOTBALL"
  for i in $(seq 1 "$replicas"); do
    wait_until 30 serves "$i" "$last" ||
      failed "api-$i did not serve the stream up to sequence $last within 30 s ($(curl -sS --max-time 2 "http://127.0.0.1:$(api_port "$i")/readyz" 2>&1))" "$dir/api-$i/api.log"
  done
  trap - EXIT

  cat <<MSG

footballd runs in $dir; logs there, next to each component's files.
  API (nginx, TLS):  https://localhost:$(proxy_port)   CA: $dir/certs/ca.pem
  replicas:          $(for i in $(seq 1 "$replicas"); do printf 'http://127.0.0.1:%s ' "$(api_port "$i")"; done)
  NATS (TLS):        $(for n in "${nodes[@]}"; do printf '127.0.0.1:%s ' "$(client_port "$n")"; done)
In a shell: eval "\$(deploy/local-cluster.sh env)"   (user ingest; env admin for admin)
  curl --cacert "\$FD_CA" -H "X-Auth-Token: \$TOKEN" "\$FD_URL/v1/competitions/?season=2025"
  bin/ingest show client local
Stop: deploy/local-cluster.sh down   (--purge also deletes $dir)
MSG
}

status() {
  local name any=0 down=0
  for name in $(components); do
    any=1
    if alive "$name"; then
      echo "$name: running (pid $(pid_of "$name"))"
    else
      echo "$name: stopped"
      down=1
    fi
  done
  ((any)) || { echo "local-cluster: nothing running from $dir"; return 1; }
  return "$down"
}

print_env() {
  local user=${1:-ingest} i urls=()
  case $user in api | ingest | admin) ;; *) die "env \"$user\": must be api, ingest or admin" ;; esac
  [ -e "$dir/$user.env" ] || die "nothing set up in $dir: deploy/local-cluster.sh up first"
  for i in $(seq 1 "$replicas"); do urls+=("http://127.0.0.1:$(api_port "$i")"); done
  while IFS= read -r line; do
    [[ $line == \#* ]] || printf 'export %s=%q\n' "${line%%=*}" "${line#*=}"
  done <"$dir/$user.env"
  printf 'export FD_URL=%q FD_CA=%q TOKEN=%q FD_REPLICAS=%q BACKUPS=%q\n' \
    "https://localhost:$(proxy_port)" "$dir/certs/ca.pem" "$(cat "$dir/token" 2>/dev/null)" "${urls[*]}" "$(dirname "$dir")/backups"
}

# stop PATTERN: SIGTERM to every running component named PATTERN, then wait
# for all of them.
stop() {
  local name pid pids=()
  for name in $(components); do
    # shellcheck disable=SC2053 # PATTERN is a glob
    [[ $name == $1 ]] || continue
    if alive "$name"; then
      pid=$(pid_of "$name")
      kill -TERM "$pid" 2>/dev/null || true
      pids+=("$pid")
    fi
    rm -f "$dir/run/$name.pid"
  done
  for pid in "${pids[@]}"; do
    wait_until 60 eval "! kill -0 $pid 2>/dev/null" || die "pid $pid did not stop within 60 s"
  done
}

# down: the replicas first, all at once (each drains for FD_DRAIN), then
# the proxy, then NATS, which the replicas read until they close.
down() {
  stop 'api-*'
  stop nginx
  stop 'nats-*'
  echo "local-cluster: stopped"
}

case ${1:-} in
up) up "${@:2}" ;;
status) status ;;
env) print_env "${2:-}" ;;
down)
  case ${2:-} in
  "") down ;;
  --purge)
    down
    if [ -e "$dir/.local-cluster" ]; then
      rm -rf "$dir"
      echo "local-cluster: deleted $dir"
    fi
    ;;
  *) die "down \"$2\": the only option is --purge" ;;
  esac
  ;;
*)
  echo "usage: deploy/local-cluster.sh up [--restore FILE] | status | env [api|ingest|admin] | down [--purge]" >&2
  exit 2
  ;;
esac
