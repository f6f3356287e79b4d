package netmodel

import "iter"

// jobIndex maps a job id to its index in Network.jobs. Ids are mostly
// small and dense (the engine passes its job slots), so those from 0 to
// denseIDs are kept in a slice (index+1, 0: absent); others, which the
// API allows, go to a map made on first need. A map for all of them cost
// 4–5 % of a replay with interference (a lookup in Add, Remove and every
// Share, an insert and a delete per job).
type jobIndex struct {
	dense []int32 // by id: index+1, or 0
	other map[int32]int32
	n     int // ids held
}

// denseIDs bounds the ids kept in the slice (4 bytes each).
const denseIDs = 1 << 22

func (x *jobIndex) get(id int32) (int32, bool) {
	if uint32(id) < uint32(len(x.dense)) {
		k := x.dense[id]
		return k - 1, k != 0
	}
	if x.other == nil {
		return 0, false
	}
	k, ok := x.other[id]
	return k, ok
}

// set records that job id is at index k; id must not be held.
func (x *jobIndex) set(id, k int32) {
	x.n++
	if id >= 0 && id < denseIDs {
		if int(id) >= len(x.dense) {
			x.grow(id)
		}
		x.dense[id] = k + 1
		return
	}
	if x.other == nil {
		x.other = map[int32]int32{}
	}
	x.other[id] = k
}

// grow makes the slice long enough for id (out of the hot path).
//
//go:noinline
func (x *jobIndex) grow(id int32) {
	n := max(2*len(x.dense), int(id)+1, 64)
	n = min(n, denseIDs)
	d := make([]int32, n)
	copy(d, x.dense)
	x.dense = d
}

// del forgets job id, which must be held.
func (x *jobIndex) del(id int32) {
	x.n--
	if uint32(id) < uint32(len(x.dense)) {
		x.dense[id] = 0
		return
	}
	delete(x.other, id)
}

// len is the number of ids held.
func (x *jobIndex) len() int { return x.n }

// all yields every held id and its index: the dense ones in id order,
// then the others in no particular order (tests and checks).
func (x *jobIndex) all() iter.Seq2[int32, int32] {
	return func(yield func(int32, int32) bool) {
		for id, k := range x.dense {
			if k != 0 && !yield(int32(id), k-1) {
				return
			}
		}
		for id, k := range x.other {
			if !yield(id, k) {
				return
			}
		}
	}
}
