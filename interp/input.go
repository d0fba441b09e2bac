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
	"time"
)

const (
	maxInput  = 64 << 10
	inputWait = 2 * time.Second
)

// readInput reads stdin until EOF, maxInput bytes or inputWait (for a
// pipe or a regular file; nothing from a terminal or nil). It returns what
// it read, whether that is all of it, and whether it read at all (then the
// command must get data followed by what stdin still holds).
func readInput(stdin io.Reader) (data []byte, all, read bool) {
	f, ok := stdin.(*os.File)
	if !ok || f == nil {
		return nil, false, false
	}
	fi, err := f.Stat()
	if err != nil || fi.Mode()&os.ModeCharDevice != 0 {
		return nil, false, false
	}
	if fi.Mode()&os.ModeNamedPipe != 0 {
		if err := f.SetReadDeadline(time.Now().Add(inputWait)); err != nil {
			// a pipe without deadlines: a read could block for ever
			return nil, false, false
		}
		defer f.SetReadDeadline(time.Time{})
	}
	var buf bytes.Buffer
	_, err = io.CopyN(&buf, f, maxInput)
	if err == nil {
		// exactly maxInput bytes so far: is that all?
		var one [1]byte
		n, rerr := f.Read(one[:])
		buf.Write(one[:n])
		err = rerr
		if n == 0 && rerr == nil {
			err = nil
		}
		if n > 0 {
			err = nil // more to come
		}
	}
	return buf.Bytes(), errors.Is(err, io.EOF), true
}

// checkedInput is the rest of a command's input past what was judged
// before it started: every further chunk (up to maxInput bytes, cut after
// its last newline) is judged the same way before the command reads it,
// and a chunk the policy does not allow ends the input there, with the
// refusal on stderr. Padding the input past the first read
// ((seq 20000; echo ~/.ssh/id_rsa) | xargs cat) or sending the name late
// gains nothing.
type checkedInput struct {
	src   io.Reader
	judge func(chunk string) (ok bool)
	out   []byte // judged, not yet read
	carry []byte // a line not complete yet
	done  bool
}

func (c *checkedInput) Read(p []byte) (int, error) {
	for len(c.out) == 0 {
		if c.done {
			return 0, io.EOF
		}
		buf := make([]byte, maxInput)
		n, err := io.ReadAtLeast(c.src, buf, 1)
		data := append(c.carry, buf[:n]...)
		c.carry = nil
		if err != nil {
			c.done = true // the last chunk: whole
		} else if i := bytes.LastIndexByte(data, '\n'); i >= 0 && i < len(data)-1 {
			c.carry = append([]byte(nil), data[i+1:]...)
			data = data[:i+1]
		} else if i < 0 && len(data) < maxInput {
			c.carry = data // no line end yet: wait for it
			continue
		}
		if len(data) > 0 && !c.judge(string(data)) {
			c.done = true
			return 0, io.EOF
		}
		c.out = data
	}
	n := copy(p, c.out)
	c.out = c.out[n:]
	return n, nil
}
