package audit

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/guardsh/guardsh/guardsh"
)

// TestAuditSessionsDoNotInterleave: sessions appending to one log at once
// (several agents, nested shells) never split each other's lines, even
// with records of several KiB buffered: every write holds whole records.
func TestAuditSessionsDoNotInterleave(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	const sessions, records = 3, 150
	big := strings.Repeat("x", 9000)
	var wg sync.WaitGroup
	for s := 0; s < sessions; s++ {
		a, err := Open(path, guardsh.AuditLimits{})
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < records; i++ {
				a.Decide(&Record{Cwd: "/p", Argv: []string{"echo", big}, Mode: guardsh.ModeAuto, Decision: "allow", Rule: "shell.builtin"})
				if i%7 == 0 {
					a.Exit(uint64(i+1), 0, time.Millisecond)
				}
			}
			a.Close()
		}()
	}
	wg.Wait()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		var r map[string]any
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("line %d is not one record: %v (%.80s...)", n, err, sc.Text())
		}
	}
	if want := sessions * (records + (records+6)/7); n != want {
		t.Errorf("%d lines, want %d", n, want)
	}
}

// TestAuditLogNotRegular: a FIFO (or a directory) where the log goes is
// refused at once; it used to block the open, and with it every session's
// start, until something read the FIFO.
func TestAuditLogNotRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	done := make(chan error, 1)
	go func() {
		f, err := OpenFile(fifo, guardsh.AuditLimits{})
		if f != nil {
			f.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("FIFO: err = %v, want a refusal naming it", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("opening a FIFO as the audit log blocked")
	}
	if _, err := OpenFile(dir, guardsh.AuditLimits{}); err == nil {
		t.Errorf("a directory was accepted as the audit log")
	}
	f, err := OpenFile(filepath.Join(dir, "ok.jsonl"), guardsh.AuditLimits{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString("{}\n"); err != nil {
		t.Errorf("writing the regular log: %v", err)
	}
}
