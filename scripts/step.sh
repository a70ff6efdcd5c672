#!/usr/bin/env bash
# One step of `make test`, timed, its output kept in a log.
#
#   scripts/step.sh DIR NAME COMMAND...   run COMMAND; DIR/NAME.log gets its output,
#                                         DIR/times a line "NAME STATUS SECONDS START CPU"
#   scripts/step.sh --reset DIR           forget the steps of an earlier run
#   scripts/step.sh --summary DIR         print every step's time and CPU time, slowest
#                                         first, and the wall-clock time since --reset
#
# Steps run side by side under `make -j`, so each prints one line when it
# starts and one when it ends, and its whole log only if it fails: the output
# stays readable however the steps interleave.
set -uo pipefail

case "${1:-}" in
--reset)
	dir=${2:?usage: $0 --reset DIR}
	rm -rf "$dir"
	mkdir -p "$dir"
	date +%s >"$dir/started"
	exit 0
	;;
--summary)
	dir=${2:?usage: $0 --summary DIR}
	[ -s "$dir/times" ] || exit 0
	now=$(date +%s)
	echo
	echo "make test, step by step (slowest first; steps run side by side, so their times add up to more"
	echo "than the total; CPU is the processor time the step and its children used, on all cores):"
	printf '  %-22s %-7s %6s %8s %6s\n' step status time "" CPU
	sort -k3,3nr "$dir/times" | while read -r name status secs _ cpu; do
		printf '  %-22s %-7s %5ss %8s %5ss\n' "$name" "$status" "$secs" "$(printf '%dm%02ds' $((secs / 60)) $((secs % 60)))" "${cpu:-?}"
	done
	if [ -s "$dir/started" ]; then
		total=$((now - $(cat "$dir/started")))
		printf '  %-22s %-7s %5ss %8s\n' "total (wall clock)" "" "$total" "$(printf '%dm%02ds' $((total / 60)) $((total % 60)))"
	fi
	echo "  logs: $dir/<step>.log"
	exit 0
	;;
esac

dir=${1:?usage: $0 DIR NAME COMMAND...}
name=${2:?usage: $0 DIR NAME COMMAND...}
shift 2
mkdir -p "$dir"
log="$dir/$name.log"
start=$(date +%s)
echo "==> $name"
"$@" >"$log" 2>&1
rc=$?
secs=$(($(date +%s) - start))
# The CPU time of the command and everything it waited for: the second line
# of `times` ("0m12.345s 0m1.234s", user and system), in whole seconds.
# (`times` runs here, not in a pipeline's subshell, which has no children.)
times >"$log.times"
cpu=$(tail -n 1 "$log.times" | awk '{ t = 0; for (i = 1; i <= 2; i++) { split($i, p, "m"); t += p[1] * 60 + p[2] } printf "%d", t }')
rm -f "$log.times"
if [ "$rc" -eq 0 ]; then
	status=passed
	echo "<== $name passed in ${secs}s"
else
	status=FAILED
	echo "<== $name FAILED after ${secs}s (exit $rc); its output:" >&2
	cat "$log" >&2
	echo "<== end of $name's output ($log)" >&2
fi
# One short line per append: lines from parallel steps do not interleave.
echo "$name $status $secs $start $cpu" >>"$dir/times"
exit "$rc"
