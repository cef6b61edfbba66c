#!/usr/bin/env bash
# A waiting program waits as long under the collector: the calls of
# signal(7)'s "never restarted" list that collector-wall-sleep.t does not
# cover (sigtimedwait, sigwaitinfo, sigwait, epoll_pwait2, msgrcv, msgsnd,
# semop, semtimedop).  Without the preload's wrappers each SIGPROF tick of
# the wall-mode timer makes them fail with EINTR, and a wait for a set that
# holds SIGPROF receives the collector's ticks.  With them the program sees
# the same results as without the collector, other signals still interrupt
# the calls, and the whole wait is charged to the function that waited.
. "${CG_TOP:-.}/tests/lib.sh"
require_tool timeout addr2line
P=$CG_BUILD/tests/collector/waiter
paths() { sh "$CG_TOP/testdata/collector/paths.sh" "$@"; }
cd "$WORK" || exit 1
# A wrapper that swallowed the program's own SIGPROF would leave it waiting
# for ever: every run is guarded (a hang guard only, far above the 3 s the
# program takes).
guard() { timeout 60 "$@"; }

# self cost of main/.../FUNCTION in a cgtree file
cost_of() {
	paths "$1" | awk -v f="$2" '$1 ~ ("/" f "$") { sub("cost=", "", $5); print $5 }'
}

# waiter's functions and how long each waits, in tenths of a second (the
# in_* functions wait for a helper thread, which posts 0.3 s after it
# was started just before).
waits_fns="wait_sigtimedwait:3 wait_sigwaitinfo:3 wait_sigwait:3 wait_epoll_pwait2:4
	in_msgrcv:2 in_msgsnd:2 in_semop:2 wait_semtimedop:3"
sigprof_fns="take_sigwaitinfo:3 take_sigtimedwait:5 take_sigwait:3 own_sigprofs:5"

for scenario in waits sigprof; do
	# Each call returns what it should after at least its time (the
	# program measures CLOCK_MONOTONIC itself; no upper bound is checked)
	# and prints "…: yes" for every property it checks.
	guard "$P" $scenario >$scenario-plain.txt
	plain=$?
	is "$scenario: the program runs fine without the collector" "$plain" 0
	ok "$scenario: every check of the program holds without the collector" \
		sh -c "! grep -q ': no\$' $scenario-plain.txt"
	if [ $scenario = waits ]; then fns=$waits_fns; else fns=$sigprof_fns; fi
	for hz in 100 1000; do
		out=$scenario$hz
		guard "$BIN/cgrun" -q --time=wall --hz=$hz -o $out.cgt "$P" $scenario >$out.txt
		is "$scenario, wall $hz Hz: exit status as without the collector" "$?" "$plain"
		cmp_files "$scenario, wall $hz Hz: every result as without the collector" \
			$scenario-plain.txt $out.txt
		# At least 80% of the periods a function waits are its own
		# self cost (the timer's overrun, counted while SIGPROF was
		# held, or the ticks sigtimedwait took out of the program's
		# set).
		sum=0
		for fw in $fns; do
			fn=${fw%:*}
			tenths=${fw#*:}
			want=$((tenths * hz / 10 * 8 / 10))
			sum=$((sum + want))
			cost=$(cost_of $out.cgt "$fn")
			ok "$scenario, wall $hz Hz: $fn's self cost ${cost:-none} ticks >= $want" \
				test "${cost:-0}" -ge "$want"
		done
		if [ $scenario = sigprof ]; then
			# The ticks a wait took out of the program's set are
			# placed at its call: every heavy `at` record of the
			# main thread (>= a third of a 0.3 s wait) is on a line
			# of waiter.c that calls sigwaitinfo, sigtimedwait or
			# sigwait, at least one per wait: take_sigwaitinfo's,
			# take_sigtimedwait's two, take_sigwait's, and in
			# own_sigprofs the wait for its own timer and the
			# zero-timeout poll after a sleep with SIGPROF blocked.
			awk -v min=$((hz / 10)) '$1 == "thread" { t = $2 } $1 == "at" && t == 0 && $3 == 0 && $5 >= min { print $4 }' \
				$out.cgt | addr2line -e "$P" | sed 's/.*://; s/ .*//' >heavy$hz.txt
			placed=0
			while read -r line; do
				sed -n "${line}p" "$CG_TOP/testdata/collector/progs/waiter.c" |
					grep -q -E 'sig(waitinfo|timedwait|wait)\(' && placed=$((placed + 1))
			done <heavy$hz.txt
			heavy=$(wc -l <heavy$hz.txt)
			ok "$scenario, wall $hz Hz: the taken ticks are placed on the lines that wait: $placed of $heavy >= 6 heavy records (lines $(tr '\n' ' ' <heavy$hz.txt))" \
				test "$placed" -eq "$heavy" -a "$heavy" -ge 6
		fi
		# The waits' ticks are neither lost nor taken for the
		# collector's own time (bounded as in collector-wall-sleep.t).
		misplaced=$(awk '$1 == "endthread" { for (i = 2; i < NF; i++) if ($i == "overhead" || $i == "lost") n += $(i + 1) } END { print n + 0 }' $out.cgt)
		ok "$scenario, wall $hz Hz: overhead and lost ticks $misplaced < $((sum / 10))" \
			test "$misplaced" -lt $((sum / 10))
	done
	# cpu mode: the same results (a tick can land on the way into a wait;
	# while SIGPROF is blocked by the program, ticks of the busy parts
	# stay pending for its sigtimedwait).
	guard "$BIN/cgrun" -q --time=cpu -o $scenario-cpu.cgt "$P" $scenario >$scenario-cpu.txt
	is "$scenario, cpu: exit status as without the collector" "$?" "$plain"
	cmp_files "$scenario, cpu: results as without the collector" \
		$scenario-plain.txt $scenario-cpu.txt
done

# Another signal still interrupts each call: EINTR, as the program expects.
guard "$P" interrupt >iplain.txt
is "interrupt: runs fine without the collector" "$?" 0
is "interrupt: the plain run saw EINTR each time" "$(grep -c 'Interrupted system call' iplain.txt)" 7
guard "$BIN/cgrun" -q --time=wall --hz=1000 -o i.cgt "$P" interrupt >iwall.txt
is "interrupt, wall: exit status as without the collector" "$?" 0
cmp_files "interrupt, wall: each call sees EINTR from SIGUSR1 as without the collector" \
	iplain.txt iwall.txt

done_testing
