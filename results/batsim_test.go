package results

import (
	"bytes"
	"testing"
)

// Hand-computed: 100 W from t=0 to 10 (1000 J), 300 W to 15 (1500 J more),
// then idle at 50 W; one job runs from 0 to 15.
func TestBatsimEnergy(t *testing.T) {
	power := "time,power_w,limit_w,busy_procs,running_jobs\n" +
		"0,100.000,inf,4,1\n" +
		"10,300.000,inf,4,1\n" +
		"15,50.000,inf,0,0\n"
	var b bytes.Buffer
	if err := BatsimEnergyFromPowerCSV(&b, []byte(power)); err != nil {
		t.Fatal(err)
	}
	want := BatsimEnergyHeader +
		"0,0.000,s,50.000,NA\n" +
		"10,1000.000,p,50.000,100.000\n" +
		"15,2500.000,e,50.000,300.000\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	if err := BatsimEnergyFromPowerCSV(&b, []byte("h\n1,2\n")); err == nil {
		t.Error("short row accepted")
	}
}
