package ledger

import (
	"math"
	"sort"
	"time"
)

// Interval is the number of acknowledged writes in [Start, Start+Width).
type Interval struct {
	Start int64         // Unix nanoseconds
	Width time.Duration // the series' interval
	Acked int64
}

// Input is what the accounting needs.
type Input struct {
	// Records is every ledger record of the run (several records may carry
	// one id: a retried write).
	Records []Record
	// Present counts, per id, the rows found on the server when reading
	// back (1 normally, more for duplicates). Ids absent from the map are
	// absent from the server.
	Present map[int64]int
	// FaultAt is when the fault that RPO and RTO are measured from began
	// (Unix nanoseconds); 0 when the run had none.
	FaultAt int64
	// FaultEnd is when that fault's event ended (its command exited, the
	// network was restored); 0 if unknown. Only writes sent by then can
	// mark the start of the outage, so a failure long after recovery is
	// not taken for it.
	FaultEnd int64
	// Intervals is the run's acknowledged writes per interval, in time
	// order, for the time until throughput is back (optional; Buckets
	// builds it from the records).
	Intervals []Interval
	// MaxListed caps the ids listed per category; 0 means DefaultMaxListed.
	MaxListed int
	// Stopped says why the run ended on purpose at the fault (a fault that
	// failed under --on-fault-error stop), "" when it did not: a recovery
	// the run did not wait for is then not measured, rather than "never".
	Stopped string
}

// DefaultMaxListed is how many ids an Accounting lists per category, at
// most, unless Input.MaxListed says otherwise.
const DefaultMaxListed = 20

// Accounting is the verdict on a run's writes.
type Accounting struct {
	Records      int `json:"records"`      // ledger records read
	Writes       int `json:"writes"`       // distinct ids in the ledger
	Acknowledged int `json:"acknowledged"` // writes whose final outcome was acknowledged
	Failed       int `json:"failed"`       // ... failed (the server said no)
	Unknown      int `json:"unknown"`      // ... unknown (no answer)

	Lost    int     `json:"lost"` // acknowledged but absent from the server
	LostIDs []int64 `json:"lost_ids,omitempty"`

	UnknownCommitted    int `json:"unknown_committed"`     // unknown, found on the server
	UnknownNotCommitted int `json:"unknown_not_committed"` // unknown, absent

	FailedPresent    int     `json:"failed_present"` // reported failed, yet on the server
	FailedPresentIDs []int64 `json:"failed_present_ids,omitempty"`

	Duplicates   int     `json:"duplicates"` // ids found more than once on the server
	DuplicateIDs []int64 `json:"duplicate_ids,omitempty"`

	// Unrecorded ids are on the server with no ledger record: their records
	// were lost (a crash of candor) or they were not written by this run.
	Unrecorded    int     `json:"unrecorded"`
	UnrecordedIDs []int64 `json:"unrecorded_ids,omitempty"`

	Fault *FaultAccounting `json:"fault,omitempty"` // when Input.FaultAt is set
}

// FaultAccounting measures the run around its fault. Durations are seconds.
type FaultAccounting struct {
	At time.Time `json:"at"`
	// RPOSeconds is the fault's time minus the earliest acknowledgement of
	// a lost write: how much acknowledged history the fault took. 0 when
	// nothing was lost; negative when every lost write was acknowledged
	// after the fault began.
	RPOSeconds      float64    `json:"rpo_s"`
	EarliestLostAck *time.Time `json:"earliest_lost_ack,omitempty"`
	// RTOSeconds is from the fault to the first acknowledgement of a write
	// sent after the outage began: at the first write that failed or went
	// unanswered at or after the fault, sent before Input.FaultEnd when
	// given (a kill takes effect some time after
	// the command that does it starts), else at the fault itself (a pause
	// stalls writes without failing them). A write in flight when the
	// fault began does not count as recovery. Absent: nothing was
	// acknowledged after.
	RTOSeconds *float64 `json:"rto_s,omitempty"`
	// RTOAllSeconds is when the last worker got its first acknowledgement
	// after its own outage began (measured the same way, per worker, in
	// Workers); absent when a worker never did.
	RTOAllSeconds *float64 `json:"rto_all_s,omitempty"`
	// RTONotMeasured says why RTOSeconds or RTOAllSeconds is absent when
	// the run ended on purpose before a recovery could be seen (the run
	// stopped at a fault that failed, --on-fault-error stop): not
	// measured, rather than never recovered. "" otherwise.
	RTONotMeasured string      `json:"rto_not_measured,omitempty"`
	Workers        []WorkerRTO `json:"workers,omitempty"`
	// PreFaultRate is the mean of the acknowledged writes per second over
	// the intervals that ended before the fault.
	PreFaultRate float64 `json:"pre_fault_rate,omitempty"`
	// Recovered90Seconds is from the fault to the start of the first
	// interval starting at or after it whose rate is at least 90% of
	// PreFaultRate; its resolution is one interval (IntervalSeconds).
	// Absent: never back, or no intervals given.
	Recovered90Seconds *float64 `json:"recovered90_s,omitempty"`
	IntervalSeconds    float64  `json:"interval_s,omitempty"`
}

// WorkerRTO is one worker's recovery.
type WorkerRTO struct {
	Worker     uint32   `json:"worker"`
	RTOSeconds *float64 `json:"rto_s,omitempty"` // absent: no acknowledgement after the fault
}

// rank orders outcomes for a retried id: one acknowledgement makes the
// write acknowledged; else one unknown makes it unknown.
func rank(o Outcome) int {
	switch o {
	case Acknowledged:
		return 3
	case Unknown:
		return 2
	case Failed:
		return 1
	}
	return 0
}

// Account compares the ledger with what the server holds. It is a pure
// function of its input.
func Account(in Input) Accounting {
	maxListed := in.MaxListed
	if maxListed <= 0 {
		maxListed = DefaultMaxListed
	}
	a := Accounting{Records: len(in.Records)}
	final := make(map[int64]Record, len(in.Records))
	for _, r := range in.Records {
		cur, ok := final[r.ID]
		if !ok || rank(r.Outcome) > rank(cur.Outcome) ||
			(r.Outcome == cur.Outcome && r.End < cur.End) {
			final[r.ID] = r
		}
	}
	a.Writes = len(final)
	var lost, failedPresent, dups, unrecorded []int64
	earliestLost := int64(math.MaxInt64)
	for id, r := range final {
		present := in.Present[id] > 0
		switch r.Outcome {
		case Acknowledged:
			a.Acknowledged++
			if !present {
				lost = append(lost, id)
				earliestLost = min(earliestLost, r.End)
			}
		case Failed:
			a.Failed++
			if present {
				failedPresent = append(failedPresent, id)
			}
		default:
			a.Unknown++
			if present {
				a.UnknownCommitted++
			} else {
				a.UnknownNotCommitted++
			}
		}
	}
	for id, n := range in.Present {
		if n > 1 {
			dups = append(dups, id)
		}
		if _, ok := final[id]; !ok && n > 0 {
			unrecorded = append(unrecorded, id)
		}
	}
	a.Lost, a.LostIDs = len(lost), firstIDs(lost, maxListed)
	a.FailedPresent, a.FailedPresentIDs = len(failedPresent), firstIDs(failedPresent, maxListed)
	a.Duplicates, a.DuplicateIDs = len(dups), firstIDs(dups, maxListed)
	a.Unrecorded, a.UnrecordedIDs = len(unrecorded), firstIDs(unrecorded, maxListed)
	if in.FaultAt != 0 {
		a.Fault = faultAccounting(in, len(lost) > 0, earliestLost)
	}
	return a
}

// firstIDs sorts ids and keeps the first n.
func firstIDs(ids []int64, n int) []int64 {
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	if len(ids) > n {
		ids = ids[:n]
	}
	if len(ids) == 0 {
		return nil
	}
	return ids
}

func seconds(ns int64) *float64 {
	s := float64(ns) / 1e9
	return &s
}

func faultAccounting(in Input, anyLost bool, earliestLost int64) *FaultAccounting {
	f := &FaultAccounting{At: time.Unix(0, in.FaultAt).UTC()}
	if anyLost {
		f.RPOSeconds = float64(in.FaultAt-earliestLost) / 1e9
		t := time.Unix(0, earliestLost).UTC()
		f.EarliestLostAck = &t
	}
	// The outage begins, per worker and overall, at the first write that
	// ended in failure or uncertainty at or after the fault (and was sent
	// before the fault's event ended, when that is known); a worker that
	// saw none is measured from the fault itself. Recovery is the first
	// acknowledgement of a write sent after that.
	outage := map[uint32]int64{}
	global := int64(math.MaxInt64)
	seen := map[uint32]bool{}
	for _, r := range in.Records {
		seen[r.Worker] = true
		if r.Outcome != Acknowledged && r.End >= in.FaultAt && (in.FaultEnd == 0 || r.Start <= in.FaultEnd) {
			if cur, ok := outage[r.Worker]; !ok || r.End < cur {
				outage[r.Worker] = r.End
			}
			global = min(global, r.End)
		}
	}
	if global == math.MaxInt64 {
		global = in.FaultAt
	}
	first := map[uint32]int64{} // worker → first acknowledgement after its outage began
	firstAny, anyAck := int64(0), false
	for _, r := range in.Records {
		if r.Outcome != Acknowledged || r.Start < in.FaultAt {
			continue
		}
		from, ok := outage[r.Worker]
		if !ok {
			from = in.FaultAt
		}
		if r.Start >= from {
			if cur, ok := first[r.Worker]; !ok || r.End < cur {
				first[r.Worker] = r.End
			}
		}
		if r.Start >= global && (!anyAck || r.End < firstAny) {
			firstAny, anyAck = r.End, true
		}
	}
	workers := make([]uint32, 0, len(seen))
	for w := range seen {
		workers = append(workers, w)
	}
	sort.Slice(workers, func(i, j int) bool { return workers[i] < workers[j] })
	var latest int64
	allBack := len(workers) > 0
	for _, w := range workers {
		wr := WorkerRTO{Worker: w}
		if end, ok := first[w]; ok {
			wr.RTOSeconds = seconds(end - in.FaultAt)
			latest = max(latest, end)
		} else {
			allBack = false
		}
		f.Workers = append(f.Workers, wr)
	}
	if anyAck {
		f.RTOSeconds = seconds(firstAny - in.FaultAt)
	}
	if allBack {
		f.RTOAllSeconds = seconds(latest - in.FaultAt)
	}
	if in.Stopped != "" && (f.RTOSeconds == nil || f.RTOAllSeconds == nil) {
		f.RTONotMeasured = in.Stopped
	}
	recovery90(in, f)
	return f
}

// recovery90 fills PreFaultRate and Recovered90Seconds from the intervals.
func recovery90(in Input, f *FaultAccounting) {
	var sum float64
	var n int
	for _, iv := range in.Intervals {
		if iv.Width <= 0 {
			continue
		}
		if iv.Start+int64(iv.Width) <= in.FaultAt {
			sum += float64(iv.Acked) / iv.Width.Seconds()
			n++
		}
	}
	if n == 0 {
		return
	}
	f.PreFaultRate = sum / float64(n)
	for _, iv := range in.Intervals {
		if iv.Width <= 0 || iv.Start < in.FaultAt {
			continue
		}
		f.IntervalSeconds = iv.Width.Seconds()
		if float64(iv.Acked)/iv.Width.Seconds() >= 0.9*f.PreFaultRate {
			f.Recovered90Seconds = seconds(iv.Start - in.FaultAt)
			return
		}
	}
}

// Buckets counts acknowledged writes by the interval their acknowledgement
// fell in: intervals of width from `from` (Unix ns) to the last
// acknowledgement. Acknowledgements before from are ignored.
func Buckets(records []Record, from int64, width time.Duration) []Interval {
	if width <= 0 {
		return nil
	}
	var counts []int64
	for _, r := range records {
		if r.Outcome != Acknowledged || r.End < from {
			continue
		}
		i := int((r.End - from) / int64(width))
		for len(counts) <= i {
			counts = append(counts, 0)
		}
		counts[i]++
	}
	out := make([]Interval, len(counts))
	for i, c := range counts {
		out[i] = Interval{Start: from + int64(i)*int64(width), Width: width, Acked: c}
	}
	return out
}
