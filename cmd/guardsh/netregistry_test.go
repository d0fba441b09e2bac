package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/guardsh/guardsh/sandbox"
)

// The registry stand-ins: a Go module proxy (the GOPROXY protocol), an npm
// registry (package document and tarball) and a PyPI simple index (PEP 503
// HTML and PEP 691 JSON) with a wheel, each serving one small package made
// here, over TLS with a test CA, on a loopback address of the host.

// testCA makes a CA and a server certificate for names, signed by it; it
// writes the CA's certificate to dir/ca.pem and returns that path and the
// server's TLS configuration.
func testCA(t *testing.T, dir string, names ...string) (string, *tls.Config) {
	t.Helper()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "guardsh test CA"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(caDER)
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: names[0]}, DNSNames: names,
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	caFile := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}), 0o644); err != nil {
		t.Fatal(err)
	}
	cert := tls.Certificate{Certificate: [][]byte{der, caDER}, PrivateKey: key}
	return caFile, &tls.Config{Certificates: []tls.Certificate{cert}}
}

// zipFiles is a zip archive of files (name -> content), in name order.
func zipFiles(t *testing.T, files [][2]string) []byte {
	t.Helper()
	var b bytes.Buffer
	z := zip.NewWriter(&b)
	for _, f := range files {
		w, err := z.Create(f[0])
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(f[1]))
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// goModuleProxy serves module mod at version ver (a package of the same
// path whose Greeting returns greeting) by the GOPROXY protocol: $mod/@v/list,
// $ver.info, $ver.mod, $ver.zip, and @latest.
func goModuleProxy(t *testing.T, mod, ver, greeting string) http.Handler {
	gomod := "module " + mod + "\n\ngo 1.21\n"
	pkg := filepath.Base(mod)
	zipped := zipFiles(t, [][2]string{
		{mod + "@" + ver + "/go.mod", gomod},
		{mod + "@" + ver + "/" + pkg + ".go", "package " + pkg + "\n\n// Greeting is the module's greeting.\nfunc Greeting() string { return " + fmt.Sprintf("%q", greeting) + " }\n"},
	})
	info := fmt.Sprintf(`{"Version":%q,"Time":"2026-01-01T00:00:00Z"}`, ver)
	files := map[string][]byte{
		"/" + mod + "/@v/list":             []byte(ver + "\n"),
		"/" + mod + "/@v/" + ver + ".info": []byte(info),
		"/" + mod + "/@v/" + ver + ".mod":  []byte(gomod),
		"/" + mod + "/@v/" + ver + ".zip":  zipped,
		"/" + mod + "/@latest":             []byte(info),
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, ok := files[r.URL.Path]
		if !ok {
			http.Error(w, "not found", http.StatusNotFound)
			return
		}
		w.Write(b)
	})
}

// npmRegistry serves package name at version ver (its index.js exports
// greeting) as a registry does: the package document at /NAME and the
// tarball at /NAME/-/NAME-VER.tgz on base (the registry's URL).
func npmRegistry(t *testing.T, base, name, ver, greeting string) http.Handler {
	var tgz bytes.Buffer
	gz := gzip.NewWriter(&tgz)
	tw := tar.NewWriter(gz)
	for _, f := range [][2]string{
		{"package/package.json", fmt.Sprintf(`{"name":%q,"version":%q,"main":"index.js"}`, name, ver)},
		{"package/index.js", fmt.Sprintf("module.exports = %q;\n", greeting)},
	} {
		tw.WriteHeader(&tar.Header{Name: f[0], Mode: 0o644, Size: int64(len(f[1])), ModTime: time.Unix(1700000000, 0), Typeflag: tar.TypeReg})
		tw.Write([]byte(f[1]))
	}
	tw.Close()
	gz.Close()
	sum1 := sha1.Sum(tgz.Bytes())
	sum512 := sha512.Sum512(tgz.Bytes())
	tarPath := "/" + name + "/-/" + name + "-" + ver + ".tgz"
	doc, _ := json.Marshal(map[string]any{
		"name": name, "dist-tags": map[string]string{"latest": ver},
		"versions": map[string]any{ver: map[string]any{"name": name, "version": ver, "main": "index.js",
			"dist": map[string]string{"tarball": base + tarPath, "shasum": hex.EncodeToString(sum1[:]),
				"integrity": "sha512-" + base64.StdEncoding.EncodeToString(sum512[:])}}},
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/" + name:
			w.Header().Set("Content-Type", "application/json")
			w.Write(doc)
		case tarPath:
			w.Header().Set("Content-Type", "application/octet-stream")
			w.Write(tgz.Bytes())
		default:
			http.Error(w, "not found", http.StatusNotFound)
		}
	})
}

// pypiIndex serves project name at version ver (a wheel whose module's
// GREETING is greeting) as PyPI does: the simple index at /simple/NAME/
// (PEP 691 JSON when asked for, PEP 503 HTML otherwise) linking to the
// wheel at files (another host's URL, as files.pythonhosted.org), and
// the wheel itself at /packages/FILE on whichever host serves it.
func pypiIndex(t *testing.T, files, name, ver, greeting string) http.Handler {
	mod := strings.ReplaceAll(name, "-", "_")
	dist := mod + "-" + ver + ".dist-info"
	contents := [][2]string{
		{mod + "/__init__.py", fmt.Sprintf("GREETING = %q\n", greeting)},
		{dist + "/METADATA", "Metadata-Version: 2.1\nName: " + name + "\nVersion: " + ver + "\n"},
		{dist + "/WHEEL", "Wheel-Version: 1.0\nGenerator: guardsh-test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"},
	}
	var record strings.Builder
	for _, f := range contents {
		h := sha256.Sum256([]byte(f[1]))
		fmt.Fprintf(&record, "%s,sha256=%s,%d\n", f[0], base64.RawURLEncoding.EncodeToString(h[:]), len(f[1]))
	}
	record.WriteString(dist + "/RECORD,,\n")
	whl := zipFiles(t, append(contents, [2]string{dist + "/RECORD", record.String()}))
	whlName := mod + "-" + ver + "-py3-none-any.whl"
	sum := sha256.Sum256(whl)
	url := files + "/packages/" + whlName
	html := fmt.Sprintf("<!DOCTYPE html>\n<html><body>\n<a href=\"%s#sha256=%s\">%s</a>\n</body></html>\n", url, hex.EncodeToString(sum[:]), whlName)
	js, _ := json.Marshal(map[string]any{"meta": map[string]string{"api-version": "1.0"}, "name": name,
		"files": []map[string]any{{"filename": whlName, "url": url, "hashes": map[string]string{"sha256": hex.EncodeToString(sum[:])}}}})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/simple/" + name + "/":
			if strings.Contains(r.Header.Get("Accept"), "application/vnd.pypi.simple.v1+json") {
				w.Header().Set("Content-Type", "application/vnd.pypi.simple.v1+json")
				w.Write(js)
				return
			}
			w.Header().Set("Content-Type", "text/html")
			w.Write([]byte(html))
		case "/simple/" + name:
			http.Redirect(w, r, "/simple/"+name+"/", http.StatusMovedPermanently)
		case "/packages/" + whlName:
			w.Write(whl)
		default:
			http.Error(w, "not found", http.StatusNotFound)
		}
	})
}

// byHost routes requests by their Host name (port dropped) to handlers;
// seen counts the requests each host got.
type byHost struct {
	handlers map[string]http.Handler
	seen     chan string
}

func (b *byHost) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	host, _, err := net.SplitHostPort(r.Host)
	if err != nil {
		host = r.Host
	}
	select {
	case b.seen <- host + " " + r.URL.Path:
	default:
	}
	h, ok := b.handlers[host]
	if !ok {
		http.Error(w, "no such host here", http.StatusMisdirectedRequest)
		return
	}
	h.ServeHTTP(w, r)
}

// inHostsNamespace runs guardsh with args in a private mount namespace of
// its own where /etc/hosts is hosts (the privileged side, which resolves
// the names the commands connect to, and everything in the session see
// it; the machine's /etc/hosts is not touched). It skips where no mount
// namespace can be made.
func (f *fixture) inHostsNamespace(t *testing.T, hosts string, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("no unshare(1): cannot give the privileged side a hosts file of its own")
	}
	probe := exec.Command("unshare", "-m", "--", "sh", "-c", `mount --bind "$0" /etc/hosts`, hosts)
	if b, err := probe.CombinedOutput(); err != nil {
		t.Skipf("cannot bind a hosts file over /etc/hosts in a private mount namespace: %v %s", err, b)
	}
	cmd := exec.Command("unshare", append([]string{"-m", "--", "sh", "-c", `mount --bind "$0" /etc/hosts && exec "$@"`, hosts, f.bin}, args...)...)
	cmd.Dir = f.project
	cmd.Env = env
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return o.String(), e.String(), code
}

// registryStandIns starts the stand-ins on 127.0.0.2:443 under the real
// registries' names (proxy.golang.org, registry.npmjs.org, pypi.org,
// files.pythonhosted.org), an unlisted TLS host (evil.test) on
// 127.0.0.3:443, and writes a hosts file mapping those names (and
// db.corp.test, a name of a host service on 127.0.0.1) to the loopback
// addresses. It returns the hosts file, the CA file and the host service's
// port.
func registryStandIns(t *testing.T, dir string) (hosts, caFile string, seen chan string, localPort int) {
	t.Helper()
	names := []string{"proxy.golang.org", "registry.npmjs.org", "pypi.org", "files.pythonhosted.org", "evil.test"}
	caFile, tlsConf := testCA(t, dir, names...)
	seen = make(chan string, 1000)
	h := &byHost{seen: seen, handlers: map[string]http.Handler{
		"proxy.golang.org":       goModuleProxy(t, "example.com/hello", "v1.0.0", "hello from the module proxy"),
		"registry.npmjs.org":     npmRegistry(t, "https://registry.npmjs.org", "hello-pkg", "1.0.0", "hello from the npm registry"),
		"pypi.org":               pypiIndex(t, "https://files.pythonhosted.org", "hello-pkg", "1.0.0", "hello from the wheel"),
		"files.pythonhosted.org": pypiIndex(t, "https://files.pythonhosted.org", "hello-pkg", "1.0.0", "hello from the wheel"),
		"evil.test":              http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("reached evil.test")) }),
	}}
	for _, addr := range []string{"127.0.0.2:443", "127.0.0.3:443"} {
		l, err := net.Listen("tcp", addr)
		if err != nil {
			t.Skipf("cannot listen on %s (the registries' port): %v", addr, err)
		}
		srv := &http.Server{Handler: h, TLSConfig: tlsConf, ErrorLog: nil}
		go srv.ServeTLS(l, "", "")
		t.Cleanup(func() { srv.Close() })
	}
	local, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go http.Serve(local, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("reached the host's 127.0.0.1")) }))
	t.Cleanup(func() { local.Close() })
	sys, _ := os.ReadFile("/etc/hosts")
	hosts = filepath.Join(dir, "hosts")
	var b strings.Builder
	b.Write(sys)
	b.WriteString("\n127.0.0.2 proxy.golang.org registry.npmjs.org pypi.org files.pythonhosted.org\n127.0.0.3 evil.test\n127.0.0.1 db.corp.test\n")
	if err := os.WriteFile(hosts, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return hosts, caFile, seen, local.Addr().(*net.TCPAddr).Port
}

// registryProject writes the projects the clients work in: a Go module
// that needs example.com/hello, an npm project that depends on hello-pkg,
// and returns the environment the clients need besides the session's
// (the test CA, caches in the project, no telemetry or update checks, no
// checksum database for the module made here).
func registryProject(t *testing.T, f *fixture, caFile string) []string {
	t.Helper()
	files := map[string]string{
		"goapp/go.mod":       "module example.com/app\n\ngo 1.21\n\nrequire example.com/hello v1.0.0\n",
		"goapp/main.go":      "package main\n\nimport (\n\t\"fmt\"\n\n\t\"example.com/hello\"\n)\n\nfunc main() { fmt.Println(hello.Greeting()) }\n",
		"jsapp/package.json": `{"name":"jsapp","version":"0.0.0","private":true,"dependencies":{"hello-pkg":"^1.0.0"}}` + "\n",
	}
	for name, content := range files {
		p := filepath.Join(f.project, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cache := filepath.Join(f.project, ".cache")
	return []string{"SSL_CERT_FILE=" + caFile, "NODE_EXTRA_CA_CERTS=" + caFile, "PIP_CERT=" + caFile, "CURL_CA_BUNDLE=" + caFile,
		"GOTOOLCHAIN=local", "GOSUMDB=off", "GOFLAGS=-mod=mod", "GOMODCACHE=" + cache + "/gomod", "GOCACHE=" + cache + "/gobuild", "GOTELEMETRY=off",
		"npm_config_cafile=" + caFile, "npm_config_cache=" + cache + "/npm", "npm_config_update_notifier=false", "npm_config_audit=false", "npm_config_fund=false",
		"PIP_DISABLE_PIP_VERSION_CHECK=1", "PIP_CACHE_DIR=" + cache + "/pip", "PIP_NO_INPUT=1"}
}

// hostPython is the real python3 interpreter (not a version manager's
// shim), for a venv.
func hostPython(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("python3", "-c", "import sys, venv, ensurepip; print(sys.executable)").Output()
	if err != nil {
		t.Skipf("no python3 with venv and ensurepip: %v", err)
	}
	return strings.TrimSpace(string(out))
}

// connectRecords counts the audit log's connect records by "decision host".
func connectRecords(t *testing.T, f *fixture) map[string]int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(f.base, "state", "guardsh", "audit.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, l := range strings.Split(string(b), "\n") {
		var r struct {
			Event, Decision string
			Connect         *struct{ Host string }
		}
		if json.Unmarshal([]byte(l), &r) == nil && r.Event == "connect" && r.Connect != nil {
			got[r.Decision+" "+r.Connect.Host]++
		}
	}
	return got
}

// TestRegistryStandIns: in a real sandboxed session in auto mode, with
// the proxy on and the registries named by [[network.allow]] rules, go
// (go mod download, go build), npm (npm install, npm ci) and pip (in a
// venv) fetch a package from local stand-ins of their registries, under
// the registries' own names and over TLS with a test CA, without an ask.
// An unlisted host is refused at once with the rule on stderr; curl told
// to bypass the proxy reaches nothing; the host's 127.0.0.1 service is
// not reached, by address or by a name a pattern allows; the registries
// profile alone does not let its names reach a loopback address; every
// connection is in the audit log.
func TestRegistryStandIns(t *testing.T) {
	backendsUnderTest(t) // root, a backend
	if testing.Short() {
		t.Skip("-short: three package managers in a sandboxed session take most of a minute")
	}
	for _, tool := range []string{"go", "npm", "node", "curl"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s", tool)
		}
	}
	py := hostPython(t)
	f := newFixture(t)
	hosts, caFile, seen, localPort := registryStandIns(t, f.base)
	env := f.env(sandbox.BackendLandlock, append(registryProject(t, f, caFile), "GUARDSH_MODE=auto", "PY="+py)...)
	out, _, _ := f.inHostsNamespace(t, hosts, env, "-c", `echo "$GUARDSH_SANDBOX_NET|${HTTPS_PROXY:-none}"`)
	if !strings.HasPrefix(out, "loopback|http://") {
		t.Skipf("this session has no network namespace of its own (%q): commands have no network, the proxy is not used", strings.TrimSpace(out))
	}
	writeConfig := func(body string) string {
		cfg := filepath.Join(f.base, "config")
		os.MkdirAll(filepath.Join(cfg, "guardsh"), 0o755)
		if err := os.WriteFile(filepath.Join(cfg, "guardsh", "config.toml"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return "XDG_CONFIG_HOME=" + cfg
	}
	// The registries profile, and each stand-in's name exactly: only an
	// exact name lets a name reach a loopback address.
	cfg := "[network]\nprofiles = [\"registries\"]\n"
	for _, h := range []string{"proxy.golang.org", "registry.npmjs.org", "pypi.org", "files.pythonhosted.org"} {
		cfg += fmt.Sprintf("\n[[network.allow]]\nhost = %q\nport = 443\n", h)
	}
	cfg += "\n[[network.allow]]\nhost = \"*.corp.test\"\n"
	script := fmt.Sprintf(`cd goapp && go mod download example.com/hello; echo "gomod rc=$?"
go build -o app . && ./app; echo "gobuild rc=$?"
cd ../jsapp && npm install --no-progress >/dev/null; echo "npminstall rc=$?"
node -e 'console.log(require("hello-pkg"))'; rm -rf node_modules && npm ci --no-progress >/dev/null; echo "npmci rc=$?"
node -e 'console.log(require("hello-pkg"))'; echo "node rc=$?"
cd .. && "$PY" -m venv .venv; echo "venv rc=$?"
.venv/bin/pip install -q hello-pkg; echo "pip rc=$?"
.venv/bin/python -c 'import hello_pkg; print(hello_pkg.GREETING)'; echo "import rc=$?"
curl -sS https://evil.test/; echo " evil rc=$?"
curl -sS --noproxy '*' --max-time 5 https://registry.npmjs.org/hello-pkg; echo " direct rc=$?"
curl -sS --max-time 5 http://127.0.0.1:%[1]d/; echo " local rc=$?"
curl -sS --max-time 5 --noproxy '' http://127.0.0.1:%[1]d/; echo " localproxy rc=$?"
curl -sS --max-time 5 http://db.corp.test:%[1]d/; echo " localname rc=$?"`, localPort)
	stdout, stderr, _ := f.inHostsNamespace(t, hosts, append(env, writeConfig(cfg)), "-c", script)
	for _, want := range []string{"gomod rc=0", "hello from the module proxy\ngobuild rc=0", "npminstall rc=0",
		"hello from the npm registry\nnpmci rc=0", "hello from the npm registry\nnode rc=0", "venv rc=0", "pip rc=0",
		"hello from the wheel\nimport rc=0"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s\nstderr:\n%s", want, stdout, stderr)
		}
	}
	if strings.Contains(stdout, "reached evil.test") || strings.Contains(stdout, "reached the host's 127.0.0.1") {
		t.Errorf("a command reached what it must not:\n%s", stdout)
	}
	for _, want := range []string{"guardsh: denied [net.host-unlisted]: a connection to a host no [network] rule allows: evil.test:443",
		"guardsh: denied [net.host-unlisted]: a connection to a host no [network] rule allows: 127.0.0.1:" + fmt.Sprint(localPort),
		"guardsh: denied [net.private-address]: a connection to a private, loopback or link-local address: db.corp.test:" + fmt.Sprint(localPort) + " is 127.0.0.1"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if strings.Contains(stderr, "[net.host-unlisted]: a connection to a host no [network] rule allows: registry.npmjs.org") || strings.Contains(stderr, "ask") {
		t.Errorf("a registry connection asked:\n%s", stderr)
	}
	got := connectRecords(t, f)
	for _, want := range []string{"allow proxy.golang.org", "allow registry.npmjs.org", "allow pypi.org", "allow files.pythonhosted.org",
		"deny evil.test", "deny 127.0.0.1", "deny db.corp.test"} {
		if got[want] == 0 {
			t.Errorf("no connect record %q in the audit log: %v", want, got)
		}
	}
	// What reached the stand-ins came through the proxy (a direct
	// connection would have had nowhere to go): the requests each saw.
	reqs := map[string]int{}
	for drained := false; !drained; {
		select {
		case s := <-seen:
			reqs[strings.Fields(s)[0]]++
		default:
			drained = true
		}
	}
	t.Logf("connect records: %v; requests the stand-ins served, by host: %v", got, reqs)

	// Which proxy variables each client honours, measured: each client
	// fetches from its stand-in with one family of the session's variables
	// left (the others unset in a subshell), fresh caches each time.
	families := map[string]string{
		"lower":      "HTTP_PROXY HTTPS_PROXY ALL_PROXY npm_config_proxy npm_config_https_proxy",
		"upper":      "http_proxy https_proxy all_proxy npm_config_proxy npm_config_https_proxy",
		"npm_config": "http_proxy https_proxy all_proxy HTTP_PROXY HTTPS_PROXY ALL_PROXY",
	}
	clients := map[string]string{
		"go":   `cd goapp && GOMODCACHE=$(mktemp -d) GOFLAGS=-modcacherw go mod download example.com/hello@v1.0.0`,
		"npm":  `cd jsapp && npm view hello-pkg version --cache "$(mktemp -d)" --fetch-retries=0 --fetch-timeout=10000`,
		"pip":  `.venv/bin/pip download -q --no-cache-dir --no-deps -d "$(mktemp -d)" hello-pkg`,
		"curl": `curl -sS -o /dev/null --max-time 10 https://pypi.org/simple/hello-pkg/`,
	}
	var measure strings.Builder
	for _, c := range []string{"go", "npm", "pip", "curl"} {
		for _, fam := range []string{"lower", "upper", "npm_config"} {
			fmt.Fprintf(&measure, "( unset %s; %s ) >/dev/null 2>&1; echo \"%s %s rc=$?\"\n", families[fam], clients[c], c, fam)
		}
	}
	stdout, stderr, _ = f.inHostsNamespace(t, hosts, append(env, writeConfig(cfg)), "-c", measure.String())
	// measured with go 1.26, npm 11.19 (node 20), pip 23.2, curl 8: every
	// client but npm honours both cases of HTTPS_PROXY; npm honours
	// npm_config_https_proxy and, without it, both cases as well
	want := map[string]bool{
		"go lower": true, "go upper": true, "go npm_config": false,
		"npm lower": true, "npm upper": true, "npm npm_config": true,
		"pip lower": true, "pip upper": true, "pip npm_config": false,
		"curl lower": true, "curl upper": true, "curl npm_config": false,
	}
	for k, w := range want {
		got := strings.Contains(stdout, k+" rc=0\n")
		if !strings.Contains(stdout, k+" rc=") {
			t.Errorf("%s: not measured:\n%s\nstderr:\n%s", k, stdout, stderr)
		} else if got != w {
			t.Errorf("%s: reached the stand-in through the proxy: %v, docs/sandbox.md says %v\n%s", k, got, w, stdout)
		}
	}
	t.Logf("clients by proxy variables left (rc=0: reached its registry through the proxy):\n%s", stdout)

	// The profile alone: its names are not exact, so a registry name that
	// resolves to a loopback address is refused.
	stdout, stderr, _ = f.inHostsNamespace(t, hosts, append(env, writeConfig("[network]\nprofiles = [\"registries\"]\n")), "-c",
		`curl -sS https://registry.npmjs.org/hello-pkg; echo " profile rc=$?"`)
	if strings.Contains(stdout, "profile rc=0") || !strings.Contains(stderr, "guardsh: denied [net.private-address]: ") || !strings.Contains(stderr, "registry.npmjs.org:443 is 127.0.0.2") {
		t.Errorf("the registries profile let registry.npmjs.org reach 127.0.0.2:\nstdout:\n%s\nstderr:\n%s", stdout, stderr)
	}
}
