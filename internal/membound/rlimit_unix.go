//go:build unix

package membound

import "syscall"

// addressLimit is the process's limit of address space (ulimit -v), in
// bytes; 0 if none (RLIM_INFINITY is all ones).
func addressLimit() int64 {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &r); err != nil || r.Cur >= 1<<62 {
		return 0
	}
	return int64(r.Cur)
}
