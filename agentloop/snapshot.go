package agentloop

import (
	"bufio"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// Entry is one line of a run's manifest (manifest.jsonl). The manifest is
// append-only and every line is fsynced before the change it announces, so
// a run killed at any point can still be undone.
type Entry struct {
	Kind string    `json:"kind"` // start, branch, before, after, mkdir, undone
	Time time.Time `json:"time"`
	// start
	RunID       string `json:"run_id,omitempty"`
	Workdir     string `json:"workdir,omitempty"`
	Git         bool   `json:"git,omitempty"`
	GitTop      string `json:"git_top,omitempty"`
	StartBranch string `json:"start_branch,omitempty"`
	StartCommit string `json:"start_commit,omitempty"`
	AllowDirty  bool   `json:"allow_dirty,omitempty"`
	// branch
	Branch string `json:"branch,omitempty"`
	// before / after / mkdir: Path is relative to Workdir, slash-separated.
	Op   string `json:"op,omitempty"`   // before: modify, create, delete
	Path string `json:"path,omitempty"` //
	Snap string `json:"snap,omitempty"` // before: snapshot file of the old content, relative to the run dir
	Mode uint32 `json:"mode,omitempty"` // before: permission bits of the old file
	SHA  string `json:"sha,omitempty"`  // after: sha256 of the new content ("" = file gone)
}

// Store is one run's directory under $XDG_STATE_HOME/guardsh/runs/<run-id>/:
// manifest.jsonl, snapshots in files/, and transcript.jsonl.
type Store struct {
	ID  string
	Dir string

	mu       sync.Mutex
	manifest *os.File
	snaps    int
}

// StateDir is where runs are kept: $XDG_STATE_HOME/guardsh/runs, by default
// ~/.local/state/guardsh/runs.
func StateDir() (string, error) {
	base := os.Getenv("XDG_STATE_HOME")
	if base == "" || !filepath.IsAbs(base) {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("no state directory: set XDG_STATE_HOME or HOME: %v", err)
		}
		base = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(base, "guardsh", "runs"), nil
}

// NewRunID returns a fresh, time-sortable run ID.
func NewRunID() string {
	var b [3]byte
	rand.Read(b[:])
	return time.Now().UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b[:])
}

// CreateStore makes the run directory and writes the manifest's start line.
func CreateStore(id string, start Entry) (*Store, error) {
	root, err := StateDir()
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(root, id)
	if err := os.MkdirAll(filepath.Join(dir, "files"), 0o700); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(filepath.Join(dir, "manifest.jsonl"), os.O_WRONLY|os.O_CREATE|os.O_APPEND|os.O_EXCL, 0o600)
	if err != nil {
		return nil, err
	}
	s := &Store{ID: id, Dir: dir, manifest: f}
	start.Kind = "start"
	start.RunID = id
	if err := s.Append(start); err != nil {
		f.Close()
		return nil, err
	}
	syncDir(root)
	syncDir(dir)
	return s, nil
}

// Append writes one manifest line and fsyncs it.
func (s *Store) Append(e Entry) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e.Time.IsZero() {
		e.Time = time.Now().UTC()
	}
	b, err := json.Marshal(e)
	if err != nil {
		return err
	}
	if _, err := s.manifest.Write(append(b, '\n')); err != nil {
		return err
	}
	return s.manifest.Sync()
}

// Before records a change about to happen to rel (modify, create or
// delete), saving old (the current content, nil for create) first. Only when
// it returns nil may the change be made.
func (s *Store) Before(op, rel string, old []byte, mode fs.FileMode) error {
	e := Entry{Kind: "before", Op: op, Path: rel, Mode: uint32(mode.Perm())}
	if op != "create" {
		s.mu.Lock()
		s.snaps++
		name := fmt.Sprintf("files/%04d", s.snaps)
		s.mu.Unlock()
		if err := writeSynced(filepath.Join(s.Dir, name), old); err != nil {
			return fmt.Errorf("snapshot of %s failed, change not made: %v", rel, err)
		}
		syncDir(filepath.Join(s.Dir, "files"))
		e.Snap = name
	}
	return s.Append(e)
}

// SaveBase keeps a copy of a file's content before the first shell
// command (files/base-NNNNNN) and returns its name relative to the run dir,
// for a later "before" entry. The copies are made durable together by
// SyncBase, not one fsync each.
func (s *Store) SaveBase(data []byte) (string, error) {
	s.mu.Lock()
	s.snaps++
	name := fmt.Sprintf("files/base-%06d", s.snaps)
	s.mu.Unlock()
	if err := os.WriteFile(filepath.Join(s.Dir, name), data, 0o600); err != nil {
		return "", err
	}
	return name, nil
}

// SyncBase makes the baseline copies durable: one syncfs of the run
// directory's file system.
func (s *Store) SyncBase() error {
	d, err := os.Open(filepath.Join(s.Dir, "files"))
	if err != nil {
		return err
	}
	defer d.Close()
	return unix.Syncfs(int(d.Fd()))
}

// After records the content rel has after a change (nil: removed).
func (s *Store) After(rel string, content []byte, removed bool) error {
	e := Entry{Kind: "after", Path: rel}
	if !removed {
		e.SHA = sha(content)
	}
	return s.Append(e)
}

// Close closes the manifest.
func (s *Store) Close() error {
	if s == nil || s.manifest == nil {
		return nil
	}
	return s.manifest.Close()
}

func writeSynced(name string, data []byte) error {
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func sha(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// ReadManifest reads a run's manifest. A torn last line (the run was killed
// while writing it) is ignored: the change it announced was not made yet.
func ReadManifest(dir string) ([]Entry, error) {
	f, err := os.Open(filepath.Join(dir, "manifest.jsonl"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Entry
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		var e Entry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			continue
		}
		out = append(out, e)
	}
	if len(out) == 0 || out[0].Kind != "start" {
		return nil, fmt.Errorf("%s: not a guardsh run manifest", dir)
	}
	return out, sc.Err()
}

// LastRun finds the newest run for workdir that has not been undone.
func LastRun(workdir string) (dir string, entries []Entry, err error) {
	root, err := StateDir()
	if err != nil {
		return "", nil, err
	}
	ents, err := os.ReadDir(root)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", nil, err
	}
	var names []string
	for _, e := range ents {
		if e.IsDir() {
			names = append(names, e.Name())
		}
	}
	sort.Sort(sort.Reverse(sort.StringSlice(names)))
	for _, n := range names {
		d := filepath.Join(root, n)
		es, err := ReadManifest(d)
		if err != nil || es[0].Workdir != workdir {
			continue
		}
		if es[len(es)-1].Kind == "undone" {
			return "", nil, fmt.Errorf("the last run here that changed files (%s) was already undone", n)
		}
		if !changedAnything(es) {
			continue // a question, or a run stopped before its first change
		}
		return d, es, nil
	}
	return "", nil, fmt.Errorf("no guardsh-agent run recorded for %s (looked in %s)", workdir, root)
}

func changedAnything(es []Entry) bool {
	for _, e := range es {
		if e.Kind == "before" || e.Kind == "branch" {
			return true
		}
	}
	return false
}

// UndoReport says what undo did.
type UndoReport struct {
	RunID    string
	Restored []string // modified or deleted files put back
	Removed  []string // created files removed
	Kept     []string // files changed after the run, saved before being restored
	BackupIn string   // where Kept files were saved
	Git      string   // what happened in git
}

// Undo takes back the file changes of the last run in workdir: restores
// modified and deleted files from their snapshots, removes created files and
// the directories made for them, and returns the repository to the branch
// the run started on. A file changed after the run is saved under the run
// directory before it is restored, so no data is lost.
func Undo(workdir string) (*UndoReport, error) {
	dir, es, err := LastRun(workdir)
	if err != nil {
		return nil, err
	}
	start := es[0]
	rep := &UndoReport{RunID: start.RunID, BackupIn: filepath.Join(dir, "undo-backup")}
	files, err := OpenFiles(start.Workdir)
	if err != nil {
		return nil, err
	}
	// First "before" per path is the original state; last "after" is what
	// the run left.
	type state struct {
		first   *Entry
		lastSHA *string
	}
	st := map[string]*state{}
	var order []string
	var dirs []string
	var branch string
	for i := range es {
		e := &es[i]
		switch e.Kind {
		case "before":
			if st[e.Path] == nil {
				st[e.Path] = &state{first: e}
				order = append(order, e.Path)
			}
		case "after":
			if s := st[e.Path]; s != nil {
				h := e.SHA
				s.lastSHA = &h
			}
		case "mkdir":
			dirs = append(dirs, e.Path)
		case "branch":
			branch = e.Branch
		}
	}
	if start.Git && branch != "" {
		cur, _ := gitOut(start.GitTop, "symbolic-ref", "--short", "-q", "HEAD")
		if cur != branch && cur != start.StartBranch {
			return nil, fmt.Errorf("the repository is on %q, neither the run's branch %s nor the start branch %s: check out one of them first", cur, branch, start.StartBranch)
		}
	}
	for i := len(order) - 1; i >= 0; i-- {
		p := order[i]
		s := st[p]
		cur, rerr := files.ReadFile(p)
		exists := rerr == nil
		var orig []byte
		if s.first.Op != "create" {
			orig, err = os.ReadFile(filepath.Join(dir, s.first.Snap))
			if err != nil {
				return rep, fmt.Errorf("snapshot of %s missing: %v", p, err)
			}
		}
		// Save a file someone changed after the run (or a crash left half
		// way) unless it already is the original.
		if exists && (s.first.Op == "create" || sha(cur) != sha(orig)) {
			left := s.lastSHA != nil && *s.lastSHA == sha(cur)
			if !left {
				b := filepath.Join(rep.BackupIn, filepath.FromSlash(p))
				os.MkdirAll(filepath.Dir(b), 0o700)
				if err := os.WriteFile(b, cur, 0o600); err != nil {
					return rep, fmt.Errorf("cannot save the current %s before undoing: %v", p, err)
				}
				rep.Kept = append(rep.Kept, p)
			}
		}
		if s.first.Op == "create" {
			if exists {
				if err := files.Remove(p, false); err != nil {
					return rep, err
				}
				rep.Removed = append(rep.Removed, p)
			}
			continue
		}
		if exists && sha(cur) == sha(orig) {
			continue
		}
		if _, err := files.WriteFile(p, orig, fs.FileMode(s.first.Mode)); err != nil {
			return rep, err
		}
		rep.Restored = append(rep.Restored, p)
	}
	// An atomic write killed half way leaves its temporary file.
	seenDir := map[string]bool{}
	for _, p := range order {
		d := path.Dir(p)
		if seenDir[d] {
			continue
		}
		seenDir[d] = true
		ents, err := files.ReadDir(d)
		if err != nil {
			continue
		}
		for _, e := range ents {
			if n := e.Name(); strings.HasPrefix(n, ".") && strings.Contains(n, ".guardsh-tmp-") && e.Type().IsRegular() {
				files.Remove(path.Join(d, n), false)
			}
		}
	}
	for i := len(dirs) - 1; i >= 0; i-- {
		files.Remove(dirs[i], true) // only if empty
	}
	if start.Git && branch != "" {
		rep.Git = undoGit(start, branch)
	}
	sort.Strings(rep.Restored)
	sort.Strings(rep.Removed)
	s := &Store{Dir: dir}
	f, err := os.OpenFile(filepath.Join(dir, "manifest.jsonl"), os.O_WRONLY|os.O_APPEND, 0)
	if err == nil {
		s.manifest = f
		s.Append(Entry{Kind: "undone"})
		f.Close()
	}
	return rep, nil
}

// undoGit returns the repository to the start branch after the files are
// restored.
func undoGit(start Entry, branch string) string {
	top := start.GitTop
	if start.StartBranch == "" {
		if start.StartCommit == "" {
			return "the repository had no commit at the start; left on " + branch
		}
		// Started on a detached HEAD: detach at the start commit again.
		var err error
		if !start.AllowDirty {
			_, err = gitOut(top, "checkout", "-q", "-f", "--detach", start.StartCommit)
		} else if _, err = gitOut(top, "update-ref", "--no-deref", "HEAD", start.StartCommit); err == nil {
			_, err = gitOut(top, "reset", "-q")
		}
		if err != nil {
			return fmt.Sprintf("could not return to %s: %v", start.StartCommit, err)
		}
		return fmt.Sprintf("back at %s (detached, as at the start); the run's commits stay on %s", start.StartCommit[:min(12, len(start.StartCommit))], branch)
	}
	cur, _ := gitOut(top, "symbolic-ref", "--short", "-q", "HEAD")
	if cur == start.StartBranch {
		return "already on " + start.StartBranch
	}
	if !start.AllowDirty {
		// The tree was clean at the start, so every difference from the start
		// branch is the run's own work, kept on its branch.
		if _, err := gitOut(top, "checkout", "-q", "-f", start.StartBranch); err != nil {
			return fmt.Sprintf("could not check out %s: %v", start.StartBranch, err)
		}
	} else {
		// Keep whatever was uncommitted at the start: move HEAD and the index
		// only; the working tree already holds the restored files.
		if _, err := gitOut(top, "symbolic-ref", "HEAD", "refs/heads/"+start.StartBranch); err != nil {
			return fmt.Sprintf("could not switch to %s: %v", start.StartBranch, err)
		}
		if _, err := gitOut(top, "reset", "-q"); err != nil {
			return fmt.Sprintf("switched to %s but could not reset the index: %v", start.StartBranch, err)
		}
	}
	return fmt.Sprintf("back on %s; the run's commits stay on %s (delete with: git branch -D %s)", start.StartBranch, branch, branch)
}
