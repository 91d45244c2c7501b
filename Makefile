GO          ?= go
GOBIN       ?= $(shell $(GO) env GOPATH)/bin
STATICCHECK := $(GOBIN)/staticcheck
# Pinned: a newer staticcheck may flag what this one accepts, and CI must
# not turn red on a release day.
STATICCHECK_VERSION := v0.8.2
# Complexity: no function over cyclomatic 20 but the exceptions below.
GOCYCLO := $(GOBIN)/gocyclo
GOCYCLO_VERSION := v0.6.0
# Cognitive complexity (nesting weighs): none over 30 but the exceptions
# in the cognitive rule.
GOCOGNIT := $(GOBIN)/gocognit
GOCOGNIT_VERSION := v1.3.0
# npm tools, pinned for the same reason, installed under .tools/ (ignored
# by git): npm comes with Node (Debian: apt-get install npm).
REDOCLY_VERSION := 2.77.0
REDOCLY         := .tools/redocly-$(REDOCLY_VERSION)/node_modules/.bin/redocly
REDOC_VERSION   := 2.5.4
REDOC_DIR       := internal/httpapi/docs
# The v4 client libraries cmd/api's TestV4ClientLibraries runs, at the
# versions its package-lock.json pins.
V4_CLIENTS_SRC := cmd/api/testdata/v4clients
V4_CLIENTS     := .tools/v4clients/node_modules/.package-lock.json

# The tools deploy-check runs, built from their Go modules into $(GOBIN).
# nats-server is the version go.mod requires, so the configuration is
# checked by the server the tests embed.
NATS_SERVER := $(GOBIN)/nats-server
PROMTOOL    := $(GOBIN)/promtool
KUBECONFORM := $(GOBIN)/kubeconform
KUSTOMIZE   := $(GOBIN)/kustomize
PROMETHEUS_VERSION  := v0.316.0
KUBECONFORM_VERSION := v0.7.0
KUSTOMIZE_VERSION   := v5.8.1
# kubeconform's schemas are made from the Kubernetes (1.27) OpenAPI document
# this module ships as a test fixture: no schema download from GitHub.
KUBE_OPENAPI_VERSION := v0.0.0-20260721132016-d427ff9ee9ad

.PHONY: all build check test test-cluster vet staticcheck complexity cognitive lint-openapi redoc v4-clients deploy-tools deploy-check bench bench-quick bench-packages run live-demo clean

all: build

build:
	$(GO) build -o bin/ ./cmd/...

$(STATICCHECK):
	$(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)

vet:
	$(GO) vet ./...

$(GOCYCLO):
	$(GO) install github.com/fzipp/gocyclo/cmd/gocyclo@$(GOCYCLO_VERSION)

## complexity: no function above cyclomatic 20, but table rules
## (TableRules.validPhases) and hand-written codecs (utcTime), whose
## branches are the cases they read.
complexity: $(GOCYCLO)
	@out=$$($(GOCYCLO) -over 20 $$(git ls-files '*.go' | grep -v '_test\.go$$') | grep -v -e ' (TableRules).validPhases ' -e ' utcTime '); \
	if [ -n "$$out" ]; then echo "$$out"; echo "gocyclo: the functions above are over 20; split them along their steps"; exit 1; fi

$(GOCOGNIT):
	$(GO) install github.com/uudashr/gocognit/cmd/gocognit@$(GOCOGNIT_VERSION)

# The cognitive rule's exceptions: table rules and hand-written codecs may
# be named here with their reason, as in complexity; none is over 30 today.
COGNIT_EXCEPT := -e '^$$'

## cognitive: no function above cognitive complexity 30 (gocognit: nesting
## weighs, so a deep loop costs more than a flat switch), but the
## exceptions above (COGNIT_EXCEPT). Its note that recursion may be under-counted is
## dropped: -exact-recursion type-checks the module and takes minutes.
cognitive: $(GOCOGNIT)
	@out=$$($(GOCOGNIT) -over 30 $$(git ls-files '*.go' | grep -v '_test\.go$$') 2>&1 | grep -v -e '^gocognit: note: ' $(COGNIT_EXCEPT)); \
	if [ -n "$$out" ]; then echo "$$out"; echo "gocognit: the functions above are over 30; split them along their steps"; exit 1; fi

staticcheck: $(STATICCHECK)
	$(STATICCHECK) ./...

$(REDOCLY):
	npm install --prefix .tools/redocly-$(REDOCLY_VERSION) --no-audit --no-fund --loglevel=error @redocly/cli@$(REDOCLY_VERSION)

## lint-openapi: redocly lint of the OpenAPI document (recommended rules,
## warnings as errors). Offline once installed: telemetry and update checks
## off; its banners are shown only when it fails.
lint-openapi: $(REDOCLY)
	@REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true $(REDOCLY) lint --extends recommended-strict --format stylish \
		internal/httpapi/openapi.json >.tools/redocly.log 2>&1 || { grep -v "[║╔╚]" .tools/redocly.log; exit 1; }
	@echo "openapi.json: redocly lint clean"

## v4-clients: install the npm v4 client libraries the tests run against
## the API (football-data-api-client, football-data-node) in .tools/v4clients.
$(V4_CLIENTS): $(V4_CLIENTS_SRC)/package.json $(V4_CLIENTS_SRC)/package-lock.json
	mkdir -p .tools/v4clients
	cp $^ .tools/v4clients/
	npm ci --prefix .tools/v4clients --no-audit --no-fund --loglevel=error

v4-clients: $(V4_CLIENTS)

## redoc: fetch the Redoc bundle the /docs page embeds (committed, so a build
## needs no npm), with its licence and the notices of what it bundles.
redoc:
	rm -rf .tools/redoc && mkdir -p .tools/redoc
	cd .tools/redoc && npm pack --silent --loglevel=error redoc@$(REDOC_VERSION) >/dev/null && tar -xzf redoc-$(REDOC_VERSION).tgz
	cp .tools/redoc/package/bundles/redoc.standalone.js .tools/redoc/package/bundles/redoc.standalone.js.LICENSE.txt .tools/redoc/package/bundles/*.worker.js.LICENSE.txt $(REDOC_DIR)/
	cp .tools/redoc/package/LICENSE $(REDOC_DIR)/redoc.LICENSE

$(NATS_SERVER): go.mod
	$(GO) build -o $@ github.com/nats-io/nats-server/v2

# promtool: Debian's build where apt is (about 5 s: the package is
# downloaded and unpacked here, nothing is installed system-wide), else
# built from its Go module (about 5 minutes on two busy cores). The rules
# and their tests hold on both. The Go build leaves out the
# service-discovery plugins (tag remove_all_sd): rule checks need none, they
# pull in every cloud's SDK, and the module proxy lacks one at this version.
$(PROMTOOL):
	@mkdir -p $(GOBIN)
	d=$$(mktemp -d) && trap 'rm -rf '"$$d" EXIT && \
	if command -v apt-get >/dev/null 2>&1 && (cd $$d && apt-get download -qq prometheus 2>/dev/null && dpkg-deb -x prometheus_*.deb x); then \
		cp $$d/x/usr/bin/promtool $@; \
	else \
		$(GO) install -tags remove_all_sd github.com/prometheus/prometheus/cmd/promtool@$(PROMETHEUS_VERSION); \
	fi
	$@ --version | head -1

$(KUBECONFORM):
	$(GO) install github.com/yannh/kubeconform/cmd/kubeconform@$(KUBECONFORM_VERSION)

$(KUSTOMIZE):
	$(GO) install sigs.k8s.io/kustomize/kustomize/v5@$(KUSTOMIZE_VERSION)

deploy-tools: $(NATS_SERVER) $(PROMTOOL) $(KUBECONFORM) $(KUSTOMIZE)

## deploy-check: the files in deploy/ checked by the tools that run them
## (nats-server -t, promtool, kustomize and kubeconform); no network.
deploy-check: deploy-tools
	NATS_SERVER=$(NATS_SERVER) PROMTOOL=$(PROMTOOL) KUBECONFORM=$(KUBECONFORM) KUSTOMIZE=$(KUSTOMIZE) \
	K8S_SWAGGER="$$($(GO) mod download -json k8s.io/kube-openapi@$(KUBE_OPENAPI_VERSION) | sed -n 's/^\t"Dir": "\(.*\)",$$/\1/p')/pkg/schemaconv/testdata/swagger.json" \
	deploy/check.sh

## check: the fast loop while working: gofmt, vet and every test but the
## three-node NATS clusters and the runbook (go test -short; they skip
## with natstest.SkipShort), without the race detector (README.md). make
## test is the full gate CI runs. -parallel 8: the tests that call
## t.Parallel (internal/follow's) mostly wait on poll intervals, and the
## default, one per core, runs them two at a time (45 s; 33 s at 8 with
## the two that time arrivals run alone first; 80 s all in sequence).
check:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); echo "gofmt: files above need formatting"; exit 1; }
	$(GO) vet ./...
	$(GO) test -short -count=1 -parallel 8 -timeout 5m ./...

## test: vet, staticcheck, the complexity checks (cyclomatic and
## cognitive), the OpenAPI lint, the deployment files and every test under
## the race detector (with the v4 client libraries installed).
test: vet staticcheck complexity cognitive lint-openapi deploy-check $(V4_CLIENTS)
	test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); echo "gofmt: files above need formatting"; exit 1; }
	@skipped=$$(mktemp) && trap 'rm -f "$$skipped"' EXIT && \
	FD_SKIPPED=$$skipped $(GO) test -race -count=1 -timeout 20m ./...; status=$$?; \
	sort -u "$$skipped"; exit $$status

## test-cluster: the cluster test at full size: three NATS nodes (the
## stream at R3), three replicas, five seeded leagues, 21 files imported and
## three rounds of faults under load; a replica held to its bound behind
## the stream through a hundred NATS node restarts (about a minute); then
## the runbook (deploy/README.md)
## followed to the letter on deploy/local-cluster.sh with three replicas,
## the demo season, a webhook delivered once, a backup restored on a cluster
## rebuilt from nothing and a replica killed behind nginx (make test runs
## smaller ones).
test-cluster: $(NATS_SERVER)
	$(GO) test -count=1 -timeout 30m -run 'TestCluster|TestReplicaKeepsUpThroughRestarts' -v ./cmd/api -args -cluster.full
	$(GO) test -count=1 -timeout 15m -run TestRunbook -v ./deploy -args -runbook.full

## bench: whole-system figures against baselines in the same run (about
## 11 minutes on 2 cores); results in bench/runs/ (ignored by git), method in
## docs/performance.md.
bench: build
	$(GO) run ./scripts/bench --out bench/runs

## bench-quick: the same rows at a small scale, about 2.5 minutes.
bench-quick: build
	$(GO) run ./scripts/bench --quick --out bench/runs

## bench-packages: the benchmarks next to the code (go test -bench).
bench-packages:
	$(GO) test -run '^$$' -bench . -benchmem -timeout 30m ./...

## run: one replica in single-machine mode on localhost:8080 with the demo season.
run:
	scripts/run.sh

## live-demo: a recorded 2. Bundesliga matchday played live through a local
## OpenLigaDB into a replica on localhost:8081 (docs/feeds.md); no account needed.
live-demo: build
	$(GO) run ./scripts/livedemo

clean:
	rm -rf bin
