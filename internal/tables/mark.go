// Package tables decides what candor does with a workload's tables before a
// load or a run: which tables it owns (the marks it records when it creates
// them), whether their data is what the run would load (data signatures),
// whether their load finished (load-complete state), when a table is reused,
// reloaded or refused (reuse rules), and the locks that keep two candor
// processes from dropping or loading a table under each other.
//
// The SQL lives in internal/dialect and its execution in internal/target;
// this package holds the policy. It never imports the CLI: errors carry a
// Kind that the CLI maps to its exit codes.
package tables

import (
	"fmt"
	"hash/fnv"
	"slices"
	"strconv"
	"strings"

	"github.com/candor-bench/candor/internal/workload"
)

// State says whether the load of a table finished.
type State string

const (
	// StateLoading is recorded when candor creates a table whose load is
	// still to come, and stays until the load and its post-load steps
	// succeeded: a table still marked so was left by a load that was
	// interrupted, failed or killed.
	StateLoading State = "loading"
	// StateLoaded is recorded once the load finished (at once for a table
	// its workload does not fill).
	StateLoaded State = "loaded"
	// stateUnrecorded is the state of a mark written before candor recorded
	// states: such a table counts as loaded, as it was treated then.
	stateUnrecorded State = ""
)

// maxMarkLen bounds a mark: the marker table's workload column is
// VARCHAR(255). Key ranges are left out of a mark that would be longer.
const maxMarkLen = 255

// KeyRange is a range of record numbers, [Start, Start+Count).
type KeyRange struct{ Start, Count int64 }

// End is the first record number after the range.
func (r KeyRange) End() int64 { return r.Start + r.Count }

func (r KeyRange) String() string {
	if r.Count == 1 {
		return strconv.FormatInt(r.Start, 10)
	}
	return fmt.Sprintf("%d..%d", r.Start, r.End()-1)
}

// Mark is what candor records for a table it creates, taken apart. Its
// text form (String) is
//
//	WORKLOAD data=HASH state=loading|loaded id=IDENTITY [load=K:V,...] [keys=S+C,...] [pending=S+C,...] [loads=N] [shape=HASH HOLDS...]
//
// id is the table's identity as the database knows it when candor created
// it (target.TableIdentity; "-" on a product that gives none): a table of
// the same name with another identity was dropped and created again by
// someone else. load is how the load that filled the table loaded
// (Request.LoadWith: its batch, the target's load consistency). data is the hash of the workload's data signature (DataSigner), keys the
// record numbers its loads inserted (workloads other than TableReusers),
// pending the record numbers sharded loads (load --shard) have begun to
// insert and not finished: loads still running, or interrupted ones
// (whose records the table may hold in part; state stays loading), loads
// how many such loads there are. When the pending ranges, fragmented by
// shards finishing in any order, would make the mark too long, they are
// folded into keys (which then name the records loaded or being loaded)
// and only their number stays: 64 shards of one load fit that way,
// and a table with loads pending counts as loading either way,
// shape the hash of a workload.TableReuser's shape signature, followed by
// what one table holds in words (its Holds). Marks written by earlier
// versions lack state and keys: they count as loaded, with unknown keys.
type Mark struct {
	Raw      string // the text as read; "" for a mark built by New
	Workload string
	Data     string     // hash of the data signature; "" when none
	State    State      // stateUnrecorded on marks older than states
	Keys     []KeyRange // record numbers loaded, merged and sorted; nil: not recorded
	Pending  []KeyRange // record numbers shard loads began and did not finish, merged; nil: none or folded
	Loads    int        // shard loads begun and not finished; with Pending nil, their ranges are in Keys
	Shape    string     // hash of the shape signature; "" when none
	Holds    string     // what the table holds, after the shape; "" when none
	// ID is the table's identity (target.TableIdentity) when candor
	// created it; NoIdentity on a product without one; "" on marks
	// written before identities were recorded.
	ID string
	// LoadWith is how the table's load loaded, as "key:value,..." sorted
	// by key (see LoadWithText); "" when not recorded.
	LoadWith string
}

// NoIdentity is the ID of a mark on a product that gives no table identity.
const NoIdentity = "-"

// DataSigner is implemented by workloads whose loaded data depends on
// options: DataSignature names them with their values, and a table loaded
// with another signature does not hold the data a run of this one needs.
type DataSigner interface {
	DataSignature() string
}

// New returns the mark of a table wl creates, in state st, without keys.
func New(wl workload.Workload, st State) Mark {
	m := Mark{Workload: wl.Name(), Data: DataHash(wl), State: st}
	if tr, ok := wl.(workload.TableReuser); ok {
		m.Shape, m.Holds = Hash(tr.ShapeSignature()), tr.Holds()
	}
	return m
}

// String is the mark's text as recorded in the marker table.
func (m Mark) String() string {
	var b strings.Builder
	b.WriteString(m.Workload)
	if m.Data != "" {
		b.WriteString(" data=" + m.Data)
	}
	if m.State != stateUnrecorded {
		b.WriteString(" state=" + string(m.State))
	}
	if m.ID != "" {
		b.WriteString(" id=" + m.ID)
	}
	load := ""
	if m.LoadWith != "" {
		load = " load=" + m.LoadWith
	}
	keys := ""
	if len(m.Keys) > 0 {
		keys = " keys=" + rangesText(m.Keys)
	}
	pending := ""
	if len(m.Pending) > 0 {
		pending = " pending=" + rangesText(m.Pending)
	}
	if m.Loads > 0 {
		pending += " loads=" + strconv.Itoa(m.Loads)
	}
	shape := ""
	if m.Shape != "" {
		shape = " shape=" + m.Shape + " " + m.Holds
	}
	if b.Len()+len(load)+len(keys)+len(pending)+len(shape) > maxMarkLen && len(m.Pending) > 0 && m.Loads > 0 && m.Keys != nil {
		return m.folded().String()
	}
	if b.Len()+len(load)+len(keys)+len(pending)+len(shape) > maxMarkLen {
		keys = "" // unknown keys count as covering, as on old marks
	}
	if b.Len()+len(load)+len(pending)+len(shape) > maxMarkLen {
		load = "" // how it was loaded is then "not recorded"
	}
	return b.String() + load + keys + pending + shape
}

// folded is m with its pending ranges folded into its keys: Loads alone
// then says that loads are pending.
func (m Mark) folded() Mark {
	m.Keys = mergeRanges(append(slices.Clone(m.Keys), m.Pending...))
	m.Pending = nil
	return m
}

// isFolded reports whether m's pending loads are counted without their
// ranges (folded into Keys).
func (m Mark) isFolded() bool { return m.Loads > 0 && m.Pending == nil }

// ShardLoading reports whether sharded loads of the table began and did
// not finish (still running, or interrupted).
func (m Mark) ShardLoading() bool { return m.Loads > 0 || m.Pending != nil }

// PendingText says which records shard loads in progress insert, in words.
func (m Mark) PendingText() string {
	if m.isFolded() {
		return fmt.Sprintf("%d shard loads in progress, within %s", m.Loads, m.KeysText())
	}
	return Mark{Keys: m.Pending}.KeysText()
}

// rangesText is ranges in the mark's S+C,... form.
func rangesText(rs []KeyRange) string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = fmt.Sprintf("%d+%d", r.Start, r.Count)
	}
	return strings.Join(parts, ",")
}

// pendingFits reports whether the mark's text holds all its pending
// ranges: they are never left out (a load in progress forgotten would let
// a run measure a table being loaded), so a claim that does not fit is
// refused instead.
func (m Mark) pendingFits() bool {
	s := m.String()
	return len(s) <= maxMarkLen && (m.Keys == nil || Parse(s).Keys != nil)
}

// Claim returns m with r added to the records sharded loads are inserting,
// and in state loading: the table holds part of r until Finish.
func (m Mark) Claim(r KeyRange) Mark {
	if m.isFolded() {
		m = m.WithKeys(r)
	} else {
		m.Pending = mergeRanges(append(slices.Clone(m.Pending), r))
	}
	m.Loads++
	m.State = StateLoading
	return m
}

// Finish returns m with r, whose load finished, moved from the pending
// records to the loaded ones; the state turns loaded once no shard load is
// pending.
func (m Mark) Finish(r KeyRange) Mark {
	folded := m.isFolded()
	if m.Loads > 0 {
		m.Loads--
	}
	if !folded {
		m.Pending = subtractRange(m.Pending, r)
	}
	if m.Loads == 0 && len(m.Pending) == 0 {
		m.Pending = nil
		m.State = StateLoaded
	}
	return m.WithKeys(r)
}

// PendingOverlaps reports whether a sharded load began, and did not
// finish, to insert some record of r (when the pending ranges are folded,
// whether r overlaps the records loaded or being loaded).
func (m Mark) PendingOverlaps(r KeyRange) bool {
	if m.isFolded() {
		return m.Overlaps(r)
	}
	return Mark{Keys: m.Pending}.Overlaps(r)
}

// subtractRange is rs without the records of r.
func subtractRange(rs []KeyRange, r KeyRange) []KeyRange {
	var out []KeyRange
	for _, k := range rs {
		if k.End() <= r.Start || r.End() <= k.Start {
			out = append(out, k)
			continue
		}
		if k.Start < r.Start {
			out = append(out, KeyRange{k.Start, r.Start - k.Start})
		}
		if r.End() < k.End() {
			out = append(out, KeyRange{r.End(), k.End() - r.End()})
		}
	}
	return out
}

// Parse takes a recorded mark apart. Words it does not know are ignored;
// a malformed keys word leaves Keys nil.
func Parse(raw string) Mark {
	m := Mark{Raw: raw}
	head := raw
	if i := strings.Index(raw, " shape="); i >= 0 {
		head = raw[:i]
		rest := raw[i+len(" shape="):]
		m.Shape, m.Holds, _ = strings.Cut(rest, " ")
	}
	for i, w := range strings.Fields(head) {
		switch k, v, _ := strings.Cut(w, "="); {
		case i == 0 && !strings.Contains(w, "="):
			m.Workload = w
		case k == "data" && m.Data == "":
			m.Data = v
		case k == "state" && m.State == stateUnrecorded:
			m.State = State(v)
		case k == "keys" && m.Keys == nil:
			m.Keys = parseKeys(v)
		case k == "pending" && m.Pending == nil:
			m.Pending = parseKeys(v)
			if len(m.Pending) == 0 {
				m.Pending = nil
			}
		case k == "id" && m.ID == "":
			m.ID = v
		case k == "load" && m.LoadWith == "":
			m.LoadWith = v
		case k == "loads" && m.Loads == 0:
			if n, err := strconv.Atoi(v); err == nil && n > 0 {
				m.Loads = n
			}
		}
	}
	return m
}

func parseKeys(v string) []KeyRange {
	var rs []KeyRange
	for _, p := range strings.Split(v, ",") {
		s, c, ok := strings.Cut(p, "+")
		start, err1 := strconv.ParseInt(s, 10, 64)
		count, err2 := strconv.ParseInt(c, 10, 64)
		if !ok || err1 != nil || err2 != nil || start < 0 || count < 0 {
			return nil
		}
		rs = append(rs, KeyRange{start, count})
	}
	return mergeRanges(rs)
}

// Loaded reports whether the table's load finished: a mark in state
// loaded, or one written before states were recorded.
func (m Mark) Loaded() bool {
	return m.State == StateLoaded || m.State == stateUnrecorded
}

// WithKeys returns m with r added to its keys. A mark whose keys are not
// recorded (an old one, or one too long) keeps them unrecorded when it had
// a state before; a new mark (Raw "") records r.
func (m Mark) WithKeys(r KeyRange) Mark {
	if r.Count <= 0 {
		return m
	}
	if m.Keys == nil && m.Raw != "" && m.State == stateUnrecorded {
		return m // what an old mark's table holds is unknown; stays so
	}
	m.Keys = mergeRanges(append(slices.Clone(m.Keys), r))
	return m
}

// Covers reports whether the table holds every record of r; a mark without
// recorded keys covers everything (it predates them).
func (m Mark) Covers(r KeyRange) bool {
	if m.Keys == nil || r.Count <= 0 {
		return true
	}
	for _, k := range m.Keys {
		if k.Start <= r.Start && r.End() <= k.End() {
			return true // ranges are merged: one must hold all of r
		}
	}
	return false
}

// Overlaps reports whether the table holds some record of r; a mark
// without recorded keys overlaps nothing that is known.
func (m Mark) Overlaps(r KeyRange) bool {
	for _, k := range m.Keys {
		if k.Start < r.End() && r.Start < k.End() {
			return true
		}
	}
	return false
}

// KeysText says which records the table holds, in words.
func (m Mark) KeysText() string {
	if m.Keys == nil {
		return "records not recorded"
	}
	if len(m.Keys) == 0 {
		return "no records"
	}
	parts := make([]string, len(m.Keys))
	var n int64
	for i, r := range m.Keys {
		parts[i] = r.String()
		n += r.Count
	}
	return fmt.Sprintf("%d records (%s)", n, strings.Join(parts, ", "))
}

// mergeRanges sorts rs and merges ranges that overlap or touch.
func mergeRanges(rs []KeyRange) []KeyRange {
	out := []KeyRange{}
	slices.SortFunc(rs, func(a, b KeyRange) int {
		switch {
		case a.Start < b.Start:
			return -1
		case a.Start > b.Start:
			return 1
		}
		return 0
	})
	for _, r := range rs {
		if r.Count <= 0 {
			continue
		}
		if n := len(out); n > 0 && r.Start <= out[n-1].End() {
			if r.End() > out[n-1].End() {
				out[n-1].Count = r.End() - out[n-1].Start
			}
			continue
		}
		out = append(out, r)
	}
	return out
}

// DataHash is the hash of wl's data signature; "" when it has none.
func DataHash(wl workload.Workload) string {
	ds, ok := wl.(DataSigner)
	if !ok {
		return ""
	}
	return Hash(ds.DataSignature())
}

// Hash is the 64-bit FNV-1a hash of a signature, in hex.
func Hash(sig string) string {
	h := fnv.New64a()
	h.Write([]byte(sig))
	return fmt.Sprintf("%016x", h.Sum64())
}

// HoldsText is what the mark says its table holds, or the whole mark when
// it does not say.
func (m Mark) HoldsText() string {
	if m.Holds != "" {
		return m.Holds
	}
	return m.Raw
}

// SameData reports whether the table holds the data wl would load; a mark
// without a signature (or no signature to compare) counts as the same.
func (m Mark) SameData(wl workload.Workload) bool {
	sig := DataHash(wl)
	return m.Data == "" || sig == "" || m.Data == sig
}

// sameShape reports whether wl is a workload.TableReuser whose tables have
// the shape the mark records.
func (m Mark) sameShape(wl workload.Workload) (workload.TableReuser, bool) {
	tr, ok := wl.(workload.TableReuser)
	return tr, ok && m.Shape != "" && m.Shape == Hash(tr.ShapeSignature())
}

// ServesRun reports whether the table serves a run of wl as it is: the
// same shape, and wl's Serves accepts what it holds.
func (m Mark) ServesRun(wl workload.Workload) bool {
	tr, same := m.sameShape(wl)
	return same && tr.Serves(m.Holds)
}

// OtherData says how the data the mark records differs from what wl would
// load: by what it holds, for a workload.TableReuser of the same shape, else
// by the options the shape depends on, else as "holds data loaded with other
// options (...)".
func (m Mark) OtherData(wl workload.Workload) string {
	tr, same := m.sameShape(wl)
	switch {
	case tr == nil || m.Shape == "":
		return fmt.Sprintf("holds data loaded with other options (%s)", m.Raw)
	case !same:
		var opts []string
		for _, w := range strings.Fields(tr.ShapeSignature()) {
			if k, _, ok := strings.Cut(w, "="); ok && k != "schema" {
				opts = append(opts, "--"+k)
			}
		}
		return fmt.Sprintf("was created for another test kind or with other values of %s (the options its definition depends on)", strings.Join(opts, ", "))
	}
	was, now := wordDiff(m.Holds, tr.Holds())
	if was == "" {
		was = m.Holds
	}
	if now == "" {
		return "holds " + was
	}
	return fmt.Sprintf("holds %s where this run says %s", was, now)
}

// wordDiff returns the space-separated words of a that b lacks and those of
// b that a lacks.
func wordDiff(a, b string) (onlyA, onlyB string) {
	wa, wb := strings.Fields(a), strings.Fields(b)
	return strings.Join(without(wa, wb), " "), strings.Join(without(wb, wa), " ")
}

func without(words, drop []string) []string {
	var kept []string
	for _, w := range words {
		if !slices.Contains(drop, w) {
			kept = append(kept, w)
		}
	}
	return kept
}
