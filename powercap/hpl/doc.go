// Package hpl is the analytic time and energy model of a bulk-synchronous
// HPL (High-Performance Linpack) run (issue 17), from Cornebize et al.
// 2019 (seed 004, lines 72–74):
//
//	T(N) ≈ (2/3·N³ + 2·N²) / (P·Q·w) + c·(P+Q)·N²
//
// with P×Q processes, w the flop rate of one process and c the cost of the
// communication term, which the paper writes Θ((P+Q)·N²) and calls very
// difficult to predict: c is a constant to fit to one measured run. The
// compute term runs at the pace of the slowest node (the paper's §6.3,
// lines 269–278: a few slow nodes cost Dahu about 10 % of its HPL
// performance) and stretches with the runtime scale of a frequency or a
// power cap; the communication term does not. Energy is the nodes' busy
// power over the whole run: ranks waiting at a barrier busy-wait.
//
// Dahu is the worked example (Example, docs/variability.md).
package hpl
