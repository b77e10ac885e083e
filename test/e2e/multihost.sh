#!/bin/bash
# Hosts on one machine, for tests of jobs that span nodes.
#
# Each host is a Linux network namespace with a hostname of its own (a UTS
# namespace per launched command), joined to the others by a veth pair into
# a bridge that lives in a further namespace, the head node, where mpirun
# runs. Addresses: 10.213.X.(i+1) for host i and 10.213.X.254 for the head,
# X being the first number from 0 to 249 whose head namespace could be
# created (`ip netns add` fails for an existing name), so jobs side by side
# never share names or subnets. Nothing is created in or routed to the root
# namespace: the veths are made inside the namespaces and vanish with them.
# Open MPI launches its daemons through this script as plm_rsh_agent, which
# maps a host's address to its namespace, and uses TCP only, over the
# bridge; ranks of different hosts share no memory and see only each other's
# sockets (the machine's /proc is still shared: nothing in tpc looks at a
# peer of another hostname there).
#
#   multihost.sh probe                     exit 0 when hosts can be made here
#   multihost.sh setup DIR NHOSTS          make the hosts; DIR holds the state
#   multihost.sh teardown DIR              kill what runs there, remove them
#   multihost.sh session DIR NHOSTS CMD... setup, CMD with $MULTIHOST=DIR,
#                                          teardown on any exit (trap)
#   multihost.sh mpirun DIR ARGS...        mpirun from the head; 2 slots a host
#                                          on the hosts in order
#   multihost.sh exec DIR HOST CMD...      CMD on host HOST (0, 1, ...)
#   multihost.sh pids DIR                  "host i: pid command" per process
#                                          still running in a host
#   multihost.sh agent ADDR CMD...         (Open MPI's launch agent)
#
# setup tears down what DIR held first, and the hosts of sessions whose
# process is gone (a test killed before its trap ran); hosts made by setup
# alone stay until their teardown. Teardown of nothing is fine.

set -u
here=$(cd "$(dirname "$0")" && pwd)
self="$here/$(basename "$0")"
prefix=tpcmh

die() {
  echo "multihost.sh: $*" >&2
  exit 1
}

# State of DIR: X, the host count and the owner's pid.
load() {
  state="$1/multihost.state"
  [ -f "$state" ] || die "no hosts set up in $1 (run setup first)"
  . "$state"
}

ns_head() { echo "$prefix$1-head"; }
ns_host() { echo "$prefix$1-h$2"; }

# Kill every process in namespace $1 (the daemons of a job, or ranks left
# behind), then remove it.
remove_ns() {
  ip netns list 2>/dev/null | grep -q "^$1\( \|$\)" || return 0
  local pids
  pids=$(ip netns pids "$1" 2>/dev/null)
  [ -n "$pids" ] && kill -KILL $pids 2>/dev/null
  ip netns del "$1" 2>/dev/null || true
}

remove_all() { # X NHOSTS
  local i
  for ((i = 0; i < $2; ++i)); do
    remove_ns "$(ns_host "$1" "$i")"
  done
  remove_ns "$(ns_head "$1")"
  rm -f "/run/$prefix/$1"
}

# Namespaces of this kind whose owner has exited without its teardown.
sweep_stale() {
  local f x owner hosts
  for f in /run/$prefix/*; do
    [ -f "$f" ] || continue
    x=$(basename "$f")
    read -r owner hosts < "$f" || continue
    if [ "$owner" != 0 ] && ! kill -0 "$owner" 2>/dev/null; then
      remove_all "$x" "$hosts"
    fi
  done
}

teardown() {
  local dir="$1"
  [ -f "$dir/multihost.state" ] || return 0
  load "$dir"
  remove_all "$X" "$HOSTS"
  rm -f "$dir/multihost.state"
}

setup() {
  local dir="$1" hosts="$2" owner="${3:-0}"
  [ "$hosts" -ge 1 ] && [ "$hosts" -le 200 ] || die "NHOSTS must be 1 to 200"
  mkdir -p "$dir" /run/$prefix || die "cannot create $dir"
  dir=$(cd "$dir" && pwd)
  teardown "$dir"
  sweep_stale
  # Claim X: the first head namespace this process creates.
  local x start=$(($$ % 250)) i
  X=
  for ((i = 0; i < 250; ++i)); do
    x=$(((start + i) % 250))
    if ip netns add "$(ns_head "$x")" 2>/dev/null; then
      X=$x
      break
    fi
  done
  [ -n "$X" ] || die "no free subnet 10.213.X.0/24 (or ip netns add fails)"
  echo "$owner $hosts" > "/run/$prefix/$X"
  trap 'remove_all "$X" "$hosts"; exit 1' ERR INT TERM
  set -E
  local head host
  head=$(ns_head "$X")
  ip -n "$head" link set lo up
  ip -n "$head" link add name br0 type bridge
  ip -n "$head" addr add "10.213.$X.254/24" dev br0
  ip -n "$head" link set br0 up
  for ((i = 0; i < hosts; ++i)); do
    host=$(ns_host "$X" "$i")
    ip netns add "$host"
    ip -n "$host" link set lo up
    ip -n "$head" link add name "h$i" type veth peer name eth0 netns "$host"
    ip -n "$head" link set "h$i" master br0 up
    ip -n "$host" addr add "10.213.$X.$((i + 1))/24" dev eth0
    ip -n "$host" link set eth0 up
  done
  # A host cut off must be noticed: TCP gives up on unacknowledged data
  # after about 6 s here instead of 15 min (tcp_retries2 is per namespace),
  # so that mpirun and the daemons end; the ranks' own --comm-timeout comes
  # first.
  for ((i = 0; i < hosts; ++i)); do
    ip netns exec "$(ns_host "$X" "$i")" sysctl -qw net.ipv4.tcp_retries2=4
  done
  ip netns exec "$head" sysctl -qw net.ipv4.tcp_retries2=4
  set +E
  trap - ERR INT TERM
  {
    echo "X=$X"
    echo "HOSTS=$hosts"
  } > "$dir/multihost.state"
  : > "$dir/hostfile"
  for ((i = 0; i < hosts; ++i)); do
    echo "10.213.$X.$((i + 1)) slots=2" >> "$dir/hostfile"
  done
}

case "${1:-}" in
probe)
  [ "$(id -u)" = 0 ] && command -v ip > /dev/null && command -v unshare > /dev/null &&
    command -v mpirun > /dev/null || exit 1
  name="$prefix-probe-$$"
  ip netns add "$name" 2> /dev/null || exit 1
  ok=0
  ip -n "$name" link add name a type veth peer name b 2> /dev/null || ok=1
  ip netns exec "$name" unshare --uts true 2> /dev/null || ok=1
  ip netns del "$name"
  exit $ok
  ;;
setup)
  [ $# -eq 3 ] || die "usage: setup DIR NHOSTS"
  setup "$2" "$3"
  ;;
teardown)
  [ $# -eq 2 ] || die "usage: teardown DIR"
  teardown "$2"
  ;;
session)
  [ $# -ge 4 ] || die "usage: session DIR NHOSTS CMD..."
  dir="$2"
  hosts="$3"
  shift 3
  trap 'teardown "$dir"' EXIT
  trap 'exit 130' INT TERM
  setup "$dir" "$hosts" $$ || exit 1
  MULTIHOST=$(cd "$dir" && pwd) "$@"
  ;;
mpirun)
  [ $# -ge 2 ] || die "usage: mpirun DIR ARGS..."
  dir=$(cd "$2" && pwd) || exit 1
  shift 2
  load "$dir"
  # A session directory of the job's own (see mpirun-isolated.sh).
  tmp=$(mktemp -d) || exit 1
  net="10.213.$X.0/24"
  TMPDIR=$tmp TPC_MULTIHOST_X=$X exec ip netns exec "$(ns_head "$X")" \
    mpirun --hostfile "$dir/hostfile" --oversubscribe \
    --mca plm_rsh_agent "$self agent" --mca plm_rsh_no_tree_spawn 1 \
    --mca btl tcp,self --mca btl_tcp_if_include "$net" \
    --mca oob_tcp_if_include "$net" "$@"
  ;;
exec)
  [ $# -ge 4 ] || die "usage: exec DIR HOST CMD..."
  load "$2"
  host=$(ns_host "$X" "$3")
  shift 3
  exec ip netns exec "$host" "$@"
  ;;
pids)
  [ $# -eq 2 ] || die "usage: pids DIR"
  load "$2"
  for ((i = 0; i < HOSTS; ++i)); do
    for p in $(ip netns pids "$(ns_host "$X" "$i")" 2> /dev/null); do
      echo "host $i: $p $(tr '\0' ' ' < "/proc/$p/cmdline" 2> /dev/null)"
    done
  done
  ;;
agent)
  # Open MPI calls `agent [options] HOST COMMAND...`, COMMAND being a shell
  # command line as ssh would hand it to the remote shell.
  shift
  while [ $# -gt 0 ] && [ "${1#-}" != "$1" ]; do shift; done
  [ $# -ge 2 ] || die "agent: usage: agent HOST COMMAND..."
  addr="$1"
  shift
  x="${TPC_MULTIHOST_X:-}"
  case "$addr" in
  10.213.$x.*) i=$((${addr##*.} - 1)) ;;
  *) die "agent: $addr is not a host of this job" ;;
  esac
  exec ip netns exec "$(ns_host "$x" "$i")" unshare --uts \
    sh -c 'hostname "$0" && exec sh -c "$1"' "host$i" "$*"
  ;;
*)
  die "usage: multihost.sh probe|setup|teardown|session|mpirun|exec|pids|agent ..."
  ;;
esac
