// Package nodepower models the power of a whole node as linear in its load
// per P-state, the Idle:1Core:AllCores form of SimGrid's energy plugin as
// calibrated on Grid'5000's taurus nodes (Heinrich 2019, thesis §8.2, in
// ../shared/seeds/000_*.txt around line 1490–1535):
//
//	P(f, u) = P_idle                              when no core is busy (u = 0)
//	P(f, u) = P_static(f) + u·(P_all(f) − P_static(f))   when a fraction u of the cores is busy
//
// P_idle is measured on its own (a node with nothing to do enters C-states
// that the linear model's intercept P_static does not describe). Per P-state
// the line through the measured loads gives P_static and P_all; where only
// the all-cores point was measured, P_static is taken as P_idle, the
// conservative substitution the thesis itself makes (§8.2.2). Across
// P-states P_all(f) and P_static(f) are fitted with powercap's regressions
// (cubic by default), so the model answers at frequencies between the
// measured ones and says how well it fits (R², RMSE, leave-one-out RMSE).
//
// Input is the long CSV node,pstate_ghz,active_cores,total_cores,app,watts
// (one measurement a row; active_cores 0 is an idle measurement). Files:
// read.go (the CSV reader, file:line:column errors), model.go (Fit and
// Model.Power). Pure but for Read's io.Reader; units W, GHz.
package nodepower
