//go:build !linux

package sandbox

// confinementKey: the probe cache is Linux's only (probeCachePath).
func confinementKey() string { return "" }
