package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// badDir is the bad-input corpus shared by this test and the fuzz targets'
// seeds (see testdata/bad/README.md for the case format).
const badDir = "../../testdata/bad"

// badCase is one directory of the bad-input corpus.
type badCase struct {
	name, dir string
	args      []string // the drsim command line; nil for a library-only case
	lib       []string // "lib ..." line: checked by a package test instead
	exit      int
	errExact  string         // "drsim: <error>" as main prints it; "" with errRE or exit 0
	errRE     *regexp.Regexp // alternative to errExact
	stdout    []string       // substrings stdout must contain
	stderr    []string       // substrings the command's own stderr must contain
	pending   string         // why the case cannot pass yet (the feature is not finished)
}

// loadBadCase reads dir/args and dir/want, substituting $DIR and $TMP.
func loadBadCase(t *testing.T, name, tmp string) badCase {
	t.Helper()
	dir := filepath.Join(badDir, name)
	sub := strings.NewReplacer("$DIR", dir, "$TMP", tmp)
	c := badCase{name: name, dir: dir}
	args, err := os.ReadFile(filepath.Join(dir, "args"))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	for _, l := range lines(string(args)) {
		if f := strings.Fields(sub.Replace(l)); len(f) > 0 && f[0] == "lib" {
			c.lib = f
		} else {
			c.args = append(c.args, f...)
		}
	}
	want, err := os.ReadFile(filepath.Join(dir, "want"))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	sawExit := false
	for _, l := range lines(string(want)) {
		key, val, _ := strings.Cut(l, " ")
		val = sub.Replace(val)
		switch key {
		case "exit":
			c.exit, err = strconv.Atoi(val)
			sawExit = err == nil
		case "err":
			c.errExact = val
		case "err~":
			c.errRE, err = regexp.Compile(val)
		case "stdout":
			c.stdout = append(c.stdout, val)
		case "stderr":
			c.stderr = append(c.stderr, val)
		case "pending":
			c.pending = val
		default:
			err = fmt.Errorf("unknown key %q", key)
		}
		if err != nil {
			t.Fatalf("%s/want: %q: %v", name, l, err)
		}
	}
	if !sawExit || (c.exit != 0) == (c.errExact == "" && c.errRE == nil) {
		t.Fatalf("%s/want: need an exit line, and an err or err~ line exactly when exit != 0", name)
	}
	if (c.args == nil) == (c.lib == nil) || c.args != nil && c.args[0] != "drsim" {
		t.Fatalf("%s/args: want one drsim command line or one lib line", name)
	}
	return c
}

// lines returns the non-empty, non-comment lines of s.
func lines(s string) []string {
	var out []string
	for _, l := range strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return out
}

// check runs the case through newApp like main does and returns what differs.
func (c *badCase) check() []string {
	var stdout, stderr bytes.Buffer
	err := newApp(&stdout, &stderr).Run(c.args)
	var bad []string
	if code := exitCode(err); code != c.exit {
		bad = append(bad, fmt.Sprintf("exit %d, want %d (error: %v)", code, c.exit, err))
	}
	if err != nil {
		line := "drsim: " + err.Error()
		switch {
		case strings.Contains(line, "\n"):
			bad = append(bad, fmt.Sprintf("error is not one line: %q", line))
		case c.errExact != "" && line != c.errExact:
			bad = append(bad, fmt.Sprintf("stderr line\n\t%s\nwant\n\t%s", line, c.errExact))
		case c.errRE != nil && !c.errRE.MatchString(line):
			bad = append(bad, fmt.Sprintf("stderr line\n\t%s\ndoes not match\n\t%s", line, c.errRE))
		}
	}
	for _, s := range c.stdout {
		if !strings.Contains(stdout.String(), s) {
			bad = append(bad, fmt.Sprintf("stdout lacks %q:\n%s", s, stdout.String()))
		}
	}
	for _, s := range c.stderr {
		if !strings.Contains(stderr.String(), s) {
			bad = append(bad, fmt.Sprintf("stderr lacks %q:\n%s", s, stderr.String()))
		}
	}
	return bad
}

// TestBadInput runs every case of testdata/bad through the CLI and checks
// the exit code and the one-line error (or, for inputs that must pass, the
// counts printed). Cases marked pending must still fail; once they pass the
// test asks for the marker to be removed.
func TestBadInput(t *testing.T) {
	entries, err := os.ReadDir(badDir)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		n++
		t.Run(e.Name(), func(t *testing.T) {
			c := loadBadCase(t, e.Name(), t.TempDir())
			if c.lib != nil {
				t.Skipf("library case %v: checked by that package's tests", c.lib[:2])
			}
			bad := c.check()
			switch {
			case c.pending != "" && len(bad) == 0:
				t.Errorf("case passes now: remove its pending line (%s)", c.pending)
			case c.pending != "":
				t.Skipf("pending (%s): %s", c.pending, strings.Join(bad, "; "))
			}
			for _, b := range bad {
				t.Errorf("%s: %s", strings.Join(c.args, " "), b)
			}
		})
	}
	if n < 40 {
		t.Errorf("%s has %d cases, want at least 40", badDir, n)
	}
}
