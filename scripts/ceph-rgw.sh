#!/bin/bash
# Starts a throw-away single-node Ceph cluster (1 mon, 1 OSD on memstore) and a RADOS Gateway
# (an S3 server) on 127.0.0.1, with an S3 user and a bucket, for tokenmill's "s3" tests.
# Needs the Debian packages ceph and radosgw (installed if missing). No systemd: the daemons are
# started by hand and fork into the background; ceph-rgw-stop.sh stops them by their pid files.
#
#   bash scripts/ceph-rgw.sh              # idempotent: reuses a healthy running gateway
#   source /tmp/tokenmill-rgw/env.sh      # S3_ENDPOINT, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY,
#                                         # S3_BUCKET, AWS_REGION, AWS_ENDPOINT_URL
#   ctest -L s3
#   bash scripts/ceph-rgw-stop.sh --purge
#
# Settings (environment):
#   CEPH_DIR=/tmp/tokenmill-rgw   state, logs, pid files, env.sh
#   RGW_PORT=7480                 S3 port on 127.0.0.1
#   MON_PORT=6789 MON_PORT2=3300  monitor ports on 127.0.0.1
#   CEPH_OBJECTSTORE=memstore     memstore (RAM, capped at 4 GiB) or bluestore (10 GiB sparse file)
#   CEPH_INSTALL=1                apt-get install ceph radosgw if missing
#   S3_BUCKET=test-bucket S3_ACCESS_KEY=... S3_SECRET_KEY=... S3_REGION=us-east-1
#
# The settings that matter (each cost hours to find; see docs/storage.md, "Ceph RGW"):
#   ms mon client mode = crc     radosgw hangs 300 s with "auth none" without it
#   paxos propose interval=0.05  start-up 1.5 s instead of 16 s
#   tcp_nodelay=1 (beast)        otherwise +40 ms per request on a reused connection
#   rgw dns name = localhost     virtual-host addressing via BUCKET.localhost
set -euo pipefail
trap 'echo "ceph-rgw.sh: failed at line $LINENO (logs in $CEPH_DIR/log)" >&2' ERR

CEPH_DIR=${CEPH_DIR:-/tmp/tokenmill-rgw}
RGW_PORT=${RGW_PORT:-7480}
MON_PORT=${MON_PORT:-6789}
MON_PORT2=${MON_PORT2:-3300}
CEPH_OBJECTSTORE=${CEPH_OBJECTSTORE:-memstore}
CEPH_INSTALL=${CEPH_INSTALL:-1}
S3_BUCKET=${S3_BUCKET:-test-bucket}
S3_ACCESS_KEY=${S3_ACCESS_KEY:-TESTACCESSKEY0000001}
S3_SECRET_KEY=${S3_SECRET_KEY:-testsecretkey0000000000000000000000000001}
S3_REGION=${S3_REGION:-us-east-1}
ENDPOINT="http://127.0.0.1:${RGW_PORT}"
HERE=$(cd "$(dirname "$0")" && pwd)
export CEPH_CONF="$CEPH_DIR/ceph.conf"

t0=$(date +%s.%N)
log() { echo "[ceph-rgw $(awk -v a="$(date +%s.%N)" -v b="$t0" 'BEGIN{printf "%5.1fs", a-b}')] $*" >&2; }
pid_alive() { [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }
http_up() {  # any HTTP answer counts
  local code
  code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "$ENDPOINT/" || true)
  [ -n "$code" ] && [ "$code" != "000" ]
}
write_env() {
  cat > "$CEPH_DIR/env.sh" <<EOF
export CEPH_CONF=$CEPH_CONF
export S3_ENDPOINT=$ENDPOINT
export AWS_ENDPOINT_URL=$ENDPOINT
export S3_REGION=$S3_REGION
export AWS_REGION=$S3_REGION
export AWS_DEFAULT_REGION=$S3_REGION
export AWS_ACCESS_KEY_ID=$S3_ACCESS_KEY
export AWS_SECRET_ACCESS_KEY=$S3_SECRET_KEY
export S3_BUCKET=$S3_BUCKET
EOF
}

if ! command -v radosgw >/dev/null || ! command -v ceph-osd >/dev/null; then
  [ "$CEPH_INSTALL" = 1 ] || { echo "ceph-rgw.sh: ceph and radosgw are not installed" >&2; exit 1; }
  log "installing ceph radosgw (apt)"
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -q --no-install-recommends ceph radosgw >/dev/null 2>&1 \
    || { apt-get update -q >/dev/null && apt-get install -y -q --no-install-recommends ceph radosgw >/dev/null; }
fi

if [ -f "$CEPH_DIR/.ready" ] && pid_alive "$CEPH_DIR/run/mon.a.pid" \
   && pid_alive "$CEPH_DIR/run/osd.0.pid" && pid_alive "$CEPH_DIR/run/client.rgw.r.pid" && http_up; then
  log "already running at $ENDPOINT"
  write_env; cat "$CEPH_DIR/env.sh"; exit 0
fi
# Half-started or stale: stop what our pid files name, then start afresh.
if [ -d "$CEPH_DIR" ]; then CEPH_DIR="$CEPH_DIR" bash "$HERE/ceph-rgw-stop.sh" --purge >/dev/null 2>&1 || true; fi
if http_up; then
  echo "ceph-rgw.sh: something else already answers on $ENDPOINT; stop it or set RGW_PORT" >&2
  exit 1
fi
rm -rf "$CEPH_DIR"
mkdir -p "$CEPH_DIR"/{log,run,mon,osd,rgw}

cat > "$CEPH_CONF" <<EOF
[global]
fsid = $(cat /proc/sys/kernel/random/uuid)
mon host = [v2:127.0.0.1:${MON_PORT2},v1:127.0.0.1:${MON_PORT}]
public addr = 127.0.0.1
cluster addr = 127.0.0.1
public network = 127.0.0.0/8
cluster network = 127.0.0.0/8
ms bind ipv6 = false
run dir = $CEPH_DIR/run
pid file = $CEPH_DIR/run/\$name.pid
admin socket = $CEPH_DIR/run/\$name.asok
log file = $CEPH_DIR/log/\$name.log
log to stderr = false
err to stderr = true
keyring = /dev/null
auth cluster required = none
auth service required = none
auth client required = none
osd pool default size = 1
osd pool default min size = 1
osd pool default pg num = 8
osd pool default pgp num = 8
osd pool default pg autoscale mode = off
osd crush chooseleaf type = 0
mon allow pool size one = true
mon warn on pool no redundancy = false
mon max pg per osd = 1000
mon data avail warn = 1
mon data avail crit = 0
mon allow pool delete = true
mon warn on insecure global id reclaim allowed = false
client mount timeout = 30
paxos propose interval = 0.05
paxos min wait = 0.01
mon osd report timeout = 900

[mon.a]
mon data = $CEPH_DIR/mon
public addrv = [v2:127.0.0.1:${MON_PORT2},v1:127.0.0.1:${MON_PORT}]

[osd.0]
osd data = $CEPH_DIR/osd
osd objectstore = $CEPH_OBJECTSTORE
memstore device bytes = 4294967296
bluestore block path = $CEPH_DIR/osd-block.img
bluestore block create = true
bluestore block size = 10737418240
bluestore fsck on mount = false
osd memory target = 939524096
bluestore cache autotune = false
bluestore cache size = 134217728
osd class load list = *
osd class default list = *
osd op num shards = 1
osd op num threads per shard = 2

[client.rgw.r]
rgw frontends = beast endpoint=127.0.0.1:${RGW_PORT} tcp_nodelay=1
ms mon client mode = crc
rgw data = $CEPH_DIR/rgw
rgw thread pool size = 64
rgw dns name = localhost
rgw gc obj min wait = 10
rgw gc processor period = 10
rgw enable usage log = false
EOF

log "starting mon"
ceph-mon --id a --mkfs --keyring /dev/null >/dev/null
ceph-mon --id a
for _ in $(seq 1 100); do ceph --connect-timeout 2 mon stat >/dev/null 2>&1 && break; sleep 0.2; done
ceph --connect-timeout 5 mon stat >/dev/null \
  || { echo "ceph-rgw.sh: the monitor did not start" >&2; tail -20 "$CEPH_DIR/log/mon.a.log" >&2; exit 1; }

log "starting osd ($CEPH_OBJECTSTORE)"
osd_id=$(ceph osd create)
[ "$osd_id" = 0 ] || { echo "ceph-rgw.sh: unexpected osd id $osd_id" >&2; exit 1; }
ceph osd crush add osd.0 1 root=default >/dev/null 2>&1
ceph-osd --id 0 --mkfs >"$CEPH_DIR/log/osd-mkfs.out" 2>&1 \
  || { tail -20 "$CEPH_DIR/log/osd-mkfs.out" "$CEPH_DIR/log/osd.0.log" >&2; exit 1; }
ceph-osd --id 0
for _ in $(seq 1 150); do ceph osd dump 2>/dev/null | grep -q '^osd.0 up' && break; sleep 0.2; done
ceph osd dump | grep -q '^osd.0 up' \
  || { echo "ceph-rgw.sh: osd.0 did not come up" >&2; tail -20 "$CEPH_DIR/log/osd.0.log" >&2; exit 1; }

log "starting radosgw"
radosgw -n client.rgw.r
for i in $(seq 1 300); do
  http_up && break
  # radosgw forks only after its initialisation: a dead pid after a while means it failed.
  if [ "$i" -gt 25 ] && ! pid_alive "$CEPH_DIR/run/client.rgw.r.pid"; then break; fi
  sleep 0.2
done
http_up || { echo "ceph-rgw.sh: radosgw did not answer; see $CEPH_DIR/log/client.rgw.r.log" >&2; exit 1; }

radosgw-admin user create --uid=tokenmill --display-name="tokenmill tests" \
  --access-key="$S3_ACCESS_KEY" --secret="$S3_SECRET_KEY" >"$CEPH_DIR/log/user.json" 2>&1
code=000
for _ in $(seq 1 20); do
  code=$(curl -s -o "$CEPH_DIR/log/mkbucket.out" -w '%{http_code}' -X PUT \
    --aws-sigv4 "aws:amz:${S3_REGION}:s3" --user "$S3_ACCESS_KEY:$S3_SECRET_KEY" \
    -H 'x-amz-content-sha256: UNSIGNED-PAYLOAD' "$ENDPOINT/$S3_BUCKET" || true)
  if [ "$code" = 200 ] || [ "$code" = 409 ]; then break; fi
  sleep 0.5
done
[ "$code" = 200 ] || [ "$code" = 409 ] \
  || { echo "ceph-rgw.sh: creating bucket $S3_BUCKET failed: HTTP $code" >&2; cat "$CEPH_DIR/log/mkbucket.out" >&2; exit 1; }
log "S3 ready at $ENDPOINT, bucket $S3_BUCKET"

write_env
touch "$CEPH_DIR/.ready"
cat "$CEPH_DIR/env.sh"
