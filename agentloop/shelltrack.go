package agentloop

import (
	"fmt"
	"io/fs"
	"path"
	"sort"
	"syscall"
)

// Outside git, what a shell command changed in the project is found by a
// scan before and after it: every regular file's size, modification and
// change times and inode. Before the first command the run keeps a copy of
// every file (the baseline), so that a file a command changed or deleted
// can be put back by undo and a file it created removed: the changes are
// written to the manifest as the file tools' are, after the command.
const (
	// MaxTrackedFiles caps the files (and directories) the scan follows;
	// in a larger project shell changes are not tracked.
	MaxTrackedFiles = 10000
	// MaxTrackedBytes caps the baseline's total size.
	MaxTrackedBytes = 256 << 20
)

// fileStamp is what the scan compares.
type fileStamp struct {
	dir          bool
	size         int64
	mtime, ctime syscall.Timespec
	ino          uint64
	mode         fs.FileMode
}

// baseFile is a file's content before the first shell command.
type baseFile struct {
	snap string // snapshot file in the run dir ("" if too large to keep)
	mode fs.FileMode
}

// shellTracker follows the shell's changes outside git.
type shellTracker struct {
	base map[string]*baseFile // nil until the baseline is taken
	off  string               // why tracking is off ("" = on)
	// snapped are the paths with a "before" (or "mkdir") in the manifest.
	snapped map[string]bool
	// last is the scan after the last command; toolSince the paths the
	// file tools changed since.
	last      map[string]fileStamp
	toolSince map[string]bool
}

// scan stamps the project's regular files and directories (not the
// directories list_files skips, nor symlinks, FIFOs or devices); ok is false
// past MaxTrackedFiles.
func (a *agent) scan() (map[string]fileStamp, bool) {
	out := map[string]fileStamp{}
	var walk func(dir string) bool
	walk = func(dir string) bool {
		ents, err := a.files.ReadDir(dir)
		if err != nil {
			return true
		}
		for _, e := range ents {
			rel := e.Name()
			if dir != "." {
				rel = path.Join(dir, e.Name())
			}
			if e.IsDir() && skipDirs[e.Name()] {
				continue
			}
			if !e.IsDir() && !e.Type().IsRegular() {
				continue
			}
			if len(out) >= MaxTrackedFiles {
				return false
			}
			fi, err := e.Info()
			if err != nil {
				continue
			}
			st := fileStamp{dir: e.IsDir(), size: fi.Size(), mode: fi.Mode().Perm()}
			if s, ok := fi.Sys().(*syscall.Stat_t); ok {
				st.mtime, st.ctime, st.ino = s.Mtim, s.Ctim, s.Ino
			}
			out[rel] = st
			if e.IsDir() && !walk(rel) {
				return false
			}
		}
		return true
	}
	return out, walk(".")
}

// shellBefore prepares for a shell command outside git: the baseline before
// the first one, and the scan the command's changes are compared with. What
// changed since the previous command ended, not by the file tools (a
// background job), is recorded first.
func (a *agent) shellBefore() map[string]fileStamp {
	t := &a.track
	if a.git != nil || t.off != "" {
		return nil
	}
	before, ok := a.scan()
	if !ok {
		a.trackingOff(fmt.Sprintf("the project has more than %d files and directories", MaxTrackedFiles))
		return nil
	}
	if t.base != nil {
		if t.last != nil {
			a.record(t.last, before)
		}
		return before
	}
	t.base, t.snapped = map[string]*baseFile{}, map[string]bool{}
	total := int64(0)
	for rel, st := range before {
		if st.dir {
			continue
		}
		b := &baseFile{mode: st.mode}
		t.base[rel] = b
		if total += st.size; total > MaxTrackedBytes {
			a.trackingOff(fmt.Sprintf("the project's files hold more than %d MiB", MaxTrackedBytes>>20))
			return nil
		}
		data, err := a.files.ReadFile(rel)
		if err != nil {
			continue // too large or unreadable: undo cannot put it back
		}
		if b.snap, err = a.store.SaveBase(data); err != nil {
			a.trackingOff("the baseline could not be saved: " + err.Error())
			return nil
		}
	}
	if err := a.store.SyncBase(); err != nil {
		a.trackingOff("the baseline could not be saved: " + err.Error())
		return nil
	}
	return before
}

func (a *agent) trackingOff(why string) {
	a.track.off, a.track.base, a.track.last = why, nil, nil
	a.printf("note: shell commands' changes are not tracked in this run (%s): undo covers the file tools' changes only\n", why)
	a.log("shell_tracking", map[string]any{"off": why})
}

// shellAfter records what the command changed since before and returns
// the changed paths.
func (a *agent) shellAfter(before map[string]fileStamp) []string {
	if before == nil || a.track.base == nil {
		return nil
	}
	after, ok := a.scan()
	if !ok {
		a.trackingOff(fmt.Sprintf("the project has more than %d files and directories", MaxTrackedFiles))
		return nil
	}
	changed := a.record(before, after)
	a.track.last = after
	return changed
}

// shellEnd records what changed after the last command (a background job
// stopped at the end of the run).
func (a *agent) shellEnd() {
	if a.track.base == nil || a.track.last == nil {
		return
	}
	if cur, ok := a.scan(); ok && len(a.record(a.track.last, cur)) > 0 {
		a.seq++
		a.writeSeq = a.seq // not verified by an earlier test run
	}
}

// record writes to the manifest what changed from one scan to the next
// but for what the file tools changed in between (they record their own):
// undo's "before" from the baseline, the first time a path changes, then
// its new state. It returns the changed paths.
func (a *agent) record(before, after map[string]fileStamp) []string {
	t := &a.track
	tools := t.toolSince
	t.toolSince = nil
	var changed, made []string
	for rel, st := range after {
		old, had := before[rel]
		switch {
		case tools[rel]:
		case st.dir && !had:
			made = append(made, rel)
		case st.dir:
		case !had || old.dir || old != st:
			changed = append(changed, rel)
		}
	}
	for rel, st := range before {
		if _, ok := after[rel]; !ok && !st.dir && !tools[rel] {
			changed = append(changed, rel)
		}
	}
	sort.Strings(changed)
	sort.Strings(made) // outermost first: undo removes them backwards
	for _, d := range made {
		if !t.snapped[d] {
			t.snapped[d] = true
			a.store.Append(Entry{Kind: "mkdir", Path: d})
		}
	}
	for _, rel := range changed {
		if !t.snapped[rel] && !a.changed[rel] {
			t.snapped[rel] = true
			e := Entry{Kind: "before", Op: "create", Path: rel}
			if b, ok := t.base[rel]; ok {
				if b.snap == "" {
					a.printf("note: %s changed but was too large to keep a copy of: undo cannot put it back\n", rel)
					continue
				}
				e.Op, e.Snap, e.Mode = "modify", b.snap, uint32(b.mode)
			}
			if err := a.store.Append(e); err != nil {
				a.printf("warning: manifest: %v\n", err)
				continue
			}
		}
		if data, err := a.files.ReadFile(rel); err != nil {
			a.store.After(rel, nil, true)
		} else {
			a.store.After(rel, data, false)
		}
		a.shellFiles[rel] = true
	}
	return changed
}
