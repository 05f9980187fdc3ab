package result

import "fmt"

// SustainedShare is the share of its target rate an open loop must
// achieve over a phase to have sustained it (the runner's threshold for
// behind_schedule): 499.9 of 500 ops/s is sustained.
const SustainedShare = 0.95

// ScheduleVerdict says why an open-loop phase is behind its schedule ("":
// it is not, or it is no open loop), and whether that is only the
// scheduled faults' doing: a phase with faults (an outage the run
// scheduled) that still achieved SustainedShare of its target rate fell
// behind around the fault, not for want of capacity.
func (p *Phase) ScheduleVerdict() (why string, fault bool) {
	if p.Rate == nil || (!p.Rate.BehindSchedule && p.Dropped == 0) {
		return "", false
	}
	r := p.Rate
	switch {
	case r.Achieved < SustainedShare*r.Target:
		why = fmt.Sprintf("achieved under %.0f%% of the target rate", 100*SustainedShare)
	case r.MaxLagNs > 1e9:
		why = "an operation started more than 1 s late"
	case p.Dropped > 0:
		why = "operations due by the schedule never began"
	default:
		return "", false
	}
	return why, len(p.Faults) > 0 && r.Achieved >= SustainedShare*r.Target
}
