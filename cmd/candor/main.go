// Command candor runs database benchmarks; see README.md.
package main

import (
	"fmt"
	"os"
	"runtime/pprof"

	"github.com/candor-bench/candor/internal/cli"
)

func main() {
	// CANDOR_CPUPROFILE=FILE writes a CPU profile of the whole command, for
	// looking at candor's own client cost (go tool pprof).
	if path := os.Getenv("CANDOR_CPUPROFILE"); path != "" {
		if f, err := os.Create(path); err == nil {
			if err := pprof.StartCPUProfile(f); err == nil {
				defer pprof.StopCPUProfile()
			}
		} else {
			fmt.Fprintf(os.Stderr, "candor: CANDOR_CPUPROFILE: %v\n", err)
		}
	}
	env := cli.OSEnv()
	code := cli.Main(env, os.Args[1:])
	pprof.StopCPUProfile()
	os.Exit(code)
}
