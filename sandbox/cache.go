package sandbox

import (
	"crypto/hmac"
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
// The cache lives in the first of the user's cache directory and
// $XDG_RUNTIME_DIR that lies outside every writable root (ProbeCacheDir);
// where both lie inside one (HOME under /tmp), in the user's cache
// directory. Wherever the user's kernel keyring is usable, every file
// carries a MAC whose key no confined process can read (probeCacheKey)
// and is never read through a symbolic link: a directory outside this
// session's writable roots may lie inside another session's. Only
// without a keyring is a file outside the writable roots read as it is. Failures are never cached. GUARDSH_SANDBOX_NOCACHE=1
// turns it off.
func CachedProbe(backend string, c Config) ProbeResult {
	path, key := probeCachePath(backend, c)
	if path != "" {
		if b, ok := readCache(path, key); ok {
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
			writeCache(path, key, b)
		}
	}
	return r
}

// readCache returns the content of the cache file at path: as it is where
// key is nil (a directory outside every writable root), else only when
// its MAC under key is right.
func readCache(path string, key []byte) ([]byte, bool) {
	// Never through a symbolic link, never blocking on a FIFO: a
	// confined command may have planted either.
	b, err := readNoSymlinks(path)
	if err != nil {
		return nil, false
	}
	if key == nil {
		return b, true
	}
	var a authedCache
	if json.Unmarshal(b, &a) != nil {
		return nil, false
	}
	want := cacheMAC(key, filepath.Base(path), a.Result)
	got, err := hex.DecodeString(a.MAC)
	if err != nil || !hmac.Equal(got, want) {
		return nil, false // forged or damaged: probe afresh
	}
	return a.Result, true
}

// writeCache stores b at path (atomically: a new file renamed over it);
// with a key, wrapped with its MAC, and never through a symbolic link
// (the directory lies where confined commands can write).
func writeCache(path string, key []byte, b []byte) {
	dir := filepath.Dir(path)
	if key == nil {
		writeNoSymlinks(dir, filepath.Base(path), b)
		pruneProbeCache(dir)
		return
	}
	w, err := json.Marshal(authedCache{MAC: hex.EncodeToString(cacheMAC(key, filepath.Base(path), b)), Result: b})
	if err != nil {
		return
	}
	writeNoSymlinks(dir, filepath.Base(path), w)
}

// authedCache is a cache file kept inside a writable root.
type authedCache struct {
	MAC    string          `json:"mac"`
	Result json.RawMessage `json:"result"`
}

// cacheMAC is HMAC-SHA256 under key of the file's name (which encodes the
// boot, binary, backend and settings it is for) and its content.
func cacheMAC(key []byte, name string, content []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(name))
	m.Write([]byte{0})
	m.Write(content)
	return m.Sum(nil)
}

// probeCachePath is the cache file for backend and c, "" for none, and
// the key its content is authenticated with (nil: it lies outside every
// writable root).
func probeCachePath(backend string, c Config) (string, []byte) {
	if os.Getenv("GUARDSH_SANDBOX_NOCACHE") == "1" {
		return "", nil
	}
	boot, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return "", nil // no boot identity (macOS): always probe
	}
	exe, err := executable()
	if err != nil {
		return "", nil
	}
	fi, err := os.Stat(exe)
	if err != nil {
		return "", nil
	}
	dir, key := probeCacheDir(c)
	if dir == "" {
		return "", nil
	}
	settings := c
	settings.Project, settings.TmpDir, settings.Protected = "", "", nil
	cfg, _ := json.Marshal(settings)
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%d\x00%d\x00%v\x00%s\x00%d\x00%d\x00%s\x00%s", boot, exe, fi.Size(), fi.ModTime().UnixNano(), inode(fi), backend, LandlockABI(), os.Geteuid(), cfg, confinementOf())
	return filepath.Join(dir, "probe-"+hex.EncodeToString(h.Sum(nil))[:32]+".json"), key
}

// ProbeCacheDir returns the directory the probe cache uses for sessions
// of c, "" when there is none: every candidate lies inside a writable root
// of c (a confined command could forge a passing result there) and no key
// to authenticate a cache there is available. Then every session probes
// afresh, and the caller should say so.
func ProbeCacheDir(c Config) string {
	d, _ := probeCacheDir(c)
	return d
}

// probeCacheDir is ProbeCacheDir with the key the cache there needs: the
// key from the user's kernel keyring (probeCacheKey) wherever there is
// one; nil (unauthenticated) only for a directory outside every writable
// root where the keyring cannot be used. Where every candidate lies
// inside a writable root (HOME under /tmp, the runtime directory too or
// unset), the user's cache directory, only with a key.
func probeCacheDir(c Config) (string, []byte) {
	var cands []string
	user, uerr := os.UserCacheDir()
	if uerr == nil {
		cands = append(cands, user)
	}
	if d := os.Getenv("XDG_RUNTIME_DIR"); filepath.IsAbs(d) {
		cands = append(cands, d)
	}
	// Not /run or /var/cache for root: those are the machine's, shared by
	// every HOME (a test's throwaway HOME under /tmp would fill them).
	// A directory outside this session's writable roots may lie inside
	// another session's (one in the home directory, or given
	// GUARDSH_SANDBOX_WRITE=~/.cache): the key authenticates the cache
	// wherever the keyring gives one; unauthenticated only without it.
	key := probeCacheKey()
	if d := pickCacheDir(cands, c.WritableRoots()); d != "" {
		return d, key
	}
	if uerr != nil || !filepath.IsAbs(user) || key == nil {
		return "", nil
	}
	return filepath.Join(canon(user), "guardsh"), key
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
