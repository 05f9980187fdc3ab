// Package version holds the build's version and commit, set by the Makefile
// through -ldflags and read from the Go build information otherwise.
package version

import (
	"runtime"
	"runtime/debug"
)

// Set at build time: -ldflags "-X github.com/candor-bench/candor/internal/version.Version=... -X ...Commit=..."
var (
	Version = "0.1.0-dev"
	Commit  = ""
)

// Info returns version, commit ("unknown" when neither ldflags nor build
// information carry it) and the Go version.
func Info() (ver, commit, goVersion string) {
	commit = Commit
	if commit == "" {
		if bi, ok := debug.ReadBuildInfo(); ok {
			for _, s := range bi.Settings {
				if s.Key == "vcs.revision" && len(s.Value) >= 12 {
					commit = s.Value[:12]
				}
			}
		}
	}
	if commit == "" {
		commit = "unknown"
	}
	return Version, commit, runtime.Version()
}
