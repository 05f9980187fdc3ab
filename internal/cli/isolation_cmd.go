package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/candor-bench/candor/internal/isolation/probe"
	"github.com/candor-bench/candor/internal/result"
	"github.com/candor-bench/candor/internal/runflags"
	"github.com/candor-bench/candor/internal/target"
)

// newIsolationCmd is candor isolation: what a product's isolation levels
// allow, observed (docs/ISOLATION.md).
func newIsolationCmd(env *Env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "isolation",
		Short: "Observe what a target's isolation levels allow (probes of G0 ... G2)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return usagef("candor isolation needs a subcommand: probe (see candor isolation probe --help)")
		},
	}
	cmd.AddCommand(newIsolationProbeCmd(env))
	return cmd
}

func newIsolationProbeCmd(env *Env) *cobra.Command {
	var targetURL, level, out string
	var asJSON bool
	var timeout runflags.Duration
	timeout.D = target.DefaultConnectTimeout
	cmd := &cobra.Command{
		Use:   "probe",
		Short: "Run candor's deterministic two- and three-session probes of each isolation anomaly at each level the target offers; print which it allowed",
		Example: `  candor isolation probe --target postgres://user@127.0.0.1:5432/db
  candor isolation probe --target mysql://user:pw@127.0.0.1:3306/db --isolation repeatable-read --json
  candor isolation probe --target sqlite:///tmp/probe.db --out probe.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts := probe.Options{ConnectTimeout: timeout.D}
			if cmd.Flags().Changed("isolation") {
				if err := target.ValidIsolation(level); err != nil || level == "" {
					return usagef("--isolation %q is not a level candor probes; use one of %s, or leave it out to probe every level the target offers", level, strings.Join(probe.Levels, ", "))
				}
				opts.Levels = []string{level}
			}
			if targetURL == "" {
				targetURL = DefaultTarget
			}
			ctx, stop := interruptContext(env)
			defer stop()
			rep, err := probe.Run(ctx, targetURL, opts)
			if err != nil {
				if ctx.Err() != nil {
					return withCode(ExitInterrupted, fmt.Errorf("isolation probe %w: %w", errInterrupted, err))
				}
				if errors.Is(err, target.ErrForeignTable) {
					return withCode(ExitUnsupported, fmt.Errorf("%w; candor never drops a table it did not create: drop or rename that table yourself", err))
				}
				if ExitCode(err) == ExitInternal {
					return withCode(ExitRunFailed, err)
				}
				return err
			}
			if len(opts.Levels) == 1 && !rep.Levels[0].Offered {
				return withCode(ExitUnsupported, fmt.Errorf("--isolation %s: %s", level, rep.Levels[0].Reason))
			}
			data, err := json.MarshalIndent(rep, "", "  ")
			if err != nil {
				return err
			}
			data = append(data, '\n')
			if out != "" {
				if err := result.WriteFileAtomic(out, data); err != nil {
					return withCode(ExitResultNotWritten, fmt.Errorf("writing the probe report %s: %w", out, err))
				}
			}
			if asJSON {
				_, err = env.Stdout.Write(data)
				return err
			}
			return probe.WriteText(env.Stdout, rep)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&targetURL, "target", "", "database URL (default "+DefaultTarget+")")
	fl.StringVar(&level, "isolation", "", "probe this level only: "+strings.Join(probe.Levels, ", ")+" (default: every level the target offers)")
	fl.BoolVar(&asJSON, "json", false, "print the report as JSON instead of a table")
	fl.StringVar(&out, "out", "", "also write the report as JSON to this file")
	fl.Var(&timeout, "connect-timeout", "give up connecting after this long")
	return cmd
}
