// Command candor runs database benchmarks; see README.md.
package main

import (
	"os"

	"github.com/candor-bench/candor/internal/cli"
)

func main() {
	env := cli.OSEnv()
	os.Exit(cli.Main(env, os.Args[1:]))
}
