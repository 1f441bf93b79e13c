package cli

import (
	"os"
	"strconv"
	"time"
)

// Clock is time.Now, or a clock stopped at SOURCE_DATE_EPOCH (seconds
// since 1970) when it is set, for reproducible seals and reports.
func Clock() (func() time.Time, error) {
	e, ok := os.LookupEnv("SOURCE_DATE_EPOCH")
	if !ok {
		return time.Now, nil
	}
	sec, err := strconv.ParseInt(e, 10, 64)
	if err != nil {
		return nil, UsageErrorf("", "SOURCE_DATE_EPOCH: %q is not a number of seconds", e)
	}
	return func() time.Time { return time.Unix(sec, 0) }, nil
}

// DisplayName is the name of an input in reports: stdin's for -.
func DisplayName(name string) string {
	if name == "-" {
		return StdinName
	}
	return name
}
