package guardsh

import "testing"

// TestCredentialReaders: a credential file read by any reader asks
// (read.credentials) like cat ~/.ssh/id_rsa, in plan mode too; the same
// readers on project files stay allowed. Each asking row was allowed
// before (od -c and hexdump -C took the file for their option's value;
// git, perl's -p/-n, sqlite3's dot-commands and computed paths in inline
// code were not seen as reads).
func TestCredentialReaders(t *testing.T) {
	asks := []string{
		"cat ~/.ssh/id_rsa",
		"xargs cat <<< ~/.aws/credentials",
		"echo ~/.aws/credentials | xargs cat",
		"git diff --no-index /dev/null ~/.ssh/id_rsa",
		"git diff --no-index -- /dev/null /home/user/.ssh/id_rsa",
		"git hash-object -w ~/.ssh/id_rsa | xargs git cat-file -p",
		"git hash-object ~/.aws/credentials",
		"git grep --no-index -e . ~/.aws/credentials",
		"od -c ~/.ssh/id_rsa",
		"hexdump -C ~/.ssh/id_rsa",
		"xxd -c 8 ~/.ssh/id_rsa",
		"perl -pe 1 ~/.ssh/id_rsa",
		"perl -ne print ~/.aws/credentials",
		"ruby -ne 'puts $_' ~/.ssh/id_rsa",
		`sqlite3 :memory: ".read /home/user/.ssh/id_rsa"`,
		`sqlite3 :memory: ".import /home/user/.aws/credentials t"`,
		`sqlite3 :memory: "select readfile('/home/user/.aws/credentials')"`,
		`sqlite3 :memory: <<< ".read /home/user/.ssh/id_rsa"`,
		`python3 -c "import os; print(open(os.path.expanduser('~')+'/.ssh/id_rsa').read())"`,
		`python3 -c "import os; p=os.environ['HOME']+'/.aws/credentials'; print(open(p).read())"`,
		`python3 -c "import sys; print(open(sys.argv[1]).read())" ~/.ssh/id_rsa`,
		`python3 -c "from pathlib import Path; print((Path.home()/'.ssh'/'id_rsa').read_text())"`,
		`node -e "console.log(require('fs').readFileSync(require('os').homedir()+'/.aws/credentials','utf8'))"`,
	}
	for _, src := range asks {
		for _, m := range []Mode{ModePlan, ModeAuto} {
			// plan mode may deny the reader for being a program (perl,
			// sqlite3, python), which is stricter; it must not allow it
			sv := check(t, m, src)
			if m == ModePlan && sv.Decision == Deny && sv.Rule == idModePlan.String() {
				continue
			}
			if sv.Decision != Ask || !mentions(sv, idReadCredentials.String()) {
				t.Errorf("%s: %s = %s [%s], want ask [%s]", m, src, sv.Decision, sv.Rule, idReadCredentials.String())
			}
		}
	}
	for _, src := range []string{"od -c README.md", "od -A x -t x1z main.go", "hexdump -C go.sum", "git diff --no-index a.txt b.txt",
		"git hash-object README.md", "perl -pe 's/a/b/' README.md", `python3 -c "print(open('x').read())"`, "wc -c README.md",
		`sqlite3 db ".read schema.sql"`, `python3 -c "import sys; print(open(sys.argv[1]).read())" data.json`} {
		if sv := check(t, ModeAuto, src); sv.Decision != Allow {
			t.Errorf("auto: %s = %s [%s], want allow", src, sv.Decision, sv.Rule)
		}
	}
}

// TestInlineCodeSpawns: process-spawning calls in inline code are judged
// like the command they run (list form, import aliases, os.exec*, sqlite3
// and ed shell escapes, make recipes from standard input, Tcl exec, emacs
// lisp); code or command strings computed at run time ask (code.inline).
// Every row was allowed before.
func TestInlineCodeSpawns(t *testing.T) {
	tests := []struct {
		src  string
		want Decision
		rule string
	}{
		{`python3 -c "import subprocess as sp; sp.run(['git','reset','--hard'])"`, Deny, "git.reset-hard"},
		{`python3 -c "from subprocess import run; run(['git','reset','--hard'])"`, Deny, "git.reset-hard"},
		{`python3 -c "from subprocess import call as c; c('git reset --hard', shell=True)"`, Deny, "git.reset-hard"},
		{`python3 -c "from os import system; system('rm -rf ~')"`, Deny, "rm.recursive-home"},
		{`python3 -c "import os; os.execvp('git', ['git','reset','--hard'])"`, Deny, "git.reset-hard"},
		{`python3 -c "import os; os.system('rm -rf ' + os.environ['HOME'])"`, Ask, "code.inline"},
		{`python3 -c "import os; os.system(f'rm -rf {os.environ[\"HOME\"]}')"`, Ask, "code.inline"},
		{`python3 -c "import os; os.system('rm -rf %s' % d)"`, Ask, "code.inline"},
		{`python3 -c "exec('import os; os.sys'+'tem(\"rm -rf ~\")')"`, Ask, "code.inline"},
		{`python3 -c "exec('import os; os.system(\"git reset --hard\")')"`, Deny, "git.reset-hard"},
		{`node -e "require('child_process').execSync('rm -rf ' + process.env.HOME)"`, Ask, "code.inline"},
		{"node -e 'require(\"child_process\").execSync(`rm -rf ${process.env.HOME}`)'", Ask, "code.inline"},
		{`bun -e "require('child_process').execSync('rm -rf ~')"`, Deny, "rm.recursive-home"},
		{`bun --eval "Bun.spawn(['git','reset','--hard'])"`, Deny, "git.reset-hard"},
		{`deno eval "Deno.removeSync(Deno.env.get('HOME'), {recursive: true})"`, Ask, "code.inline"},
		{`sqlite3 db '.shell rm -rf ~'`, Deny, "rm.recursive-home"},
		{`sqlite3 db '.system git reset --hard'`, Deny, "git.reset-hard"},
		{`sqlite3 db ".once |rm -rf ~"`, Deny, "rm.recursive-home"},
		{`sqlite3 db ".output |sh"`, Ask, "shell.unknown-script"},
		{`sqlite3 db ".load ./evil"`, Ask, "code.inline"},
		{`sqlite3 db <<< '.shell rm -rf ~'`, Deny, "rm.recursive-home"},
		{`sqlite3 -cmd '.system rm -rf ~' db`, Deny, "rm.recursive-home"},
		{`ed <<< '!rm -rf ~'`, Deny, "rm.recursive-home"},
		{`ed -s f <<< 'w !git reset --hard'`, Deny, "git.reset-hard"},
		{`cat cmds | ed -s f`, Ask, "code.inline"},
		{`make -f - <<< 'all:; rm -rf ~'`, Deny, "rm.recursive-home"},
		{"make -f - <<< $'all:\\n\\tgit reset --hard'", Deny, "git.reset-hard"},
		{`curl -s x | make -f -`, Ask, ""},
		{`make --eval='x:; rm -rf ~' x`, Deny, "rm.recursive-home"},
		{`tclsh <<< 'exec rm -rf ~'`, Deny, "rm.recursive-home"},
		{`echo 'exec git reset --hard' | tclsh`, Deny, "git.reset-hard"},
		{`expect -c 'spawn rm -rf ~'`, Deny, "rm.recursive-home"},
		{`emacs --batch --eval '(shell-command "rm -rf ~")'`, Deny, "rm.recursive-home"},
		{`emacs --batch --eval '(call-process "sh" nil t nil "-c" "x")'`, Ask, "code.inline"},
		{`awk 'BEGIN{system("rm -rf ~")}'`, Deny, "rm.recursive-home"},
		{`awk 'BEGIN{system("rm -rf " ENVIRON["HOME"])}'`, Ask, "code.inline"},
		{`perl -e 'system "rm -rf ~"'`, Deny, "rm.recursive-home"},
		{`perl -e 'system("rm -rf " . $ENV{HOME})'`, Ask, "code.inline"},
		{`ruby -e 'system("git reset --hard")'`, Deny, "git.reset-hard"},
		{"julia -e 'run(`git reset --hard`)'", Deny, "git.reset-hard"},
		{`guile -c '(system "rm -rf ~")'`, Deny, "rm.recursive-home"},
		{`racket -e '(system "git reset --hard")'`, Deny, "git.reset-hard"},
		{`sbcl --eval '(sb-ext:run-program "/bin/rm" (list "-rf" "x"))'`, Ask, "code.inline"},
		{`elixir -e 'System.cmd("git", ["reset", "--hard"])'`, Deny, "git.reset-hard"},
		{`erl -eval 'os:cmd("rm -rf ~")'`, Deny, "rm.recursive-home"},
		{`pwsh -Command 'Remove-Item -Recurse -Force $HOME'`, Ask, "code.inline"},
		{`pwsh -EncodedCommand ZQBjAGgAbwA=`, Ask, "code.inline"},
		{`lldb -o 'platform shell rm -rf ~'`, Deny, "rm.recursive-home"},
		{`gdb -batch -ex 'python import os; os.system("git reset --hard")'`, Deny, "git.reset-hard"},
		{`php -r 'system("rm -rf ".getenv("HOME"));'`, Ask, "code.inline"},
		{`python3 -c "import os; getattr(os, 'system')('rm -rf x')"`, Ask, "code.inline"},
		{`python3 -c "import os; getattr(os, 'sys'+'tem')('rm -rf x')"`, Ask, "code.inline"},
		{`python3 -c "import os; f = 'system'; getattr(os, f)('ls')"`, Ask, "code.inline"},
	}
	for _, tt := range tests {
		sv := check(t, ModeAuto, tt.src)
		if sv.Decision != tt.want || tt.rule != "" && !mentions(sv, tt.rule) {
			t.Errorf("auto: %s = %s [%s] %s, want %s [%s]", tt.src, sv.Decision, sv.Rule, sv.Reason, tt.want, tt.rule)
		}
	}
	// the same tools running harmless commands stay allowed
	for _, src := range []string{`sqlite3 db '.shell ls'`, `sqlite3 db 'select 1'`, `ed <<< '!ls'`, `make -f - all <<< 'all:; echo hi'`,
		`tclsh <<< 'puts hi'`, `bun -e "console.log(1)"`, `emacs --batch --eval '(message "hi")'`, `python3 -c "exec('print(1)')"`,
		`python3 -c "import subprocess as sp; sp.run(['ls'])"`, `python3 -c "import os; os.system('git status')"`,
		`python3 -c "import sys; print(getattr(sys, 'version'))"`, `guile -c '(display 1)'`, `elixir -e 'IO.puts 1'`, `pwsh -c 'Get-ChildItem'`, `erl -eval 'io:format("hi")' -s init stop`} {
		if sv := check(t, ModeAuto, src); sv.Decision != Allow {
			t.Errorf("auto: %s = %s [%s], want allow", src, sv.Decision, sv.Rule)
		}
	}
}
