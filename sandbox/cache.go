package sandbox

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// CachedProbe is Probe with memory: a passing result is remembered per
// boot, guardsh binary (path, size, mtime, inode), backend, Landlock ABI,
// user, sandbox settings and what already confines the process
// (confinementOf), and reused while all of those stay the same.
// The cache is only read and written where confined processes cannot
// write: the first of the user's cache directory and $XDG_RUNTIME_DIR
// that lies outside every writable root (ProbeCacheDir). Failures are never cached. GUARDSH_SANDBOX_NOCACHE=1
// turns it off.
func CachedProbe(backend string, c Config) ProbeResult {
	path := probeCachePath(backend, c)
	if path != "" {
		if b, err := os.ReadFile(path); err == nil {
			var r ProbeResult
			if json.Unmarshal(b, &r) == nil && r.OK && r.Backend == backend {
				r.Cached = true
				return r
			}
		}
	}
	r := Probe(backend, c)
	if r.OK && path != "" {
		if b, err := json.Marshal(r); err == nil {
			os.MkdirAll(filepath.Dir(path), 0o700)
			tmp := path + ".tmp"
			if os.WriteFile(tmp, b, 0o600) == nil {
				os.Rename(tmp, path)
			}
			pruneProbeCache(filepath.Dir(path))
		}
	}
	return r
}

func probeCachePath(backend string, c Config) string {
	if os.Getenv("GUARDSH_SANDBOX_NOCACHE") == "1" {
		return ""
	}
	boot, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return "" // no boot identity (macOS): always probe
	}
	exe, err := executable()
	if err != nil {
		return ""
	}
	fi, err := os.Stat(exe)
	if err != nil {
		return ""
	}
	dir := ProbeCacheDir(c)
	if dir == "" {
		return ""
	}
	settings := c
	settings.Project, settings.TmpDir, settings.Protected = "", "", nil
	cfg, _ := json.Marshal(settings)
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%d\x00%d\x00%v\x00%s\x00%d\x00%d\x00%s\x00%s", boot, exe, fi.Size(), fi.ModTime().UnixNano(), inode(fi), backend, LandlockABI(), os.Geteuid(), cfg, confinementOf())
	return filepath.Join(dir, "probe-"+hex.EncodeToString(h.Sum(nil))[:32]+".json")
}

// ProbeCacheDir returns the directory the probe cache uses for sessions
// of c, "" when every candidate lies inside a writable root of c (a
// confined command could forge a passing result there): then every
// session probes afresh, and the caller should say so.
func ProbeCacheDir(c Config) string {
	var cands []string
	if d, err := os.UserCacheDir(); err == nil {
		cands = append(cands, d)
	}
	if d := os.Getenv("XDG_RUNTIME_DIR"); filepath.IsAbs(d) {
		cands = append(cands, d)
	}
	// Not /run or /var/cache for root: those are the machine's, shared by
	// every HOME (a test's throwaway HOME under /tmp would fill them).
	return pickCacheDir(cands, c.WritableRoots())
}

// pickCacheDir returns cand/guardsh for the first candidate (resolved)
// that is neither inside nor above a writable root.
func pickCacheDir(cands, roots []string) string {
next:
	for _, d := range cands {
		if d == "" || !filepath.IsAbs(d) {
			continue
		}
		dir := filepath.Join(canon(d), "guardsh")
		for _, r := range roots {
			if within(dir, r) || within(r, dir) {
				continue next
			}
		}
		return dir
	}
	return ""
}

// pruneProbeCache removes cached probe results not written for a day
// (other binaries, other settings, earlier boots).
func pruneProbeCache(dir string) {
	old, _ := filepath.Glob(filepath.Join(dir, "probe-*.json"))
	for _, f := range old {
		if fi, err := os.Stat(f); err == nil && time.Since(fi.ModTime()) > 24*time.Hour {
			os.Remove(f)
		}
	}
}

// confinementOf describes what already confines this process: its
// namespaces, seccomp filters, no_new_privs and capabilities. A result
// probed outside another sandbox (Codex CLI's seccomp filter, bubblewrap)
// is not valid inside it, where namespaces may be refused: the cache key
// includes this, so each environment is probed once.
func confinementOf() string {
	var b strings.Builder
	for _, ns := range []string{"user", "mnt", "net", "pid"} {
		l, _ := os.Readlink("/proc/self/ns/" + ns)
		b.WriteString(l + ";")
	}
	st, _ := os.ReadFile("/proc/self/status")
	for _, line := range strings.Split(string(st), "\n") {
		for _, k := range []string{"Seccomp:", "Seccomp_filters:", "NoNewPrivs:", "CapEff:", "CapBnd:"} {
			if strings.HasPrefix(line, k) {
				b.WriteString(strings.Join(strings.Fields(line), " ") + ";")
			}
		}
	}
	return b.String()
}
