#!/bin/bash
# Single-node Slurm (Debian 12: slurm-wlm 22.05 + munge) on 127.0.0.1, no systemd, no cgroups,
# for tokenmill's Slurm tests (ctest -L slurm) and for trying `tokenmill launch slurm` locally.
# Everything (config, munge key+socket, state, spool, logs, pid files) lives in $SLURM_DIR;
# nothing in /etc is touched, so clients need SLURM_CONF (see $SLURM_DIR/env.sh).
#
# Usage:  bash slurm.sh                  # start (idempotent: reuses a healthy running cluster)
#         source "$SLURM_DIR/env.sh"     # SLURM_CONF, SLURM_PARTITION
#         sbatch --array=0-7 job.sh ...
#         bash slurm-stop.sh [--purge]
#
# Tunables (env):
#   SLURM_DIR=/tmp/tokenmill-slurm (or $TOKENMILL_SLURM_DIR)
#   SLURM_CPUS=4          CPUs the node advertises (may exceed nproc: config_overrides is set,
#                         so e.g. SLURM_CPUS=8 runs 8 single-CPU array tasks at once on 2 cores)
#   SLURM_CTLD_PORT=6817 SLURM_SLURMD_PORT=6818
#   SLURM_INSTALL=1       apt-get install slurm-wlm munge if missing
#   SLURM_REQUEUE_EXIT=   e.g. 99: a task exiting 99 is requeued automatically (RequeueExit)
#   SLURM_CRED_EXPIRE=5   s; also the delay before a requeued task may start again (default 120!)
set -euo pipefail
trap 'echo "slurm.sh: FAILED at line $LINENO (logs: $SLURM_DIR/log)" >&2' ERR

SLURM_DIR=${SLURM_DIR:-${TOKENMILL_SLURM_DIR:-/tmp/tokenmill-slurm}}
SLURM_CPUS=${SLURM_CPUS:-4}
SLURM_CTLD_PORT=${SLURM_CTLD_PORT:-6817}
SLURM_SLURMD_PORT=${SLURM_SLURMD_PORT:-6818}
SLURM_INSTALL=${SLURM_INSTALL:-1}
HERE=$(cd "$(dirname "$0")" && pwd)
t0=$(date +%s.%N)
log() { echo "[slurm $(awk -v a="$(date +%s.%N)" -v b="$t0" 'BEGIN{printf "%6.1fs", a-b}')] $*" >&2; }

if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null || ! command -v munged >/dev/null; then
  [ "$SLURM_INSTALL" = 1 ] || { echo "slurm/munge not installed" >&2; exit 1; }
  log "installing slurm-wlm + munge (apt)"
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -q --no-install-recommends slurm-wlm munge >/dev/null 2>&1 \
    || { apt-get update -q >/dev/null && apt-get install -y -q --no-install-recommends slurm-wlm munge >/dev/null; }
fi

export SLURM_CONF="$SLURM_DIR/slurm.conf"
pid_alive() { [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }
write_env() {
  cat > "$SLURM_DIR/env.sh" <<EOF
export SLURM_CONF=$SLURM_CONF
export SLURM_PARTITION=debug
EOF
}

if pid_alive "$SLURM_DIR/run/munged.pid" && pid_alive "$SLURM_DIR/run/slurmctld.pid" \
   && pid_alive "$SLURM_DIR/run/slurmd.pid" && [ -f "$SLURM_DIR/.ready" ] \
   && sinfo -h -o '%T' 2>/dev/null | grep -qE '^(idle|mixed|allocated)'; then
  log "already running"; write_env; cat "$SLURM_DIR/env.sh"; exit 0
fi
if [ -d "$SLURM_DIR" ]; then
  SLURM_DIR="$SLURM_DIR" bash "$HERE/slurm-stop.sh" --purge >/dev/null 2>&1 || true
fi
rm -rf "$SLURM_DIR"
mkdir -p "$SLURM_DIR"/{log,run,state,spool,munge,jobs}
chmod 700 "$SLURM_DIR/munge"

# ---------------------------------------------------------------- munge (own key + socket)
dd if=/dev/urandom of="$SLURM_DIR/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$SLURM_DIR/munge/munge.key"
munged --force --key-file="$SLURM_DIR/munge/munge.key" --socket="$SLURM_DIR/munge/munge.socket" \
  --pid-file="$SLURM_DIR/run/munged.pid" --log-file="$SLURM_DIR/log/munged.log" \
  --seed-file="$SLURM_DIR/munge/munged.seed"
for _ in $(seq 1 50); do [ -S "$SLURM_DIR/munge/munge.socket" ] && break; sleep 0.1; done
munge -n -S "$SLURM_DIR/munge/munge.socket" | unmunge -S "$SLURM_DIR/munge/munge.socket" >/dev/null
log "munged up"

# ---------------------------------------------------------------- slurm.conf
overrides=""
[ "$SLURM_CPUS" -gt "$(nproc)" ] && overrides="SlurmdParameters=config_overrides"
# SLURM_REQUEUE_EXIT=99 -> tasks exiting with 99 are requeued automatically (RequeueExit)
[ -n "${SLURM_REQUEUE_EXIT:-}" ] && overrides="$overrides
RequeueExit=$SLURM_REQUEUE_EXIT"
cat > "$SLURM_CONF" <<EOF
ClusterName=ci
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$SLURM_CTLD_PORT
SlurmdPort=$SLURM_SLURMD_PORT
# bind to 127.0.0.1 (the address SlurmctldHost / NodeAddr resolve to), not 0.0.0.0
CommunicationParameters=NoCtldInAddrAny,NoInAddrAny
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
# cred_expire (default 120 s, minimum 5) is also how long a REQUEUED job must wait before it may start again
AuthInfo=socket=$SLURM_DIR/munge/munge.socket,cred_expire=${SLURM_CRED_EXPIRE:-5}
StateSaveLocation=$SLURM_DIR/state
SlurmdSpoolDir=$SLURM_DIR/spool
SlurmctldPidFile=$SLURM_DIR/run/slurmctld.pid
SlurmdPidFile=$SLURM_DIR/run/slurmd.pid
SlurmctldLogFile=$SLURM_DIR/log/slurmctld.log
SlurmdLogFile=$SLURM_DIR/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
# no systemd/cgroup v2 delegation here: track processes by /proc, no task containment
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=$SLURM_DIR/log/jobcomp.txt
MpiDefault=none
MailProg=/bin/true
SwitchType=switch/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
# batch_sched_delay default 3 s: array tasks would start only every 3 s; 0 = schedule at once
SchedulerParameters=batch_sched_delay=0,sched_min_interval=0,sched_interval=2,bf_interval=1
ReturnToService=2
# keep finished jobs visible to scontrol/squeue for 10 min (no slurmdbd -> no sacct)
MinJobAge=600
MaxArraySize=10001
KillWait=5
InactiveLimit=0
SlurmdTimeout=60
$overrides
NodeName=localhost NodeAddr=127.0.0.1 NodeHostname=localhost CPUs=$SLURM_CPUS State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
EOF

# ---------------------------------------------------------------- daemons
slurmctld -i        # -i: ignore (empty) saved state
slurmd -N localhost
for _ in $(seq 1 100); do
  st=$(sinfo -h -o '%T' 2>/dev/null || true)
  case "$st" in idle|mixed|allocated) break ;; esac   # "idle*" = not responding yet
  sleep 0.2
done
case "$st" in idle|mixed|allocated) ;; *) echo "node not idle: '$st'" >&2; scontrol show node localhost >&2 || true; exit 1 ;; esac
log "slurmctld + slurmd up, node state: $st"
write_env
touch "$SLURM_DIR/.ready"
cat "$SLURM_DIR/env.sh"
