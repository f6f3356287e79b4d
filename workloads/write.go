package workloads

import (
	"bufio"
	"io"
	"math"
	"strconv"
)

// WriteSWF writes h's pairs and notes as ";" comments, then one line per
// job with the 18 SWF fields. Integral values are written without a
// decimal point, others in the shortest form that reads back exactly, so
// the output round-trips through Reader. Procs and Estimate are not
// written: a reader derives them again.
func WriteSWF(w io.Writer, h *Header, jobs []Job) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	if h != nil {
		for _, kv := range h.Pairs {
			bw.WriteString("; " + kv.Key + ": " + kv.Value + "\n")
		}
		for _, n := range h.Notes {
			bw.WriteString(";   " + n + "\n") // indented: read back as a note
		}
	}
	buf := make([]byte, 0, 256)
	for i := range jobs {
		buf = appendJob(buf[:0], &jobs[i])
		if _, err := bw.Write(buf); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// appendJob formats j as one SWF line ending in '\n'.
func appendJob(b []byte, j *Job) []byte {
	b = strconv.AppendInt(b, j.ID, 10)
	b = appendNum(b, j.Submit)
	b = appendNum(b, j.Wait)
	b = appendNum(b, j.Run)
	b = appendInt(b, j.AllocProcs)
	b = appendNum(b, j.AvgCPU)
	b = appendNum(b, j.UsedMem)
	b = appendInt(b, j.ReqProcs)
	b = appendNum(b, j.ReqTime)
	b = appendNum(b, j.ReqMem)
	for _, v := range [...]int64{j.Status, j.User, j.Group, j.Exe, j.Queue, j.Partition, j.Preceding} {
		b = appendInt(b, v)
	}
	b = appendNum(b, j.Think)
	return append(b, '\n')
}

func appendInt(b []byte, v int64) []byte {
	return strconv.AppendInt(append(b, ' '), v, 10)
}

func appendNum(b []byte, f float64) []byte {
	b = append(b, ' ')
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return strconv.AppendInt(b, int64(f), 10)
	}
	return strconv.AppendFloat(b, f, 'f', -1, 64)
}
