package scheduler

import "math"

// Certificate storage.
//
// A search's certificate (consreuse.go) is the parts it recorded itself
// and, when it started from a remembered answer (searchmemo.go), that
// answer's certificate with every deficit raised by the extra processors
// and the parts over by its lower bound left out. On a long, overloaded
// queue the remembered certificates run to hundreds of parts and most
// searches start from one, so copying them was most of the work and of
// the memory (KTH-SP2 under --dvfs powersave: 1.56 G parts copied against
// 116 M recorded). So the parts are stored once, each search's own in
// blockProfile.cert, and a certificate is a list of segments
// (blockProfile.segs), each a run of parts of one search with an addend
// to their deficits: a search that starts from an answer copies the
// answer's segments (a few: the answers it started from in turn), not
// their parts.
//
// Parts are shared between certificates, with different addends. The
// reuse walk lowers deficits by what the processors freed early add over
// each part (stands), which is the same for every certificate holding the
// part: a part is lowered once per pass, where it is first read, and
// marked with the pass (certIv.pass; parts recorded in a pass are marked
// with it, and need no lowering until the next). Every kept certificate
// that holds a part D may lift reads it in that pass, so each is lowered
// once per pass as its own copy was. Dropping parts that no longer block
// cannot be done in shared parts: the placement's certificate is then
// written out again as parts of its own (one segment). A certificate's
// segment list is its own, so that is done in place.

// certIv is one part of a placement's certificate: the profile's steps
// over [x, y) all had at least def processors fewer than the job needs,
// less the addend of the segment that holds it. pass is the last pass
// whose lowering it has had (see stands). A deficit is a job's size less
// a step's free processors, lowered once per pass while some kept
// certificate holds it blocking (by at most the processors freed early),
// so it stays within twice the machine's processors either side: an
// int32, which makes a part 24 bytes.
type certIv struct {
	x, y float64
	def  int32
	pass uint32
}

// certSeg is one segment of a certificate: parts cert[from:to] (never
// empty), their deficits raised by add.
type certSeg struct {
	from, to, add int32
}

// inheritCert appends to segs the certificate segs[from:to] with its
// deficits raised by add, without the parts ending at or before cut, and
// reports whether it left none out.
func (p *blockProfile) inheritCert(from, to int, add int, cut float64) (whole bool) {
	whole = true
	for s := from; s < to; s++ {
		sg := p.segs[s]
		if cut > math.Inf(-1) {
			ps := p.cert[sg.from:sg.to]
			if ps[len(ps)-1].y <= cut {
				whole = false
				continue
			}
			if k := sortSearchEnd(ps, cut); k > 0 {
				sg.from += int32(k)
				whole = false
			}
			cut = math.Inf(-1) // the parts from here on end after cut
		}
		sg.add += int32(add)
		p.segs = append(p.segs, sg)
	}
	return whole
}

// ownCert appends the parts a search recorded from part pf on, if any,
// as one more segment of the certificate being made.
func (p *blockProfile) ownCert(pf int) {
	if len(p.cert) > pf {
		p.segs = append(p.segs, certSeg{from: int32(pf), to: int32(len(p.cert))})
	}
}

// flatCert appends the parts of certificate segs[from:to] to dst, in time
// order, with their deficits raised by their segments' addends, and
// returns it.
func (p *blockProfile) flatCert(dst []certIv, from, to int) []certIv {
	for _, sg := range p.segs[from:to] {
		k := len(dst)
		dst = append(dst, p.cert[sg.from:sg.to]...)
		if sg.add != 0 {
			for x := range dst[k:] {
				dst[k+x].def += sg.add
			}
		}
	}
	return dst
}

// truncCert drops the parts from pf on and the segments from sf on (a
// search's certificate that is not kept; the memo must not point into
// them).
func (p *blockProfile) truncCert(pf, sf int) {
	p.cert, p.segs = p.cert[:pf], p.segs[:sf]
}

// clearCert drops every certificate.
func (p *blockProfile) clearCert() {
	p.cert, p.segs = p.cert[:0], p.segs[:0]
}

// compactCert keeps only the parts and segments the groups' certificates
// hold, once the parts or segments have grown past four times what the
// last compaction kept (plus 65,536), keeping shared parts shared
// and the groups' segments in their order. It clears the memo.
func (c *Conservative) compactCert() {
	rs, p := &c.rs, &c.bp
	if len(p.cert) > 4*rs.certKept+1<<16 || len(p.segs) > 4*rs.segsKept+1<<16 {
		c.compactCertNow()
	}
}

// compactCertNow is compactCert without its test.
func (c *Conservative) compactCertNow() {
	rs, p := &c.rs, &c.bp
	// live[k] > 0 for the parts some segment holds (a difference array
	// over the ranges), then live[k] is the part's new index.
	n := len(p.cert) + 1
	if cap(rs.live) < n {
		rs.live = make([]int32, n, 2*n)
	}
	live := rs.live[:n]
	clear(live)
	for _, gr := range rs.groups {
		for _, sg := range p.segs[gr.certFrom:gr.certTo] {
			live[sg.from]++
			live[sg.to]--
		}
	}
	w, run := 0, int32(0)
	for k := range p.cert {
		run += live[k]
		live[k] = -1
		if run > 0 {
			p.cert[w] = p.cert[k]
			live[k] = int32(w)
			w++
		}
	}
	p.cert = p.cert[:w]
	// The groups' segment lists are not in the order of the groups (a
	// group searched again has its new list at the end): written anew.
	sb := rs.sbuf[:0]
	for g := range rs.groups {
		gr := &rs.groups[g]
		from := len(sb)
		for _, sg := range p.segs[gr.certFrom:gr.certTo] {
			sb = append(sb, certSeg{from: live[sg.from], to: live[sg.to-1] + 1, add: sg.add})
		}
		gr.certFrom, gr.certTo = int32(from), int32(len(sb))
	}
	p.segs, rs.sbuf = sb, p.segs[:0]
	rs.certKept, rs.segsKept = len(p.cert), len(p.segs)
	p.ruled.clear()
}
