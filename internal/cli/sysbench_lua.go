package cli

import (
	"fmt"

	"github.com/candor-bench/candor/internal/engine"
	"github.com/candor-bench/candor/internal/sysbenchline"
	"github.com/candor-bench/candor/internal/target"
	"github.com/candor-bench/candor/internal/workload"
	"github.com/candor-bench/candor/internal/workload/sysbenchlua"
)

// runLuaCommand runs a Lua script's command other than run (`candor
// sysbench SCRIPT.lua prepare|cleanup|help|CUSTOM`), as sysbench does: in
// the script's own Lua states, on sessions of the first target, printing
// what the script prints. It writes no result: a command is not measured.
func runLuaCommand(env *Env, line *sysbenchline.Line, has func(verb, name string) bool) error {
	props, threads, urls, err := line.ScriptProps(has)
	if err != nil {
		return err
	}
	w, err := engine.ResolveWorkload(env.Stderr, sysbenchlua.Name, nil, props)
	if err != nil {
		return err
	}
	lw := w.(*sysbenchlua.Workload)
	if _, err := engine.LoadScripts(lw, nil); err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "%s\n\n", sysbenchline.Banner())
	if line.Command == "help" {
		if err := lw.Help(env.Stdout); err != nil {
			return usagef("%v", err)
		}
		return nil
	}
	if !lw.HasCommand(line.Command) {
		return usagef("%v", lw.RunCommand(nil, nil, 0, nil))
	}
	ctx, stop := interruptContext(env)
	defer stop()
	tgt, err := target.Open(ctx, urls[0], target.Options{})
	if err != nil {
		return withCode(ExitUnreachable, err)
	}
	defer tgt.Close()
	wenv := workload.Env{Dialect: tgt.Dialect(), Capabilities: tgt.Capabilities(), Threads: threads, Classify: tgt.Classify,
		ServerError: func(err error) (target.ServerError, bool) { return target.ServerErrorOf(tgt, err) }}
	if err := lw.Bind(wenv); err != nil {
		return withCode(ExitUnsupported, err)
	}
	if err := lw.RunCommand(ctx, tgt, threads, env.Stdout); err != nil {
		return withCode(ExitRunFailed, fmt.Errorf("%s %s: %w", line.Script, line.Command, err))
	}
	return nil
}
