package machine

import (
	"fmt"
	"strconv"
	"strings"
)

// ExpandHostlist expands a Slurm hostlist such as "gpu[01-04,07],login1"
// into host names, in the order written. Ranges keep the zero padding of
// their lower bound ("n[08-10]" is n08 n09 n10). Brackets may not nest,
// and a list may hold at most 1<<20 names.
func ExpandHostlist(s string) ([]string, error) {
	var out []string
	for _, item := range splitTop(s) {
		item = strings.TrimSpace(item)
		if item == "" {
			return nil, fmt.Errorf("empty host name in %q", s)
		}
		open := strings.IndexByte(item, '[')
		if open < 0 {
			if strings.ContainsAny(item, "]") {
				return nil, fmt.Errorf("unbalanced ']' in %q", item)
			}
			out = append(out, item)
			continue
		}
		closeAt := strings.IndexByte(item, ']')
		if closeAt < open || strings.Count(item, "[") != 1 || strings.Count(item, "]") != 1 {
			return nil, fmt.Errorf("bad brackets in %q (one [ranges] per name)", item)
		}
		prefix, body, suffix := item[:open], item[open+1:closeAt], item[closeAt+1:]
		for _, r := range strings.Split(body, ",") {
			lo, hi, isRange := strings.Cut(r, "-")
			a, err := strconv.Atoi(lo)
			if err != nil || a < 0 {
				return nil, fmt.Errorf("bad range %q in %q", r, item)
			}
			b := a
			if isRange {
				if b, err = strconv.Atoi(hi); err != nil || b < a {
					return nil, fmt.Errorf("bad range %q in %q", r, item)
				}
			}
			if len(out)+b-a+1 > 1<<20 {
				return nil, fmt.Errorf("hostlist %q names more than %d hosts", s, 1<<20)
			}
			for k := a; k <= b; k++ {
				out = append(out, fmt.Sprintf("%s%0*d%s", prefix, len(lo), k, suffix))
			}
		}
	}
	return out, nil
}

// splitTop splits s at the commas outside brackets.
func splitTop(s string) []string {
	var out []string
	depth, from := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '[':
			depth++
		case ']':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, s[from:i])
				from = i + 1
			}
		}
	}
	return append(out, s[from:])
}
