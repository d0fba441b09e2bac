package interp

// Standard input read before deciding: xargs turns its input into
// arguments, sqlite3 and ed run theirs as commands, so the policy judges
// them with it (guardsh.InputMatters, Command.Input). The runner reads
// the command's stdin first (up to maxInput bytes, for at most
// inputWait), decides with what it read when that is all of it, and
// hands the command the same bytes followed by the rest.

import (
	"bytes"
	"errors"
	"io"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"mvdan.cc/sh/v3/interp"
)

const (
	maxInput  = 64 << 10
	inputWait = 2 * time.Second
)

// inputCmd marks an argv whose standard input the runner read in the call
// handler: inputCmd, key, argv...
const inputCmd = "\x00guardsh-input"

var (
	inputs   sync.Map // key -> io.Reader the command reads instead of its stdin
	inputSeq atomic.Uint64
)

// readInput reads stdin until EOF, maxInput bytes or inputWait (for a
// pipe or a regular file; nothing from a terminal or nil). It returns what
// it read, whether that is all of it, and the reader the command gets.
func readInput(stdin io.Reader) (data []byte, all bool, rest io.Reader) {
	f, ok := stdin.(*os.File)
	if !ok || f == nil {
		return nil, false, stdin
	}
	fi, err := f.Stat()
	if err != nil || fi.Mode()&os.ModeCharDevice != 0 {
		return nil, false, stdin
	}
	if fi.Mode()&os.ModeNamedPipe != 0 {
		if err := f.SetReadDeadline(time.Now().Add(inputWait)); err != nil {
			// a pipe without deadlines: a read could block for ever
			return nil, false, stdin
		}
		defer f.SetReadDeadline(time.Time{})
	}
	var buf bytes.Buffer
	_, err = io.CopyN(&buf, f, maxInput+1)
	all = errors.Is(err, io.EOF)
	if !all && !errors.Is(err, os.ErrDeadlineExceeded) && err != nil && buf.Len() == 0 {
		return nil, false, stdin
	}
	if all {
		return buf.Bytes(), true, bytes.NewReader(buf.Bytes())
	}
	return buf.Bytes(), false, io.MultiReader(bytes.NewReader(buf.Bytes()), f)
}

// withInput parks r for the command args and returns the argv that
// carries it to the exec handler.
func withInput(args []string, r io.Reader) []string {
	key := strconv.FormatUint(inputSeq.Add(1), 10)
	inputs.Store(key, r)
	return append([]string{inputCmd, key}, args...)
}

// takeInput returns the command and the handler context with the parked
// reader as stdin (and forgets it).
func takeInput(hc interp.HandlerContext, args []string) (interp.HandlerContext, []string) {
	if len(args) < 3 {
		return hc, args
	}
	if r, ok := inputs.LoadAndDelete(args[1]); ok {
		hc.Stdin = r.(io.Reader)
	}
	return hc, args[2:]
}
