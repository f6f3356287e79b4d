package plot

import (
	"bytes"
	"math"
	"strings"
	"testing"
)

// With GPU steps the power figure stacks the GPU layer under the total:
// both legend entries appear, the SVG differs from the one without, and
// a non-finite GPU step is refused naming the series.
func TestPowerOverTimeGPULayer(t *testing.T) {
	in := fixturePower()
	var plain, stacked bytes.Buffer
	if err := PowerOverTime(&plain, in, Options{}); err != nil {
		t.Fatal(err)
	}
	for _, s := range in.Steps {
		in.GPU = append(in.GPU, Step{T: s.T, W: 0.4 * s.W})
	}
	if err := PowerOverTime(&stacked, in, Options{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Total (CPU, rest, GPU)", "GPU (lower layer)"} {
		if !strings.Contains(stacked.String(), want) || strings.Contains(plain.String(), want) {
			t.Errorf("legend %q: in stacked %v, in plain %v", want, strings.Contains(stacked.String(), want), strings.Contains(plain.String(), want))
		}
	}
	in.GPU[3].W = math.NaN()
	if err := PowerOverTime(&bytes.Buffer{}, in, Options{}); err == nil || !strings.Contains(err.Error(), "GPU") {
		t.Errorf("NaN GPU step: error %v", err)
	}
}
