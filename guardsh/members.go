package guardsh

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"bytes"
	"compress/bzip2"
	"compress/gzip"
	"io"
	"os"
	"path"
	"strconv"
	"strings"
)

// What an archive or a patch writes is named inside the file, not on the
// command line: tar x, unzip, patch and git apply are judged by the names
// the file holds (read here, in-process, bounded), each one a write below
// the directory they extract into. A file that cannot be read (not there
// yet, stdin, a format not read here, too large) adds nothing: the kernel
// keeps the protected things that exist read-only, whatever writes them.

const (
	maxMemberBytes = 64 << 20 // archive or patch bytes read at most
	maxMembers     = 10000
)

// member is one name an archive creates; link is a symlink member's
// target.
type member struct {
	name, link string
}

// archiveMembers lists the members of a tar (plain, gzip or bzip2) or zip
// file. ok is false when the file could not be read to its end.
func archiveMembers(file string) (ms []member, ok bool) {
	f, err := openRegular(file)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > maxMemberBytes {
		return nil, false
	}
	head := make([]byte, 4)
	n, _ := io.ReadFull(f, head)
	head = head[:n]
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, false
	}
	if bytes.HasPrefix(head, []byte("PK\x03\x04")) || bytes.HasPrefix(head, []byte("PK\x05\x06")) {
		zr, err := zip.NewReader(f, fi.Size())
		if err != nil {
			return nil, false
		}
		for i, zf := range zr.File {
			if i >= maxMembers {
				return ms, false
			}
			m := member{name: zf.Name}
			if zf.Mode()&os.ModeSymlink != 0 {
				if rc, err := zf.Open(); err == nil {
					b, _ := io.ReadAll(io.LimitReader(rc, 4096))
					rc.Close()
					m.link = string(b)
				}
			}
			ms = append(ms, m)
		}
		return ms, true
	}
	var r io.Reader = bufio.NewReader(io.LimitReader(f, maxMemberBytes))
	switch {
	case bytes.HasPrefix(head, []byte{0x1f, 0x8b}):
		gz, err := gzip.NewReader(r)
		if err != nil {
			return nil, false
		}
		r = io.LimitReader(gz, 4*maxMemberBytes)
	case bytes.HasPrefix(head, []byte("BZh")):
		r = io.LimitReader(bzip2.NewReader(r), 4*maxMemberBytes)
	}
	tr := tar.NewReader(r)
	for len(ms) < maxMembers {
		h, err := tr.Next()
		if err == io.EOF {
			return ms, true
		}
		if err != nil {
			return ms, false
		}
		m := member{name: h.Name}
		if h.Typeflag == tar.TypeSymlink {
			m.link = h.Linkname
		}
		ms = append(ms, m)
	}
	return ms, false
}

// patchTargets lists the files a unified or git patch changes, with strip
// leading components removed (patch -pN; git apply's default is 1). ok is
// false when the file could not be read.
func patchTargets(file string, strip int) (names []string, ok bool) {
	f, err := openRegular(file)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	sc := bufio.NewScanner(io.LimitReader(f, maxMemberBytes))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	add := func(p string) {
		if i := strings.IndexByte(p, '\t'); i >= 0 {
			p = p[:i] // a time stamp follows
		}
		p = strings.TrimSpace(p)
		if p == "" || p == "/dev/null" {
			return
		}
		parts := strings.Split(p, "/")
		if strip >= len(parts) {
			return
		}
		names = append(names, strings.Join(parts[strip:], "/"))
	}
	for sc.Scan() && len(names) < maxMembers {
		l := sc.Text()
		switch {
		case strings.HasPrefix(l, "+++ "):
			add(l[4:])
		case strings.HasPrefix(l, "--- "):
			add(l[4:]) // the old name: a rename or a delete writes it too
		case strings.HasPrefix(l, "rename to "), strings.HasPrefix(l, "copy to "):
			// git's extended headers name paths without a prefix
			_, p, _ := strings.Cut(l, " to ")
			names = append(names, strings.TrimSpace(p))
		case strings.HasPrefix(l, "diff --git "):
			for _, w := range strings.Fields(l[len("diff --git "):]) {
				add(w)
			}
		}
	}
	return names, true
}

// writeMembers judges an extraction of ms below dir: each member a write
// there, through the links the archive itself makes on the way.
func (cx *cmdCtx) writeMembers(dir string, ms []member) {
	base, ok := cx.pe.abs(dir)
	if !ok {
		return
	}
	links := map[string]string{}
	for k, v := range cx.pe.links {
		links[k] = v
	}
	for _, m := range ms {
		name := strings.TrimLeft(m.name, "/") // tar strips a leading "/"
		if name == "" {
			continue
		}
		p := base + "/" + name
		if m.link != "" {
			links[path.Clean(p)] = m.link
		}
	}
	saved := cx.pe.links
	cx.pe.links = links
	for _, m := range ms {
		name := strings.TrimLeft(m.name, "/")
		if name == "" || strings.HasSuffix(name, "/") && m.link == "" {
			// a directory: what is written is what goes in it
			if name != "" {
				cx.writeName(base+"/"+strings.TrimSuffix(name, "/"), false)
			}
			continue
		}
		cx.writeName(base+"/"+name, false)
	}
	cx.pe.links = saved
}

// stripCount parses a -pN count.
func stripCount(s string) (int, bool) {
	n, err := strconv.Atoi(s)
	return n, err == nil && n >= 0
}
