package proxy

import (
	"fmt"
	"net/netip"
	"strings"
)

// checkSNI says why first (a stream's first bytes) is not acceptable for a
// CONNECT to host, "" when it is: a TLS ClientHello must carry a server
// name equal to host (for a host name; none for an address); a stream that
// is not TLS passes (its destination was decided already).
func checkSNI(first []byte, host string) string {
	if len(first) == 0 || first[0] != 0x16 { // not a TLS handshake record
		return ""
	}
	name, ech, ok := clientHelloServerName(first)
	if !ok {
		return "the TLS client's first message could not be read"
	}
	if ech {
		return fmt.Sprintf("the TLS client hides the server it goes to (Encrypted Client Hello) behind %q", name)
	}
	_, ipErr := netip.ParseAddr(strings.Trim(host, "[]"))
	switch {
	case name == "" && ipErr == nil:
		return ""
	case name == "":
		return fmt.Sprintf("the TLS client names no server (SNI) for %s: the proxy cannot tell where it goes", host)
	case !strings.EqualFold(strings.TrimSuffix(name, "."), strings.TrimSuffix(host, ".")):
		return fmt.Sprintf("the TLS client names %q, not the host it asked to connect to (%s)", name, host)
	}
	return ""
}

// clientHelloServerName reads the server_name extension (RFC 6066) of the
// ClientHello in the TLS record b: "" and true when the hello has none,
// false when b is not a whole ClientHello record. ech: the hello carries an
// encrypted_client_hello extension (its server_name is then a cover, the
// real one is encrypted).
func clientHelloServerName(b []byte) (name string, ech, ok bool) {
	r := reader(b)
	typ, _ := r.u8()
	r.skip(2) // record version
	n, ok := r.u16()
	if typ != 0x16 || !ok || n > len(r) {
		return "", false, false
	}
	r = r[:n]
	if ht, _ := r.u8(); ht != 1 { // ClientHello
		return "", false, false
	}
	hl, ok := r.u24()
	if !ok || hl > len(r) {
		return "", false, false
	}
	r = r[:hl]
	if !r.skip(2 + 32) { // client_version, random
		return "", false, false
	}
	for _, lenBytes := range []int{1, 2, 1} { // session_id, cipher_suites, compression_methods
		l, ok := r.len(lenBytes)
		if !ok || !r.skip(l) {
			return "", false, false
		}
	}
	if len(r) == 0 {
		return "", false, true // no extensions
	}
	el, ok := r.u16()
	if !ok || el > len(r) {
		return "", false, false
	}
	exts := r[:el]
	seen := false
	for len(exts) > 0 {
		et, ok1 := exts.u16()
		l, ok2 := exts.u16()
		if !ok1 || !ok2 || l > len(exts) {
			return "", false, false
		}
		data := exts[:l]
		exts = exts[l:]
		switch et {
		case 0xfe0d: // encrypted_client_hello
			ech = true
			continue
		case 0:
		default:
			continue
		}
		if seen {
			return "", false, false // two server_name extensions
		}
		seen = true
		ll, ok := data.u16()
		if !ok || ll > len(data) {
			return "", false, false
		}
		list := data[:ll]
		for len(list) > 0 {
			nt, _ := list.u8()
			nl, ok := list.u16()
			if !ok || nl > len(list) {
				return "", false, false
			}
			if nt == 0 && name == "" {
				name = string(list[:nl])
			}
			list = list[nl:]
		}
	}
	return name, ech, true
}

// reader consumes big-endian fields from a byte slice.
type reader []byte

func (r *reader) u8() (int, bool) {
	if len(*r) < 1 {
		return 0, false
	}
	v := int((*r)[0])
	*r = (*r)[1:]
	return v, true
}

func (r *reader) u16() (int, bool) {
	if len(*r) < 2 {
		*r = nil
		return 0, false
	}
	v := int((*r)[0])<<8 | int((*r)[1])
	*r = (*r)[2:]
	return v, true
}

func (r *reader) u24() (int, bool) {
	if len(*r) < 3 {
		*r = nil
		return 0, false
	}
	v := int((*r)[0])<<16 | int((*r)[1])<<8 | int((*r)[2])
	*r = (*r)[3:]
	return v, true
}

func (r *reader) len(n int) (int, bool) {
	switch n {
	case 1:
		return r.u8()
	case 2:
		return r.u16()
	}
	return 0, false
}

func (r *reader) skip(n int) bool {
	if n > len(*r) {
		*r = nil
		return false
	}
	*r = (*r)[n:]
	return true
}
