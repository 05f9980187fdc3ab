package keydist

import (
	"errors"
	"fmt"
	"math"
	"math/rand"
)

// Discrete mirrors YCSB's DiscreteGenerator, CoreWorkload's operation
// chooser: it picks index i with probability weights[i]/sum(weights).
//
// A draw takes one r.Float64 and walks the weights in order, returning the
// first index whose normalised weight exceeds what is left of the draw; YCSB
// normalises by the sum on every draw, this normalises once in the
// constructor, which gives the same floating-point values. If rounding lets
// the walk run off the end (YCSB throws an AssertionError) the last index with
// a positive weight is returned.
//
// Concurrency: immutable after construction; NextIndex is safe for concurrent
// use and takes no lock.
type Discrete struct {
	probs    []float64 // weights[i]/sum
	fallback int       // last index with a positive weight
	err      error
}

// NewDiscrete returns a Discrete over the given weights, in order. Weights
// must be finite and non-negative with a positive sum; otherwise Err reports
// why and NextIndex always returns -1. The slice is copied.
func NewDiscrete(weights []float64) *Discrete {
	d := &Discrete{fallback: -1}
	sum := 0.0
	for i, w := range weights {
		if math.IsNaN(w) || math.IsInf(w, 0) || w < 0 {
			d.err = fmt.Errorf("keydist: discrete weight %d is %v, want a finite non-negative number", i, w)
			return d
		}
		sum += w
		if w > 0 {
			d.fallback = i
		}
	}
	if !(sum > 0) || math.IsInf(sum, 0) {
		d.err = errors.New("keydist: discrete weights must have a positive, finite sum")
		d.fallback = -1
		return d
	}
	d.probs = make([]float64, len(weights))
	for i, w := range weights {
		d.probs[i] = w / sum
	}
	return d
}

// Err returns nil if the weights were valid, else why not.
func (d *Discrete) Err() error { return d.err }

// NextIndex draws an index into the constructor's weights; an index with
// weight 0 is never returned. It returns -1 if Err is not nil.
func (d *Discrete) NextIndex(r *rand.Rand) int {
	if d.err != nil {
		return -1
	}
	val := r.Float64()
	for i, p := range d.probs {
		if val < p {
			return i
		}
		val -= p
	}
	return d.fallback
}
