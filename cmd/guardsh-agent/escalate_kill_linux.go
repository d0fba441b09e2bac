package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
)

// killEscalated sends sig to the commands this process (the privileged
// side) runs for the session through the broker, and to their
// descendants: every child of this process except the session process
// itself. While a run_shell command is running, they are the only other
// children the agent has (its own git commands run before and after). It
// returns how many processes it signalled.
func killEscalated(session int, sig syscall.Signal) int {
	children := map[int][]int{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		st, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		i := bytes.LastIndexByte(st, ')')
		if err != nil || i < 0 {
			continue
		}
		f := bytes.Fields(st[i+1:])
		if len(f) < 2 || string(f[0]) == "Z" {
			continue
		}
		ppid, _ := strconv.Atoi(string(f[1]))
		children[ppid] = append(children[ppid], pid)
	}
	var kill []int
	var walk func(int)
	walk = func(p int) {
		for _, c := range children[p] {
			kill = append(kill, c)
			walk(c)
		}
	}
	for _, c := range children[os.Getpid()] {
		if c != session {
			kill = append(kill, c)
			walk(c)
		}
	}
	for _, p := range kill {
		syscall.Kill(p, sig)
		syscall.Kill(p, syscall.SIGCONT)
	}
	return len(kill)
}
