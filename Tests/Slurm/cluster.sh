#!/bin/bash
# A one-node Slurm cluster (slurmctld + slurmd + munged) with all its state under one folder, for the
# end-to-end test of `reel batch --shard` (Tests/Slurm/slurm_test.py, `make slurm-test`).
#
#   Tests/Slurm/cluster.sh up DIR     install what is missing, start munged, slurmctld and slurmd, wait for
#                                     the node to be idle; prints `export SLURM_CONF=DIR/slurm.conf`
#   Tests/Slurm/cluster.sh down DIR   stop slurmd, slurmctld and munged (by their pid files)
#
# Clients (sbatch, squeue, scontrol, scancel) find the cluster through SLURM_CONF=DIR/slurm.conf; nothing is
# written under /etc, /run or /var except by apt-get. Runs as root on a fresh Debian 12 machine, container or
# not, with or without systemd (the daemons are started by hand, never as services).
#
# What makes it work in a container or micro-VM (no systemd, no usable cgroup hierarchy), as found on
# Debian 12's slurm-wlm 22.05:
# - ProctrackType=proctrack/linuxproc and TaskPlugin=task/none: no cgroups needed (proctrack/cgroup and
#   task/cgroup fail without a writable cgroup hierarchy); JobAcctGatherType=jobacct_gather/none.
# - The node is declared with 4 CPUs whatever the machine has, accepted thanks to
#   SlurmdParameters=config_overrides (without it the node stays `inval`: "Low socket*core*thread count,
#   Low CPUs"). CgroupPlugin=disabled (cgroup.conf) does not exist in 22.05: no cgroup.conf is written.
# - The node and the controller are both reached on 127.0.0.1, so no name resolution is needed; slurmd is
#   told its node name with -N (the node is called after `hostname -s`, but any name would do).
# - munged refuses a socket folder that is not searchable by all and a key readable by others, and a
#   `mktemp -d` folder is 0700: DIR is made 0755, the key folder 0700, the socket folder 0755.
# - munged runs as root without --force; `mungekey` makes the key (dd from /dev/urandom if it is missing).
# - SchedulerParameters=sched_interval=1,bf_interval=1: array tasks still start about 1 s after a slot frees
#   (the backfill pass starts them; it runs every bf_interval seconds, 30 by default).
# - MinJobAge=30 keeps finished tasks' records (state, exit code) long enough for the test to read them with
#   `scontrol show job` (there is no accounting database for sacct).
# - The packages' postinst scripts try to start munge/slurm services; a temporary policy-rc.d (only when the
#   machine has none) keeps them from starting daemons on the default paths while apt-get runs.
#
# Ports: SLURMCTLD_PORT (default 6817) and SLURMD_PORT (default 6818) may be set to run beside another cluster.
set -euo pipefail

usage() { echo "usage: $0 up|down DIR" >&2; exit 2; }
[ $# -eq 2 ] || usage
action=$1
dir=$2
case $action in up|down) ;; *) usage ;; esac

SLURMCTLD_PORT=${SLURMCTLD_PORT:-6817}
SLURMD_PORT=${SLURMD_PORT:-6818}
UP_TIMEOUT=${UP_TIMEOUT:-60}

log() { echo "cluster.sh: $*" >&2; }

tail_logs() {
	local f
	for f in "$dir/munge/log/munged.log" "$dir/log/slurmctld.log" "$dir/log/slurmd.log"; do
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

down() {
	[ -d "$dir" ] || return 0
	local pid i
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
	# slurmd first, then the controller (slurmd reports to it on the way out), then munge.
	stop_pidfile slurmd "$dir/run/slurmd.pid"
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
	log "down ($dir)"
}

install_missing() {
	local p missing="" tmp_policy=""
	for p in slurmctld slurmd slurm-client munge jq; do
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

write_conf() {
	local node=$1 cpus=$2
	cat >"$dir/slurm.conf" <<EOF
# Written by Tests/Slurm/cluster.sh: a one-node test cluster, all state under $dir.
ClusterName=reeltest
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$SLURMCTLD_PORT
SlurmdPort=$SLURMD_PORT
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/run/munge.sock
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
# Accept a node declared with more CPUs than the machine has (4 slots on a 2-core machine).
SlurmdParameters=config_overrides
ReturnToService=2
KillWait=5
MinJobAge=30
InactiveLimit=0
Waittime=0
SlurmctldTimeout=30
SlurmdTimeout=30
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmdPidFile=$dir/run/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
NodeName=$node NodeHostname=$node NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=1000 State=UNKNOWN
PartitionName=reel Nodes=$node Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO
EOF
	# Slurm would otherwise look for it beside slurm.conf and complain when it is missing.
	: >"$dir/plugstack.conf"
}

up() {
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

	# munge: a fresh key, a daemon of our own on a socket under DIR.
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

	local node
	node=$(hostname -s 2>/dev/null || true)
	[ -n "$node" ] || node=localhost
	write_conf "$node" 4
	export SLURM_CONF="$dir/slurm.conf"

	slurmctld -f "$SLURM_CONF" -i || fail "slurmctld did not start"
	slurmd -f "$SLURM_CONF" -N "$node" || fail "slurmd did not start"

	# Wait for the node to register and be idle.
	local deadline=$((SECONDS + UP_TIMEOUT)) state=""
	while [ $SECONDS -lt $deadline ]; do
		state=$(sinfo -h -N -n "$node" -o '%T' 2>/dev/null || true)
		[ "$state" = idle ] && break
		sleep 0.5
	done
	[ "$state" = idle ] || fail "node $node not idle after ${UP_TIMEOUT}s (state: '${state:-no answer}')"
	log "up: node $node idle ($(sinfo -h -N -n "$node" -o '%c') CPUs); SLURM_CONF=$SLURM_CONF"
	echo "export SLURM_CONF=$SLURM_CONF"
}

case $action in
	up) up ;;
	down)
		[ -d "$dir" ] && dir=$(cd "$dir" && pwd -P)
		down ;;
esac
