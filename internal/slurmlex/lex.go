package slurmlex

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// Pair is one Key=Value of a line. Op is the operator byte before "="
// in "Key+=Value" ('+', '-', '*' or '/'), 0 for a plain "=".
type Pair struct {
	Key, Value string
	Op         byte
}

// Line is one logical line of a configuration file: continued lines are
// joined and Num is the number of the first physical line.
type Line struct {
	Num     int
	Pairs   []Pair
	Include string // the file named by an "Include FILE" line ("" otherwise)
	Rest    string // text after the last pair that is not Key=Value ("" when the whole line parsed)
}

// Get returns the value of the last pair whose key equals key (any
// case) among l.Pairs[from:], as Slurm takes the last of repeated keys.
func (l *Line) Get(key string, from int) (string, bool) {
	for i := len(l.Pairs) - 1; i >= from; i-- {
		if strings.EqualFold(l.Pairs[i].Key, key) {
			return l.Pairs[i].Value, true
		}
	}
	return "", false
}

// Scan calls each for every non-blank logical line of r in order, and
// stops at the first error each returns. Read errors (including a line
// longer than 1 MiB) are returned as "file:line: err".
func Scan(r io.Reader, file string, each func(Line) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	num, first := 0, 0
	var buf strings.Builder
	flush := func() error {
		text := unescape(buf.String())
		buf.Reset()
		if strings.TrimSpace(text) == "" {
			return nil
		}
		return each(Split(text, first))
	}
	for sc.Scan() {
		num++
		if buf.Len() == 0 {
			first = num
		}
		text := stripComment(strings.TrimRight(sc.Text(), "\r"))
		if body, cont := continued(text); cont {
			buf.WriteString(body)
			continue
		}
		buf.WriteString(text)
		if err := flush(); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s:%d: %v", file, num+1, err)
	}
	if buf.Len() > 0 { // a continuation on the last line
		return flush()
	}
	return nil
}

// Split parses one logical line (comments stripped, escapes resolved)
// numbered num.
func Split(text string, num int) Line {
	l := Line{Num: num}
	rest := strings.TrimLeft(text, " \t\v\f\r")
	if len(rest) > 7 && strings.EqualFold(rest[:7], "include") && isSpace(rest[7]) {
		f := strings.Fields(rest[8:])
		if len(f) > 0 {
			l.Include = f[0]
			l.Rest = strings.Join(f[1:], " ")
			return l
		}
	}
	for {
		rest = strings.TrimLeft(rest, " \t\v\f\r")
		if rest == "" {
			return l
		}
		p, after, ok := pair(rest)
		if !ok {
			l.Rest = strings.TrimRight(rest, " \t\v\f\r")
			return l
		}
		l.Pairs = append(l.Pairs, p)
		rest = after
	}
}

// pair reads one Key[op]=Value at the start of s (Slurm's keyvalue
// regular expression), returning the text after it.
func pair(s string) (Pair, string, bool) {
	i := 0
	for i < len(s) && isKey(s[i]) {
		i++
	}
	if i == 0 {
		return Pair{}, s, false
	}
	p := Pair{Key: s[:i]}
	j := skipSpace(s, i)
	if j < len(s) && strings.IndexByte("+-*/", s[j]) >= 0 {
		p.Op = s[j]
		j++
	}
	if j >= len(s) || s[j] != '=' {
		return Pair{}, s, false
	}
	j = skipSpace(s, j+1)
	if j < len(s) && s[j] == '"' {
		if end := strings.IndexByte(s[j+1:], '"'); end >= 0 {
			k := j + 1 + end + 1
			if k == len(s) || isSpace(s[k]) {
				p.Value = s[j+1 : k-1]
				return p, s[k:], true
			}
		}
	}
	k := j
	for k < len(s) && !isSpace(s[k]) {
		k++
	}
	p.Value = s[j:k] // "" for "Key=" at the end of the line: the caller says what the key wants
	return p, s[k:], true
}

// stripComment cuts text at the first "#" preceded by an even number of
// backslashes.
func stripComment(text string) string {
	bs := 0
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '#':
			if bs%2 == 0 {
				return text[:i]
			}
			bs = 0
		case '\\':
			bs++
		default:
			bs = 0
		}
	}
	return text
}

// continued reports whether text ends (before trailing blanks) in an odd
// number of backslashes, and returns it without the last one.
func continued(text string) (string, bool) {
	end := len(text)
	for end > 0 && isSpace(text[end-1]) {
		end--
	}
	bs := 0
	for bs < end && text[end-1-bs] == '\\' {
		bs++
	}
	if bs%2 == 0 {
		return text, false
	}
	return text[:end-1], true
}

// unescape drops each escaping backslash: "\#" is "#", "\\" is "\".
func unescape(s string) string {
	if strings.IndexByte(s, '\\') < 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' {
			i++
			if i == len(s) {
				break
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func isKey(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.'
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

func skipSpace(s string, i int) int {
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	return i
}
