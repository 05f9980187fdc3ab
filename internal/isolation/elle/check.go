package elle

import (
	"fmt"
	"slices"
	"sort"
)

// Anomaly classes, as Adya and Elle name them.
const (
	G0                = "G0"       // a cycle of write-write dependencies (dirty write)
	G1a               = "G1a"      // a read saw an aborted transaction's append
	G1b               = "G1b"      // a read saw another transaction's intermediate state
	G1c               = "G1c"      // a cycle of write-write and write-read dependencies
	GSingle           = "G-single" // a cycle with exactly one read-write (anti-)dependency
	G2Item            = "G2-item"  // a cycle with two or more read-write dependencies
	Internal          = "internal" // a read disagrees with its own transaction's earlier ops
	DuplicateElements = "duplicate-elements"
	IncompatibleOrder = "incompatible-order" // two reads of a key, neither a prefix of the other
	UnknownElement    = "unknown-element"    // a read saw an element nobody appended
)

// Classes lists every class in the order reports show them.
var Classes = []string{G0, G1a, G1b, G1c, GSingle, G2Item, Internal, DuplicateElements, IncompatibleOrder, UnknownElement}

// Anomaly is one finding, explained so that a reader can check it against
// the history: the transactions involved and, for a cycle, one sentence per
// edge in the cycle's order.
type Anomaly struct {
	Class string   `json:"class"`
	Txns  []int64  `json:"txns"`
	Ops   []string `json:"ops"`   // each transaction rendered (Txn.String)
	Steps []string `json:"steps"` // the evidence, one sentence each
}

// Report is the checker's verdict on one history.
type Report struct {
	Transactions int `json:"transactions"`
	OK           int `json:"ok"`
	Failed       int `json:"failed"`
	Unknown      int `json:"unknown"`
	// Counts holds the anomalies found per class (absent: none). A cycle
	// class counts the strongly connected components of the dependency
	// graph in which a cycle of that class was found.
	Counts map[string]int `json:"counts"`
	// Anomalies are examples, at most Limits.Examples per class.
	Anomalies []Anomaly `json:"anomalies,omitempty"`
}

// Valid reports whether the history shows no anomaly.
func (r *Report) Valid() bool { return len(r.Counts) == 0 }

// Limits bound the work and the report's size.
type Limits struct {
	// Examples is the number of anomalies reported per class (all are
	// counted).
	Examples int
	// Searches is the number of edges of one component from which a
	// shortest cycle of a class is searched before giving up on the class
	// there: each search is a breadth-first search of the component.
	Searches int
}

// DefaultLimits are 8 examples and 64 searches: enough to show each class
// without a report of megabytes, and a bounded cost in a component of a
// million transactions.
var DefaultLimits = Limits{Examples: 8, Searches: 64}

// Dependency kinds, as bits of an edge.
const (
	ww uint8 = 1 << iota
	wr
	rw
)

type elem struct{ k, v int64 }

// appendRef locates an append: its transaction, op and position in its
// key's version order (-1: never read).
type appendRef struct{ txn, op, pos int32 }

type keyInfo struct {
	longest []int64
	reader  int32 // the transaction that read longest
	// writer[p] is the transaction that appended longest[p] (-1: a failed
	// one or none), so that reads, prefixes of longest, need no lookup.
	writer []int32
	// firstBad is the first position in longest of an element appended by
	// a failed transaction or by nobody (-1: none).
	firstBad int
}

type edge struct {
	from, to int32
	kind     uint8
}

type checker struct {
	txns    []Txn
	lim     Limits
	refs    []appendRef
	byElem  map[elem]int32 // index in refs
	keys    map[int64]*keyInfo
	report  *Report
	edges   []edge
	adjOff  []int32 // CSR: node i's edges are adjTo[adjOff[i]:adjOff[i+1]]
	adjTo   []int32
	adjKind []uint8
}

// Check checks a history with DefaultLimits.
func Check(txns []Txn) (*Report, error) { return CheckWith(txns, DefaultLimits) }

// CheckWith checks a history. It fails only on a history the checker
// cannot read: a transaction id twice, a value appended twice to one key
// (values must be unique per key), an unknown function.
func CheckWith(txns []Txn, lim Limits) (*Report, error) {
	if lim.Examples <= 0 {
		lim.Examples = DefaultLimits.Examples
	}
	if lim.Searches <= 0 {
		lim.Searches = DefaultLimits.Searches
	}
	c := &checker{txns: txns, lim: lim, keys: map[int64]*keyInfo{},
		report: &Report{Transactions: len(txns), Counts: map[string]int{}}}
	if err := c.index(); err != nil {
		return nil, err
	}
	c.versionOrders()
	c.singleTxnAnomalies()
	c.inferEdges()
	c.buildGraph()
	c.cycles()
	return c.report, nil
}

func (c *checker) add(a Anomaly) {
	c.report.Counts[a.Class]++
	n := 0
	for _, x := range c.report.Anomalies {
		if x.Class == a.Class {
			n++
		}
	}
	if n < c.lim.Examples {
		for _, id := range a.Txns {
			a.Ops = append(a.Ops, c.txnByID(id).String())
		}
		c.report.Anomalies = append(c.report.Anomalies, a)
	}
}

// txnByID is for reporting only (a linear scan is fine for examples).
func (c *checker) txnByID(id int64) *Txn {
	for i := range c.txns {
		if c.txns[i].ID == id {
			return &c.txns[i]
		}
	}
	return nil
}

func (c *checker) index() error {
	ids := make([]int64, 0, len(c.txns))
	n := 0
	for i := range c.txns {
		t := &c.txns[i]
		ids = append(ids, t.ID)
		switch t.Outcome {
		case OK:
			c.report.OK++
		case Fail:
			c.report.Failed++
		case Unknown:
			c.report.Unknown++
		default:
			return fmt.Errorf("transaction %d: %v", t.ID, t.Outcome)
		}
		for j, op := range t.Ops {
			switch op.Func {
			case FuncAppend:
				n++
			case FuncRead:
			default:
				return fmt.Errorf("transaction %d op %d: function %q: use append or r", t.ID, j, op.Func)
			}
		}
	}
	slices.Sort(ids)
	for i := 1; i < len(ids); i++ {
		if ids[i] == ids[i-1] {
			return fmt.Errorf("transaction id %d appears twice in the history: ids must be unique", ids[i])
		}
	}
	c.refs = make([]appendRef, 0, n)
	c.byElem = make(map[elem]int32, n)
	for i := range c.txns {
		t := &c.txns[i]
		for j, op := range t.Ops {
			if op.Func != FuncAppend {
				continue
			}
			e := elem{op.Key, op.Value}
			if r, dup := c.byElem[e]; dup {
				return fmt.Errorf("value %d appended to key %d twice (T%d and T%d): list-append needs values unique per key",
					op.Value, op.Key, c.txns[c.refs[r].txn].ID, t.ID)
			}
			c.byElem[e] = int32(len(c.refs))
			c.refs = append(c.refs, appendRef{txn: int32(i), op: int32(j), pos: -1})
		}
	}
	return nil
}

// observed reports whether t's reads count as observations: only a
// committed transaction's reads are known to have happened as returned.
func observed(t *Txn) bool { return t.Outcome == OK }

// versionOrders takes each key's longest read as its version order and
// reports reads that are not prefixes of it.
func (c *checker) versionOrders() {
	for i := range c.txns {
		t := &c.txns[i]
		if !observed(t) {
			continue
		}
		for _, op := range t.Ops {
			if op.Func != FuncRead || op.List == nil {
				continue
			}
			ki := c.keys[op.Key]
			if ki == nil {
				ki = &keyInfo{firstBad: -1, reader: -1}
				c.keys[op.Key] = ki
			}
			if len(op.List) > len(ki.longest) || ki.reader < 0 {
				ki.longest, ki.reader = op.List, int32(i)
			}
		}
	}
	incompatible := map[int64]bool{}
	for i := range c.txns {
		t := &c.txns[i]
		if !observed(t) {
			continue
		}
		for _, op := range t.Ops {
			if op.Func != FuncRead || op.List == nil {
				continue
			}
			ki := c.keys[op.Key]
			if !isPrefix(op.List, ki.longest) && !incompatible[op.Key] {
				incompatible[op.Key] = true
				other := &c.txns[ki.reader]
				c.add(Anomaly{Class: IncompatibleOrder, Txns: uniq(t.ID, other.ID), Steps: []string{fmt.Sprintf(
					"T%d read key %d = %s and T%d read key %d = %s: neither is a prefix of the other, so the key has no single order of appends",
					t.ID, op.Key, listString(op.List), other.ID, op.Key, listString(ki.longest))}})
				c.duplicates(t, op)
			}
		}
	}
	keys := make([]int64, 0, len(c.keys))
	for k := range c.keys {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		ki := c.keys[k]
		c.duplicates(&c.txns[ki.reader], Op{Func: FuncRead, Key: k, List: ki.longest})
		ki.writer = make([]int32, len(ki.longest))
		for p, v := range ki.longest {
			ki.writer[p] = -1
			r, ok := c.byElem[elem{k, v}]
			if !ok || c.txns[c.refs[r].txn].Outcome == Fail {
				if ki.firstBad < 0 {
					ki.firstBad = p
					if !ok {
						t := &c.txns[ki.reader]
						c.add(Anomaly{Class: UnknownElement, Txns: []int64{t.ID}, Steps: []string{fmt.Sprintf(
							"T%d read key %d = %s, but no transaction of the history appended %d to key %d",
							t.ID, k, listString(ki.longest), v, k)}})
					}
				}
				continue
			}
			if c.refs[r].pos < 0 {
				c.refs[r].pos = int32(p)
			}
			ki.writer[p] = c.refs[r].txn
		}
	}
}

func (c *checker) duplicates(t *Txn, op Op) {
	seen := make(map[int64]bool, len(op.List))
	for _, v := range op.List {
		if seen[v] {
			c.add(Anomaly{Class: DuplicateElements, Txns: []int64{t.ID}, Steps: []string{fmt.Sprintf(
				"T%d read key %d = %s, where %d appears more than once (it was appended once)",
				t.ID, op.Key, listString(op.List), v)}})
			return
		}
		seen[v] = true
	}
}

func isPrefix(a, b []int64) bool {
	if len(a) > len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func uniq(ids ...int64) []int64 {
	var out []int64
	for _, id := range ids {
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

// writerOf returns the index of the transaction that appended v to k, or
// -1 when nobody did or a failed transaction did.
func (c *checker) writerOf(k, v int64) int32 {
	r, ok := c.byElem[elem{k, v}]
	if !ok {
		return -1
	}
	w := c.refs[r].txn
	if c.txns[w].Outcome == Fail {
		return -1
	}
	return w
}

// externalReads calls fn with each read of t that precedes t's first
// append to the read's key: only those tell what other transactions did.
func externalReads(t *Txn, fn func(op Op)) {
	for i, op := range t.Ops {
		if op.Func != FuncRead || op.List == nil {
			continue
		}
		own := false
		for _, prev := range t.Ops[:i] {
			if prev.Func == FuncAppend && prev.Key == op.Key {
				own = true
				break
			}
		}
		if !own {
			fn(op)
		}
	}
}

// singleTxnAnomalies finds G1a, G1b and internal inconsistencies.
func (c *checker) singleTxnAnomalies() {
	type state struct {
		k       int64
		read    []int64
		known   bool
		appends []int64
	}
	var st []state
	for i := range c.txns {
		t := &c.txns[i]
		if !observed(t) {
			continue
		}
		st = st[:0]
		internalDone := false
		for _, op := range t.Ops {
			j := -1
			for x := range st {
				if st[x].k == op.Key {
					j = x
				}
			}
			if j < 0 {
				st = append(st, state{k: op.Key})
				j = len(st) - 1
			}
			s := &st[j]
			if op.Func == FuncAppend {
				s.appends = append(s.appends, op.Value)
				continue
			}
			if op.List == nil {
				continue
			}
			var bad bool
			var want string
			if s.known {
				exp := append(append([]int64{}, s.read...), s.appends...)
				bad = !slices.Equal(exp, op.List)
				want = "= " + listString(exp)
			} else if len(s.appends) > 0 {
				bad = len(op.List) < len(s.appends) || !slices.Equal(op.List[len(op.List)-len(s.appends):], s.appends)
				want = "ending in " + listString(s.appends)
			}
			if bad && !internalDone {
				internalDone = true
				c.add(Anomaly{Class: Internal, Txns: []int64{t.ID}, Steps: []string{fmt.Sprintf(
					"T%d read key %d = %s, but its own earlier operations imply key %d %s",
					t.ID, op.Key, listString(op.List), op.Key, want)}})
			}
			s.read, s.known, s.appends = op.List, true, nil
		}
		externalReads(t, func(op Op) {
			ki := c.keys[op.Key]
			if ki.firstBad >= 0 && len(op.List) > ki.firstBad && isPrefix(op.List, ki.longest) {
				v := ki.longest[ki.firstBad]
				if r, ok := c.byElem[elem{op.Key, v}]; ok {
					w := &c.txns[c.refs[r].txn]
					c.add(Anomaly{Class: G1a, Txns: []int64{t.ID, w.ID}, Steps: []string{fmt.Sprintf(
						"T%d read key %d = %s, which holds %d, appended by T%d, which failed (aborted read)",
						t.ID, op.Key, listString(op.List), v, w.ID)}})
				}
			}
			if len(op.List) == 0 {
				return
			}
			last := op.List[len(op.List)-1]
			r, ok := c.byElem[elem{op.Key, last}]
			if !ok {
				return
			}
			ref := c.refs[r]
			w := &c.txns[ref.txn]
			if w == t {
				return
			}
			for _, later := range w.Ops[ref.op+1:] {
				if later.Func == FuncAppend && later.Key == op.Key {
					c.add(Anomaly{Class: G1b, Txns: []int64{t.ID, w.ID}, Steps: []string{fmt.Sprintf(
						"T%d read key %d = %s, ending in %d, but T%d appended %d to key %d after %d: T%d saw T%d's intermediate state (intermediate read)",
						t.ID, op.Key, listString(op.List), last, w.ID, later.Value, op.Key, last, t.ID, w.ID)}})
					break
				}
			}
		})
	}
}

// inferEdges adds ww edges along each key's version order, and wr and rw
// edges from each external read. Failed transactions have no edges;
// unknown ones have the edges of their observed appends.
func (c *checker) inferEdges() {
	for _, ki := range c.keysSorted() {
		l := ki.info.longest
		prev := int32(-1)
		for p := range l {
			w := ki.info.writer[p]
			if w >= 0 && prev >= 0 && w != prev {
				c.edges = append(c.edges, edge{prev, w, ww})
			}
			if w >= 0 {
				prev = w
			}
		}
	}
	for i := range c.txns {
		t := &c.txns[i]
		if !observed(t) {
			continue
		}
		ti := int32(i)
		externalReads(t, func(op Op) {
			ki := c.keys[op.Key]
			n := len(op.List)
			if !isPrefix(op.List, ki.longest) {
				// an incompatible order (reported): only its last element
				if n > 0 {
					if w := c.writerOf(op.Key, op.List[n-1]); w >= 0 && w != ti {
						c.edges = append(c.edges, edge{w, ti, wr})
					}
				}
				return
			}
			last := int32(-1)
			if n > 0 {
				last = ki.writer[n-1]
				if last >= 0 && last != ti {
					c.edges = append(c.edges, edge{last, ti, wr})
				}
			}
			if n < len(ki.longest) {
				// The next version's writer read nothing T lacks, unless it
				// also wrote T's last element: that is an intermediate read
				// (G1b, reported), not an anti-dependency.
				if w := ki.writer[n]; w >= 0 && w != ti && w != last {
					c.edges = append(c.edges, edge{ti, w, rw})
				}
			}
		})
	}
}

type keyEntry struct {
	k    int64
	info *keyInfo
}

func (c *checker) keysSorted() []keyEntry {
	out := make([]keyEntry, 0, len(c.keys))
	for k, ki := range c.keys {
		out = append(out, keyEntry{k, ki})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].k < out[j].k })
	return out
}

// buildGraph turns the edge list into adjacency arrays, one entry per
// ordered pair with the kinds OR'ed.
func (c *checker) buildGraph() {
	n := len(c.txns)
	sort.Slice(c.edges, func(i, j int) bool {
		a, b := c.edges[i], c.edges[j]
		if a.from != b.from {
			return a.from < b.from
		}
		return a.to < b.to
	})
	c.adjOff = make([]int32, n+1)
	c.adjTo = c.adjTo[:0]
	c.adjKind = c.adjKind[:0]
	for i := 0; i < len(c.edges); {
		e := c.edges[i]
		kind := e.kind
		j := i + 1
		for ; j < len(c.edges) && c.edges[j].from == e.from && c.edges[j].to == e.to; j++ {
			kind |= c.edges[j].kind
		}
		c.adjTo = append(c.adjTo, e.to)
		c.adjKind = append(c.adjKind, kind)
		c.adjOff[e.from+1]++
		i = j
	}
	for i := 1; i <= n; i++ {
		c.adjOff[i] += c.adjOff[i-1]
	}
	c.edges = nil
}
