#!/bin/bash
# A Slurm cluster (slurmctld + slurmd per node + munged) with all its state under one folder, for the
# end-to-end test of `reel batch --shard` (Tests/Slurm/slurm_test.py, `make slurm-test`).
#
#   Tests/Slurm/cluster.sh up DIR [N]   install what is missing, start munged, slurmctld and the slurmd of
#                                       each node, wait for every node to be idle; prints
#                                       `export SLURM_CONF=DIR/slurm.conf`
#   Tests/Slurm/cluster.sh kill DIR K   node K loses its power: every process in its namespaces (its slurmd,
#                                       slurmstepd, the job's reel) gets SIGKILL at once
#   Tests/Slurm/cluster.sh down DIR     stop every slurmd, slurmctld and munged (by their pid files), remove
#                                       the nodes' namespaces and the bridge
#
# Without N: one node, the machine itself, reached on 127.0.0.1 (no namespaces needed). With N (1-9): N
# machines on one, node1..nodeN, each slurmd in a network namespace of its own (an address on a bridge,
# SUBNET.11..SUBNET.1N; the controller is SUBNET.1 on the bridge) and a UTS namespace of its own (its own
# hostname); they share the file system, as cluster nodes share an NFS folder. Partitions: `reel` (every
# node, the default) and `upto1`..`uptoN` (the first K nodes), to measure throughput per node count.
#
# Clients (sbatch, squeue, scontrol, scancel) find the cluster through SLURM_CONF=DIR/slurm.conf; nothing is
# written under /etc, /run or /var except by apt-get. Runs as root on a fresh Debian 12 machine, container or
# not, with or without systemd (the daemons are started by hand, never as services).
#
# What makes it work in a container or micro-VM (no systemd, no usable cgroup hierarchy), as found on
# Debian 12's slurm-wlm 22.05:
# - ProctrackType=proctrack/linuxproc and TaskPlugin=task/none: no cgroups needed (proctrack/cgroup and
#   task/cgroup fail without a writable cgroup hierarchy); JobAcctGatherType=jobacct_gather/none.
# - Nodes are declared with CPUS CPUs whatever the machine has (4 for the one-node cluster, 2 for each of N),
#   accepted thanks to SlurmdParameters=config_overrides (without it the node stays `inval`: "Low socket*core*thread count,
#   Low CPUs"). CgroupPlugin=disabled (cgroup.conf) does not exist in 22.05: no cgroup.conf is written.
# - Every daemon is reached by its address (127.0.0.1, or the bridge's), so no name resolution is needed;
#   slurmd is told its node name with -N.
# - A node's slurmd is started with `nsenter --net=/run/netns/NS unshare --uts`, not `ip netns exec`: the
#   latter remounts /sys for the namespace, which hides /sys/fs/cgroup, and slurmd 22.05 then refuses to start.
# - `SlurmctldHost=NAME(SUBNET.1)`: the nodes reach the controller on the bridge. Per-node spool, pid and log
#   files are named with %n. SlurmdTimeout=10: a node that stops answering is `down` about 20 s later, and
#   its running batch tasks are requeued (JobRequeue=1; the array script asks `--requeue` too).
# - munged refuses a socket folder that is not searchable by all and a key readable by others, and a
#   `mktemp -d` folder is 0700: DIR is made 0755, the key folder 0700, the socket folder 0755.
# - munged runs as root without --force; `mungekey` makes the key (dd from /dev/urandom if it is missing).
# - SchedulerParameters=sched_interval=1,bf_interval=1: array tasks still start about 1 s after a slot frees
#   (the backfill pass starts them; it runs every bf_interval seconds, 30 by default).
# - MinJobAge=60 keeps finished tasks' records (state, exit code) long enough for the test to read them with
#   `scontrol show job` (there is no accounting database for sacct).
# - The packages' postinst scripts try to start munge/slurm services; a temporary policy-rc.d (only when the
#   machine has none) keeps them from starting daemons on the default paths while apt-get runs.
#
# Ports: SLURMCTLD_PORT (default 6817) and SLURMD_PORT (default 6818) may be set to run beside another cluster.
set -euo pipefail

usage() { echo "usage: $0 up DIR [NODES] | kill DIR NODE | down DIR" >&2; exit 2; }
[ $# -ge 2 ] && [ $# -le 3 ] || usage
action=$1
dir=$2
arg=${3:-}
case $action in up|kill|down) ;; *) usage ;; esac
case $arg in "" | [1-9]) ;; *) usage ;; esac
[ "$action" != kill ] || [ -n "$arg" ] || usage

SLURMCTLD_PORT=${SLURMCTLD_PORT:-6817}
SLURMD_PORT=${SLURMD_PORT:-6818}
SUBNET=${SUBNET:-10.213.17}
# Names of the bridge and the namespaces, after the controller's port so two clusters can run side by side.
BRIDGE=rl${SLURMCTLD_PORT}br
netns_name() { echo "rl${SLURMCTLD_PORT}n$1"; }
UP_TIMEOUT=${UP_TIMEOUT:-60}

log() { echo "cluster.sh: $*" >&2; }

tail_logs() {
	local f
	for f in "$dir/munge/log/munged.log" "$dir/log/slurmctld.log" "$dir"/log/slurmd-*.log; do
		[ -f "$f" ] || continue
		echo "----- tail of $f" >&2
		tail -n 25 "$f" >&2
	done
}

# On an error during `up`, whatever was started is stopped again, so a failed `up` leaves nothing running.
starting=0
fail() { log "ERROR: $*"; tail_logs; [ $starting = 0 ] || down; exit 1; }

# stop_pidfile NAME FILE: SIGTERM the process in FILE, wait up to 10 s, then SIGKILL. Only that pid.
stop_pidfile() {
	local name=$1 file=$2 pid i
	[ -f "$file" ] || return 0
	pid=$(cat "$file" 2>/dev/null || true)
	if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
		kill -TERM "$pid" 2>/dev/null || true
		for i in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
		if kill -0 "$pid" 2>/dev/null; then
			log "$name ($pid) did not stop on SIGTERM; SIGKILL"
			kill -KILL "$pid" 2>/dev/null || true
			sleep 0.2
		fi
	fi
	rm -f "$file"
}

# descendants PID...: the given processes and all their descendants, from /proc's PPid fields.
descendants() {
	local all=" $* " added=1 pid ppid
	while [ $added = 1 ]; do
		added=0
		for pid in $(ls /proc | grep -E '^[0-9]+$'); do
			case "$all" in *" $pid "*) continue ;; esac
			ppid=$(awk '/^PPid:/ {print $2}' "/proc/$pid/status" 2>/dev/null || true)
			case "$all" in *" $ppid "*) all="$all$pid "; added=1 ;; esac
		done
	done
	echo $all
}

# The cluster's network namespaces that exist now (node1..node9).
namespaces() {
	ip netns list 2>/dev/null | awk '{print $1}' | grep -E "^rl${SLURMCTLD_PORT}n[1-9]$" || true
}

# power_off K: every process in node K's network namespace gets SIGKILL at once (slurmd, slurmstepd, the
# job's processes: all of them were started in it). Prints the pids it killed.
power_off() {
	local ns pids i
	ns=$(netns_name "$1")
	ip netns list 2>/dev/null | awk '{print $1}' | grep -qx "$ns" || { log "no node $1 (namespace $ns)"; return 1; }
	pids=$(ip netns pids "$ns" | tr '\n' ' ')
	[ -z "$pids" ] || kill -KILL $pids 2>/dev/null || true
	# A process forked between the listing and the signal: until none is left.
	for i in $(seq 1 50); do
		[ -z "$(ip netns pids "$ns")" ] && break
		kill -KILL $(ip netns pids "$ns") 2>/dev/null || true
		sleep 0.1
	done
	echo "$pids"
}

down() {
	[ -d "$dir" ] || return 0
	local pid i f ns
	# Jobs still running are cancelled through the controller first, so they end the way Slurm ends them.
	if [ -f "$dir/run/slurmctld.pid" ] && kill -0 "$(cat "$dir/run/slurmctld.pid")" 2>/dev/null; then
		local ids
		ids=$(SLURM_CONF="$dir/slurm.conf" squeue -h -o %A 2>/dev/null | sort -u || true)
		if [ -n "$ids" ]; then
			log "cancelling jobs still queued or running: $(echo $ids)"
			SLURM_CONF="$dir/slurm.conf" scancel $ids 2>/dev/null || true
			for i in $(seq 1 30); do
				[ -z "$(SLURM_CONF="$dir/slurm.conf" squeue -h -o %A 2>/dev/null)" ] && break
				sleep 0.5
			done
		fi
	fi
	# The slurmds first, then the controller (slurmd reports to it on the way out), then munge.
	for f in "$dir"/run/slurmd-*.pid; do
		[ -f "$f" ] && stop_pidfile slurmd "$f"
	done
	stop_pidfile slurmctld "$dir/run/slurmctld.pid"
	stop_pidfile munged "$dir/munge/run/munged.pid"
	# slurmstepd processes outlive slurmd; this cluster's run in DIR/log (their working folder). They and the
	# job processes under them are killed.
	local stepds=""
	for pid in $(ls /proc | grep -E '^[0-9]+$'); do
		grep -q '^slurmstepd' "/proc/$pid/comm" 2>/dev/null || continue
		case "$(readlink "/proc/$pid/cwd" 2>/dev/null || true)" in "$dir" | "$dir"/*) stepds="$stepds $pid" ;; esac
	done
	if [ -n "$stepds" ]; then
		local tree
		tree=$(descendants $stepds)
		log "killing leftover slurmstepd and job processes: $tree"
		kill -KILL $tree 2>/dev/null || true
	fi
	# The nodes' namespaces (whatever still runs in them is killed) and the bridge.
	for ns in $(namespaces); do
		power_off "${ns##*n}" >/dev/null || true
		ip netns del "$ns" 2>/dev/null || log "could not remove namespace $ns"
	done
	if ip link show "$BRIDGE" >/dev/null 2>&1; then
		ip link del "$BRIDGE" 2>/dev/null || log "could not remove bridge $BRIDGE"
	fi
	log "down ($dir)"
}

install_missing() {
	local p missing="" tmp_policy=""
	for p in slurmctld slurmd slurm-client munge jq iproute2; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
	done
	[ -z "$missing" ] && return 0
	log "installing:$missing"
	[ "$(id -u)" = 0 ] || fail "not root: install$missing first"
	if [ ! -e /usr/sbin/policy-rc.d ]; then
		# The packages would start munged/slurmd/slurmctld on the default paths (invoke-rc.d): not wanted.
		printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
		chmod 755 /usr/sbin/policy-rc.d
		tmp_policy=/usr/sbin/policy-rc.d
	fi
	local rc=0
	{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		-o DPkg::Lock::Timeout=300 --no-install-recommends $missing >/dev/null; } || rc=$?
	[ -z "$tmp_policy" ] || rm -f "$tmp_policy"
	[ $rc = 0 ] || fail "apt-get install$missing failed ($rc)"
}

port_in_use() {
	# /proc/net/tcp lists ports in hex; state 0A is LISTEN.
	local hex
	hex=$(printf '%04X' "$1")
	cat /proc/net/tcp /proc/net/tcp6 2>/dev/null | awk -v p=":$hex" '$2 ~ p"$" && $4 == "0A" {found=1} END {exit !found}'
}


# network N: a bridge with the controller's address, and N namespaces, each with a veth pair whose inner
# end is its eth0 at SUBNET.1K (K = 1..N), the outer end on the bridge.
network() {
	local n=$1 k ns
	ip link add "$BRIDGE" type bridge || fail "cannot make bridge $BRIDGE (ip link add ... type bridge); root and a kernel with bridging needed"
	ip addr add "$SUBNET.1/24" dev "$BRIDGE"
	ip link set "$BRIDGE" up
	for k in $(seq 1 "$n"); do
		ns=$(netns_name "$k")
		ip netns add "$ns" || fail "cannot make network namespace $ns"
		ip link add "${ns}h" type veth peer name eth0 netns "$ns" || fail "cannot make veth pair for $ns"
		ip link set "${ns}h" master "$BRIDGE" up
		ip -n "$ns" addr add "$SUBNET.1$k/24" dev eth0
		ip -n "$ns" link set lo up
		ip -n "$ns" link set eth0 up
	done
}

# reachable K: node K connects to the controller's port on the bridge (the bridge forwards once its ports
# are up).
reachable() {
	local ns i
	ns=$(netns_name "$1")
	for i in $(seq 1 50); do
		nsenter --net="/run/netns/$ns" timeout 1 bash -c "exec 3<>/dev/tcp/$SUBNET.1/$SLURMCTLD_PORT" 2>/dev/null && return 0
		sleep 0.2
	done
	fail "node$1 ($SUBNET.1$1) cannot reach the controller at $SUBNET.1:$SLURMCTLD_PORT"
}

write_conf() {
	local controller=$1 controller_address=$2 cpus=$3 n=$4 k
	cat >"$dir/slurm.conf" <<CONF
# Written by Tests/Slurm/cluster.sh: a test cluster, all state under $dir.
ClusterName=reeltest
SlurmctldHost=$controller($controller_address)
SlurmctldPort=$SLURMCTLD_PORT
SlurmdPort=$SLURMD_PORT
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
# cred_expire also sets how long a requeued task waits before it may start again (120 s by default).
AuthInfo=socket=$dir/munge/run/munge.sock,cred_expire=10
# No cgroups in a container: track job processes through /proc, no task binding, no accounting.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SwitchType=switch/none
MailProg=/bin/true
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
# Start array tasks as soon as they are submitted or a slot frees, not at the next periodic pass.
SchedulerParameters=sched_interval=1,bf_interval=1,batch_sched_delay=0
# Accept nodes declared with more CPUs than the machine has.
SlurmdParameters=config_overrides
ReturnToService=2
# A batch task whose node fails is put back in the queue.
JobRequeue=1
KillWait=5
MinJobAge=60
InactiveLimit=0
Waittime=0
SlurmctldTimeout=30
SlurmdTimeout=10
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool/%n
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmdPidFile=$dir/run/slurmd-%n.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd-%n.log
SlurmctldDebug=info
SlurmdDebug=info
CONF
	local names=()
	if [ "$n" = 0 ]; then
		echo "NodeName=$controller NodeHostname=$controller NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=1000 State=UNKNOWN" >>"$dir/slurm.conf"
		names=("$controller")
	else
		for k in $(seq 1 "$n"); do
			echo "NodeName=node$k NodeHostname=node$k NodeAddr=$SUBNET.1$k CPUs=$cpus RealMemory=1000 State=UNKNOWN" >>"$dir/slurm.conf"
			names+=("node$k")
		done
	fi
	local all
	all=$(IFS=,; echo "${names[*]}")
	echo "PartitionName=reel Nodes=$all Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO" >>"$dir/slurm.conf"
	for k in $(seq 1 "${#names[@]}"); do
		echo "PartitionName=upto$k Nodes=$(IFS=,; echo "${names[*]:0:$k}") MaxTime=INFINITE State=UP OverSubscribe=NO" >>"$dir/slurm.conf"
	done
	# Slurm would otherwise look for it beside slurm.conf and complain when it is missing.
	: >"$dir/plugstack.conf"
}

up() {
	local nodes=${arg:-0}
	install_missing
	mkdir -p "$dir"
	dir=$(cd "$dir" && pwd -P)
	# Leftovers of an earlier `up` in the same folder: stop them first (idempotent).
	down 2>/dev/null || true
	chmod 755 "$dir"
	rm -rf "$dir/state" "$dir/spool" "$dir/log" "$dir/run" "$dir/munge"
	mkdir -p "$dir/state" "$dir/spool" "$dir/log" "$dir/run" "$dir/munge/etc" "$dir/munge/run" "$dir/munge/log" "$dir/munge/lib"
	chmod 755 "$dir/munge" "$dir/munge/run"
	chmod 700 "$dir/munge/etc" "$dir/munge/log" "$dir/munge/lib" "$dir/state" "$dir/spool"

	starting=1
	for p in "$SLURMCTLD_PORT" "$SLURMD_PORT"; do
		port_in_use "$p" && fail "port $p is in use (another Slurm?); set SLURMCTLD_PORT/SLURMD_PORT"
	done
	[ "$nodes" = 0 ] || [ -z "$(namespaces)" ] || fail "namespaces of another cluster on port $SLURMCTLD_PORT exist: $(namespaces | tr '\n' ' ')"
	[ "$nodes" = 0 ] || network "$nodes"

	# munge: a fresh key, a daemon of our own on a socket under DIR (a path, so reachable from every node's
	# network namespace).
	if command -v mungekey >/dev/null; then
		mungekey --create --keyfile="$dir/munge/etc/munge.key" --force
	else
		dd if=/dev/urandom of="$dir/munge/etc/munge.key" bs=1024 count=1 status=none
	fi
	chmod 400 "$dir/munge/etc/munge.key"
	munged --socket="$dir/munge/run/munge.sock" --key-file="$dir/munge/etc/munge.key" \
		--log-file="$dir/munge/log/munged.log" --pid-file="$dir/munge/run/munged.pid" \
		--seed-file="$dir/munge/lib/munged.seed" || fail "munged did not start"
	munge -S "$dir/munge/run/munge.sock" -n | unmunge -S "$dir/munge/run/munge.sock" >/dev/null \
		|| fail "munge round trip failed"

	local host names=() k
	host=$(hostname -s 2>/dev/null || true)
	[ -n "$host" ] || host=localhost
	if [ "$nodes" = 0 ]; then
		write_conf "$host" 127.0.0.1 "${CPUS:-4}" 0
		names=("$host")
	else
		write_conf "$host" "$SUBNET.1" "${CPUS:-2}" "$nodes"
		for k in $(seq 1 "$nodes"); do names+=("node$k"); mkdir -p "$dir/spool/node$k"; done
	fi
	[ "$nodes" != 0 ] || mkdir -p "$dir/spool/$host"
	export SLURM_CONF="$dir/slurm.conf"

	slurmctld -f "$SLURM_CONF" -i || fail "slurmctld did not start"
	if [ "$nodes" = 0 ]; then
		slurmd -f "$SLURM_CONF" -N "$host" || fail "slurmd did not start"
	else
		for k in $(seq 1 "$nodes"); do
			reachable "$k"
			nsenter --net="/run/netns/$(netns_name "$k")" unshare --uts \
				sh -c 'hostname "$1" && exec slurmd -f "$2" -N "$1"' sh "node$k" "$SLURM_CONF" \
				|| fail "slurmd of node$k did not start"
		done
	fi

	# Wait for every node to register and be idle.
	local deadline=$((SECONDS + UP_TIMEOUT)) states="" want
	want=$(printf 'idle %.0s' "${names[@]}")
	while [ $SECONDS -lt $deadline ]; do
		states=$(sinfo -h -N -p reel -o '%T' 2>/dev/null | tr '\n' ' ' || true)
		[ "$states" = "$want" ] && break
		sleep 0.5
	done
	[ "$states" = "$want" ] || fail "nodes ${names[*]} not all idle after ${UP_TIMEOUT}s (states: '${states:-no answer}')"
	log "up: ${#names[@]} node(s) idle: $(sinfo -h -N -p reel -o '%N %c CPUs' | tr '\n' ';'); SLURM_CONF=$SLURM_CONF"
	echo "export SLURM_CONF=$SLURM_CONF"
}

[ "$action" = up ] || [ ! -d "$dir" ] || dir=$(cd "$dir" && pwd -P)
case $action in
	up) up ;;
	kill) power_off "$arg" ;;
	down) down ;;
esac
