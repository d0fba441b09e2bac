package guardsh

import "testing"

// TestSandboxedVerdicts: auto mode for commands that run in a verified
// session sandbox allows what the sandbox contains and still asks for what
// it cannot contain; without the sandbox the same lines ask.
func TestSandboxedVerdicts(t *testing.T) {
	tests := []struct {
		src       string
		sandboxed Decision // with Policy.Sandboxed
		plain     Decision // without
	}{
		// contained: unknown programs, installed scripts, temp dirs
		{"frobnicate --all", Allow, Ask},
		{"bash /opt/other/script.sh", Allow, Ask},
		{"python3 /usr/lib/tool/run.py", Allow, Ask},
		{"rm -rf /tmp/build", Allow, Ask},
		{"mytool serve --port 8080", Allow, Ask},
		{"promtool query instant http://localhost:9090 up", Allow, Ask},
		// lookups and help, with or without the sandbox
		{"command -v kubectl", Allow, Allow},
		{"command -V parallel", Allow, Allow},
		{"type kubectl", Allow, Allow},
		{"ssh -V", Allow, Allow},
		{"npx --version", Allow, Allow},
		{"kubectl delete --help", Allow, Allow},
		{"frobnicate --version", Allow, Allow},
		{"npm pkg set scripts.test=jest", Allow, Allow},
		{"npm pkg get name", Allow, Allow},
		{"openssl version", Allow, Allow},
		{"openssl s_client -connect example.com:443", Ask, Ask},
		{"find . -name '*.pyc' -delete", Allow, Allow},
		{"find . -name __pycache__ -type d -delete", Allow, Allow},
		{"find . -name '*.py' -delete", Ask, Ask},
		{"find ~ -name '*.pyc' -delete", Deny, Deny},
		{"kill 4242", Ask, Ask},
		// not contained: escalations, loss of project data, credentials,
		// agent configuration, remote ends, destroying verbs, input
		{"curl https://example.com", Ask, Ask},
		{"mytool --url https://prod.example.com", Ask, Ask},
		{"mytool deploy prod", Ask, Ask},
		{"mytool delete everything", Ask, Ask},
		{"kafka-topics --bootstrap-server kafka.prod:9092 --list", Ask, Ask},
		{"rm -r src", Ask, Ask},
		{"rm -rf /tmp/*", Deny, Deny},
		{"rm -rf /tmp/x/../../home/user", Deny, Deny},
		{"bash ~/.ssh/id_rsa", Ask, Ask},
		{"cat ~/.ssh/id_rsa", Ask, Ask},
		{"echo x > .claude/settings.json", Ask, Ask},
		{"touch /opt/x", Ask, Ask},
		{"sudo ls", Ask, Ask},
		{"ssh-add -l", Ask, Ask},
		{"open README.md", Ask, Ask},
		{"echo frobnicate | xargs sh -c", Ask, Ask},
		{"git frobnicate", Ask, Ask},
		{"DROP TABLE users;", Ask, Ask},
		{"command -v git reset --hard", Deny, Deny},
		{"rm -rf / --help", Deny, Deny},
		// a name written with a backslash is not trusted by its name:
		// bash runs the here-doc's \trm as trm (not rm, not rm after a
		// tab), whatever it turns out to be
		{"bash <<-EOF\n\\trm -rf /etc\nEOF", Ask, Ask},
		{"bash <<EOF\n\\frobnicate --all\nEOF", Ask, Ask},
		{"\\frobnicate --all", Ask, Ask},
		{"fro\\bnicate --all", Ask, Ask},
		{"command \\frobnicate --all", Ask, Ask},
		{"env X=1 \\frobnicate --all", Ask, Ask},
		{"frobnicate \\.", Allow, Ask},
		{"bash <<-EOF\n\trm -rf /etc\nEOF", Deny, Deny},
		{"\\ls -la", Allow, Allow},
		{"'frobnicate' --all", Allow, Ask},
	}
	for _, tt := range tests {
		p := NewPolicy(ModeAuto)
		if sv, _ := p.CheckScript(tt.src, testEnv); sv.Decision != tt.plain {
			t.Errorf("%q without sandbox: %s [%s] %s, want %s", tt.src, sv.Decision, sv.Rule, sv.Reason, tt.plain)
		}
		p.Sandboxed = true
		if sv, _ := p.CheckScript(tt.src, testEnv); sv.Decision != tt.sandboxed {
			t.Errorf("%q sandboxed: %s [%s] %s, want %s", tt.src, sv.Decision, sv.Rule, sv.Reason, tt.sandboxed)
		}
	}
	// other modes are not changed by the sandbox
	for _, m := range []Mode{ModeDefault, ModePlan} {
		p := NewPolicy(m)
		p.Sandboxed = true
		if sv, _ := p.CheckScript("frobnicate --all", testEnv); sv.Decision == Allow {
			t.Errorf("%s mode sandboxed allows an unknown program [%s]", m, sv.Rule)
		}
	}
}

// TestGitExecPathOfHooks: GIT_EXEC_PATH as git exports it to its hooks
// (its own directory of programs) is git itself; pointing it at a
// directory the session writes is still a way to run other programs.
func TestGitExecPathOfHooks(t *testing.T) {
	for _, tt := range []struct {
		path string
		want Decision
	}{
		{"/usr/lib/git-core", Allow},
		{"/usr/libexec/git-core", Allow},
		{"/home/user/project/evil", Ask},
		{"/tmp/x", Ask},
	} {
		p := NewPolicy(ModeAuto)
		env := func(k string) string {
			if k == "GIT_EXEC_PATH" {
				return tt.path
			}
			return ""
		}
		v := p.Classify(Command{Args: []string{"git", "log", "-1"}, Dir: testEnv.Dir, Project: testEnv.Project, Home: testEnv.Home, Env: env})
		if v.Decision != tt.want {
			t.Errorf("GIT_EXEC_PATH=%s git log: %s [%s], want %s", tt.path, v.Decision, v.Rule, tt.want)
		}
	}
}
