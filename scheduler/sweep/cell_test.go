package sweep

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"testing"

	"drsim/scheduler/sim"
)

// Resolve must agree with the defaults sim.Run applies (Result.Spec), or
// equal simulations would get different cell IDs.
func TestResolveMatchesSim(t *testing.T) {
	tr, err := sim.Load(sim.Spec{Jobs: 20})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []sim.Spec{
		{},
		{Jobs: 20, Policy: "fcfs", Seed: 7},
		{DVFS: "powersave", DRLimit: 0.6, DRSeed: 3, Order: "sef"},
	} {
		res, err := sim.Run(context.Background(), s, tr, sim.Outputs{})
		if err != nil {
			t.Fatal(err)
		}
		if got := Resolve(s); got != res.Spec {
			t.Errorf("Resolve(%+v) = %+v, sim.Run used %+v", s, got, res.Spec)
		}
	}
}

func TestCellID(t *testing.T) {
	// The canonical JSON of the zero Spec, written out by hand from sim.Spec's
	// documented defaults.
	const want = `{"procs_field":"req","estimate":"req","overrun":"kill","policy":"easy","order":"submit","pass":"instant",` +
		`"placement":"contiguous","seed":1,"dvfs":"performance","app_map":"mix","models":"builtin","dr_limit":0.8,"dr_duration":"2h-4h","dr_seed":1}`
	b, err := CanonicalJSON(sim.Spec{})
	if err != nil || string(b) != want {
		t.Fatalf("CanonicalJSON(Spec{}) = %s, %v\nwant %s", b, err, want)
	}
	h := sha256.Sum256([]byte(want))
	id, _ := CellID(sim.Spec{})
	if id != hex.EncodeToString(h[:])[:16] {
		t.Errorf("CellID = %s, want %s", id, hex.EncodeToString(h[:])[:16])
	}
	// Explicit defaults give the same cell.
	if id2, _ := CellID(sim.Spec{Policy: "easy", Seed: 1, DRSeed: 1}); id2 != id {
		t.Errorf("explicit defaults: ID %s, want %s", id2, id)
	}
	if id3, _ := CellID(sim.Spec{Seed: 2}); id3 == id {
		t.Error("seed 2 has the ID of seed 1")
	}
}
