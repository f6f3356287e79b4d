package governor

import (
	"testing"

	"drsim/scheduler"
)

// Every registry entry builds from a zero GovernorConfig and is named by
// its key; dr with malleable jobs is DR-Scale; an unknown name fails with
// the message the CLI has always printed.
func TestRegistries(t *testing.T) {
	for _, r := range []scheduler.GovernorRegistry{DVFS, Caps} {
		for name := range r {
			g, err := r.New(name, scheduler.GovernorConfig{})
			if err != nil || g.Name() != name {
				t.Errorf("%s: %v, %v", name, g, err)
			}
		}
	}
	g, _ := Caps.New("dr", scheduler.GovernorConfig{Malleable: func(int64) bool { return true }, ResizeCost: 7})
	if s, ok := g.(*DRScale); !ok || s.ResizeCost != 7 || s.Malleable == nil {
		t.Errorf("dr with malleable jobs: %#v", g)
	}
	_, err := DVFS.New("uniform", scheduler.GovernorConfig{})
	if want := `scheduler: unknown governor "uniform" (known: dr, performance, powersave)`; err == nil || err.Error() != want {
		t.Errorf("DVFS.New(uniform): %v, want %s", err, want)
	}
	for _, g := range []scheduler.Governor{&DR{}, &Uniform{}} {
		if _, ok := g.(scheduler.LimitLeveler); !ok {
			t.Errorf("%s: not a LimitLeveler (start levels by the limit)", g.Name())
		}
	}
	if _, ok := scheduler.Governor(&DRScale{}).(scheduler.LimitLeveler); ok {
		t.Error("DR-Scale is a LimitLeveler; the engine never treated it as one")
	}
}
