package interp

import (
	"os"
	"strconv"
	"strings"
	"syscall"
)

// descendantLevels lists the processes below pid by depth: [0] is empty
// (pid itself), [1] its children, [2] their children...
func descendantLevels(pid int) [][]int {
	children := childMap()
	levels := [][]int{nil}
	cur := []int{pid}
	for len(cur) > 0 {
		var next []int
		for _, p := range cur {
			next = append(next, children[p]...)
		}
		if len(next) > 0 {
			levels = append(levels, next)
		}
		cur = next
	}
	return levels
}

// childMap maps every process to its children.
func childMap() map[int][]int {
	children := map[int][]int{}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return children
	}
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// The command name may hold spaces and parentheses: the fields
		// after the last ")" are state, ppid, ...
		s := string(data)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 2 {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		children[ppid] = append(children[ppid], p)
	}
	return children
}

// processAlive reports whether pid exists and is not a zombie.
func processAlive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || !strings.HasPrefix(strings.TrimSpace(s[i+1:]), "Z")
}
