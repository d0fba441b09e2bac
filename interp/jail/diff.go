package jail

import udiff "github.com/aymanbagabas/go-udiff"

// UnifiedDiff returns the unified diff (as diff -u and patch know it) that
// turns old into new, with the given file labels and three lines of
// context; "" when they are equal. Lines are compared whole, by Myers'
// algorithm (github.com/aymanbagabas/go-udiff, gopls's diff package): time
// and memory grow with the size of the change, not with the product of the
// two lengths. Hunk headers are GNU diff's: a count of 1 is left out
// ("@@ -4 +4 @@").
func UnifiedDiff(oldLabel, newLabel, old, new string) string {
	if old == new {
		return ""
	}
	d, err := udiff.ToUnified(oldLabel, newLabel, old, udiff.Lines(old, new), udiff.DefaultContextLines)
	if err != nil {
		// Lines' edits apply to old by construction; should they not, a
		// whole replacement is still a correct diff.
		d, _ = udiff.ToUnified(oldLabel, newLabel, old, []udiff.Edit{{Start: 0, End: len(old), New: new}}, udiff.DefaultContextLines)
	}
	return d
}
