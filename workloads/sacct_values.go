package workloads

import "bytes"

// Value parsers for sacct columns other than times and durations
// (sacct_time.go); none allocates unless it fails.

// parseJobID reads the numeric job id at the start of "123", "123_4" (an
// array element) or "123+0" (a heterogeneous job component).
func parseJobID(b []byte, _ bool) (int64, error) {
	i := 0
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	if i == 0 || i > 18 || i < len(b) && b[i] != '_' && b[i] != '+' {
		return 0, wrapf(ErrSyntax, "want a job id such as 123, 123_4 or 123+0")
	}
	v, _ := parseDigits(b[:i])
	return v, nil
}

// parseCount reads a non-negative integer; "" is -1 (unknown).
func parseCount(b []byte) (int64, error) {
	if len(b) == 0 {
		return -1, nil
	}
	v, ok := parseDigits(b)
	if !ok || v < 0 || b[0] == '+' {
		return 0, wrapf(ErrSyntax, "want a count")
	}
	return v, nil
}

// parseTRES reads cpu, node and GPU counts from a TRES list such as
// "billing=1,cpu=1,gres/gpu=2,mem=1000M,node=1"; -1 means absent. GPUs are
// the untyped gres/gpu count, else the sum of the typed gres/gpu:TYPE ones.
func parseTRES(b []byte, _ bool) (cpu, node, gpu int64, err error) {
	cpu, node, gpu = -1, -1, -1
	typed := int64(-1)
	for len(b) > 0 {
		item := b
		if i := bytes.IndexByte(b, ','); i >= 0 {
			item, b = b[:i], b[i+1:]
		} else {
			b = nil
		}
		eq := bytes.IndexByte(item, '=')
		if eq < 0 {
			return 0, 0, 0, wrapf(ErrSyntax, "TRES item %q is not key=value", item)
		}
		key, val := item[:eq], item[eq+1:]
		var dst *int64
		switch {
		case string(key) == "cpu":
			dst = &cpu
		case string(key) == "node":
			dst = &node
		case string(key) == "gres/gpu":
			dst = &gpu
		case bytes.HasPrefix(key, []byte("gres/gpu:")):
			v, err := parseCount(val)
			if err != nil || v < 0 {
				return 0, 0, 0, wrapf(ErrSyntax, "TRES %s=%q: want a count", key, val)
			}
			typed = max(typed, 0) + v
			continue
		default:
			continue
		}
		if *dst, err = parseCount(val); err != nil || *dst < 0 {
			return 0, 0, 0, wrapf(ErrSyntax, "TRES %s=%q: want a count", key, val)
		}
	}
	if gpu < 0 {
		gpu = typed
	}
	return cpu, node, gpu, nil
}

// parseEnergy reads joules: ConsumedEnergyRaw is an integer;
// ConsumedEnergy may carry a K, M, G or T suffix (powers of 1000). "" is 0.
func parseEnergy(b []byte) (float64, error) {
	if len(b) == 0 {
		return 0, nil
	}
	mul := 1.0
	switch b[len(b)-1] {
	case 'K':
		mul = 1e3
	case 'M':
		mul = 1e6
	case 'G':
		mul = 1e9
	case 'T':
		mul = 1e12
	}
	if mul != 1 {
		b = b[:len(b)-1]
	}
	v, k := parseFloat(b)
	if k != numOK || v < 0 {
		return 0, wrapf(ErrSyntax, "want joules")
	}
	return v * mul, nil
}
