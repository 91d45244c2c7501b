GO          ?= go
GOBIN       ?= $(shell $(GO) env GOPATH)/bin
STATICCHECK := $(GOBIN)/staticcheck
# Pinned: a newer staticcheck may flag what this one accepts, and CI must
# not turn red on a release day.
STATICCHECK_VERSION := v0.8.2
# npm tools, pinned for the same reason, installed under .tools/ (ignored
# by git): npm comes with Node (Debian: apt-get install npm).
REDOCLY_VERSION := 2.77.0
REDOCLY         := .tools/redocly-$(REDOCLY_VERSION)/node_modules/.bin/redocly
REDOC_VERSION   := 2.5.4
REDOC_DIR       := internal/httpapi/docs

.PHONY: all build test test-cluster vet staticcheck lint-openapi redoc bench bench-quick bench-packages run clean

all: build

build:
	$(GO) build -o bin/ ./cmd/...

$(STATICCHECK):
	$(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)

vet:
	$(GO) vet ./...

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

## redoc: fetch the Redoc bundle the /docs page embeds (committed, so a build
## needs no npm), with its licence and the notices of what it bundles.
redoc:
	rm -rf .tools/redoc && mkdir -p .tools/redoc
	cd .tools/redoc && npm pack --silent --loglevel=error redoc@$(REDOC_VERSION) >/dev/null && tar -xzf redoc-$(REDOC_VERSION).tgz
	cp .tools/redoc/package/bundles/redoc.standalone.js .tools/redoc/package/bundles/redoc.standalone.js.LICENSE.txt .tools/redoc/package/bundles/*.worker.js.LICENSE.txt $(REDOC_DIR)/
	cp .tools/redoc/package/LICENSE $(REDOC_DIR)/redoc.LICENSE

## test: vet, staticcheck, the OpenAPI lint and every test under the race detector.
test: vet staticcheck lint-openapi
	test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); echo "gofmt: files above need formatting"; exit 1; }
	$(GO) test -race -count=1 -timeout 9m ./...

## test-cluster: the cluster test at full size: three NATS nodes (the
## stream at R3), three replicas, five seeded leagues, 21 files imported and
## three rounds of faults under load (make test runs a smaller one).
test-cluster:
	$(GO) test -count=1 -timeout 30m -run TestCluster -v ./cmd/api -args -cluster.full

## bench: whole-system figures against baselines in the same run (about
## 5 minutes on 2 cores); results in bench/results/, method in docs/performance.md.
bench: build
	$(GO) run ./scripts/bench --out bench/results

## bench-quick: the same rows at a small scale, under two minutes.
bench-quick: build
	$(GO) run ./scripts/bench --quick --out bench/results

## bench-packages: the benchmarks next to the code (go test -bench).
bench-packages:
	$(GO) test -run '^$$' -bench . -benchmem -timeout 30m ./...

## run: one replica in single-machine mode on localhost:8080 with the demo season.
run:
	scripts/run.sh

clean:
	rm -rf bin
