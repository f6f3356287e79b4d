package workloads

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// FuzzSacctReader: Load of a sacct log never panics, fails with one line
// naming the file (a *ParseError names a column of the header), and keeps
// only usable jobs with submits from 0, sorted. Seeds: sacctLog and its
// variants, the sacct cases of testdata/bad and the fixtures.
func FuzzSacctReader(f *testing.F) {
	for _, s := range []string{
		sacctLog,
		strings.ReplaceAll(sacctLog, "\n", "|\r\n"),
		"JobIDRaw|Submit|End|Elapsed|Timelimit|ReqTRES\n1|2024-10-27T02:30:00|2024-10-27T02:40:00|00:10:00|5|cpu=2,gres/gpu:a=1\n",
		"JobID|Submit|Start|End|Timelimit|NCPUS\n3_[1-4]|2024-03-31T02:30:00|None|Unknown|UNLIMITED|4\n",
		"JobID|JobID\n",
	} {
		f.Add([]byte(s), uint8(0))
		f.Add([]byte(s), uint8(7))
	}
	for _, pat := range []string{"../testdata/bad/sacct-*/*.sacct*", "testdata/sacct/*.sacct*"} {
		m, _ := filepath.Glob(pat)
		for _, p := range m {
			if b, err := os.ReadFile(p); err == nil {
				f.Add(b, uint8(1))
			}
		}
	}
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte, flags uint8) {
		opt := Options{File: fuzzFile, Format: FormatSacct, Strict: flags&1 != 0, KeepUnstarted: flags&2 != 0}
		if flags&4 != 0 {
			opt.TZ = paris
		}
		tr, err := Load(bytes.NewReader(data), opt)
		if err != nil {
			checkErr(t, err)
			if pe, ok := errors.AsType[*ParseError](err); ok && (pe.Line < 1 || pe.Column < 1 || pe.Field > maxSacctCols+1) {
				t.Fatalf("ParseError at line %d column %d field %d: %v", pe.Line, pe.Column, pe.Field, err)
			}
			return
		}
		rep := &tr.Report
		if rep.Kept != int64(len(tr.Jobs)) || rep.Records != rep.Kept+rep.Dropped || rep.Kept == 0 {
			t.Fatalf("report counts: kept %d (returned %d), records %d, dropped %d", rep.Kept, len(tr.Jobs), rep.Records, rep.Dropped)
		}
		for i, j := range tr.Jobs {
			if j.Procs < 1 || j.Run < 0 || j.Run == 0 && !opt.KeepUnstarted || j.Submit < 0 || j.Line < 2 || j.Procs > tr.MachineProcs {
				t.Fatalf("kept job %+v on %d processors", j, tr.MachineProcs)
			}
			if i > 0 && j.Submit < tr.Jobs[i-1].Submit {
				t.Fatalf("unsorted: %v after %v", j.Submit, tr.Jobs[i-1].Submit)
			}
		}
		if tr.Jobs[0].Submit != 0 {
			t.Fatalf("first submit %v, want 0", tr.Jobs[0].Submit)
		}
	})
}
