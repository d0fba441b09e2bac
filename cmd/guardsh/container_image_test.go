package main

// The container image (docker/Dockerfile) without a container engine: the
// Dockerfile's steps are scripts, and these tests run the same scripts the
// same way into a throwaway root, then the image's entrypoint inside the
// container-like environment of TestContainerLevel.

import (
	"bufio"
	"debug/elf"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/guardsh/guardsh/internal/testenv"
)

// dockerInstr is one instruction of a Dockerfile.
type dockerInstr struct {
	stage int    // index of the FROM it follows
	op    string // upper case: FROM, RUN, COPY, ...
	args  string // the rest of the line, continuations joined
}

// parseDockerfile reads the instructions of a Dockerfile: comments and
// blank lines dropped, backslash continuations joined.
func parseDockerfile(t *testing.T, path string) []dockerInstr {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []dockerInstr
	stage, cont := -1, ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if cont == "" && (line == "" || strings.HasPrefix(line, "#")) {
			continue
		}
		if strings.HasSuffix(line, "\\") {
			cont += strings.TrimSuffix(line, "\\") + " "
			continue
		}
		line, cont = cont+line, ""
		op, args, _ := strings.Cut(line, " ")
		op = strings.ToUpper(op)
		if op == "FROM" {
			stage++
		}
		out = append(out, dockerInstr{stage: stage, op: op, args: strings.TrimSpace(args)})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// imageRunSteps are the Dockerfile's RUN instructions that
// TestImageBuildSteps runs, as they are written there; imageStepsNotRun
// are the others, with the reason the test does not run them. A RUN in
// neither fails TestDockerfileRefs: the Dockerfile and the test cannot
// drift apart.
var (
	imageRunSteps = []string{
		"docker/build.sh /out",
		"/usr/local/lib/guardsh/setup.sh",
	}
	imageStepsNotRun = map[string]string{
		"go mod download": "fills the build stage's module cache; the test builds with the machine's",
		"apt-get update && xargs -a /tmp/guardsh-packages.txt apt-get install -y --no-install-recommends && rm -rf /var/lib/apt/lists/* /tmp/guardsh-packages.txt": "installs docker/packages.txt from Debian; the test checks instead that each package is installed here, since the entrypoint runs with this machine's programs",
	}
)

// TestDockerfileRefs: docker/Dockerfile is multi-stage with the build
// stage's binary static, copies only files that exist, runs only the
// scripts TestImageBuildSteps runs (or steps listed with the reason they
// are not), and its entrypoint is a script it copies.
func TestDockerfileRefs(t *testing.T) {
	root, err := testenv.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	ins := parseDockerfile(t, filepath.Join(root, "docker", "Dockerfile"))
	var froms []string
	copied := map[string]string{} // destination in the image -> source in the context
	entry := ""
	for _, in := range ins {
		switch in.op {
		case "FROM":
			froms = append(froms, in.args)
		case "COPY", "ADD":
			f := strings.Fields(in.args)
			if len(f) < 2 {
				t.Fatalf("%s %s: no source or destination", in.op, in.args)
			}
			if strings.HasPrefix(f[0], "--from=") {
				continue
			}
			dest := f[len(f)-1]
			for _, src := range f[:len(f)-1] {
				if strings.HasPrefix(src, "--") {
					t.Errorf("%s %s: option %s not understood by this test", in.op, in.args, src)
					continue
				}
				if _, err := os.Stat(filepath.Join(root, src)); err != nil {
					t.Errorf("%s %s: the build context has no %s", in.op, in.args, src)
				}
				d := dest
				if strings.HasSuffix(dest, "/") {
					d = dest + filepath.Base(src)
				}
				copied[d] = src
			}
		case "RUN":
			known := false
			for _, s := range imageRunSteps {
				known = known || in.args == s
			}
			if _, ok := imageStepsNotRun[in.args]; !known && !ok {
				t.Errorf("RUN %s: neither run by TestImageBuildSteps nor listed with a reason", in.args)
			}
			// a script it names is in the context or copied in before
			if f := strings.Fields(in.args)[0]; strings.HasSuffix(f, ".sh") {
				if src, ok := copied[f]; ok {
					f = src
				}
				if fi, err := os.Stat(filepath.Join(root, f)); err != nil || fi.Mode()&0o111 == 0 {
					t.Errorf("RUN %s: %s is not an executable file of the context (%v)", in.args, f, err)
				}
			}
		case "ENTRYPOINT":
			entry = in.args
		}
	}
	for _, s := range imageRunSteps {
		found := false
		for _, in := range ins {
			found = found || in.op == "RUN" && in.args == s
		}
		if !found {
			t.Errorf("the test runs %q, which docker/Dockerfile no longer does", s)
		}
	}
	if len(froms) < 2 || !strings.HasSuffix(froms[0], " AS build") {
		t.Errorf("not a multi-stage build with a build stage first: FROM %q", froms)
	}
	if !strings.HasPrefix(entry, `["`) || copied[strings.Trim(entry, `[]"`)] != "docker/entrypoint.sh" {
		t.Errorf("ENTRYPOINT %s is not docker/entrypoint.sh as copied into the image", entry)
	}
	b, err := os.ReadFile(filepath.Join(root, "docker", "build.sh"))
	if err != nil || !strings.Contains(string(b), "CGO_ENABLED=0 go build") {
		t.Errorf("docker/build.sh does not build with CGO_ENABLED=0 (%v)", err)
	}
}

// TestImageBuildSteps runs docker/Dockerfile's steps into a throwaway
// root, instruction by instruction (COPY as copies, RUN as the scripts,
// the build stage's /out as a temporary directory), checks what they made
// (a static binary; guardsh a login shell and the agent user's shell),
// then runs the image's ENTRYPOINT, with the image's ENV, inside the
// container-like environment: --doctor names the container level and exits
// 0, a command guardsh refuses is refused, and an agent's bash is guardsh.
func TestImageBuildSteps(t *testing.T) {
	if testing.Short() {
		t.Skip("builds guardsh with docker/build.sh")
	}
	if os.Geteuid() != 0 {
		t.Skip("setup.sh creates a user and chowns /work: needs root (CI runs as root)")
	}
	if _, err := exec.LookPath("useradd"); err != nil {
		t.Skip("useradd not installed (the image's Debian base has it)")
	}
	src, err := testenv.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	ins := parseDockerfile(t, filepath.Join(src, "docker", "Dockerfile"))
	tmp := t.TempDir()
	out := filepath.Join(tmp, "out")
	root := filepath.Join(tmp, "root")
	// What the Debian base image brings that setup.sh's useradd reads.
	for name, content := range map[string]string{
		"etc/passwd": "root:x:0:0:root:/root:/bin/bash\n", "etc/group": "root:x:0:\n",
		"etc/shadow": "root:*:19000:0:99999:7:::\n", "etc/gshadow": "root:*::\n", "etc/shells": "/bin/sh\n/bin/bash\n",
	} {
		p := filepath.Join(root, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The build stage's paths, then the image's, as they are here.
	stagePath := func(stage int, p string) string {
		if stage == 0 {
			switch {
			case p == "/out" || strings.HasPrefix(p, "/out/"):
				return out + strings.TrimPrefix(p, "/out")
			case strings.HasPrefix(p, "/"):
				t.Fatalf("build stage path %s has no counterpart in the test", p)
			}
			return filepath.Join(src, p)
		}
		return filepath.Join(root, p)
	}
	env := map[string]string{}
	entry := ""
	for _, in := range ins {
		switch in.op {
		case "COPY":
			f := strings.Fields(in.args)
			from := ""
			if strings.HasPrefix(f[0], "--from=") {
				from, f = strings.TrimPrefix(f[0], "--from="), f[1:]
			}
			if in.stage == 0 {
				continue // the build stage works in the source tree itself
			}
			dest := f[len(f)-1]
			for _, s := range f[:len(f)-1] {
				var sp string
				switch from {
				case "":
					sp = filepath.Join(src, s)
				case "build":
					sp = stagePath(0, s)
				default:
					t.Fatalf("COPY --from=%s: unknown stage", from)
				}
				d := stagePath(in.stage, dest)
				if strings.HasSuffix(dest, "/") {
					d = filepath.Join(d, filepath.Base(s))
				}
				copyFile(t, sp, d)
			}
		case "RUN":
			if _, skip := imageStepsNotRun[in.args]; skip {
				continue
			}
			f := strings.Fields(in.args)
			argv := []string{stagePath(in.stage, f[0])}
			for _, a := range f[1:] {
				if strings.HasPrefix(a, "/") {
					a = stagePath(in.stage, a)
				}
				argv = append(argv, a)
			}
			cmd := exec.Command(argv[0], argv[1:]...)
			cmd.Dir = src
			cmd.Env = append(os.Environ(), "GUARDSH_IMAGE_ROOT="+root)
			if b, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("RUN %s: %v\n%s", in.args, err, b)
			}
		case "ENV":
			for _, kv := range strings.Fields(in.args) {
				k, v, _ := strings.Cut(kv, "=")
				env[k] = v
			}
		case "ENTRYPOINT":
			entry = stagePath(in.stage, strings.Trim(in.args, `[]"`))
		}
	}
	// The apt step is not run: what it installs must be here instead.
	pk, err := os.ReadFile(filepath.Join(src, "docker", "packages.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range strings.Fields(string(pk)) {
		if b, err := exec.Command("dpkg-query", "-W", "-f=${Status}", p).Output(); err != nil || !strings.Contains(string(b), "installed") {
			t.Skipf("docker/packages.txt names %s, not installed here (%v): the entrypoint would not run as in the image", p, err)
		}
	}
	// A static binary: no program interpreter, no shared libraries.
	bin := filepath.Join(root, "usr", "local", "bin", "guardsh")
	ef, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ef.Progs {
		if p.Type == elf.PT_INTERP {
			t.Errorf("%s has a program interpreter: not static", bin)
		}
	}
	if libs, _ := ef.ImportedLibraries(); len(libs) > 0 {
		t.Errorf("%s needs shared libraries %v", bin, libs)
	}
	ef.Close()
	// guardsh is a login shell, the agent user's shell; /work is theirs.
	shells, _ := os.ReadFile(filepath.Join(root, "etc", "shells"))
	if !strings.Contains(string(shells), "\n/usr/local/bin/guardsh\n") {
		t.Errorf("/etc/shells lacks guardsh:\n%s", shells)
	}
	passwd, _ := os.ReadFile(filepath.Join(root, "etc", "passwd"))
	if !strings.Contains(string(passwd), "\nagent:x:1000:1000::/home/agent:/usr/local/bin/guardsh\n") {
		t.Errorf("the agent user's login shell is not guardsh:\n%s", passwd)
	}
	for _, d := range []string{"home/agent", "work"} {
		if fi, err := os.Stat(filepath.Join(root, d)); err != nil || !fi.IsDir() || fileUID(fi) != 1000 {
			t.Errorf("/%s is not a directory of the agent user (%v)", d, err)
		}
	}
	if env["SHELL"] != "/usr/local/bin/guardsh" {
		t.Errorf("the image's SHELL is %q, not guardsh", env["SHELL"])
	}

	// The entrypoint, in the container-like environment, on a project.
	prefix := containerLike(t)
	fx := newFixture(t)
	canary := filepath.Join(fx.home, ".bashrc")
	run := func(args ...string) (string, string, int) {
		t.Helper()
		argv := append(append(append([]string{}, prefix...), entry), args...)
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Dir = fx.project
		e := fx.env("")
		for i, kv := range e {
			if strings.HasPrefix(kv, "GUARDSH_SANDBOX=") {
				e[i] = "GUARDSH_SANDBOX=auto"
			}
		}
		for k, v := range env {
			if k == "SHELL" {
				v = filepath.Join(root, v) // the image's guardsh, where it is here
			}
			e = append(e, k+"="+v)
		}
		cmd.Env = e
		var o, se strings.Builder
		cmd.Stdout, cmd.Stderr = &o, &se
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return o.String(), se.String(), code
	}
	if o, e, code := run("--doctor"); code != 0 || !strings.Contains(o, "result: container: landlock+seccomp") {
		t.Errorf("entrypoint --doctor: status %d, want 0 and the container level\n%s\n%s", code, o, e)
	}
	o, e, _ := run("-c", `echo "level: $GUARDSH_SANDBOX_RUN"; echo made > made.txt; rm -rf ~; echo "after rm"`)
	if !strings.Contains(o, "level: container: landlock+seccomp") || !strings.Contains(e, "denied [") {
		t.Errorf("entrypoint -c: the level is not said or rm -rf ~ not refused\n%s\n%s", o, e)
	}
	if _, err := os.Stat(canary); err != nil {
		t.Fatalf("rm -rf ~ ran through the entrypoint: %v", err)
	}
	// An agent: its bash is guardsh (entrypoint AGENT -> guardsh --launch).
	agent := filepath.Join(fx.project, "agent.py")
	os.WriteFile(agent, []byte("import subprocess\n"+
		"subprocess.run(['bash', '-c', 'echo \"agent level: $GUARDSH_SANDBOX_RUN\"; echo via-agent > via-agent.txt; rm -rf ~'])\n"), 0o644)
	o, e, code := run("python3", agent)
	if b, err := os.ReadFile(filepath.Join(fx.project, "via-agent.txt")); err != nil || string(b) != "via-agent\n" || !strings.Contains(o, "agent level: container") {
		t.Errorf("the agent's bash did not run its command in guardsh (status %d): %v\n%s\n%s", code, err, o, e)
	}
	if !strings.Contains(e, "denied [") {
		t.Errorf("the agent's rm -rf ~ was not refused:\n%s\n%s", o, e)
	}
	if _, err := os.Stat(canary); err != nil {
		t.Fatalf("rm -rf ~ ran through the agent: %v", err)
	}
}

// copyFile copies the file src to dst, keeping its mode.
func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	fi, err := in.Stat()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	o, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, fi.Mode().Perm())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(o, in); err != nil {
		t.Fatal(err)
	}
	if err := o.Close(); err != nil {
		t.Fatal(err)
	}
}

// fileUID is the owner of the file fi describes.
func fileUID(fi os.FileInfo) int {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return int(st.Uid)
	}
	return -1
}
