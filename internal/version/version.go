// Package version says which build of guardsh a binary is.
package version

import "runtime/debug"

// Of returns the version to print: set when the build set one
// (-ldflags "-X main.Version=v1.2.3"), else what the Go toolchain recorded
// in the binary: the module version (v1.2.3 for go install ...@v1.2.3, a
// pseudo-version such as v0.0.0-20261201214556-07a71cf8790d+dirty for a
// build in a git checkout), else the VCS revision ("devel-07a71cf8790d",
// "-dirty" added for uncommitted changes), else "devel".
func Of(set string) string {
	return fromBuildInfo(set, debug.ReadBuildInfo)
}

func fromBuildInfo(set string, read func() (*debug.BuildInfo, bool)) string {
	if set != "" {
		return set
	}
	info, ok := read()
	if !ok {
		return "devel"
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	rev, dirty := "", false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return "devel"
	}
	v := "devel-" + rev[:min(len(rev), 12)]
	if dirty {
		v += "-dirty"
	}
	return v
}
