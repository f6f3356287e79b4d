package netmodel

// Effective bandwidth of one message: B_eff(S) = plateau · f(S) · B_path,
// where B_path is the bottleneck link bandwidth of the routed path and f is
// piecewise linear in the message size S with breakpoints at MPI's eager
// limit and at the size where the rendezvous protocol reaches its plateau:
//
//	S ≤ 8 KiB (eager):          f rises linearly from 0.15 to 0.55
//	8 KiB < S < 128 KiB (rndv): f restarts at 0.45 (handshake) and rises to 0.90
//	128 KiB ≤ S < 1 MiB:        f rises from 0.90 to 1
//	S ≥ 1 MiB:                  f = 1, so S/T(S) → plateau · B_path
//
// Only the plateau is calibrated (Gemini: 6.75/9.375 = 0.72); the shape below
// it is the usual ping-pong curve with an eager/rendezvous dip, stated here
// rather than fitted.
const (
	EagerLimit   = 8 << 10
	rndvKnee     = 128 << 10
	plateauStart = 1 << 20
)

// effFraction is f(S) above.
func effFraction(s float64) float64 {
	lerp := func(x0, y0, x1, y1 float64) float64 { return y0 + (y1-y0)*(s-x0)/(x1-x0) }
	switch {
	case s <= 0:
		return 0.15
	case s <= EagerLimit:
		return lerp(0, 0.15, EagerLimit, 0.55)
	case s < rndvKnee:
		return lerp(EagerLimit, 0.45, rndvKnee, 0.90)
	case s < plateauStart:
		return lerp(rndvKnee, 0.90, plateauStart, 1)
	}
	return 1
}

// EffBandwidth is B_eff(S) in bytes/s between distinct nodes a and b.
func (t *Topology) EffBandwidth(a, b int32, size float64) float64 {
	_, bw := t.shape.path(a, b)
	return t.plateau * effFraction(size) * bw
}

// P2P is the point-to-point time T(S) = 2·L_nic + h·L_hop + S/B_eff(S) in
// seconds for a message of size bytes from a to b on an idle network (0 when
// a == b).
func (t *Topology) P2P(a, b int32, size float64) float64 {
	if a == b {
		return 0
	}
	h, bw := t.shape.path(a, b)
	return 2*t.nicLat + float64(h)*t.hopLat + size/(t.plateau*effFraction(size)*bw)
}
