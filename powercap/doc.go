// Package powercap models application power and runtime versus CPU frequency
// f (GHz) and RAPL package power cap P (W), fits those models to
// measurements, and turns them into the Level tables the simulator consumes.
// Units are W, s, GHz, J; the package is pure except LoadModels/LoadProfiles,
// which read model files.
//
// # Models
//
// A measured Profile carries, per knob, two least-squares regressions
// (fit.go, model.go):
//
//	freq: p(f) = a + b·f + c·f² + d·f³   (a: static part)   t(f) = α + β·f + γ·f²
//	cap:  p(P) = a + b·P + c·P² + d·P³                      t(P) = α·exp(β·P) + γ
//
// p is the mean power per processor ("processor" = the measured package:
// the whole RAPL-capped CPU of the PCM sweeps, the desktop package of the
// Iconoclast miniMD sweep); job energy is e = n·p(x)·t(x) on n processors.
// Models are not extrapolated: outside the measured range [x_min, x_max] they
// return the value at the nearest end (Table.Outside counts such Levels).
// Under a cap the power never exceeds the cap: a fit above P is clamped to P
// (Table.Clamped counts such Levels; Profile.Power applies the same rule).
//
// Jobs with no measured profile use Fallback, a CPU-boundness model
// t(f) = t(fmax)·(β·fmax/f + 1 − β) with p(f) = static + dynamic·f·V(f)²/(fmax·Vmax²),
// V linear from 0.80 V at 1.2 GHz to 1.10 V at 2.7 GHz, 40 W static and 80 W
// dynamic at fmax (fallback.go documents these round, unmeasured constants).
//
// # Tables
//
// The simulator sees only Tables (level.go): FreqTable(PStates) and
// CapTable(CapGrid) give ascending Levels {X, Power = p(X), Scale =
// t(X)/t(Xmax)}. The recorded SWF runtime is the runtime at fmax and
// uncapped; a job at setting X runs Scale times longer. Default P-states are
// 1.2–2.4 GHz every 0.2 GHz plus 2.7 GHz; ContinuousPStates approximates
// continuous DVFS with a 0.01 GHz grid; the default cap grid is 80–250 W every
// 10 W (the range of the measured sweeps).
//
// # Calibration
//
// Importers (registry Importers: generic, pcm-capsweep, ecp-cap, iconoclast)
// read measurements into Points; Calibrate fits each app and reports R²,
// RMSE, leave-one-out RMSE and residuals (Calibration.WriteReport,
// PlotCalibration). Polynomials are solved by QR in a centred, scaled
// variable; the exponential starts from a linearised fit, is refined by
// gonum's Nelder–Mead and polished by Levenberg–Marquardt. Input errors are
// *FileError naming file:line:column.
//
// # Model files
//
// One JSON file per app (SaveModel, DecodeModel, LoadModels), decoded
// strictly (unknown keys, wrong types and trailing data are errors):
//
//	{
//	  "schema": "drsim-powercap-model/1",
//	  "app": "lulesh",                 // name used by --app, --app-map
//	  "source": "…",                   // provenance, optional
//	  "idle_w": 6.2,                   // measured idle W per processor, optional
//	  "freq": {                        // optional; x in GHz
//	    "x_min": 0.84, "x_max": 3.17,  // measured range
//	    "power":   {"form": "cubic", "coef": [a, b, c, d], "n": 10, "r2": …, "rmse": …, "loo_rmse": …},  // or null
//	    "runtime": {"form": "quadratic", "coef": [α, β, γ], …}
//	  },
//	  "cap": {                         // optional; x in W; power cubic, runtime "exp" [α, β, γ]
//	    …
//	  },
//	  "boundness": {"beta": 0.5, "t_max_s": 1, "static_w": 40, "dynamic_w": 80,
//	                "f_min_ghz": 1.2, "f_max_ghz": 2.7, "v_min": 0.8, "v_max": 1.1}  // fallback only
//	}
//
// # Built-in profiles
//
// Builtin (builtin.go, generated) embeds fitted coefficients only, for the 13
// big-input apps of the zzheng33/power PCM cap sweeps (NPB bt cg ep ft is lu mg
// sp ua, LULESH, miniFE, XSBench, RSBench: a cap model and a frequency model
// with x = mean CFREQ) and Iconoclast miniMD (frequency model). Regenerate with
//
//	DRSIM_SHARED=/work/shared go test ./powercap -run TestRegenerateBuiltins -regen
//
// TestBuiltinMatchesFreshFit keeps the embedded numbers equal to a fresh fit.
//
// # Jobs to applications
//
// AppMaps (appmap.go) is the registry of --app-map rules: exe, user, mix and
// one:NAME. Every rule is a pure function of the spec, the job's fields and
// the seed.
//
// Solvers for choosing Levels under a power budget live in solve*.go and
// knapsack*.go; energy-to-solution predictors in ets*.go.
//
// Read Example_calibrate first.
package powercap

//go:generate sh -c "DRSIM_SHARED=${DRSIM_SHARED:-/work/shared} go test -run TestRegenerateBuiltins -regen"
