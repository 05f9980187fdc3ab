package observe

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

// The Grafana dashboard is valid JSON, and every metric its queries name
// is one the endpoint serves.
func TestGrafanaDashboardNamesServedMetrics(t *testing.T) {
	raw, err := os.ReadFile("../../deploy/grafana/candor.json")
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatalf("dashboard JSON: %v", err)
	}
	served := map[string]bool{}
	ch := make(chan *prometheus.Desc, 32)
	(&Metrics{}).Describe(ch)
	close(ch)
	nameRE := regexp.MustCompile(`fqName: "([^"]+)"`)
	for dsc := range ch {
		n := nameRE.FindStringSubmatch(dsc.String())[1]
		served[n] = true
		served[n+"_bucket"] = true
	}
	// Each metric's type, from a Metrics that serves them all.
	m := &Metrics{}
	m.SetLoadTotal(10)
	m.Begin("load", []string{"INSERT"})
	reg := prometheus.NewRegistry()
	reg.MustRegister(m)
	fams, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	types := map[string]string{}
	for _, f := range fams {
		types[f.GetName()] = f.GetType().String()
		types[f.GetName()+"_bucket"] = f.GetType().String()
	}
	// rate() and increase() are for counters (and histograms' buckets);
	// by Prometheus' conventions every name ending in _total is a counter.
	rated := regexp.MustCompile(`(?:rate|increase)\((candor_[a-z_]+)`)
	for _, p := range d.Panels {
		for _, tg := range p.Targets {
			for _, m := range rated.FindAllStringSubmatch(tg.Expr, -1) {
				if ty := types[m[1]]; ty != "COUNTER" && ty != "HISTOGRAM" {
					t.Errorf("panel %q takes the rate of %s, a %s", p.Title, m[1], ty)
				}
			}
		}
	}
	for name, ty := range types {
		if strings.HasSuffix(name, "_total") && ty != "COUNTER" {
			t.Errorf("%s is a %s: a name ending in _total is a counter's", name, ty)
		}
	}
	used := regexp.MustCompile(`candor_[a-z_]+`)
	n := 0
	for _, p := range d.Panels {
		for _, tg := range p.Targets {
			for _, m := range used.FindAllString(tg.Expr, -1) {
				n++
				if !served[m] {
					t.Errorf("panel %q queries %s, which the endpoint does not serve", p.Title, m)
				}
			}
			if !strings.Contains(tg.Expr, `run_id=~"$run_id"`) {
				t.Errorf("panel %q does not filter by run_id: %s", p.Title, tg.Expr)
			}
		}
	}
	if n == 0 {
		t.Error("the dashboard queries no candor metric")
	}
}
