#!/usr/bin/env bash
# Makes a throwaway CA and one certificate per NATS node, for tests and
# trials; production uses certificates of the site's own CA.
#   deploy/nats/gencerts.sh DIR [NODE...]   (default nodes fd-nats-1 fd-nats-2 fd-nats-3)
# DIR/ca.pem is the CA; DIR/NODE/ holds what a node keeps in /etc/nats/tls/:
# server.pem and server-key.pem (valid for NODE, localhost and 127.0.0.1, for
# servers and, on cluster routes, as clients) and a copy of ca.pem.
set -euo pipefail
dir=${1:?usage: gencerts.sh DIR [NODE...]}
shift
nodes=("$@")
[ ${#nodes[@]} -gt 0 ] || nodes=(fd-nats-1 fd-nats-2 fd-nats-3)
mkdir -p "$dir"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 30 \
  -subj "/CN=footballd test CA" -keyout "$dir/ca-key.pem" -out "$dir/ca.pem" 2>/dev/null
for node in "${nodes[@]}"; do
  mkdir -p "$dir/$node"
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=$node" \
    -keyout "$dir/$node/server-key.pem" -out "$dir/$node/server.csr" 2>/dev/null
  openssl x509 -req -in "$dir/$node/server.csr" -CA "$dir/ca.pem" -CAkey "$dir/ca-key.pem" \
    -CAcreateserial -days 30 -out "$dir/$node/server.pem" -extfile <(printf '%s\n' \
      "subjectAltName=DNS:$node,DNS:localhost,IP:127.0.0.1" \
      "extendedKeyUsage=serverAuth,clientAuth" "keyUsage=digitalSignature") 2>/dev/null
  rm "$dir/$node/server.csr"
  cp "$dir/ca.pem" "$dir/$node/ca.pem"
done
