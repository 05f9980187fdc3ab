package elle

import (
	"fmt"
	"strings"
)

// components returns, for the graph restricted to edges of the kinds in
// mask, each node's strongly connected component (Tarjan's algorithm, made
// iterative so that a long chain cannot overflow the stack) and the
// components of more than one node.
func (c *checker) components(mask uint8) (comp []int32, big [][]int32) {
	n := len(c.txns)
	const unvisited = -1
	index := make([]int32, n)
	low := make([]int32, n)
	comp = make([]int32, n)
	onStack := make([]bool, n)
	for i := range index {
		index[i], comp[i] = unvisited, unvisited
	}
	var stack []int32
	type frame struct{ v, next int32 }
	var call []frame
	next := int32(0)
	ncomp := int32(0)
	for root := 0; root < n; root++ {
		if index[root] != unvisited || c.adjOff[root] == c.adjOff[root+1] {
			continue
		}
		call = append(call[:0], frame{int32(root), c.adjOff[root]})
		index[root], low[root] = next, next
		next++
		stack = append(stack, int32(root))
		onStack[root] = true
		for len(call) > 0 {
			f := &call[len(call)-1]
			v := f.v
			if f.next < c.adjOff[v+1] {
				e := f.next
				f.next++
				if c.adjKind[e]&mask == 0 {
					continue
				}
				w := c.adjTo[e]
				if index[w] == unvisited {
					index[w], low[w] = next, next
					next++
					stack = append(stack, w)
					onStack[w] = true
					call = append(call, frame{w, c.adjOff[w]})
				} else if onStack[w] && index[w] < low[v] {
					low[v] = index[w]
				}
				continue
			}
			call = call[:len(call)-1]
			if len(call) > 0 {
				if p := call[len(call)-1].v; low[v] < low[p] {
					low[p] = low[v]
				}
			}
			if low[v] == index[v] {
				var members []int32
				for {
					w := stack[len(stack)-1]
					stack = stack[:len(stack)-1]
					onStack[w] = false
					comp[w] = ncomp
					members = append(members, w)
					if w == v {
						break
					}
				}
				if len(members) > 1 {
					big = append(big, members)
				}
				ncomp++
			}
		}
	}
	return comp, big
}

// searcher finds shortest paths inside one component by breadth-first
// search; its arrays are reused across searches.
type searcher struct {
	c      *checker
	comp   []int32
	seen   []uint32
	parent []int32
	pkind  []uint8
	stamp  uint32
	queue  []int32
}

func newSearcher(c *checker, comp []int32) *searcher {
	n := len(c.txns)
	return &searcher{c: c, comp: comp, seen: make([]uint32, n), parent: make([]int32, n), pkind: make([]uint8, n)}
}

// kindOf picks the edge kind a path uses among those allowed: the
// weakest claim first (ww, then wr, then rw), so that a cycle is not
// called worse than its edges force.
func kindOf(kinds, mask uint8) uint8 {
	k := kinds & mask
	switch {
	case k&ww != 0:
		return ww
	case k&wr != 0:
		return wr
	default:
		return rw
	}
}

// path returns the shortest path from src to dst over edges in mask that
// stays in src's component, as the kinds of its edges and its nodes
// (src first, dst last); nil when there is none.
func (s *searcher) path(src, dst int32, mask uint8) ([]int32, []uint8) {
	c := s.c
	s.stamp++
	cid := s.comp[src]
	s.queue = append(s.queue[:0], src)
	s.seen[src] = s.stamp
	for qi := 0; qi < len(s.queue); qi++ {
		v := s.queue[qi]
		if v == dst {
			var nodes []int32
			var kinds []uint8
			for x := dst; x != src; x = s.parent[x] {
				nodes = append(nodes, x)
				kinds = append(kinds, s.pkind[x])
			}
			nodes = append(nodes, src)
			for i, j := 0, len(nodes)-1; i < j; i, j = i+1, j-1 {
				nodes[i], nodes[j] = nodes[j], nodes[i]
			}
			for i, j := 0, len(kinds)-1; i < j; i, j = i+1, j-1 {
				kinds[i], kinds[j] = kinds[j], kinds[i]
			}
			return nodes, kinds
		}
		for e := c.adjOff[v]; e < c.adjOff[v+1]; e++ {
			w := c.adjTo[e]
			if c.adjKind[e]&mask == 0 || s.seen[w] == s.stamp || s.comp[w] != cid {
				continue
			}
			s.seen[w] = s.stamp
			s.parent[w] = v
			s.pkind[w] = kindOf(c.adjKind[e], mask)
			s.queue = append(s.queue, w)
		}
	}
	return nil, nil
}

// cycle is a closed path: nodes[i] → nodes[i+1] by kinds[i], the last
// node back to the first by the last kind.
type cycle struct {
	nodes []int32
	kinds []uint8
}

func (cy cycle) count(k uint8) int {
	n := 0
	for _, x := range cy.kinds {
		if x == k {
			n++
		}
	}
	return n
}

// closeOver makes a cycle from edge u→v (kind k) and a path v ... u.
func closeOver(u int32, k uint8, nodes []int32, kinds []uint8) cycle {
	// nodes = v ... u; the cycle is u → v ... → u
	cy := cycle{nodes: append([]int32{u}, nodes[:len(nodes)-1]...), kinds: append([]uint8{k}, kinds...)}
	return cy
}

// search tries up to Limits.Searches edges of the component whose kinds
// include first: for edge u→v, a shortest path back v→u over edges in
// mask; accept says whether the closed cycle is of the class sought.
func (c *checker) search(s *searcher, members []int32, first, mask uint8, accept func(cycle) bool) (cycle, bool) {
	tries := 0
	cid := s.comp[members[0]]
	for _, u := range members {
		for e := c.adjOff[u]; e < c.adjOff[u+1]; e++ {
			v := c.adjTo[e]
			if c.adjKind[e]&first == 0 || s.comp[v] != cid {
				continue
			}
			if tries >= c.lim.Searches {
				return cycle{}, false
			}
			tries++
			nodes, kinds := s.path(v, u, mask)
			if nodes == nil {
				continue
			}
			cy := closeOver(u, kindOf(c.adjKind[e], first), nodes, kinds)
			if accept(cy) {
				return cy, true
			}
		}
	}
	return cycle{}, false
}

// cycles finds, per strongly connected component, one shortest cycle of
// each class it holds: G0 among ww edges, G1c among ww and wr edges with
// at least one wr, G-single with exactly one rw, G2-item with two or more.
func (c *checker) cycles() {
	if len(c.adjTo) == 0 {
		return
	}
	type pass struct {
		class       string
		mask        uint8 // the graph whose components are searched
		first, rest uint8 // the first edge's kinds, the path's
		accept      func(cycle) bool
	}
	passes := []pass{
		{G0, ww, ww, ww, func(cycle) bool { return true }},
		{G1c, ww | wr, wr, ww | wr, func(cycle) bool { return true }},
		{GSingle, ww | wr | rw, rw, ww | wr, func(cycle) bool { return true }},
		{G2Item, ww | wr | rw, rw, ww | wr | rw, func(cy cycle) bool { return cy.count(rw) >= 2 }},
	}
	var all []int32
	var allBig [][]int32
	for _, p := range passes {
		var comp []int32
		var big [][]int32
		if p.mask == ww|wr|rw && all != nil {
			comp, big = all, allBig
		} else {
			comp, big = c.components(p.mask)
			if p.mask == ww|wr|rw {
				all, allBig = comp, big
			}
		}
		s := newSearcher(c, comp)
		for _, members := range big {
			if cy, ok := c.search(s, members, p.first, p.rest, p.accept); ok {
				c.add(c.explainCycle(p.class, cy))
			}
		}
	}
}

var kindNames = map[uint8]string{ww: "ww", wr: "wr", rw: "rw"}

func (c *checker) explainCycle(class string, cy cycle) Anomaly {
	a := Anomaly{Class: class}
	var ring []string
	for i, n := range cy.nodes {
		t := &c.txns[n]
		a.Txns = append(a.Txns, t.ID)
		ring = append(ring, fmt.Sprintf("T%d", t.ID))
		to := cy.nodes[(i+1)%len(cy.nodes)]
		a.Steps = append(a.Steps, c.explainEdge(n, to, cy.kinds[i]))
	}
	ring = append(ring, ring[0])
	var kinds []string
	for _, k := range cy.kinds {
		kinds = append(kinds, kindNames[k])
	}
	a.Steps = append([]string{fmt.Sprintf("cycle %s (%s)", strings.Join(ring, " → "), strings.Join(kinds, ", "))}, a.Steps...)
	return a
}

// explainEdge finds the evidence of one dependency again in the two
// transactions' ops and says it in a sentence.
func (c *checker) explainEdge(from, to int32, kind uint8) string {
	f, t := &c.txns[from], &c.txns[to]
	switch kind {
	case ww:
		for _, op := range f.Ops {
			if op.Func != FuncAppend {
				continue
			}
			ki := c.keys[op.Key]
			r := c.refs[c.byElem[elem{op.Key, op.Value}]]
			if ki == nil || r.pos < 0 || int(r.pos)+1 >= len(ki.longest) {
				continue
			}
			// the next element of another writer after from's element
			for p := int(r.pos) + 1; p < len(ki.longest); p++ {
				w := c.writerOf(op.Key, ki.longest[p])
				if w == from {
					break
				}
				if w == to {
					return fmt.Sprintf("T%d appended %d to key %d before T%d appended %d to it (ww: key %d reads %s)",
						f.ID, op.Value, op.Key, t.ID, ki.longest[p], op.Key, listString(ki.longest[:p+1]))
				}
				if w >= 0 {
					break
				}
			}
		}
	case wr:
		var s string
		externalReads(t, func(op Op) {
			if s == "" && len(op.List) > 0 && c.writerOf(op.Key, op.List[len(op.List)-1]) == from {
				s = fmt.Sprintf("T%d appended %d to key %d and T%d read key %d = %s, which ends in it (wr)",
					f.ID, op.List[len(op.List)-1], op.Key, t.ID, op.Key, listString(op.List))
			}
		})
		if s != "" {
			return s
		}
	case rw:
		var s string
		externalReads(f, func(op Op) {
			ki := c.keys[op.Key]
			if s == "" && len(op.List) < len(ki.longest) && isPrefix(op.List, ki.longest) &&
				c.writerOf(op.Key, ki.longest[len(op.List)]) == to {
				s = fmt.Sprintf("T%d read key %d = %s before T%d appended %d to key %d (rw)",
					f.ID, op.Key, listString(op.List), t.ID, ki.longest[len(op.List)], op.Key)
			}
		})
		if s != "" {
			return s
		}
	}
	return fmt.Sprintf("T%d → T%d (%s)", f.ID, t.ID, kindNames[kind])
}
