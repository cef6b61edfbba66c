#!/usr/bin/env bash
# A program with its own SIGPROF use keeps it under the collector (issue
# 12).  While the collector samples (cpu, wall) its per-thread timers send
# SIGPROF too; the program's sigaction/signal for SIGPROF is recorded
# instead of installed, our ticks (tagged by their sigev_value) stay ours,
# and every other SIGPROF (its setitimer, raise, kill, pthread_kill) runs
# the program's disposition.  Its handler sees only its own signals, the
# collector keeps its samples, sigaction reports the program's handler.
#
# profsig prints only lines that are the same in every run that behaves
# (the signal counts are checked against what its own timer can deliver
# over the CPU time it used: no timing bound), so a plain run and a run
# under the collector must print the same.
. "${CG_TOP:-.}/tests/lib.sh"
P=$CG_BUILD/tests/collector/profsig
paths() { sh "$CG_TOP/testdata/collector/paths.sh" "$@"; }
samples() { awk '$1 == "endthread" { print $6; exit }' "$1"; }
cost_of() {  # FILE PATH
	paths "$1" | awk -v p="$2" '$1 == p { sub("cost=", "", $5); print $5 }'
}
count_of() { awk '$1 == "count" { print $2 }' "$1"; }
plain_run() {  # MODE: profsig MODE alone, into MODE-plain.txt
	"$P" "$1" >"$1-plain.txt"
	is "$1: runs fine without the collector" "$?" 0
}
profiled_run() {  # MODE TIME WHAT: the same under cgrun, output compared
	"$BIN/cgrun" -q --time="$2" --hz=1000 -o "$1.cgt" "$P" "$1" >"$1-$2.txt"
	is "$1, $2: exit status as without the collector" "$?" 0
	cmp_files "$1, $2: $3" "$1-plain.txt" "$1-$2.txt"
}
cd "$WORK" || exit 1

# Its own itimer at 50 Hz, the collector at 1000 Hz.
for mode in sigaction signal; do
	"$P" $mode >$mode-plain.txt 2>$mode-plain.err
	is "$mode: runs fine without the collector" "$?" 0
	ok "$mode: without the collector every check passes" \
		sh -c "! grep -q ': no\$' $mode-plain.txt"
	for time in cpu wall; do
		"$BIN/cgrun" -q --time=$time --hz=1000 -o $mode-$time.cgt "$P" $mode \
			>$mode-$time.txt 2>$mode-$time.err
		is "$mode, $time: exit status as without the collector" "$?" 0
		cmp_files "$mode, $time: its handler got only its own timer's SIGPROFs (output as without the collector)" \
			$mode-plain.txt $mode-$time.txt
		n=$(count_of $mode-$time.err)
		s=$(samples $mode-$time.cgt)
		note "$mode, $time: its handler ran ${n:-?} times ($(count_of $mode-plain.err) without the collector); collector samples ${s:-?}"
		ok "$mode, $time: its handler ran (${n:-none})" test "${n:-0}" -gt 0
		# burn() uses 0.6 s of CPU: about 600 samples at 1000 Hz; the
		# program's 50 Hz timer sends about 30.  Ours must not reach it.
		ok "$mode, $time: the collector kept its samples (${s:-none} >= 300)" \
			test "${s:-0}" -ge 300
		ok "$mode, $time: its handler ran far fewer times than the collector ticked" \
			test "$((${n:-0} * 5))" -lt "${s:-0}"
		burn=$(cost_of $mode-$time.cgt main/timed_run/burn)
		ok "$mode, $time: burn holds most of the samples (${burn:-none} of ${s:-none})" \
			test "$((${burn:-0} * 2))" -gt "${s:-0}"
		ok "$mode, $time: the profile says the program exited" grep -q '^ended exit 0$' $mode-$time.cgt
	done
done

# SIGPROFs it sends itself reach its handler, each exactly once.
plain_run raise
is "raise: without the collector its handler ran once per signal" \
	"$(grep -c 'sent 15, its handler ran 15 times' raise-plain.txt)" 1
profiled_run raise cpu "raise, kill, pthread_kill reach its handler with its sa_mask"
ok "raise, cpu: the collector kept its samples" test "$(samples raise.cgt)" -ge 150

# SIG_IGN: recorded, reported, and its SIGPROFs are ignored.
plain_run ignore
profiled_run ignore cpu "an ignored SIGPROF does nothing, sigaction says SIG_IGN"
ok "ignore, cpu: the collector kept its samples" test "$(samples ignore.cgt)" -ge 150

# The default action: the program dies of its SIGPROF, after the profile
# is written.
{ "$P" default >default-plain.txt; } 2>/dev/null  # no "Profiling timer expired"
plain=$?
is "default: without the collector it dies of SIGPROF" "$plain" $((128 + $(kill -l PROF)))
"$BIN/cgrun" -q --time=cpu --hz=1000 -o default.cgt "$P" default >default-cpu.txt 2>/dev/null
is "default, cpu: exit status as without the collector" "$?" "$plain"
cmp_files "default, cpu: output as without the collector" default-plain.txt default-cpu.txt
ok "default, cpu: the profile says SIGPROF ended it" grep -q '^ended signal [0-9]* SIGPROF$' default.cgt

# Its handler does not take the sleep wrappers' place: in wall mode our
# ticks still wait while it sleeps, so its nanosleep is not cut short.
plain_run sleep
profiled_run sleep wall "nanosleep sleeps its time, no SIGPROF reaches the program"
nap=$(cost_of sleep.cgt main/nap)
ok "sleep, wall: the sleep is charged to nap (${nap:-none} >= 240 ticks)" test "${nap:-0}" -ge 240

# calls mode has no timer: the program's handler is installed for real.
"$BIN/cgrun" -q --time=calls -o calls.cgt "$P" sigaction >calls.txt 2>/dev/null
is "sigaction, calls: exit status as without the collector" "$?" 0
cmp_files "sigaction, calls: output as without the collector" sigaction-plain.txt calls.txt

done_testing
