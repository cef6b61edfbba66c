// cpuburn.go: a small Go program that writes its own CPU profile
// (runtime/pprof), so the tests read a profile Go itself produced.
// Usage: cpuburn OUT.pb.gz [MILLISECONDS]
package main

import (
	"os"
	"runtime/pprof"
	"strconv"
	"time"
)

//go:noinline
func leaf(n int) int {
	s := 0
	for i := 0; i < n; i++ {
		s += i * i % 7
	}
	return s
}

//go:noinline
func light(n int) int { return leaf(n) }

//go:noinline
func heavy(n int) int { return leaf(n) + leaf(n) + leaf(n) }

//go:noinline
func fib(n int) int {
	if n < 2 {
		return n
	}
	return fib(n-1) + fib(n-2)
}

func main() {
	f, err := os.Create(os.Args[1])
	if err != nil {
		panic(err)
	}
	ms := 1500
	if len(os.Args) > 2 {
		ms, _ = strconv.Atoi(os.Args[2])
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		panic(err)
	}
	total := 0
	for end := time.Now().Add(time.Duration(ms) * time.Millisecond); time.Now().Before(end); {
		total += light(20000) + heavy(20000) + fib(18)
	}
	pprof.StopCPUProfile()
	f.Close()
	if total == 42 {
		println(total)
	}
}
