package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
)

// worldT builds a world several tests share (the conformance and v4
// worlds: a replica with real seasons imported, built once because the
// import takes seconds). While the world is built it is the building
// test's T, so that a failure then is that test's. What the world keeps
// (its temp dir, the replica, the stores it opens) outlives that test:
// TestMain releases it once every test has run, and a failure while it
// does fails the run from there, as a *testing.T panics when it fails
// after its test has ended. The tests that use the world each see it
// through their own T (forTest).
type worldT struct{ *testing.T }

// worlds is what the shared worlds keep until TestMain releases it.
var worlds struct {
	sync.Mutex
	cleanups  []func()
	releasing bool
	failed    bool
}

func (o *worldT) Cleanup(f func()) {
	worlds.Lock()
	defer worlds.Unlock()
	worlds.cleanups = append(worlds.cleanups, f)
}

// TempDir is a directory that lives as long as the world.
func (o *worldT) TempDir() string {
	dir, err := os.MkdirTemp("", "fd-world-")
	if err != nil {
		o.Fatal(err)
	}
	o.Cleanup(func() {
		if err := os.RemoveAll(dir); err != nil {
			o.Errorf("remove the world's temp dir: %v", err)
		}
	})
	return dir
}

func (o *worldT) Error(args ...any) { o.Errorf("%s", fmt.Sprintln(args...)) }

func (o *worldT) Errorf(format string, args ...any) {
	worlds.Lock()
	releasing := worlds.releasing
	if releasing {
		worlds.failed = true
	}
	worlds.Unlock()
	if !releasing {
		o.T.Helper()
		o.T.Errorf(format, args...)
		return
	}
	fmt.Fprintf(os.Stderr, "releasing the shared test worlds: "+format+"\n", args...)
}

// releaseWorlds runs the worlds' cleanups, last registered first, and
// says whether all went well.
func releaseWorlds() bool {
	worlds.Lock()
	worlds.releasing = true
	cleanups := worlds.cleanups
	worlds.Unlock()
	for i := len(cleanups) - 1; i >= 0; i-- {
		cleanups[i]()
	}
	worlds.Lock()
	defer worlds.Unlock()
	return !worlds.failed
}

func TestMain(m *testing.M) {
	flag.Parse()
	code := m.Run()
	if !releaseWorlds() && code == 0 {
		code = 1
	}
	os.Exit(code)
}

// The tests below run only inside TestSharedWorldFailure's run of this
// test binary: two small worlds, the first shared by three tests of which
// the second fails in a request the world's replica makes.
var (
	smallOnce   [2]sync.Once
	smallShared [2]*replica
)

const sharedWorldChild = "FD_SHARED_WORLD_CHILD"

func theSmallWorld(t *testing.T, i int) *replica {
	if os.Getenv(sharedWorldChild) == "" {
		t.Skip("run by TestSharedWorldFailure")
	}
	smallOnce[i].Do(func() {
		smallShared[i] = startReplica(&worldT{T: t}, "")
	})
	if smallShared[i] == nil {
		t.Fatal("the small world could not be built (see the first failing test)")
	}
	return smallShared[i].forTest(t)
}

func TestSharedWorldChildFirst(t *testing.T) {
	theSmallWorld(t, 0).do("GET", "/healthz", nil)
}

func TestSharedWorldChildSecond(t *testing.T) {
	theSmallWorld(t, 0).do("NO SUCH", "/", nil)
}

func TestSharedWorldChildThird(t *testing.T) {
	theSmallWorld(t, 0).do("GET", "/healthz", nil)
	theSmallWorld(t, 1).do("GET", "/healthz", nil)
}

// TestSharedWorldFailure: a test that fails in a request to a world it
// shares with the tests before it is reported against itself, with its
// message, and the tests after it still run; the worlds' temp dirs are
// gone once the run ends. (A world once kept the first test's T: the
// failure panicked the test binary, "Fail in goroutine after ... has
// completed", the message and the rest of the package were lost, and a
// world's temp dir was left behind.)
func TestSharedWorldFailure(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run", "^TestSharedWorldChild", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), sharedWorldChild+"=1", "TMPDIR="+dir)
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Errorf("the run with a failing test passed:\n%s", out)
	}
	for _, want := range []string{"--- PASS: TestSharedWorldChildFirst", "--- FAIL: TestSharedWorldChildSecond",
		`invalid method "NO SUCH"`, "--- PASS: TestSharedWorldChildThird"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the output does not say %q:\n%s", want, out)
		}
	}
	if strings.Contains(string(out), "panic") {
		t.Errorf("the run panicked:\n%s", out)
	}
	left, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range left {
		t.Errorf("left in the temp dir: %s", e.Name())
	}
}
