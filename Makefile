GO          ?= go
GOBIN       ?= $(shell $(GO) env GOPATH)/bin
STATICCHECK := $(GOBIN)/staticcheck
# Pinned: a newer staticcheck may flag what this one accepts, and CI must
# not turn red on a release day.
STATICCHECK_VERSION := v0.8.2

.PHONY: all build test test-cluster vet staticcheck bench bench-quick bench-packages run clean

all: build

build:
	$(GO) build -o bin/ ./cmd/...

$(STATICCHECK):
	$(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)

vet:
	$(GO) vet ./...

staticcheck: $(STATICCHECK)
	$(STATICCHECK) ./...

## test: vet, staticcheck and every test under the race detector.
test: vet staticcheck
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
