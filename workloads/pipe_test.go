package workloads

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// writeTrace writes tr's jobs as an SWF file, gzip-compressed if gz.
func writeTrace(t *testing.T, tr *Trace, gz bool) string {
	t.Helper()
	var b bytes.Buffer
	if err := WriteSWF(&b, &tr.Header, tr.Jobs); err != nil {
		t.Fatal(err)
	}
	data := b.Bytes()
	name := "t.swf"
	if gz {
		var z bytes.Buffer
		zw := gzip.NewWriter(&z)
		zw.Write(data)
		zw.Close()
		data, name = z.Bytes(), "t.swf.gz"
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// drain reads every job from p.
func drain(t *testing.T, p *Pipe) ([]Job, error) {
	t.Helper()
	var jobs []Job
	for {
		j, err := p.Next()
		if err == io.EOF {
			return jobs, nil
		}
		if err != nil {
			return jobs, err
		}
		jobs = append(jobs, j)
	}
}

// A pipe hands over exactly the jobs Load returns, in the same order,
// with the same final report, plain or gzip, across several batches.
func TestPipeMatchesLoad(t *testing.T) {
	gen, err := Lublin(LublinConfig{Jobs: 3*pipeBatchJobs + 123, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	for _, gz := range []bool{false, true} {
		path := writeTrace(t, gen, gz)
		want, err := LoadFile(path, Options{})
		if err != nil {
			t.Fatal(err)
		}
		p, ok, err := OpenPipe(path, Options{})
		if err != nil || !ok {
			t.Fatalf("OpenPipe: %v %v", ok, err)
		}
		if p.Trace.MachineProcs != want.MachineProcs {
			t.Errorf("machine %d before the read, want %d", p.Trace.MachineProcs, want.MachineProcs)
		}
		got, err := drain(t, p)
		p.Close()
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want.Jobs) {
			t.Fatalf("gz=%v: %d jobs, want %d", gz, len(got), len(want.Jobs))
		}
		for i := range got {
			if got[i] != want.Jobs[i] {
				t.Fatalf("gz=%v: job %d = %+v, want %+v", gz, i, got[i], want.Jobs[i])
			}
		}
		if p.Trace.Report.Kept != want.Report.Kept || p.Trace.Report.Lines != want.Report.Lines || p.Trace.Report.Dropped != want.Report.Dropped {
			t.Errorf("gz=%v: report %+v, want %+v", gz, p.Trace.Report, want.Report)
		}
	}
}

// The first submit out of order stops the pipe with ErrUnsorted naming the
// line; a bad record reaches the consumer as the reader's error; a trace
// without a machine size is left to Load; closing early stops the
// goroutines.
func TestPipeErrorsAndClose(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	rec := func(id, submit int) string {
		return itoa(id) + " " + itoa(submit) + " 0 10 1 -1 -1 1 20 -1 1 1 1 1 1 1 -1 -1\n"
	}
	unsorted := write("u.swf", "; MaxProcs: 4\n"+rec(1, 0)+rec(2, 50)+rec(3, 40))
	p, ok, err := OpenPipe(unsorted, Options{})
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	jobs, err := drain(t, p)
	p.Close()
	if !errors.Is(err, ErrUnsorted) || !strings.Contains(err.Error(), "u.swf:4: field 2 (submit_time)") || len(jobs) != 2 {
		t.Fatalf("unsorted: %d jobs, err %v", len(jobs), err)
	}

	bad := write("b.swf", "; MaxProcs: 4\n"+rec(1, 0)+"2 5 0 1O 1 -1 -1 1 20 -1 1 1 1 1 1 1 -1 -1\n")
	p, _, err = OpenPipe(bad, Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = drain(t, p)
	p.Close()
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Line != 3 || pe.Field != 4 {
		t.Fatalf("bad record: %v", err)
	}

	if _, ok, err := OpenPipe(write("n.swf", rec(1, 0)), Options{}); ok || err != nil {
		t.Fatalf("no machine size: ok %v err %v, want a fallback", ok, err)
	}
	if _, _, err := OpenPipe(write("e.swf", ""), Options{}); err == nil {
		t.Fatal("empty file: no error")
	}

	gen, err := Lublin(LublinConfig{Jobs: 10 * pipeBatchJobs, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	path := writeTrace(t, gen, true)
	before := runtime.NumGoroutine()
	for range 5 {
		p, _, err := OpenPipe(path, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.Next(); err != nil {
			t.Fatal(err)
		}
		p.Close()
		p.Close() // idempotent
	}
	for end := time.Now().Add(5 * time.Second); runtime.NumGoroutine() > before && time.Now().Before(end); {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines left running after Close (%d before)", n, before)
	}
}
