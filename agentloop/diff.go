package agentloop

import (
	"fmt"
	"strings"
)

// maxDiffCells bounds the line-LCS table; larger files get a summary.
const maxDiffCells = 4_000_000

// splitLines splits s into lines, keeping no terminators.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	s = strings.TrimSuffix(s, "\n")
	return strings.Split(s, "\n")
}

// unifiedDiff returns a unified diff (3 lines of context) from old to new,
// labelled name, or "" when they are equal.
func unifiedDiff(name, old, new string) string {
	if old == new {
		return ""
	}
	a, b := splitLines(old), splitLines(new)
	if len(a)*len(b) > maxDiffCells {
		return fmt.Sprintf("--- a/%s\n+++ b/%s\n(whole file replaced: %d lines -> %d lines)\n", name, name, len(a), len(b))
	}
	// ops: ' ' keep, '-' delete, '+' insert, from an LCS table.
	n, m := len(a), len(b)
	lcs := make([][]int32, n+1)
	for i := range lcs {
		lcs[i] = make([]int32, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else if lcs[i+1][j] >= lcs[i][j+1] {
				lcs[i][j] = lcs[i+1][j]
			} else {
				lcs[i][j] = lcs[i][j+1]
			}
		}
	}
	type op struct {
		kind byte
		ai   int // line index in a (for ' ' and '-')
		bi   int // line index in b (for ' ' and '+')
	}
	var ops []op
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && a[i] == b[j]:
			ops = append(ops, op{' ', i, j})
			i++
			j++
		case j < m && (i == n || lcs[i][j+1] >= lcs[i+1][j]):
			ops = append(ops, op{'+', i, j})
			j++
		default:
			ops = append(ops, op{'-', i, j})
			i++
		}
	}
	const ctx = 3
	var sb strings.Builder
	fmt.Fprintf(&sb, "--- a/%s\n+++ b/%s\n", name, name)
	for k := 0; k < len(ops); {
		if ops[k].kind == ' ' {
			k++
			continue
		}
		start := max(k-ctx, 0)
		end := k
		for end < len(ops) {
			if ops[end].kind != ' ' {
				end++
				continue
			}
			run := end
			for run < len(ops) && ops[run].kind == ' ' {
				run++
			}
			if run == len(ops) || run-end > 2*ctx {
				end = min(end+ctx, len(ops))
				break
			}
			end = run
		}
		var aStart, bStart, aLen, bLen int
		aStart, bStart = ops[start].ai, ops[start].bi
		var body strings.Builder
		for _, o := range ops[start:end] {
			switch o.kind {
			case ' ':
				aLen++
				bLen++
				body.WriteString(" " + a[o.ai] + "\n")
			case '-':
				aLen++
				body.WriteString("-" + a[o.ai] + "\n")
			case '+':
				bLen++
				body.WriteString("+" + b[o.bi] + "\n")
			}
		}
		fmt.Fprintf(&sb, "@@ -%s +%s @@\n", hunkRange(aStart, aLen), hunkRange(bStart, bLen))
		sb.WriteString(body.String())
		k = end
	}
	if strings.HasSuffix(old, "\n") != strings.HasSuffix(new, "\n") && old != "" && new != "" {
		sb.WriteString("\\ newline at end of file changed\n")
	}
	return sb.String()
}

func hunkRange(start, length int) string {
	if length == 0 {
		return fmt.Sprintf("%d,0", start)
	}
	if length == 1 {
		return fmt.Sprintf("%d", start+1)
	}
	return fmt.Sprintf("%d,%d", start+1, length)
}
