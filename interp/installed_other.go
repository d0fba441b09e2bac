//go:build !linux

package interp

// readOnlyMount is false where guardsh cannot tell (every script is then
// interpreted, as without a verified sandbox).
func readOnlyMount(path string) bool { return false }
