//go:build !linux

package main

import (
	"errors"
	"os"
)

const envLaunchRoute = "GUARDSH_LAUNCH_ROUTE"

type nsSpec struct{}

func prepareNamespace(shim, copyExe string, sh bool) (nsSpec, error) {
	return nsSpec{}, errors.New("mount namespaces are Linux's")
}

func launchInNamespace(spec nsSpec, args []string, env []string, approval *os.File, onStart func(int), onStop func()) (int, bool, error) {
	return 0, false, errors.New("mount namespaces are Linux's")
}

func watchStops(pid int, onStop func()) {}
