package powercap

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strconv"
	"strings"
)

// PCM column names used by ReadPCMSweep (row 2 of the two header rows).
const (
	pcmTime   = "Time"
	pcmFreq   = "CFREQ"
	pcmEnergy = "Proc Energy (Joules)"
)

// ReadPCMSweep reads Intel PCM power-cap sweeps laid out as
// <app>/pcm_<app>_<cap>.csv (zzheng33/power GPGPU/data/cpu_performance/big):
// name may be the directory of app directories, one app directory, or one
// file. Each file is one run at one cap and becomes one Point:
//
//	Runtime = last − first Time stamp (HH:MM:SS.mmm, same day)
//	Power   = Σ Proc Energy (per-interval joules) / Runtime
//	Freq    = mean CFREQ (mean core frequency, GHz)
//
// The app is the file name between "pcm_" and the last "_"; the cap is the
// number after it.
func ReadPCMSweep(fsys fs.FS, name string) (Dataset, error) {
	files, err := walk(fsys, name, func(b string) bool {
		return strings.HasPrefix(b, "pcm_") && strings.HasSuffix(b, ".csv")
	})
	if err != nil {
		return Dataset{}, err
	}
	if len(files) == 0 {
		return Dataset{}, &FileError{File: name, Err: errors.New("no pcm_<app>_<cap>.csv files")}
	}
	ds := Dataset{Source: "Intel PCM cap sweep " + name}
	for _, f := range files {
		p, err := readPCMFile(fsys, f)
		if err != nil {
			return Dataset{}, err
		}
		ds.Points = append(ds.Points, p)
	}
	sortPoints(ds.Points)
	return ds, nil
}

func readPCMFile(fsys fs.FS, name string) (Point, error) {
	stem := strings.TrimSuffix(strings.TrimPrefix(path.Base(name), "pcm_"), ".csv")
	cut := strings.LastIndexByte(stem, '_')
	if cut <= 0 {
		return Point{}, &FileError{File: name, Err: errors.New("file name is not pcm_<app>_<cap>.csv")}
	}
	p := Point{App: stem[:cut], File: name, Line: 3}
	capW, err := strconv.ParseFloat(stem[cut+1:], 64)
	if err != nil || !(capW > 0) {
		return Point{}, &FileError{File: name, Err: fmt.Errorf("cap %q in the file name is not a positive number", stem[cut+1:])}
	}
	p.Cap = capW
	recs, err := readCSV(fsys, name)
	if err != nil {
		return Point{}, err
	}
	if len(recs) < 4 {
		return Point{}, &FileError{File: name, Err: fmt.Errorf("%d lines: want two header rows and at least two samples", len(recs))}
	}
	idx, err := columns(name, 2, recs[1], pcmTime, pcmFreq, pcmEnergy)
	if err != nil {
		return Point{}, err
	}
	var first, last, energy, fsum float64
	for i, rec := range recs[2:] {
		line := i + 3
		if len(rec) != len(recs[1]) {
			return Point{}, &FileError{File: name, Line: line, Err: fmt.Errorf("%d fields, header has %d", len(rec), len(recs[1]))}
		}
		t, err := clock(rec[idx[0]])
		if err != nil {
			return Point{}, &FileError{name, line, idx[0] + 1, pcmTime, err}
		}
		if i == 0 {
			first = t
		} else if t < last {
			return Point{}, &FileError{name, line, idx[0] + 1, pcmTime, fmt.Errorf("%s goes back in time", rec[idx[0]])}
		}
		last = t
		f, err := parseNum(rec[idx[1]], name, line, idx[1]+1, pcmFreq)
		if err != nil {
			return Point{}, err
		}
		e, err := parseNum(rec[idx[2]], name, line, idx[2]+1, pcmEnergy)
		if err != nil {
			return Point{}, err
		}
		fsum += f
		energy += e
	}
	p.Runtime = last - first
	if !(p.Runtime > 0) {
		return Point{}, &FileError{File: name, Err: errors.New("runtime (last − first Time) is not positive")}
	}
	p.Power = energy / p.Runtime
	p.Freq = fsum / float64(len(recs)-2)
	return p, nil
}

// clock parses HH:MM:SS.mmm into seconds since midnight.
func clock(s string) (float64, error) {
	parts := strings.Split(s, ":")
	if len(parts) != 3 {
		return 0, fmt.Errorf("%q is not HH:MM:SS.mmm", s)
	}
	h, err1 := strconv.Atoi(parts[0])
	m, err2 := strconv.Atoi(parts[1])
	sec, err3 := strconv.ParseFloat(parts[2], 64)
	if err1 != nil || err2 != nil || err3 != nil || h < 0 || h > 23 || m < 0 || m > 59 || !(sec >= 0 && sec < 61) {
		return 0, fmt.Errorf("%q is not HH:MM:SS.mmm", s)
	}
	return float64(h*3600+m*60) + sec, nil
}
