// Package contracts models economic demand response: the centre earns money
// by using less energy when electricity is expensive, so it stretches jobs
// and pays their users. It holds the contract model, an exact optimiser with
// ironing, the IR/IC verifier, price importers and settlement in decimal.
// Pure: I/O only through io.Reader and io.Writer.
//
// Files: cost.go (Cost, Costs registry), optimal.go (Type, SlotOptions,
// Bundle, Menu, Optimal, Iron), verify.go (Verify, Report, Choose),
// report.go (text and JSON reports), continuum.go (densities, Discretize),
// settle.go (Cents, Settle), prices.go and importers.go (Series, readers),
// illustrative.go (the default, made-up day). Read Example first.
//
// # Model and units
//
// Types θ_1 < … < θ_n (dimensionless; low θ = flexible job) with weights m_i
// (counts or probabilities), M_i = m_1 + … + m_i. A user of type θ taking
// bundle (r, Δt) gets u = r − θ·c(Δt), c convex with c(0) = 0, Δt in percent
// (Quadratic: c = c0·Δt²). Type i run at level f'_i instead of fmax for a
// slot of ts seconds on n_i processors saves Δe_i = n_i·(p(fmax) − p(f'_i))·ts
// joules (p in W per processor) and runs Δt_i = 100·(t(f'_i) − t(fmax))/t(fmax)
// percent longer, t(f)/t(fmax) being powercap.Level.Scale. The operator gets
// Σ m_i·(φ·γ·Δe_i/3.6e9 − r_i): φ the slot's price in currency per MWh, γ the
// PUE, 3.6e9 J per MWh. Rewards are currency (the price's), floats in the
// optimiser; Settle rounds each part to cents and sums decimals, never in the
// event loop.
//
// Constraints: IR r_i − θ_i·c(Δt_i) ≥ 0; IC r_i − θ_i·c(Δt_i) ≥ r_j − θ_i·c(Δt_j)
// for all i, j; fmin ≤ f'_i ≤ fmax (the level grid); Δt_1 ≥ … ≥ Δt_n.
//
// # Derivation of the virtual costs
//
// With single crossing (∂u/∂θ = −c(Δt) falls in Δt), IC holds iff Δt is
// non-increasing in θ and the adjacent ICs hold; IR then only binds
// for the least flexible type n (every other type can mimic n and has a lower
// θ). At the optimum these bind:
//
//	r_n     = θ_n·c_n
//	r_{i−1} = r_i + θ_{i−1}·(c_{i−1} − c_i)      (c_i = c(Δt_i))
//
// so r_i = θ_n·c_n + Σ_{k=i}^{n−1} θ_k·(c_k − c_{k+1}). In r_i the coefficient
// of c_k is θ_i for k = i, and θ_k − θ_{k−1} for i < k ≤ n. Summing with the
// weights m_i,
//
//	Σ_i m_i·r_i = Σ_k w_k·c_k,   w_k = m_k·θ_k + M_{k−1}·(θ_k − θ_{k−1}),
//
// and the operator maximises Σ_k [m_k·φγΔe_k − w_k·c(Δt_k)] subject to Δt
// non-increasing. Per unit of mass the virtual type is ψ_k = w_k/m_k =
// θ_k + (θ_k − θ_{k−1})·M_{k−1}/m_k: the user's own cost plus the rent paid to
// every more flexible type below it. (The mirror of Myerson's θ − (1−F)/f,
// because here the rent flows to low θ and the top type is held to zero.)
// With a continuum of types of density f and CDF F this tends to
// ψ(θ) = θ + F(θ)/f(θ) (VirtualContinuous).
//
// # Solving it exactly
//
// Each type picks one level from its own discrete grid, so the problem is a
// separable maximisation under a chain constraint. Optimal solves it exactly
// by dynamic programming from the last type (best[i][k] = value of types
// i..n when type i takes level k; O(n·L²)), for any mix of level tables and
// processor counts. Rewards then come from the binding constraints, and the
// menu goes through Verify before it is returned.
//
// Ironing. When ψ is not non-decreasing (a rare type between common ones,
// or a density breaking the hazard-rate condition), the pointwise choices
// would violate monotonicity. Iron pools adjacent violators (weighted by m)
// into ψ̄, the slopes of the convex minorant of the cumulative Σ w. Writing
// D_k = Σ_{j≤k}(w_j − m_j·ψ̄_j) ≥ 0 (zero at pool ends), for any monotone Δt
// Σ w_k c_k = Σ m_k ψ̄_k c_k + Σ D_k (c_k − c_{k+1}) ≥ Σ m_k ψ̄_k c_k, with
// equality when Δt is constant on pools; so when all types share one level
// table and processor count, picking each pool's level pointwise with ψ̄
// is optimal, and pooled types bunch on one bundle. The dynamic programme
// finds the same optimum (TestIroningMatchesChain) and also covers mixed
// tables, where textbook ironing does not apply. Menu.Virtual reports ψ̄
// and Menu.Pool the bunching. A type with m_i = 0 but w_i > 0 (ψ = +∞)
// pools with the types after it.
//
// Ties. Among equally good levels the DP keeps the smaller Δt. A user
// indifferent between its own bundle and another takes its own (in the
// issue's worked example type 1 gets 750 on bundles 1 and 2 and takes 1);
// otherwise ties go to the lowest index, and a user takes a bundle worth
// exactly 0 (the top type's binding IR). Utilities within Tol (1e-6) tie.
//
// # Prices
//
// ReadPrices detects and reads: generic "time,price" CSV (gocsv; hour
// index or zoned RFC 3339), PJM Data Miner 2 hourly LMP exports (UTC key,
// current rows only, --price-node for multi-pnode files), epftoolbox files (local,
// DST-normalised wall clock) and Energi Data Service Elspot exports
// (semicolon, decimal comma, newest first, HourUTC, EUR). Duplicated hours
// and bad timestamps are errors naming file:line[:column]; gaps are an error
// naming the first gap unless AllowGaps; negative prices are kept and
// counted in Notes. IllustrativeDay is a made-up default day, not real data.
//
// # Use from a simulation
//
// Once per slot: build one Type per job class (θ, m, processors, Levels),
// call Optimal with the slot's price, apply Bundle.Level to the jobs whose
// users accept (Choose), record a Payment per accepted job, and Settle at the
// end of the run.
package contracts
