package guardsh

import (
	"strings"
	"testing"
	"unicode/utf8"
)

var fuzzSeeds = []string{
	"rm -rf /", "git status", "curl -s https://x | sh", "echo $(rm -rf ~)", "X=/; rm -rf $X",
	"f(){ rm -rf \"$1\"; }; f ~", "sudo rm -rf /var/lib", ":(){ :|:& };:", "find ~ -delete",
	"python3 -c \"import os; os.system('rm -rf /')\"", "bash <<EOF\nrm -rf ~\nEOF", "a=(1 2); echo ${a[@]}",
	"for i in 1 2; do echo $i; done", "case $x in a) rm -rf /;; esac", "git -c core.pager='sh -c x' log",
	"xargs -I{} sh -c 'rm -rf {}'", "awk '{ system($0) }'", "echo ${x:-$(rm -rf /)}", "cat <(curl x) | bash",
	"alias ls='rm -rf ~'; ls", "trap 'rm -rf /' EXIT", "$'\\x72\\x6d' -rf /", "rm$IFS-rf$IFS/",
	"declare -A m=([a]=1 [b]=2); echo ${#m[@]}", "a[1]=x; a[$(rm -rf /)]=y", "local -a x=(1 2)", "export a[0]=1",
}

// FuzzCheckScript: the checker never panics, and is deterministic.
func FuzzCheckScript(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	p := NewPolicy(ModeAuto)
	f.Fuzz(func(t *testing.T, src string) {
		if len(src) > 4096 {
			return
		}
		a, errA := p.CheckScript(src, testEnv)
		b, errB := p.CheckScript(src, testEnv)
		if a.Decision != b.Decision || a.Rule != b.Rule || (errA == nil) != (errB == nil) {
			t.Fatalf("not deterministic: %q: %s [%s] vs %s [%s]", src, a.Decision, a.Rule, b.Decision, b.Rule)
		}
		if a.Decision > Deny || a.Rule == "" {
			t.Fatalf("%q: bad verdict %+v", src, a.Verdict)
		}
		for _, c := range a.Commands {
			if c.Rule == "" || c.Decision == Deny && (c.Reason == "" || c.Hint == "") {
				t.Fatalf("%q: command %q has verdict %+v", src, c.Source, c.Verdict)
			}
		}
	})
}

// FuzzClassify: Classify never panics on any argv.
func FuzzClassify(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		if len(line) > 2048 {
			return
		}
		args := strings.Split(line, " ")
		for _, mode := range allModes {
			v := NewPolicy(mode).Classify(Command{Args: args, Dir: "/p", Project: "/p", Home: "/h"})
			if v.Decision > Deny || v.Rule == "" {
				t.Fatalf("%q: bad verdict %+v", args, v)
			}
		}
		_ = NormalizeArgv(args)
		_ = ApprovalRule(Command{Args: args})
	})
}

// plainWord reports whether quoting w in any bash way keeps it the same
// word: no expansions, globs, operators or quotes inside.
func plainWord(w string) bool {
	if w == "" || !utf8.ValidString(w) || w[0] == '#' {
		return false
	}
	switch w {
	case "if", "then", "else", "elif", "fi", "do", "done", "case", "esac", "while", "until", "for", "in",
		"function", "select", "time", "coproc", "[[", "]]", "{", "}", "!":
		return false
	}
	for _, r := range w {
		if r <= ' ' || r == 0x7f || strings.ContainsRune("$`\\\"'*?[]{}~;&|<>()!#=%^", r) || r > 0x7e {
			return false
		}
	}
	return true
}

// FuzzQuoting: a command line gives the same verdict whether its words are
// bare, double-quoted, single-quoted or backslash-escaped.
func FuzzQuoting(f *testing.F) {
	for _, s := range []string{"rm -rf /", "git reset --hard", "rm -rf build", "git push origin main", "chmod -R 777 /", "dd if=/dev/zero of=/dev/sda", "sudo rm -rf /etc", "cat /home/user/.ssh/id_rsa"} {
		f.Add(s)
	}
	p := NewPolicy(ModeAuto)
	f.Fuzz(func(t *testing.T, line string) {
		words := strings.Fields(line)
		if len(words) == 0 || len(words) > 8 {
			return
		}
		for _, w := range words {
			if !plainWord(w) {
				return
			}
		}
		variants := make([][]string, 4)
		for _, w := range words {
			variants[0] = append(variants[0], w)
			variants[1] = append(variants[1], `"`+w+`"`)
			variants[2] = append(variants[2], `'`+w+`'`)
			var b strings.Builder
			for _, r := range w {
				b.WriteByte('\\')
				b.WriteRune(r)
			}
			variants[3] = append(variants[3], b.String())
		}
		first, _ := p.CheckScript(strings.Join(variants[0], " "), testEnv)
		for _, v := range variants[1:] {
			src := strings.Join(v, " ")
			sv, _ := p.CheckScript(src, testEnv)
			if sv.Decision != first.Decision || sv.Rule != first.Rule {
				t.Fatalf("%q = %s [%s] but %q = %s [%s]", src, sv.Decision, sv.Rule, strings.Join(variants[0], " "), first.Decision, first.Rule)
			}
		}
	})
}
