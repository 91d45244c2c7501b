package deploy

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/footdata/footballd/internal/natstest"
)

// unit is a systemd unit file: section → key → values, in order.
type unit map[string]map[string][]string

func parseUnit(t *testing.T, path string) unit {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	u := unit{}
	section := ""
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "", strings.HasPrefix(line, "#"), strings.HasPrefix(line, ";"):
		case strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]"):
			section = line[1 : len(line)-1]
			u[section] = map[string][]string{}
		default:
			key, value, ok := strings.Cut(line, "=")
			if !ok || section == "" {
				t.Fatalf("%s:%d: %q is no key=value in a section", path, n, line)
			}
			u[section][key] = append(u[section][key], value)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return u
}

// hardening is what every unit of deploy/systemd must say: the settings
// that bring `systemd-analyze security` into its OK band, and a restart
// after a crash that does not spin.
var hardening = map[string]string{
	"NoNewPrivileges":         "yes",
	"ProtectSystem":           "strict",
	"ProtectHome":             "yes",
	"PrivateTmp":              "yes",
	"PrivateDevices":          "yes",
	"PrivateUsers":            "yes",
	"ProtectKernelTunables":   "yes",
	"ProtectKernelModules":    "yes",
	"ProtectKernelLogs":       "yes",
	"ProtectControlGroups":    "yes",
	"ProtectClock":            "yes",
	"ProtectHostname":         "yes",
	"RestrictAddressFamilies": "AF_INET AF_INET6 AF_UNIX",
	"RestrictNamespaces":      "yes",
	"RestrictSUIDSGID":        "yes",
	"RestrictRealtime":        "yes",
	"LockPersonality":         "yes",
	"MemoryDenyWriteExecute":  "yes",
	"CapabilityBoundingSet":   "",
	"AmbientCapabilities":     "",
	"SystemCallArchitectures": "native",
	"SystemCallFilter":        "@system-service",
	"Restart":                 "on-failure",
	"RestartSec":              "2s",
}

func TestSystemdUnits(t *testing.T) {
	for _, tc := range []struct {
		file string
		want map[string]string // beyond hardening
	}{
		{"footballd-api@.service", map[string]string{"DynamicUser": "yes", "ExecStart": "/usr/local/bin/api --listen 127.0.0.1:%i",
			"EnvironmentFile": "/etc/footballd/api.env", "CacheDirectory": "footballd-api-%i"}},
		{"ingest-follow.service", map[string]string{"DynamicUser": "yes", "ExecStart": "/usr/local/bin/ingest follow --admin-listen 127.0.0.1:9190",
			"EnvironmentFile": "/etc/footballd/ingest-follow.env", "KillSignal": "SIGTERM"}},
		{"nats-server.service", map[string]string{"User": "nats", "StateDirectory": "nats",
			"ExecStart": "/usr/local/bin/nats-server -c /etc/nats/nats.conf"}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			path := filepath.Join("systemd", tc.file)
			service := parseUnit(t, path)["Service"]
			for _, want := range []map[string]string{hardening, tc.want} {
				for key, value := range want {
					if got := service[key]; len(got) == 0 || got[0] != value {
						t.Errorf("[Service] %s = %q, want %q first", key, got, value)
					}
				}
			}
			checkWithSystemd(t, path)
		})
	}
}

// exposure is the last line of `systemd-analyze security`.
var exposure = regexp.MustCompile(`Overall exposure level for .*: (\d+\.\d) (\S+)`)

// checkWithSystemd verifies the unit with systemd-analyze, where systemd is
// installed (.ci/run installs it; it need not be running): no warning, and
// an exposure of at most 2.0, in the OK band.
func checkWithSystemd(t *testing.T, path string) {
	t.Helper()
	analyze, err := exec.LookPath("systemd-analyze")
	if err != nil {
		natstest.SkipMissing(t, "systemd-analyze is not installed: only the units' directives were checked", "apt-get install systemd")
	}
	// verify insists that the binary exists: point ExecStart at one.
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	name := filepath.Base(path)
	text := regexp.MustCompile(`/usr/local/bin/(api|ingest|nats-server)`).ReplaceAllString(string(b), exe)
	dir := t.TempDir()
	tmp := filepath.Join(dir, name)
	if err := os.WriteFile(tmp, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	instance := filepath.Join(dir, strings.Replace(name, "@.service", "@8081.service", 1))
	if instance != tmp {
		if err := os.Symlink(tmp, instance); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := exec.Command(analyze, "verify", instance).CombinedOutput(); err != nil || len(out) > 0 {
		t.Errorf("systemd-analyze verify %s: %v\n%s", name, err, out)
	}
	out, err := exec.Command(analyze, "security", "--offline=yes", tmp).CombinedOutput()
	m := exposure.FindSubmatch(out)
	if err != nil || m == nil {
		t.Fatalf("systemd-analyze security %s: %v\n%s", name, err, out)
	}
	score, _ := strconv.ParseFloat(string(m[1]), 64)
	t.Logf("%s: systemd-analyze security %s %s", name, m[1], m[2])
	if score > 2.0 || string(m[2]) != "OK" {
		t.Errorf("%s: exposure %s %s, want at most 2.0 (OK)", name, m[1], m[2])
	}
}
