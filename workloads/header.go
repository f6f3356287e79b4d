package workloads

import (
	"bytes"
	"fmt"
	"strconv"
)

// KV is one "; Key: value" header comment, in file order.
type KV struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// Header holds the SWF header comments. Numeric fields are 0 when absent or
// unreadable (a garbage value adds a warning instead); all key/value pairs
// are kept in file order in Pairs, including repeated keys.
type Header struct {
	MaxProcs, MaxNodes, UnixStartTime int64
	MaxJobs, MaxRecords, MaxRuntime   int64
	TimeZone                          string // TimeZoneString, e.g. "Europe/Stockholm"
	Version, Computer, Installation   string

	Pairs    []KV     // every "; Key: value" line, in order
	Notes    []string // free-text comment lines (no "Key:", or indented continuations)
	Warnings []string // header values that could not be used, and machine-size fallbacks
}

// Get returns the value of the first pair with the given key.
func (h *Header) Get(key string) (string, bool) {
	for _, kv := range h.Pairs {
		if kv.Key == key {
			return kv.Value, true
		}
	}
	return "", false
}

// Add appends a key/value pair and fills the matching typed field (the first
// occurrence of a key wins). where prefixes warnings, e.g. "x.swf:3".
func (h *Header) Add(key, value, where string) {
	h.Pairs = append(h.Pairs, KV{key, value})
	if n := h.count(key); n > 1 {
		return
	}
	num := func(dst *int64) {
		v, ok := leadingInt(value)
		if !ok {
			h.Warnings = append(h.Warnings, fmt.Sprintf("%s: header %s %q is not a number; treated as unknown", where, key, value))
			return
		}
		*dst = v
	}
	switch key {
	case "MaxProcs":
		num(&h.MaxProcs)
	case "MaxNodes":
		num(&h.MaxNodes)
	case "UnixStartTime":
		num(&h.UnixStartTime)
	case "MaxJobs":
		num(&h.MaxJobs)
	case "MaxRecords":
		num(&h.MaxRecords)
	case "MaxRuntime":
		num(&h.MaxRuntime)
	case "TimeZoneString":
		h.TimeZone = value
	case "Version":
		h.Version = value
	case "Computer":
		h.Computer = value
	case "Installation":
		h.Installation = value
	}
}

func (h *Header) count(key string) int {
	n := 0
	for _, kv := range h.Pairs {
		if kv.Key == key {
			n++
		}
	}
	return n
}

// leadingInt returns the optionally signed integer that starts s and
// ignores free text after it: "338 (batch partition; 512 total)" is 338.
func leadingInt(s string) (int64, bool) {
	i := 0
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		i++
	}
	j := i
	for j < len(s) && s[j] >= '0' && s[j] <= '9' {
		j++
	}
	if j == i {
		return 0, false
	}
	v, err := strconv.ParseInt(s[:j], 10, 64)
	return v, err == nil
}

// parseComment reads one comment line (starting at ';') into h. Lines
// indented by a TAB or two or more spaces after ';' are continuations of the
// previous note and are kept as notes, as are lines without "Key:".
func (h *Header) parseComment(line []byte, where string) {
	text := line[1:] // drop ';'
	indented := len(text) > 0 && text[0] == '\t' || bytes.HasPrefix(text, []byte("  "))
	text = bytes.TrimFunc(text, func(r rune) bool { return r < 0x80 && isSpace(byte(r)) })
	if len(text) == 0 {
		return
	}
	if !indented {
		if c := bytes.IndexByte(text, ':'); c > 0 && isKey(text[:c]) {
			val := bytes.TrimFunc(text[c+1:], func(r rune) bool { return r < 0x80 && isSpace(byte(r)) })
			h.Add(string(text[:c]), string(val), where)
			return
		}
	}
	h.Notes = append(h.Notes, string(text))
}

// isKey reports whether b looks like an SWF header key: letters, digits,
// '_' or '-', starting with a letter.
func isKey(b []byte) bool {
	for i, c := range b {
		letter := c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z'
		if !letter && (i == 0 || !(c >= '0' && c <= '9' || c == '_' || c == '-')) {
			return false
		}
	}
	return len(b) > 0
}
