# A calling-context tree of N nodes in pre-order: F functions, each calling
# one of 8 callees of its own (so arcs stay far fewer than nodes, as in
# real programs), depth up to 60.
BEGIN {
	srand(1); F = 20000; nf = 0
	print "# cgtree 1"; print "creator bench 0"; print "time cpu"; print "hz 1000"
	print "event cpu 1000000 CPU%20time%20ticks"
	print "thread 0 0"
	depth = 0; stack[0] = 0; sf[0] = 0
	for (id = 1; id <= N; id++) {
		while (depth > 0 && (depth > 60 || rand() < 0.45)) depth--
		f = (sf[depth] * 8 + int(rand() * 8) + 1) % F
		if (!(f in def)) { def[f] = nf; printf "func %d name fn_%d src/m%d.c %d\n", nf++, f, f % 97, f % 1000 + 1 }
		printf "node %d %d %d %d 0 0 %d\n", id, stack[depth], def[f], int(rand() * 50) + 1, int(rand() * 100)
		stack[++depth] = id; sf[depth] = f
	}
	printf "endthread 0 nodes %d samples 0 overhead 0 lost 0 resyncs 0 status ok\n", N
	print "ended exit 0"; print "end"
}
