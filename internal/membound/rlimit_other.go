//go:build !unix

package membound

// addressLimit is 0: no limit of address space is known here.
func addressLimit() int64 { return 0 }
