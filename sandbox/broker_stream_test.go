package sandbox

import (
	"bufio"
	"golang.org/x/sys/unix"
	"io"
	"os"
	"strings"
	"testing"
)

// TestBrokerStreams: a request kind the broker has a handler for gets a
// stream (Client.Open), one it has none for is refused, and the advise
// kind cannot be taken over by a handler.
func TestBrokerStreams(t *testing.T) {
	b, clientEnd, err := NewBroker("none", Config{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	b.Handlers = map[string]func(Request, []*os.File) Response{
		"echo": func(_ Request, files []*os.File) Response {
			if len(files) != 1 {
				return Response{Status: 126, Err: "want one file"}
			}
			f, err := dupFile(files[0])
			if err != nil {
				return Response{Status: 126, Err: err.Error()}
			}
			go func() {
				defer f.Close()
				line, _ := bufio.NewReader(f).ReadString('\n')
				io.WriteString(f, "echo: "+line)
			}()
			return Response{}
		},
		KindAdvise: func(Request, []*os.File) Response { return Response{Err: "taken over"} },
	}
	go b.Serve()
	c := NewClient(clientEnd)
	defer c.Close()
	s, err := c.Open("echo")
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(s, "hello\n")
	got, _ := bufio.NewReader(s).ReadString('\n')
	s.Close()
	if got != "echo: hello\n" {
		t.Errorf("stream answered %q", got)
	}
	if _, err := c.Open("nothing"); err == nil || !strings.Contains(err.Error(), "malformed") {
		t.Errorf("a kind without a handler: %v", err)
	}
	if _, err := c.Open(KindAdvise); err == nil {
		t.Error("Open(advise) was served by a handler")
	}
}

func dupFile(f *os.File) (*os.File, error) {
	fd, err := dupCloexec(int(f.Fd()))
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), f.Name()), nil
}
func dupCloexec(fd int) (int, error) { return unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 0) }
