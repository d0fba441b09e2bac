package guardsh

import "testing"

func TestUnescapeMountPath(t *testing.T) {
	for in, want := range map[string]string{
		`/home/a\040b/x`:    "/home/a b/x",
		`/plain`:            "/plain",
		`/tab\011and\134bs`: "/tab\tand\\bs",
		`/trailing\04`:      `/trailing\04`,
		`/not\999octal`:     `/not\999octal`,
		`/nl\012`:           "/nl\n",
	} {
		if got := unescapeMountPath(in); got != want {
			t.Errorf("unescapeMountPath(%q) = %q, want %q", in, got, want)
		}
	}
}
