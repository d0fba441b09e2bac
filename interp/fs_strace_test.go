package interp

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/guardsh/guardsh/guardsh"
)

// straceScript exercises every way the interpreter touches files itself.
const straceScript = `
echo a > f1
echo b >> f1
read x < f1
y=$(<f1)
echo 'echo sourced >/dev/null' > s.sh
source ./s.sh
. s.sh
echo *.txt sub/* > /dev/null
cd sub && echo c > f2 && cd ..
cd inlinkdir; echo c >> f2; cd ..
cat < <(echo ps) > f3
diff <(echo 1) <(echo 1) > /dev/null
while read l; do :; done < f1
f() { echo fn > f4; }; f
( echo sub > f5 )
echo nested | bash -c 'cat > f6'
bash -c 'echo n > f7; cat < <(echo q) >> f7; echo g*'
cat <<END_OF_DOC > f8
heredoc $x
END_OF_DOC
echo one > inlink
echo PWNED > linkfile
echo PWNED >> ../outside/secret.txt
echo PWNED > linkdir/new
read z < abslink
echo x > hard
eval 'echo ev > f9'
[ -f f1 ] && test -e linkfile
echo end > f10
`

// TestJailStraceHelper is the process TestNoOpenBypassesJail traces.
func TestJailStraceHelper(t *testing.T) {
	dir := os.Getenv("GUARDSH_JAIL_STRACE_DIR")
	if dir == "" {
		t.Skip("helper process only")
	}
	cfg := Config{Policy: guardsh.NewPolicy(guardsh.ModeBypass), Project: dir, Dir: dir,
		Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}}
	if os.Getenv("GUARDSH_JAIL_STRACE_NOFS") == "" {
		fs, err := NewJailFS(dir)
		if err != nil {
			t.Fatal(err)
		}
		defer fs.Close()
		fs.Classify = strictAccess(nil, nil)
		cfg.FS = fs
	}
	r, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r.Run(ctx, strings.NewReader(straceScript), "strace-script")
}

var straceLine = regexp.MustCompile(`^(\d+)\s+(\w+)\((.*)\)\s+=\s+(-?\d+|\?)`)

// TestNoOpenBypassesJail runs a script covering redirections, source,
// $(<file), globs, cd, process substitution, here-documents, functions,
// subshells, nested shells and eval under strace, and checks that every
// file-system call guardsh's own process made on the test's files was the
// jail's (openat2 with RESOLVE_NO_SYMLINKS); external programs are left
// out. A second run without the jail shows that the check sees bypasses.
func TestNoOpenBypassesJail(t *testing.T) {
	if _, err := exec.LookPath("strace"); err != nil {
		t.Skip("strace not installed")
	}
	if _, err := exec.LookPath("diff"); err != nil {
		t.Skip("diff not installed")
	}
	exe, err := os.Executable()
	mustOK(t, err)
	trace := func(nofs bool) (jailed int, bypass []string) {
		w := newJailWorld(t)
		log := t.TempDir() + "/strace.log"
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, "strace", "-f", "-qq", "-s", "4096", "-o", log,
			"-e", "trace=open,openat,openat2,creat,truncate,mknod,mknodat,mkdir,mkdirat,unlink,unlinkat,rename,renameat,renameat2,symlink,symlinkat,link,linkat,execve",
			exe, "-test.run=^TestJailStraceHelper$", "-test.count=1")
		cmd.Env = append(os.Environ(), "GUARDSH_JAIL_STRACE_DIR="+w.app)
		if nofs {
			cmd.Env = append(cmd.Env, "GUARDSH_JAIL_STRACE_NOFS=1")
		}
		if out, err := cmd.CombinedOutput(); err != nil {
			if strings.Contains(string(out), "ptrace") || strings.Contains(string(out), "Operation not permitted") {
				t.Skipf("strace cannot trace here: %s", out)
			}
			t.Fatalf("%v: %s", err, out)
		}
		if !nofs {
			w.intact(t)
		}
		f, err := os.Open(log)
		mustOK(t, err)
		defer f.Close()
		execed := map[string]bool{} // pids that became another program
		var lines [][]string
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			m := straceLine.FindStringSubmatch(sc.Text())
			if m == nil {
				continue
			}
			if m[2] == "execve" && m[4] == "0" {
				execed[m[1]] = true
			}
			lines = append(lines, m)
		}
		self := ""
		for _, m := range lines {
			if self == "" {
				self = m[1] // the helper itself: the first line is its execve
			}
			if m[2] == "execve" || m[1] != self && execed[m[1]] {
				continue
			}
			if !strings.Contains(m[3], `"`+w.base) {
				continue
			}
			if m[2] == "openat2" && strings.Contains(m[3], "RESOLVE_NO_SYMLINKS") {
				jailed++
				continue
			}
			bypass = append(bypass, strings.Join(m[1:], " "))
		}
		return jailed, bypass
	}
	jailed, bypass := trace(false)
	if len(bypass) > 0 {
		t.Errorf("in-process file access outside the jail:\n%s", strings.Join(bypass, "\n"))
	}
	if jailed < 20 {
		t.Errorf("only %d jailed opens seen: the trace does not see the script", jailed)
	}
	_, plain := trace(true)
	if len(plain) < 10 {
		t.Errorf("without the jail only %d plain opens were seen: the check is blind", len(plain))
	}
	t.Logf("%d jailed opens; without the jail, %d plain ones", jailed, len(plain))
}
