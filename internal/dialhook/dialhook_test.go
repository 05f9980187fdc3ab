package dialhook

import "testing"

func TestAliasAndRoute(t *testing.T) {
	const node = "10.0.0.1:9042"
	if got := Route(node); got != node {
		t.Fatalf("Route without an alias = %q, want the address itself", got)
	}
	first := Alias(node, "127.0.0.1:4000")
	if got := Route(node); got != "127.0.0.1:4000" {
		t.Errorf("Route = %q, want the alias", got)
	}
	second := Alias(node, "127.0.0.1:4001")
	first() // ending a replaced alias leaves the newer one
	if got := Route(node); got != "127.0.0.1:4001" {
		t.Errorf("Route after the replaced alias ended = %q, want the newer alias", got)
	}
	second()
	if got := Route(node); got != node {
		t.Errorf("Route once every alias ended = %q, want the address itself", got)
	}
}
