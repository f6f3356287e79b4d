package oneline

import "testing"

func TestEscape(t *testing.T) {
	for in, want := range map[string]string{
		"plain":                               "plain",
		"not a binary number: '0b\r'":         `not a binary number: '0b\r'`,
		"a\nb\tc\x00d\x7fe":                   `a\nb\tc\x00d\x7fe`,
		"unicode é ok, U+0085 \u0085 escaped": `unicode é ok, U+0085 \u0085 escaped`,
	} {
		if got := Escape(in); got != want {
			t.Errorf("Escape(%q) = %q, want %q", in, got, want)
		}
	}
}
