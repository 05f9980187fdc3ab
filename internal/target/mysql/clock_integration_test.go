package mysql

import (
	"context"
	"testing"
	"time"

	"github.com/candor-bench/candor/internal/target"
)

// The server's clock (NOW(6)), read as a sharded run reads it: on one
// machine the offset is within the round trip.
func TestServerClockOffset(t *testing.T) {
	tgt := openTarget(t, testURL(t), target.Options{ConnectTimeout: 10 * time.Second})
	defer tgt.Close()
	off, rtt, err := target.ClockOffset(context.Background(), tgt, 5)
	if err != nil {
		t.Fatal(err)
	}
	if rtt <= 0 || rtt > time.Second || off.Abs() > rtt/2+time.Millisecond {
		t.Errorf("offset %s, round trip %s: want the offset within half the round trip on one machine", off, rtt)
	}
}
