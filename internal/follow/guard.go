package follow

import (
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"strings"
)

// The follower fetches what editors name, as root in some deployments:
// a feed's URL must not reach inward. Hosts are judged as webhook
// deliveries judge theirs (netguard): public addresses, the others only
// through --feed-allow, on the address dialled and again at every
// redirect. File URLs are read only under the folders given with
// --feed-files.

// allowFlag names the follower's allow list in errors.
const allowFlag = "--feed-allow"

// maxRedirects bounds the redirects a fetch follows, as net/http's
// default does.
const maxRedirects = 10

// checkURL refuses a URL the follower does not fetch: a scheme other than
// http and https, or a host that is an address the allow list refuses (a
// name is judged when it is dialled, on what it resolves to).
func (f *fetcher) checkURL(u *url.URL) error {
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("scheme %q: a feed is fetched over http or https, or read from a file URL", u.Scheme)
	}
	host := u.Hostname()
	addr, err := netip.ParseAddr(host)
	if err != nil {
		return nil
	}
	return f.allow.Check(allowFlag, host, addr)
}

// checkRedirect re-checks every redirect as the first URL was checked.
func (f *fetcher) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= maxRedirects {
		return fmt.Errorf("more than %d redirects", maxRedirects)
	}
	if err := f.checkURL(req.URL); err != nil {
		return fmt.Errorf("redirect to %s: %w", req.URL.Redacted(), err)
	}
	return nil
}

// errNoFiles refuses a file URL of a follower given no --feed-files.
var errNoFiles = errors.New("file URLs are read only under the folders given to `ingest follow --feed-files DIR`, and this follower has none")

// localFile is the file a file URL's path names, with its links
// resolved, if it lies under one of the folders given: a link out of
// them, or a .. that climbs out, is refused.
func (f *fetcher) localFile(path string) (string, error) {
	if len(f.files) == 0 {
		return "", errNoFiles
	}
	return underFolders(path, f.files, "--feed-files")
}

// underFolders is path with its links resolved if it lies under one of
// dirs (as folders returns them), else an error naming flag.
func underFolders(path string, dirs []string, flag string) (string, error) {
	real, err := filepath.EvalSymlinks(filepath.Clean(path))
	if err != nil {
		return "", unwrapPath(err)
	}
	for _, dir := range dirs {
		if rel, err := filepath.Rel(dir, real); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return real, nil
		}
	}
	return "", fmt.Errorf("%s is not under a folder given to %s (%s)", real, flag, strings.Join(dirs, ", "))
}

// folders checks the folders of flag (--feed-files, --token-files) and
// returns them absolute, with their links resolved, as underFolders
// compares them.
func folders(flag string, dirs []string) ([]string, error) {
	var out []string
	for _, d := range dirs {
		abs, err := filepath.Abs(d)
		if err == nil {
			abs, err = filepath.EvalSymlinks(abs)
		}
		if err != nil {
			return nil, fmt.Errorf("%s %q: %w", flag, d, unwrapPath(err))
		}
		if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
			return nil, fmt.Errorf("%s %q: not a folder", flag, d)
		}
		out = append(out, abs)
	}
	return out, nil
}
