package machine

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"drsim/internal/slurmlex"
)

// parseGres reads a NodeName line's Gres= value:
// NAME[:TYPE][:no_consume][:COUNT[K|M|G|T]][(S:sockets)], comma
// separated. It returns the number of GPUs (name "gpu") and their types
// joined by "+"; other resources (mps, shard, …) are ignored. A gpu
// without a count is one GPU, as in Slurm.
func parseGres(v string) (gpus int, types string, err error) {
	var ts []string
	for _, item := range splitOutside(v, ',', '(', ')') {
		item, _, _ = strings.Cut(strings.TrimSpace(item), "(")
		f := strings.Split(item, ":")
		if f[0] == "" {
			return 0, "", fmt.Errorf("%q: empty resource name in %q", item, v)
		}
		if !strings.EqualFold(f[0], "gpu") {
			continue
		}
		f = slices.DeleteFunc(f[1:], func(s string) bool { return strings.EqualFold(s, "no_consume") })
		n, typ := 1, ""
		switch len(f) {
		case 0:
		case 1:
			if c, ok := gresCount(f[0]); ok {
				n = c
			} else {
				typ = f[0]
			}
		case 2:
			c, ok := gresCount(f[1])
			if !ok {
				return 0, "", fmt.Errorf("%q: count %q is not a number", item, f[1])
			}
			n, typ = c, f[0]
		default:
			return 0, "", fmt.Errorf("%q: want gpu[:TYPE][:COUNT]", item)
		}
		if gpus += n; gpus > 1<<16 {
			return 0, "", fmt.Errorf("%q: more than 65536 GPUs on a node", v)
		}
		if typ != "" && !slices.Contains(ts, typ) {
			ts = append(ts, typ)
		}
	}
	return gpus, strings.Join(ts, "+"), nil
}

// gresCount parses a GRES count with Slurm's K, M, G, T suffixes (1024s).
func gresCount(s string) (int, bool) {
	mult := 1
	if s != "" {
		switch s[len(s)-1] {
		case 'k', 'K':
			mult = 1 << 10
		case 'm', 'M':
			mult = 1 << 20
		case 'g', 'G':
			mult = 1 << 30
		case 't', 'T':
			mult = 1 << 40
		}
		if mult > 1 {
			s = s[:len(s)-1]
		}
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n > 1<<16/mult && n > 0 {
		return 0, false
	}
	return n * mult, true
}

// splitOutside splits s at sep outside open...close brackets.
func splitOutside(s string, sep, open, close byte) []string {
	var out []string
	depth, from := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case open:
			depth++
		case close:
			depth--
		case sep:
			if depth == 0 {
				out = append(out, s[from:i])
				from = i + 1
			}
		}
	}
	return append(out, s[from:])
}

// checkGresConf checks a gres.conf against the nodes of a slurm.conf:
// the GPUs its Name=gpu lines give a node (Count=, else the number of
// File= devices, else 1; lines without NodeName= apply to every node)
// must be the count the node's Gres= declares, when gres.conf names any
// GPU for it. slurm.conf stays the authority: gres.conf only catches a
// slurm.conf that disagrees with the hardware description beside it.
func checkGresConf(name string, data []byte, nodes []slurmNode) error {
	byName := make(map[string]int, len(nodes))
	for i, n := range nodes {
		byName[n.name] = i
	}
	got := make([]int, len(nodes))
	first := make([]pos, len(nodes))
	err := slurmlex.Scan(bytes.NewReader(data), name, func(l slurmlex.Line) error {
		at := pos{name, l.Num}
		if l.Include != "" || len(l.Pairs) == 0 {
			return slurmError(at, "", "", "want Key=Value (gres.conf Include is not read)")
		}
		res, _ := l.Get("Name", 0)
		if !strings.EqualFold(res, "gpu") {
			return nil // AutoDetect= lines, other resources
		}
		n := 1
		if c, ok := l.Get("Count", 0); ok {
			k, ok := gresCount(c)
			if !ok {
				return slurmError(at, "", "Count", "%q is not a count", c)
			}
			n = k
		} else if f, ok := l.Get("File", 0); ok {
			files, err := ExpandHostlist(f)
			if err != nil {
				return slurmError(at, "", "File", "%v", err)
			}
			n = len(files)
		}
		var idx []int
		if hl, ok := l.Get("NodeName", 0); ok {
			hosts, err := ExpandHostlist(hl)
			if err != nil {
				return slurmError(at, "", "NodeName", "%v", err)
			}
			for _, h := range hosts {
				if k, ok := byName[h]; ok { // nodes of another cluster are ignored, as by Slurm
					idx = append(idx, k)
				}
			}
		} else {
			for k := range nodes {
				if nodes[k].gpus > 0 {
					idx = append(idx, k)
				}
			}
		}
		for _, k := range idx {
			if first[k].file == "" {
				first[k] = at
			}
			got[k] += n
		}
		return nil
	})
	if err != nil {
		return err
	}
	for k, n := range nodes {
		if first[k].file != "" && got[k] != n.gpus {
			return slurmError(first[k], "", "Name", "node %s has %d GPUs here but %d in slurm.conf (%s: NodeName Gres=)", n.name, got[k], n.gpus, n.gresAt)
		}
	}
	return nil
}
