package postgres

import (
	"context"
	"testing"
	"time"

	"github.com/candor-bench/candor/internal/target"
)

// The server's clock, read as a sharded run reads it: on one machine the
// offset is within the round trip (and a round trip within a second).
func TestServerClockOffset(t *testing.T) {
	tgt := openTarget(t, testURL(t))
	defer tgt.Close()
	off, rtt, err := target.ClockOffset(context.Background(), tgt, 5)
	if err != nil {
		t.Fatal(err)
	}
	if rtt <= 0 || rtt > time.Second || off.Abs() > rtt/2+time.Millisecond {
		t.Errorf("offset %s, round trip %s: want the offset within half the round trip on one machine", off, rtt)
	}
}
