package guardsh

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// The admin context: a human's grant, given by a command-line flag of the
// process that starts the session (guardsh-agent --admin, --admin-device),
// never by the environment, a config file or a command. In it only the
// irreversible-delete rules and guardsh's own protection still deny; every
// other built-in deny asks instead, so that disk work a human named (mkfs,
// dd to a device) can be approved at the gate. Device rules are lifted only
// for the devices the human named. Asks stay asks in every mode (bypass
// does not allow them), plan mode stays read-only, and the sandbox stays:
// an approved command gets exactly the named device as an extra right.

// AdminGrant is the admin context of a session.
type AdminGrant struct {
	// Devices are the device nodes (or image files) the human named,
	// canonical.
	Devices []string
	// Source says how it was given, e.g. "--admin-device /dev/sdb".
	Source string
	// ids are the named files as NewAdminGrant found them: a device is
	// matched by this identity, so replacing the file at a granted name
	// later (a symlink to another disk) does not move the grant.
	ids []os.FileInfo
}

// adminKept are the rules that deny in the admin context too: the
// irreversible deletes of the root file system, home, system directories
// or the project (and the switches that disable their protection), and
// guardsh's own protection, without which a command could widen the grant.
var adminKept = map[ruleID]bool{
	idRmRoot: true, idRmHome: true, idRmSystem: true, idRmProjectRoot: true, idRmNoPreserveRoot: true,
	idRmXargs: true, idFindDeleteOutside: true, idMvCatastrophic: true, idMvDevnull: true,
	idGuardshSelf: true, idGuardshAdmin: true,
}

// adminDeviceRules are lifted only for a device the human named.
var adminDeviceRules = map[ruleID]bool{idDiskFormat: true, idDevice: true, idDiskReadRaw: true}

// NewAdminGrant checks the devices a human named: each must exist and be a
// block or character device or a regular file (a disk image); symlinks
// (/dev/disk/by-id/...) are resolved.
func NewAdminGrant(devices []string, source string) (*AdminGrant, error) {
	g := &AdminGrant{Source: source}
	for _, d := range devices {
		if !filepath.IsAbs(d) {
			return nil, fmt.Errorf("admin device %q: give an absolute path (e.g. /dev/sdb)", d)
		}
		real, err := filepath.EvalSymlinks(d)
		if err != nil {
			return nil, fmt.Errorf("admin device %s: %v", d, err)
		}
		fi, err := os.Stat(real)
		if err != nil {
			return nil, fmt.Errorf("admin device %s: %v", d, err)
		}
		if m := fi.Mode(); !m.IsRegular() && m&fs.ModeDevice == 0 {
			return nil, fmt.Errorf("admin device %s: not a device or an image file", d)
		}
		g.Devices = append(g.Devices, real)
		g.ids = append(g.ids, fi)
	}
	sort.Strings(g.Devices)
	return g, nil
}

// Describe is the grant as the audit log states it on every record.
func (g *AdminGrant) Describe() string {
	if g == nil {
		return ""
	}
	d := "no devices"
	if len(g.Devices) > 0 {
		d = "devices " + strings.Join(g.Devices, " ")
	}
	return "admin context (" + g.Source + "): " + d
}

// names reports whether path (absolute, as the rules resolved it) is one
// of the named devices. A grant made by NewAdminGrant matches the file
// it found, by identity only. A grant built from canonical paths alone (the
// session's, from its argv) matches the granted path itself, or the file
// now at it, never following a symlink planted there since.
func (g *AdminGrant) names(path string) bool {
	if path == "" {
		return false
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		real = filepath.Clean(path)
	}
	fi, ferr := os.Stat(real)
	if len(g.ids) > 0 {
		for _, id := range g.ids {
			if ferr == nil && os.SameFile(fi, id) {
				return true
			}
		}
		return false
	}
	for _, d := range g.Devices {
		di, err := os.Lstat(d)
		if err == nil && di.Mode()&fs.ModeSymlink != 0 {
			continue // not what the human named: a link put in its place
		}
		if d == real {
			return true
		}
		if ferr == nil && err == nil && os.SameFile(fi, di) {
			return true
		}
	}
	return false
}

// adminLift is the verdict of a denied judgement in the admin context: an
// ask naming the grant, or ok false when the deny stays.
func (p *Policy) adminLift(j *judgement, mode Mode) (Verdict, bool) {
	g := p.Admin
	if g == nil || j.f.dec != Deny || mode == ModePlan || adminKept[j.f.id] {
		return Verdict{}, false
	}
	eff := j.eff
	if adminDeviceRules[j.f.id] {
		dev, _, _ := strings.Cut(j.f.detail, " via symlink ")
		if !g.names(dev) {
			return Verdict{}, false
		}
		eff.Writes = appendUnique(append([]string(nil), eff.Writes...), dev)
	}
	reason, hint := reasonOf(j.f.id, j.f.detail)
	return Verdict{Decision: Ask, Rule: j.f.id.String(),
		Reason:  g.Describe() + " lifts this deny to an ask: " + reason,
		Hint:    "a human may approve it; outside the admin context it is denied (" + hint + ")",
		Effects: eff}, true
}

// ErrAdminNested is returned when the admin context is asked for inside a
// session or sandbox.
var ErrAdminNested = errors.New("the admin context is a human's flag and cannot be entered from inside a guardsh session or sandbox")
