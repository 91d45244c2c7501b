#!/usr/bin/env bash
# Checks the deployment files with the tools that run them; `make
# deploy-check` builds the tools and passes their paths:
#   NATS_SERVER PROMTOOL KUBECONFORM KUSTOMIZE   the binaries
#   K8S_SWAGGER   the Kubernetes OpenAPI document for kubeconform's schemas
# Nothing here reaches the network.
set -euo pipefail
cd "$(dirname "$0")"
: "${NATS_SERVER:?}" "${PROMTOOL:?}" "${KUBECONFORM:?}" "${KUSTOMIZE:?}" "${K8S_SWAGGER:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "== nats-server -t: deploy/nats (certificate and storage paths pointed at a throwaway CA)"
nats/gencerts.sh "$tmp/certs" fd-nats-1
mkdir "$tmp/nats"
cp nats/*.conf "$tmp/nats/"
cp nats/secrets.conf.example "$tmp/nats/secrets.conf"
sed -i "s#/etc/nats/tls/#$tmp/certs/fd-nats-1/#; s#/var/lib/nats#$tmp/jetstream#" "$tmp/nats/cluster.conf"
for n in 1 2 3; do
  "$NATS_SERVER" -t -c "$tmp/nats/nats-$n.conf"
done

echo "== promtool: deploy/prometheus and the dashboard's queries"
"$PROMTOOL" check rules prometheus/alerts.yml
(cd prometheus && "$PROMTOOL" test rules alerts_test.yml)
(cd .. && PROMTOOL="$PROMTOOL" go test -count=1 -run 'TestDashboardPromQL' ./deploy)

echo "== kustomize build deploy/k8s | kubeconform -strict"
"$KUSTOMIZE" build k8s > "$tmp/k8s.yaml"
(cd .. && go run ./scripts/k8sschema -swagger "$K8S_SWAGGER" -out "$tmp/schemas")
"$KUBECONFORM" -strict -summary -schema-location "$tmp/schemas/{{ .ResourceKind }}{{ .KindSuffix }}.json" "$tmp/k8s.yaml"
