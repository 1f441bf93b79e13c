package membound_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"

	"github.com/toonkit/toonkit/internal/membound"
)

// A computation that holds ever more, checking its context, is ended once
// the heap passes the bound.
func Example() {
	ctx, stop := membound.Watch(context.Background(), 32<<20)
	defer stop()
	var held [][]byte
	for ctx.Err() == nil {
		held = append(held, make([]byte, 64<<10))
	}
	runtime.KeepAlive(held)
	var ee *membound.ExceededError
	if errors.As(context.Cause(ctx), &ee) {
		fmt.Println("the run", ee)
	}
	// Output:
	// the run used more than 32 MiB of memory
}
