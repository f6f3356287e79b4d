// Code derived from Go's slices/zsortanyfunc.go (pdqsort), specialised to
// class indices ordered by a key (MCKP.order, MCKP.heavyFirst): the same
// algorithm, so the same result as slices.SortFunc with that order on
// every input, without an indirect call per comparison.

// Copyright 2022 The Go Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package powercap

import "math/bits"

// sortByKey is slices.SortFunc(x, func(a, b int32) int { return
// descending(key[a], key[b], a, b) }): largest key first, ties by index.
func sortByKey(x []int32, key []float64) {
	n := len(x)
	pdqsortByKey(x, 0, n, bits.Len(uint(n)), key)
}

func keyCmp(key []float64, a, b int32) int { return descending(key[a], key[b], a, b) }

// insertionSortByKey sorts data[a:b] using insertion sort.
func insertionSortByKey(data []int32, a, b int, key []float64) {
	for i := a + 1; i < b; i++ {
		for j := i; j > a && (keyCmp(key, data[j], data[j-1]) < 0); j-- {
			data[j], data[j-1] = data[j-1], data[j]
		}
	}
}

// siftDownByKey implements the heap property on data[lo:hi].
// first is an offset into the array where the root of the heap lies.
func siftDownByKey(data []int32, lo, hi, first int, key []float64) {
	root := lo
	for {
		child := 2*root + 1
		if child >= hi {
			break
		}
		if child+1 < hi && (keyCmp(key, data[first+child], data[first+child+1]) < 0) {
			child++
		}
		if !(keyCmp(key, data[first+root], data[first+child]) < 0) {
			return
		}
		data[first+root], data[first+child] = data[first+child], data[first+root]
		root = child
	}
}

func heapSortByKey(data []int32, a, b int, key []float64) {
	first := a
	lo := 0
	hi := b - a

	// Build heap with greatest element at top.
	for i := (hi - 1) / 2; i >= 0; i-- {
		siftDownByKey(data, i, hi, first, key)
	}

	// Pop elements, largest first, into end of data.
	for i := hi - 1; i >= 0; i-- {
		data[first], data[first+i] = data[first+i], data[first]
		siftDownByKey(data, lo, i, first, key)
	}
}

// pdqsortByKey sorts data[a:b].
// The algorithm based on pattern-defeating quicksort(pdqsort), but without the optimizations from BlockQuicksort.
// pdqsort paper: https://arxiv.org/pdf/2106.05123.pdf
// C++ implementation: https://github.com/orlp/pdqsort
// Rust implementation: https://docs.rs/pdqsort/latest/pdqsort/
// limit is the number of allowed bad (very unbalanced) pivots before falling back to heapsort.
func pdqsortByKey(data []int32, a, b, limit int, key []float64) {
	const maxInsertion = 12

	var (
		wasBalanced    = true // whether the last partitioning was reasonably balanced
		wasPartitioned = true // whether the slice was already partitioned
	)

	for {
		length := b - a

		if length <= maxInsertion {
			insertionSortByKey(data, a, b, key)
			return
		}

		// Fall back to heapsort if too many bad choices were made.
		if limit == 0 {
			heapSortByKey(data, a, b, key)
			return
		}

		// If the last partitioning was imbalanced, we need to breaking patterns.
		if !wasBalanced {
			breakPatternsByKey(data, a, b, key)
			limit--
		}

		pivot, hint := choosePivotByKey(data, a, b, key)
		if hint == decreasingHint {
			reverseRangeByKey(data, a, b, key)
			// The chosen pivot was pivot-a elements after the start of the array.
			// After reversing it is pivot-a elements before the end of the array.
			// The idea came from Rust's implementation.
			pivot = (b - 1) - (pivot - a)
			hint = increasingHint
		}

		// The slice is likely already sorted.
		if wasBalanced && wasPartitioned && hint == increasingHint {
			if partialInsertionSortByKey(data, a, b, key) {
				return
			}
		}

		// Probably the slice contains many duplicate elements, partition the slice into
		// elements equal to and elements greater than the pivot.
		if a > 0 && !(keyCmp(key, data[a-1], data[pivot]) < 0) {
			mid := partitionEqualByKey(data, a, b, pivot, key)
			a = mid
			continue
		}

		mid, alreadyPartitioned := partitionByKey(data, a, b, pivot, key)
		wasPartitioned = alreadyPartitioned

		leftLen, rightLen := mid-a, b-mid
		balanceThreshold := length / 8
		if leftLen < rightLen {
			wasBalanced = leftLen >= balanceThreshold
			pdqsortByKey(data, a, mid, limit, key)
			a = mid + 1
		} else {
			wasBalanced = rightLen >= balanceThreshold
			pdqsortByKey(data, mid+1, b, limit, key)
			b = mid
		}
	}
}

// partitionByKey does one quicksort partition.
// Let p = data[pivot]
// Moves elements in data[a:b] around, so that data[i]<p and data[j]>=p for i<newpivot and j>newpivot.
// On return, data[newpivot] = p
func partitionByKey(data []int32, a, b, pivot int, key []float64) (newpivot int, alreadyPartitioned bool) {
	data[a], data[pivot] = data[pivot], data[a]
	i, j := a+1, b-1 // i and j are inclusive of the elements remaining to be partitioned

	for i <= j && (keyCmp(key, data[i], data[a]) < 0) {
		i++
	}
	for i <= j && !(keyCmp(key, data[j], data[a]) < 0) {
		j--
	}
	if i > j {
		data[j], data[a] = data[a], data[j]
		return j, true
	}
	data[i], data[j] = data[j], data[i]
	i++
	j--

	for {
		for i <= j && (keyCmp(key, data[i], data[a]) < 0) {
			i++
		}
		for i <= j && !(keyCmp(key, data[j], data[a]) < 0) {
			j--
		}
		if i > j {
			break
		}
		data[i], data[j] = data[j], data[i]
		i++
		j--
	}
	data[j], data[a] = data[a], data[j]
	return j, false
}

// partitionEqualByKey partitions data[a:b] into elements equal to data[pivot] followed by elements greater than data[pivot].
// It assumed that data[a:b] does not contain elements smaller than the data[pivot].
func partitionEqualByKey(data []int32, a, b, pivot int, key []float64) (newpivot int) {
	data[a], data[pivot] = data[pivot], data[a]
	i, j := a+1, b-1 // i and j are inclusive of the elements remaining to be partitioned

	for {
		for i <= j && !(keyCmp(key, data[a], data[i]) < 0) {
			i++
		}
		for i <= j && (keyCmp(key, data[a], data[j]) < 0) {
			j--
		}
		if i > j {
			break
		}
		data[i], data[j] = data[j], data[i]
		i++
		j--
	}
	return i
}

// partialInsertionSortByKey partially sorts a slice, returns true if the slice is sorted at the end.
func partialInsertionSortByKey(data []int32, a, b int, key []float64) bool {
	const (
		maxSteps         = 5  // maximum number of adjacent out-of-order pairs that will get shifted
		shortestShifting = 50 // don't shift any elements on short arrays
	)
	i := a + 1
	for j := 0; j < maxSteps; j++ {
		for i < b && !(keyCmp(key, data[i], data[i-1]) < 0) {
			i++
		}

		if i == b {
			return true
		}

		if b-a < shortestShifting {
			return false
		}

		data[i], data[i-1] = data[i-1], data[i]

		// Shift the smaller one to the left.
		if i-a >= 2 {
			for j := i - 1; j >= 1; j-- {
				if !(keyCmp(key, data[j], data[j-1]) < 0) {
					break
				}
				data[j], data[j-1] = data[j-1], data[j]
			}
		}
		// Shift the greater one to the right.
		if b-i >= 2 {
			for j := i + 1; j < b; j++ {
				if !(keyCmp(key, data[j], data[j-1]) < 0) {
					break
				}
				data[j], data[j-1] = data[j-1], data[j]
			}
		}
	}
	return false
}

// breakPatternsByKey scatters some elements around in an attempt to break some patterns
// that might cause imbalanced partitions in quicksort.
func breakPatternsByKey(data []int32, a, b int, key []float64) {
	length := b - a
	if length >= 8 {
		random := xorshift(length)
		modulus := nextPowerOfTwo(length)

		for idx := a + (length/4)*2 - 1; idx <= a+(length/4)*2+1; idx++ {
			other := int(uint(random.Next()) & (modulus - 1))
			if other >= length {
				other -= length
			}
			data[idx], data[a+other] = data[a+other], data[idx]
		}
	}
}

// choosePivotByKey chooses a pivot in data[a:b].
//
// [0,8): chooses a static pivot.
// [8,shortestNinther): uses the simple median-of-three method.
// [shortestNinther,∞): uses the Tukey ninther method.
func choosePivotByKey(data []int32, a, b int, key []float64) (pivot int, hint sortedHint) {
	const (
		shortestNinther = 50
		maxSwaps        = 4 * 3
	)

	l := b - a

	var (
		swaps int
		i     = a + l/4*1
		j     = a + l/4*2
		k     = a + l/4*3
	)

	if l >= 8 {
		if l >= shortestNinther {
			// Tukey ninther method, the idea came from Rust's implementation.
			i = medianAdjacentByKey(data, i, &swaps, key)
			j = medianAdjacentByKey(data, j, &swaps, key)
			k = medianAdjacentByKey(data, k, &swaps, key)
		}
		// Find the median among i, j, k and stores it into j.
		j = medianByKey(data, i, j, k, &swaps, key)
	}

	switch swaps {
	case 0:
		return j, increasingHint
	case maxSwaps:
		return j, decreasingHint
	default:
		return j, unknownHint
	}
}

// order2ByKey returns x,y where data[x] <= data[y], where x,y=a,b or x,y=b,a.
func order2ByKey(data []int32, a, b int, swaps *int, key []float64) (int, int) {
	if keyCmp(key, data[b], data[a]) < 0 {
		*swaps++
		return b, a
	}
	return a, b
}

// medianByKey returns x where data[x] is the median of data[a],data[b],data[c], where x is a, b, or c.
func medianByKey(data []int32, a, b, c int, swaps *int, key []float64) int {
	a, b = order2ByKey(data, a, b, swaps, key)
	b, c = order2ByKey(data, b, c, swaps, key)
	a, b = order2ByKey(data, a, b, swaps, key)
	return b
}

// medianAdjacentByKey finds the median of data[a - 1], data[a], data[a + 1] and stores the index into a.
func medianAdjacentByKey(data []int32, a int, swaps *int, key []float64) int {
	return medianByKey(data, a-1, a, a+1, swaps, key)
}

func reverseRangeByKey(data []int32, a, b int, key []float64) {
	i := a
	j := b - 1
	for i < j {
		data[i], data[j] = data[j], data[i]
		i++
		j--
	}
}

func swapRangeByKey(data []int32, a, b, n int, key []float64) {
	for i := 0; i < n; i++ {
		data[a+i], data[b+i] = data[b+i], data[a+i]
	}
}
