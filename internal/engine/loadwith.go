package engine

import (
	"maps"
	"strconv"
	"strings"

	"github.com/candor-bench/candor/internal/result"
	"github.com/candor-bench/candor/internal/runner"
	"github.com/candor-bench/candor/internal/target"
	"github.com/candor-bench/candor/internal/workload"
)

// loadBatchKey names the rows per load batch among a load's properties.
const loadBatchKey = "load_batch"

// loadWith is how this command's load loads, as the marks of the tables it
// fills record it (tables.Request.LoadWith): the rows per batch, and the
// target's settings named load_* (a CQL target's load_consistency).
func loadWith(fp target.Fingerprint, cfg runner.Config, wl workload.Workload) map[string]string {
	with := map[string]string{loadBatchKey: strconv.FormatInt(runner.LoadBatch(cfg, wl), 10)}
	for k, v := range fp.Settings {
		if strings.HasPrefix(k, "load_") {
			with[k] = v
		}
	}
	return with
}

// recordLoadedWith makes a result whose run loaded nothing say how its data
// was loaded as the tables' marks record it (loaded, from
// tables.Session.LoadedWith), not as this command would have loaded it:
// the load_* settings take the marks' values ("not recorded" for tables
// loaded by an earlier candor, "mixed" when the tables differ), and the
// load batch is the marks' or left out. nil loaded: the command loads, and
// its own values hold.
func recordLoadedWith(res *result.Result, loaded map[string]string) {
	if loaded == nil {
		return
	}
	res.Target.Settings = maps.Clone(res.Target.Settings)
	if res.Target.Settings == nil {
		res.Target.Settings = map[string]string{}
	}
	for k, v := range loaded {
		if k == loadBatchKey {
			res.Run.LoadBatch, _ = strconv.Atoi(v) // 0, left out, unless recorded
			continue
		}
		res.Target.Settings[k] = v
	}
}
