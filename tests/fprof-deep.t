#!/bin/bash
# Deeply nested Erlang terms, differentially against fprof: a process is
# spawned with an argument nested 9,000 deep (and one with 1,000-deep
# tagged tuples, maps, binaries...); fprof:analyse prints it as
# spawned_as.  With a 1 MB stack, our trace reader + analysis writer must
# print fprof's text byte for byte, and so must the analysis reader
# reading fprof's text back: no part of the term layer recurses on the
# nesting.
. "$CG_TOP/tests/lib.sh"
require_tool erl erlc
CV=$BIN/cgconvert
cd "$WORK" || exit 1
erlc "$CG_TOP/testdata/fprof/deep/deep_spawn.erl" || { echo "Bail out! erlc failed"; exit 1; }
erl -noshell -pa . -eval '
{module, _} = code:ensure_loaded(deep_spawn),
[begin
     _ = fprof:apply(deep_spawn, run, [Term, x], [{file, Name ++ ".trace"}]),
     ok = fprof:profile([{file, Name ++ ".trace"}]),
     ok = fprof:analyse([{dest, Name ++ ".analysis"}])
 end || {Name, Term} <- [{"lists", deep_spawn:lists(9000)}, {"mixed", deep_spawn:mixed(1000)}]],
halt().' >erl.log 2>&1 || { echo "Bail out! tracing with fprof failed"; sed 's/^/# /' erl.log; exit 1; }

is "fprof printed the 9,000-deep argument" "$(grep -c '^ { spawned_as, {deep_spawn,child,' lists.analysis)" 1
for p in lists mixed; do
	( ulimit -s 1024 && exec "$CV" -t fprof -o "$p.out" "$p.trace" ) 2>err
	is "$p: trace converts with a 1 MB stack" "$?:$(cat err)" "0:"
	cmp_files "$p: identical to fprof:analyse" "$p.out" "$p.analysis"
	( ulimit -s 1024 && exec "$CV" -t fprof -o "$p.again" "$p.analysis" ) 2>err
	is "$p: fprof's analysis text reads back with a 1 MB stack" "$?:$(cat err)" "0:"
	cmp_files "$p: analysis text read back and rewritten unchanged" "$p.again" "$p.analysis"
	( ulimit -s 1024 && exec "$CV" -t xml -o "$p.xml" "$p.trace" )
	( ulimit -s 1024 && exec "$CV" -t fprof -o "$p.via-xml" "$p.xml" ) 2>err
	cmp_files "$p: through XML, still fprof's text" "$p.via-xml" "$p.analysis"
done
done_testing
