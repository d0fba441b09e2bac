// Package calc is a tiny task repository for guardsh-agent's tests.
package calc

// Sum adds up the numbers.
func Sum(xs []int) int {
	total := 0
	for i := 1; i < len(xs); i++ {
		total += xs[i]
	}
	return total
}
