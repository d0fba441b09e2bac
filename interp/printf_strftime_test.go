package interp

import (
	"testing"
	"time"
)

// TestStrftime: printf's %(...)T conversions give what GNU date (C locale,
// TZ=UTC) gives for the same moment; an unknown conversion stays as
// written, as in bash.
func TestStrftime(t *testing.T) {
	tm := time.Unix(1041725229, 0).UTC() // Sun 2003-01-05 00:07:09 UTC
	f := "%Y|%C|%y|%m|%d|%e|%H|%k|%I|%l|%M|%S|%j|%p|%a|%A|%b|%h|%B|%u|%w|%Z|%z|%s|%F|%T|%D|%R|%c|%x|%X|%%|%Q|%n%t"
	want := "2003|20|03|01|05| 5|00| 0|12|12|07|09|005|AM|Sun|Sunday|Jan|Jan|January|7|0|UTC|+0000|1041725229|" +
		"2003-01-05|00:07:09|01/05/03|00:07|Sun Jan  5 00:07:09 2003|01/05/03|00:07:09|%|%Q|\n\t"
	if got := strftime(f, tm); got != want {
		t.Errorf("strftime:\n got %q\nwant %q", got, want)
	}
}
