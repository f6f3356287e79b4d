package rapl

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"drsim/powercap"
)

// TestOutputFeedsCalibrate reads measure's CSV back with the importer that
// "drsim calibrate --format generic" uses: the file must need no editing.
func TestOutputFeedsCalibrate(t *testing.T) {
	r := newRig(t, defaultZone)
	r.cfg.Caps, r.cfg.Repeat = []float64{100.07, 150}, 2
	dir := t.TempDir()
	if _, err := MeasureFile(context.Background(), r.cfg, "miniMD", filepath.Join(dir, "meas.csv"), false); err != nil {
		t.Fatal(err)
	}
	ds, err := powercap.Importers["generic"](os.DirFS(dir), "meas.csv")
	if err != nil {
		t.Fatal(err)
	}
	want := []struct{ cap, power, runtime float64 }{{100, 85, 20}, {100, 85, 20}, {150, 1700.0 / 15, 15}, {150, 1700.0 / 15, 15}}
	if len(ds.Points) != len(want) {
		t.Fatalf("%d points, want %d", len(ds.Points), len(want))
	}
	for i, w := range want {
		if p := ds.Points[i]; p.App != "miniMD" || p.Cap != w.cap || p.Power != w.power || p.Runtime != w.runtime {
			t.Errorf("point %d = %+v, want cap %v, power %v, runtime %v", i, p, w.cap, w.power, w.runtime)
		}
	}
}
