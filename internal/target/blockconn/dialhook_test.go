package blockconn

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/candor-bench/candor/internal/dialhook"
)

func TestDialAsksDialhook(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	real := ln.Addr().String()
	const fake = "127.0.0.1:1" // nothing listens there
	d := &net.Dialer{Timeout: 5 * time.Second}
	dialFake := func() (net.Conn, error) { return Dial(context.Background(), d, "tcp", fake) }

	var asked []string
	first := dialhook.Intercept(fake, func(ctx context.Context, dial func(string) (net.Conn, error)) (net.Conn, error) {
		asked = append(asked, "first")
		return dial(real) // the interceptor dials as Dial would
	})
	c, err := dialFake()
	if err != nil {
		t.Fatalf("an intercepted dial: %v", err)
	}
	if c.RemoteAddr().String() != real {
		t.Errorf("intercepted dial reached %s, want %s", c.RemoteAddr(), real)
	}
	c.Close()

	errSecond := errors.New("second")
	second := dialhook.Intercept(fake, func(context.Context, func(string) (net.Conn, error)) (net.Conn, error) {
		asked = append(asked, "second")
		return nil, errSecond
	})
	if _, err := dialFake(); !errors.Is(err, errSecond) {
		t.Errorf("a dial after a second dialhook.Intercept: %v, want the second interceptor's error", err)
	}
	first() // ending a replaced registration leaves the newer one
	if _, err := dialFake(); !errors.Is(err, errSecond) {
		t.Errorf("a dial once the replaced interceptor ended: %v, want the second's error", err)
	}
	second()
	if c, err := dialFake(); err == nil {
		c.Close()
		t.Error("a dial once every interceptor ended reached something; want the address's own refusal")
	}
	if want := []string{"first", "second", "second"}; len(asked) != len(want) {
		t.Errorf("interceptors called %v, want %v", asked, want)
	}
}
