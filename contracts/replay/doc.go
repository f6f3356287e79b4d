// Package replay runs the contract simulation: a trace replayed twice
// through scheduler/sim, once without contracts (the baseline) and once
// with the users who accept a contract running at their contract's
// frequency, their runtimes stretched by the engine (Config.JobLevel). Each
// slot (default one hour) gets optimal menus from contracts.Optimal at that
// slot's price; the energy cost of each run is priced from its power time
// series. Money is float in the loop and decimal (contracts.Settle, Cents)
// only when the Result is assembled.
//
// It imports scheduler/sim (and through it reads trace and model files);
// the scheduler never imports contracts. Files: config.go (Config, the type
// rule), clock.go (trace time → price time), slots.go (slot grid, counts,
// menus, energy per slot), run.go (Run), output.go (tables, CSV, JSON).
// Read Example first.
//
// # Rules
//
// Types. Each job gets one type index i (θ_i = Config.Theta[i]) from a
// seeded SplitMix64 hash, so the assignment does not depend on job order:
// rule "dist" hashes (seed, job number) and draws i with probabilities
// Config.Probs (uniform when nil); rule "user" hashes (seed, user id, SWF
// field 12) instead, so all jobs of a user share a type (a job with user
// −1 falls back to its job number).
//
// Menus. Slot k covers trace time [T0 + k·S, T0 + (k+1)·S), T0 being the
// first submit moved back onto the price series' hour grid. A job's
// contract is decided when it is submitted (the engine fixes its level for
// its whole run), so it is offered the menus of its arrival slot. Menus are
// per (slot, application), because bundles are levels of one application's
// table: type i of app a has weight m_i = the number of counted jobs of
// that app and type, Procs = their mean processor count rounded (at least
// 1), and the app's Levels. Count "arrivals" (default) counts the jobs
// submitted in the slot; "active" counts the jobs submitted in the slot or
// running during it in the baseline run at the spec's governor (fmax by
// default) — the baseline is how running jobs are known before the
// contract run. A slot and app with no counted job has no menu and offers
// nothing.
//
// Acceptance. A user of type θ_i picks contracts.Choose(menu, θ_i, own=i):
// its utility-maximising bundle, which by IC is its own, and accepts it if
// its utility r − θ_i·c(Δt) is ≥ 0. A bundle with Δt = 0 is the top level
// with reward 0 and is not counted as a contract. An accepted job runs at
// the bundle's level for its whole run.
//
// Money. Per accepted job j: reward r, model saving Δe_j = n_j·(p(fmax) −
// p(f'))·S joules (its own processors and app), revenue φ_k·γ·Δe_j/3.6e9,
// user utility r − θ·c(Δt); each rounded to cents and summed in decimal, so
// every total is the exact sum of its slot rows. The energy cost of a run
// in slot k is E_k·γ·φ_k/3.6e9, E_k the integral of the cluster's power
// (idle included) over the slot, both runs integrated over the same horizon
// (to the later run's last event, the power after a run's end being its
// final idle draw). Saving = baseline cost − contract cost; operator profit
// = saving − rewards (realised), next to the model net (revenue − rewards).
//
// Prices. See clock.go: the trace instant is UnixStartTime + t; UTC series
// are read at that instant plus Offset; local-clock series (epftoolbox) at
// the trace's wall clock (TimeZoneString) plus Offset; with PriceZone the
// trace's wall clock is read as the same wall clock in PriceZone (e.g.
// HPC2N's Stockholm afternoon as PJM's Eastern afternoon). PriceStart moves
// the first slot to the first instant at or after PriceStart with the same
// hour of the week (a whole number of weeks), Offset adding to it. A slot
// of S ≤ 1 h has the price of the hour containing its start; a longer slot
// the mean of the hours starting in it.
package replay
