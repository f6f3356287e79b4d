package machine

import (
	"fmt"
	"strings"
)

// lineIndex records on which line each key of the file is set: keys of
// the top level under section "", keys of the i-th [[node_type]] or
// [[partition]] under that section and index. Table headers are recorded
// with key "". It understands the subset of TOML a machine file uses
// (bare keys, arrays of tables); anything else is reported at the table's
// header line.
type lineIndex struct {
	at    map[lineKey]int
	names map[lineKey]string // each table's name value, under key ""
}

type lineKey struct {
	section string
	index   int
	key     string
}

func indexLines(data []byte) lineIndex {
	li := lineIndex{at: map[lineKey]int{}, names: map[lineKey]string{}}
	section, counts := "", map[string]int{}
	for n, l := range strings.Split(string(data), "\n") {
		l = strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(l, "#"):
		case strings.HasPrefix(l, "[["):
			end := strings.Index(l, "]]")
			if end < 0 {
				continue
			}
			section = strings.TrimSpace(l[2:end])
			counts[section]++
			li.at[lineKey{section, counts[section] - 1, ""}] = n + 1
		case strings.HasPrefix(l, "["):
			end := strings.IndexByte(l, ']')
			if end < 0 {
				continue
			}
			section = strings.TrimSpace(l[1:end])
			li.at[lineKey{section, 0, ""}] = n + 1
		default:
			k, v, ok := strings.Cut(l, "=")
			if !ok {
				continue
			}
			k = strings.Trim(strings.TrimSpace(k), `"`)
			idx := max(counts[section]-1, 0)
			if _, seen := li.at[lineKey{section, idx, k}]; !seen {
				li.at[lineKey{section, idx, k}] = n + 1
			}
			if k == "name" && section != "" {
				v, _, _ = strings.Cut(v, "#")
				li.names[lineKey{section, idx, ""}] = strings.Trim(strings.TrimSpace(v), `"`)
			}
		}
	}
	return li
}

// line returns the line of key in the index-th table of section, else
// that table's header line, else 0.
func (li lineIndex) line(section string, index int, key string) int {
	if n, ok := li.at[lineKey{section, index, key}]; ok {
		return n
	}
	return li.at[lineKey{section, index, ""}]
}

// first returns the first line on which key is set in any table of
// section (for keys the decoder reports without a table index).
func (li lineIndex) first(section, key string) int {
	best := 0
	for k, n := range li.at {
		if k.section == section && k.key == key && (best == 0 || n < best) {
			best = n
		}
	}
	return best
}

// where names the table of section that holds line (`partition "gpu"`),
// or "" at the top level.
func (li lineIndex) where(section string, line int) string {
	if section == "" {
		return ""
	}
	idx, best := -1, 0
	for k, n := range li.at {
		if k.section == section && k.key == "" && n <= line && n > best {
			idx, best = k.index, n
		}
	}
	if idx < 0 {
		return ""
	}
	if name := li.names[lineKey{section, idx, ""}]; name != "" {
		return fmt.Sprintf("%s %q", section, name)
	}
	return fmt.Sprintf("%s %d", section, idx+1)
}
