#!/bin/bash
# One job on the hosts of a multihost.sh session ($MULTIHOST):
#
#   multihost_job.sh OUT [--at PATTERN [--cut HOST]] MPIRUN-ARGS...
#
# runs `multihost.sh mpirun $MULTIHOST MPIRUN-ARGS...` under `timeout 120`
# with its output in OUT.out and OUT.err, then appends "exit status N" to
# OUT.err. OUT.time gets the seconds from the start to the end of mpirun,
# or from the moment OUT.out first holds a line matching PATTERN (--at);
# --cut then takes host HOST's link down at that moment (its eth0, inside
# its namespace). At the end it waits until no process is left in any host,
# at most 30 s, and lists the ones left in OUT.left (empty when none).
here=$(cd "$(dirname "$0")/.." && pwd)
out="$1"
shift
pattern=
cut_host=
if [ "${1:-}" = --at ]; then
  pattern="$2"
  shift 2
fi
if [ "${1:-}" = --cut ]; then
  cut_host="$2"
  shift 2
fi
: > "$out.out"
start=$(date +%s.%N)
timeout 120 "$here/multihost.sh" mpirun "$MULTIHOST" "$@" > "$out.out" 2> "$out.err" &
job=$!
if [ -n "$pattern" ]; then
  for ((i = 0; i < 6000; ++i)); do
    grep -q -- "$pattern" "$out.out" && break
    kill -0 $job 2> /dev/null || break
    sleep 0.01
  done
  start=$(date +%s.%N)
  grep -q -- "$pattern" "$out.out" || echo "multihost_job.sh: '$pattern' never came" >> "$out.err"
  [ -z "$cut_host" ] || "$here/multihost.sh" exec "$MULTIHOST" "$cut_host" ip link set eth0 down
fi
wait $job
status=$?
end=$(date +%s.%N)
echo "exit status $status" >> "$out.err"
echo "$start $end" | awk '{ printf "%.1f\n", $2 - $1 }' > "$out.time"
for ((i = 0; i < 300; ++i)); do
  "$here/multihost.sh" pids "$MULTIHOST" > "$out.left"
  [ -s "$out.left" ] || break
  sleep 0.1
done
exit 0
