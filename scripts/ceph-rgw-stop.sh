#!/bin/bash
# Stops the daemons started by scripts/ceph-rgw.sh, by the PIDs in its pid files only.
#   bash scripts/ceph-rgw-stop.sh [--purge]    # --purge also deletes $CEPH_DIR
set -u
CEPH_DIR=${CEPH_DIR:-/tmp/tokenmill-rgw}
grace=${CEPH_STOP_GRACE:-3}  # seconds before SIGKILL; the data is throw-away
pids=()
for f in "$CEPH_DIR"/run/client.rgw.r.pid "$CEPH_DIR"/run/osd.0.pid "$CEPH_DIR"/run/mon.a.pid; do
  [ -f "$f" ] || continue
  p=$(cat "$f")
  if [ -n "$p" ] && kill -0 "$p" 2>/dev/null; then
    kill -TERM "$p" && pids+=("$p") && echo "stopping $(basename "$f" .pid) (pid $p)"
  fi
done
for _ in $(seq 1 $((grace * 10))); do
  alive=0
  for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
  [ "$alive" = 0 ] && break
  sleep 0.1
done
for p in "${pids[@]}"; do
  if kill -0 "$p" 2>/dev/null; then echo "SIGKILL $p"; kill -KILL "$p"; fi
done
rm -f "$CEPH_DIR/.ready"
if [ "${1:-}" = "--purge" ]; then rm -rf "$CEPH_DIR"; echo "purged $CEPH_DIR"; fi
exit 0
