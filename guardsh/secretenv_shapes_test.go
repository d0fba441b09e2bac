package guardsh

import "testing"

// TestScrubCommonSecrets is a table of variables seen in real environments:
// credentials under names the list misses, values of well-known
// token shapes under innocent names, and the false-positive guards that a
// session needs (or that are paths, not secrets). Values are made up.
func TestScrubCommonSecrets(t *testing.T) {
	const gh = "ghp_0123456789abcdefghijABCDEFGHIJ012345"
	const jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.c2lnbmF0dXJl"
	tests := []struct {
		name, value string
		removed     bool
	}{
		// Names: each is a credential or unlocks one.
		{"GITHUB_PAT", "x1", true},
		{"TOKEN", "x2", true},
		{"APIKEY", "x3", true},
		{"API_KEY", "x3", true},
		{"JWT", "x4", true},
		{"CI_JOB_JWT", "x5", true},
		{"CI_JOB_JWT_V2", "x5", true},
		{"STRIPE_SK", "x6", true},
		{"BW_SESSION", "x7", true},
		{"OP_SESSION_my", "x8", true},
		{"NPM_CONFIG__AUTHTOKEN", "x9", true},
		{"npm_config_//registry.npmjs.org/:_authToken", "x10", true},
		{"npm_config_//registry.npmjs.org/:_auth", "x10", true},
		{"SENTRY_DSN", "x11", true},
		{"AUTH_HEADER", "x12", true},
		{"DOCKER_AUTH_CONFIG", `{"auths":{}}`, true},
		{"COOKIE", "x13", true},
		{"SESSION_COOKIE", "x14", true},
		{"BEARER", "x15", true},
		{"AUTH", "x16", true},
		{"CREDS", "x17", true},
		{"DB_CREDS", "x17", true},
		{"AZURE_CLIENT_CREDENTIAL", "x17", true},
		{"PGPASS", "x18", true},
		{"PASS", "x18", true},
		{"PASSWD", "x18", true},
		{"HTTP_AUTHORIZATION", "x19", true},
		// Values of well-known shapes, whatever the name.
		{"MY_VAR", gh, true},
		{"X", "gho_0123456789abcdefghijABCDEFGHIJ012345", true},
		{"X", "ghs_0123456789abcdefghijABCDEFGHIJ012345", true},
		{"X", "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQR", true},
		{"X", "glpat-0123456789abcdefABCD", true},
		{"X", "xoxb-1234567890-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx", true},
		{"X", "xoxp-1234-5678-abcdef", true},
		{"X", "sk-proj-0123456789abcdefABCDEF0123456789", true},
		{"X", "sk-ant-api03-0123456789abcdefABCDEF", true},
		{"STRIPE", "sk_live_0123456789abcdefABCDEF", true},
		{"X", "rk_live_0123456789abcdefABCDEF", true},
		{"X", "sk_test_0123456789abcdefABCDEF", true},
		{"X", "AKIAIOSFODNN7EXAMPLE", true},
		{"X", "ASIAIOSFODNN7EXAMPLE", true},
		{"X", "id=AKIAIOSFODNN7EXAMPLE,region=eu", true},
		{"X", "Bearer abc123def456ghi", true},
		{"X", "basic dXNlcjpwYXNzd29yZA==", true},
		{"GIT_CONFIG_PARAMETERS", "'http.extraheader=AUTHORIZATION: basic eC1hY2Nlc3MtdG9rZW46Z2hzXzEyMw=='", true},
		{"GIT_CONFIG_VALUE_0", "Authorization: Bearer abc123def456ghi", true},
		{"CURL_HDR", "Authorization: token " + gh, true},
		{"X", jwt, true},
		{"SENTRY", "https://0123456789abcdef0123456789abcdef@o1.ingest.sentry.io/1", true},
		{"REMOTE", "https://" + gh + "@github.com/a/b.git", true},
		{"REMOTE2", "https://x-access-token:abc@github.com/a/b.git", true},
		{"DATABASE_URL", "postgres://app:hunter2@db:5432/app", true},
		{"X", "npm_0123456789abcdefghijABCDEFGHIJ012345", true},
		{"X", "hf_abcdefghijklmnopqrstuvwxyzABCDEFGH", true},
		{"X", "AIzaSyA0123456789abcdefghijklmnopqrstuv", true},
		{"X", "pypi-AgEIcHlwaS5vcmcCJDAxMjM0NTY3LTg5YWItY2RlZi0wMTIzLTQ1Njc4OWFiY2RlZg", true},
		{"X", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk=\n-----END OPENSSH PRIVATE KEY-----", true},

		// False-positive guards: what a session needs, and look-alikes.
		{"PATH", "/usr/bin:/bin", false},
		{"HOME", "/home/u", false},
		{"TERM", "xterm-256color", false},
		{"PWD", "/p", false},
		{"OLDPWD", "/q", false},
		{"DBUS_SESSION_BUS_ADDRESS", "unix:path=/run/user/1000/bus", false},
		{"XDG_SESSION_ID", "3", false},
		{"XDG_SESSION_TYPE", "wayland", false},
		{"XDG_SESSION_DESKTOP", "gnome", false},
		{"XDG_SESSION_CLASS", "user", false},
		{"DESKTOP_SESSION", "gnome", false},
		{"SESSION_MANAGER", "local/host:@/tmp/.ICE-unix/1,unix/host:/tmp/.ICE-unix/1", false},
		{"TERM_SESSION_ID", "w0t0p0:1234", false},
		{"SSH_AUTH_SOCK", "/tmp/ssh-x/agent.1", false},
		{"KUBECONFIG", "/home/u/.kube/config", false},
		{"NETRC", "/home/u/.netrc", false},
		{"PGPASSFILE", "/home/u/.pgpass", false},
		{"GIT_ASKPASS", "/usr/lib/git-core/git-gui--askpass", false},
		{"XAUTHORITY", "/run/user/1000/.Xauthority", false},
		{"TOKENIZERS_PARALLELISM", "false", false},
		{"KEYTIMEOUT", "1", false},
		{"JWT_ALGORITHM", "HS256", false},
		{"LS_COLORS", "rs=0:di=01;34:ln=01;36:*.tar=01;31:*.disk-image=01;31", false},
		{"HTTP_PROXY", "http://proxy:3128", false},
		{"REPO", "https://github.com/a/b", false},
		{"GIT_REMOTE", "ssh://git@github.com/a/b.git", false},
		{"GOPROXY", "https://proxy.golang.org,direct", false},
		{"GIT_CONFIG_PARAMETERS", "'core.autocrlf'='false'", false},
		{"TASK", "task-runner-0123456789abcdefghijk", false},
		{"DESC", "Basic authentication is off", false},
		{"NOTE", "the Bearer of good news", false},
		{"ID", "XAKIAIOSFODNN7EXAMPLEX", false},
		{"COMMIT", "0123456789abcdef0123456789abcdef01234567", false},
		{"GOFLAGS", "-mod=mod", false},
		{"EDITOR", "vi", false},
		{"COMPASS", "north", false},
		{"ASKPASS_HELPER", "/bin/true", false},
		{"SKIP", "1", false},
		{"DISK", "/dev/sda", false},
		{"AUTHOR", "alice", false},
		{"OAUTH_CALLBACK_URL", "http://localhost:8080/cb", false},
	}
	e := &EnvConfig{}
	for _, tt := range tests {
		why := e.Why(tt.name, tt.value)
		if got := why != ""; got != tt.removed {
			t.Errorf("%s=%.30q: removed %v (%q), want %v", tt.name, tt.value, got, why, tt.removed)
		}
	}
}
