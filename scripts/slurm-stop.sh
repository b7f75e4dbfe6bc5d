#!/bin/bash
# Stop slurmd, slurmctld, munged started by slurm.sh, by the PIDs in their pid files (no pkill).
# Jobs still running are killed first with scancel (slurmd would otherwise leave slurmstepd
# processes behind).  Usage: bash slurm-stop.sh [--purge]
set -u
SLURM_DIR=${SLURM_DIR:-${TOKENMILL_SLURM_DIR:-/tmp/tokenmill-slurm}}
export SLURM_CONF="$SLURM_DIR/slurm.conf"
if [ -f "$SLURM_DIR/run/slurmctld.pid" ] && kill -0 "$(cat "$SLURM_DIR/run/slurmctld.pid")" 2>/dev/null; then
  mapfile -t ids < <(squeue -h -o '%A' 2>/dev/null | sort -u)
  if [ "${#ids[@]}" -gt 0 ]; then
    echo "cancelling jobs: ${ids[*]}"; scancel "${ids[@]}" 2>/dev/null
    for _ in $(seq 1 50); do [ -z "$(squeue -h 2>/dev/null)" ] && break; sleep 0.2; done
  fi
fi
pids=()
for n in slurmd slurmctld munged; do
  f="$SLURM_DIR/run/$n.pid"
  [ -f "$f" ] || continue
  p=$(cat "$f")
  if [ -n "$p" ] && kill -0 "$p" 2>/dev/null; then kill -TERM "$p" && pids+=("$p") && echo "stopping $n pid $p"; fi
done
for _ in $(seq 1 50); do
  alive=0; for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
  [ $alive = 0 ] && break; sleep 0.1
done
for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && { echo "SIGKILL $p"; kill -KILL "$p"; }; done
rm -f "$SLURM_DIR/.ready"
if [ "${1:-}" = "--purge" ]; then rm -rf "$SLURM_DIR"; echo "purged $SLURM_DIR"; fi
exit 0
