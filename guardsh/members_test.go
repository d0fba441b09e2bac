package guardsh

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"testing"
)

// TestArchiveAndPatchWrites: tar x, unzip, patch and git apply are judged
// by the names the archive or patch holds: one that plants a protected
// file (directly, or through a symlink member the archive makes first) is
// denied; an ordinary one is an edit.
func TestArchiveAndPatchWrites(t *testing.T) {
	proj := t.TempDir()
	os.Mkdir(filepath.Join(proj, ".git"), 0o755)
	mkTar := func(name string, gz bool, members ...[2]string) {
		var b bytes.Buffer
		tw := tar.NewWriter(&b)
		for _, m := range members {
			if m[1] != "" && m[1][0] == '>' {
				tw.WriteHeader(&tar.Header{Name: m[0], Typeflag: tar.TypeSymlink, Linkname: m[1][1:]})
				continue
			}
			tw.WriteHeader(&tar.Header{Name: m[0], Mode: 0o644, Size: int64(len(m[1]))})
			tw.Write([]byte(m[1]))
		}
		tw.Close()
		data := b.Bytes()
		if gz {
			var z bytes.Buffer
			w := gzip.NewWriter(&z)
			w.Write(data)
			w.Close()
			data = z.Bytes()
		}
		os.WriteFile(filepath.Join(proj, name), data, 0o644)
	}
	mkTar("ok.tar", false, [2]string{"src/a.go", "package a"})
	mkTar("cfg.tar.gz", true, [2]string{".guardsh.toml", "[trust]"})
	mkTar("link.tar", false, [2]string{"g", ">.git"}, [2]string{"g/commondir", "../evil"})
	var zb bytes.Buffer
	zw := zip.NewWriter(&zb)
	f, _ := zw.Create(".git/hooks/pre-commit")
	f.Write([]byte("#!/bin/sh\n"))
	zw.Close()
	os.WriteFile(filepath.Join(proj, "hook.zip"), zb.Bytes(), 0o644)
	os.WriteFile(filepath.Join(proj, "cfg.diff"), []byte("diff --git a/.gitmodules b/.gitmodules\n--- a/.gitmodules\n+++ b/.gitmodules\n@@ -0,0 +1 @@\n+x\n"), 0o644)
	os.WriteFile(filepath.Join(proj, "ok.diff"), []byte("--- a/src/a.go\n+++ b/src/a.go\n@@ -1 +1 @@\n-x\n+y\n"), 0o644)
	tests := []struct {
		args []string
		want Decision
	}{
		{[]string{"tar", "xf", "ok.tar"}, Allow},
		{[]string{"tar", "-xzf", "cfg.tar.gz"}, Deny},
		{[]string{"tar", "-x", "-f", "link.tar"}, Deny},
		{[]string{"unzip", "-o", "hook.zip"}, Deny},
		{[]string{"patch", "-p1", "-i", "cfg.diff"}, Deny},
		{[]string{"patch", "-p1", "-i", "ok.diff"}, Allow},
		{[]string{"git", "apply", "cfg.diff"}, Deny},
		{[]string{"git", "apply", "ok.diff"}, Allow},
	}
	p := NewPolicy(ModeAuto)
	for _, tt := range tests {
		v := p.Classify(Command{Args: tt.args, Dir: proj, Project: proj, Home: "/nonexistent", Via: "shell"})
		if v.Decision != tt.want {
			t.Errorf("%v: %s [%s] %s, want %s", tt.args, v.Decision, v.Rule, v.Reason, tt.want)
		}
	}
}
