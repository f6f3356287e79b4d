package powercap

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"strconv"
	"strings"
)

// iconoclastTime matches 3m06s359112us, 1s952122us, 0s0us: optional
// minutes, seconds, then an unpadded integer count of microseconds.
var iconoclastTime = regexp.MustCompile(`^(?:(\d+)m)?(\d+)s(\d+)us$`)

// iconoclastName matches the run field <run>-<F>GHz.out.
var iconoclastName = regexp.MustCompile(`^(.+)-(\d+(?:\.\d+)?)GHz\.out$`)

// ReadIconoclast reads the Iconoclast RAPL frequency sweep
// (csrhau/Iconoclast Tools/Power/data_old/run1/camelot/data.csv). It is not a
// regular CSV: the first line is "data.csv," and each other line is
//
//	<run>-<F>GHz.out,<Real> <Sys> <User> <PKG>J <PP0>J <PKGpower>W
//
// with times like 3m06s359112us. Each run becomes a Point at Freq = F with
// Runtime = Real and Power = PKG energy / Real. Runs named "sleep" are the
// idle baseline: they are not points; their mean power becomes the idle
// power (Dataset.IdleW) of every app in the file.
func ReadIconoclast(fsys fs.FS, name string) (Dataset, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return Dataset{}, &FileError{File: name, Err: err}
	}
	defer f.Close()
	ds := Dataset{Source: "Iconoclast RAPL frequency sweep " + name}
	var idle []float64
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || (line == 1 && !strings.Contains(text, "GHz.out")) {
			continue // the "data.csv," title line
		}
		run, p, err := iconoclastLine(text, name, line)
		if err != nil {
			return Dataset{}, err
		}
		if run == "sleep" {
			idle = append(idle, p.Power)
			continue
		}
		ds.Points = append(ds.Points, p)
	}
	if err := sc.Err(); err != nil {
		return Dataset{}, &FileError{File: name, Err: err}
	}
	if len(ds.Points) == 0 {
		return Dataset{}, &FileError{File: name, Err: errors.New("no application runs")}
	}
	if len(idle) > 0 {
		ds.IdleW = map[string]float64{}
		for _, p := range ds.Points {
			ds.IdleW[p.App] = mean(idle)
		}
	}
	sortPoints(ds.Points)
	return ds, nil
}

func iconoclastLine(text, file string, line int) (string, Point, error) {
	head, rest, ok := strings.Cut(text, ",")
	m := iconoclastName.FindStringSubmatch(head)
	if !ok || m == nil {
		return "", Point{}, &FileError{file, line, 1, "run", fmt.Errorf("%q is not <run>-<F>GHz.out", head)}
	}
	fields := strings.Fields(rest)
	if len(fields) != 6 {
		return "", Point{}, &FileError{file, line, 2, "", fmt.Errorf("%d values, want 6 (real sys user PKG_J PP0_J PKG_W)", len(fields))}
	}
	p := Point{App: m[1], File: file, Line: line}
	p.Freq, _ = strconv.ParseFloat(m[2], 64)
	var err error
	if p.Runtime, err = duration(fields[0]); err != nil {
		return "", Point{}, &FileError{file, line, 2, "real time", err}
	}
	pkg, err := parseNum(strings.TrimSuffix(fields[3], "J"), file, line, 2, "PKG energy")
	if err != nil {
		return "", Point{}, err
	}
	if !(p.Runtime > 0) {
		return "", Point{}, &FileError{file, line, 2, "real time", errors.New("not positive")}
	}
	p.Power = pkg / p.Runtime
	return m[1], p, nil
}

// duration parses 3m06s359112us into seconds.
func duration(s string) (float64, error) {
	m := iconoclastTime.FindStringSubmatch(s)
	if m == nil {
		return 0, fmt.Errorf("%q is not [<min>m]<s>s<µs>us", s)
	}
	var mins int
	if m[1] != "" {
		mins, _ = strconv.Atoi(m[1])
	}
	sec, err1 := strconv.Atoi(m[2])
	us, err2 := strconv.Atoi(m[3])
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("%q: number out of range", s)
	}
	return float64(mins*60+sec) + float64(us)/1e6, nil
}
