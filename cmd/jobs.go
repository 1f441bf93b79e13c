package cmd

import (
	"runtime"

	"github.com/spf13/pflag"
)

// addJobsFlag adds -j, --jobs: the number of workers of a command that
// spreads independent records over the CPUs (internal/pipeline). 0, the default,
// is the number of usable CPUs (GOMAXPROCS); 1 is the single-worker path.
// what names the work that is spread ("binary frames").
func addJobsFlag(f *pflag.FlagSet, jobs *int, what string) {
	f.IntVarP(jobs, "jobs", "j", 0, what+" on `N` workers, output byte-identical to -j 1 (default: the usable CPUs, GOMAXPROCS)")
}

// workers is the worker count that a --jobs value asks for.
func workers(jobs int) (int, error) {
	if jobs < 0 {
		return 0, usageErrorf("", "--jobs: want a whole number of workers, 1 or more (0: the usable CPUs), found %d", jobs)
	}
	if jobs == 0 {
		return runtime.GOMAXPROCS(0), nil
	}
	return jobs, nil
}
