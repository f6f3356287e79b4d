package workloads

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

func itoa(i int) string { return strconv.Itoa(i) }

func fmtInts(v []int64) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.FormatInt(x, 10)
	}
	return strings.Join(s, " ")
}

func fmtSscan(s string, f *float64) (int, error) { return fmt.Sscan(s, f) }

func bytesReader(b []byte) *bytes.Reader { return bytes.NewReader(b) }
