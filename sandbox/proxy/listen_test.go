package proxy

import (
	"errors"
	"net"
)

// The proxy serves broker streams (ServeConn) and the relay runs for the
// session's life; the tests also serve a listener and close a relay.

// Serve accepts connections on l until l or the proxy is closed.
func (p *Proxy) Serve(l net.Listener) error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return net.ErrClosed
	}
	p.ls = append(p.ls, l)
	p.mu.Unlock()
	for {
		c, err := l.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return nil
			}
			return err
		}
		ok, full := p.admit(c)
		if !ok {
			c.Close()
			return nil
		}
		if full {
			go busy(c)
			continue
		}
		go p.serve(c)
	}
}

// Close stops accepting; relayed connections end on their own.
func (r *Relay) Close() error {
	err := r.l.Close()
	r.wg.Wait()
	return err
}
