// Package netmodel is drsim's interconnect and communication performance
// model: topologies as graphs of nodes, switches/routers and directed links,
// deterministic routing, point-to-point and collective costs, and max-min
// fair sharing of link bandwidth among running jobs. Units: bytes, bytes/s,
// seconds (Spec files use GB/s and µs). Pure: no I/O beyond io.Reader/Writer.
//
// Files:
//
//	topology.go  Topology (node order, SwitchOf, GroupOf, Hops, Distance, Route, Span, Canonical) and the Topologies registry
//	torus.go     D-dimensional torus, dimension-order routing (hopper, mira); links moved to a translate (moveLinks), counted as walked (countFlows)
//	fattree.go   m-port n-tree, up/down routing with D-mod-k port choice (stampede)
//	dragonfly.go dragonfly with rows×cols all-to-all groups, minimal routing ≤ 5 hops (edison)
//	presets.go   Presets with the source of every number
//	spec.go      Spec, LoadSpec/LoadTopology (TOML or JSON, unknown keys are errors, file:line)
//	p2p.go       T(S) = 2·L_nic + h·L_hop + S/B_eff(S), B_eff piecewise linear in S
//	model.go     Model.CommTime/CommRatio: collectives priced on a placement
//	price.go     Price: a placement's Σ w·CommTime with its share-free parts worked out, for re-pricing by share
//	paths.go     PathCache: a simulation's node-pair paths and sampled rank pairs, for new rounds
//	apps.go      per-application patterns and communication fractions, RuntimeFactor
//	maxmin.go    progressive filling (MaxMin)
//	network.go   Network: incremental job-level max-min sharing, Share per job; AddJob's link cache by canonical placement
//	netcomp.go   the link-sharing graph's components, kept across adds (join) and removes (split)
//	netsolve.go  progressive filling of one component on its shared links
//	netskip.go   the adds and removes that provably move no other rate, solved without a fill
//	netslack.go  slack links (above every rate alone of their jobs), left out of fills and components
//	netshadow.go shadowed links (same jobs and flows as a listed link of no more bandwidth), left out too
//	netundo.go   a remove that finds its component as before the job's add takes the rates of then back, without a fill
//	info.go      Info for `drsim net info`; place.go, predict.go for `drsim net predict`
//
// How the simulator uses it. At a job start with placement nodes and profile
// app: Network.AddJob(id, nodes, pattern) returns the jobs whose bandwidth
// share changed; for each, the duration multiplier becomes
// RuntimeFactor(app.Fraction, computeScale, m.AppRatio(nodes, app, net.Share(id))).
// At a job end Network.Remove(id) does the same for the jobs it released.
//
// Approximations, stated once:
//   - Latency counts switch-to-switch hops h; a node's link to its switch is
//     in the NIC latency. Hop counts follow the deterministic routes, so
//     adaptive routing (Aries, Gemini) and its path spreading are not modelled.
//   - A communication round costs the mean, over a systematic sample of at
//     most Config.Samples rank pairs, of the pair's point-to-point time; the
//     mean stands in for the slowest pair. This makes CommRatio O(Samples·log P)
//     and allocation-free instead of O(P²).
//   - Contention between jobs uses job-level (coflow) max-min: a job's flows
//     share one rate. Contention inside a job is in its pattern's cost
//     (link-load bounds for all-to-all and halo), not in Network.
//   - Info's hop statistics are closed forms (tori: sum of ring means; fat
//     trees: pair counts per common level) or all router pairs (dragonflies,
//     a systematic sample of sources above 4,096 routers), never node pairs.
//   - The B_eff curve below the plateau is a stated shape, not fitted; only
//     the plateau (0.72 of the path peak, Gemini) is calibrated.
//
// Read Example for a placement comparison and a contended job.
package netmodel
