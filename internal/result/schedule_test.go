package result

import (
	"strings"
	"testing"
)

// 499.9 of 500 ops/s with a lag from a scheduled outage is the fault's
// doing; the same lag without a fault, or 400 of 500, is behind schedule.
func TestScheduleVerdict(t *testing.T) {
	p := Phase{Rate: &RateResult{Target: 500, Achieved: 499.9, BehindSchedule: true, MaxLagNs: 5e9}, Faults: []FaultEvent{{Kind: "run"}}}
	if why, fault := p.ScheduleVerdict(); !fault || !strings.Contains(why, "1 s late") {
		t.Errorf("outage: %q %v", why, fault)
	}
	p.Faults = nil
	if why, fault := p.ScheduleVerdict(); fault || why == "" {
		t.Errorf("no fault: %q %v", why, fault)
	}
	p.Faults = []FaultEvent{{Kind: "run"}}
	p.Rate.Achieved = 400
	if why, fault := p.ScheduleVerdict(); fault || !strings.Contains(why, "95%") {
		t.Errorf("400 of 500: %q %v", why, fault)
	}
	p.Rate = &RateResult{Target: 500, Achieved: 499.9}
	if why, _ := p.ScheduleVerdict(); why != "" {
		t.Errorf("on schedule: %q", why)
	}
}
