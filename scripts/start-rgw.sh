#!/usr/bin/env bash
# Starts a one-node Ceph cluster on loopback from Debian's packages (ceph-mon, ceph-osd with the
# memstore object store, radosgw) under a temporary folder, and prints what the S3 tests need, as
# shell assignments for eval:
#   TARIFF_TEST_RGW_ENDPOINT, TARIFF_TEST_RGW_ACCESS_KEY, TARIFF_TEST_RGW_SECRET_KEY, TARIFF_TEST_RGW_DIR
# Used by .ci/run; a developer runs `eval "$(bash scripts/start-rgw.sh)"` before `npm run test:rgw`.
# Stop it with `bash scripts/stop-rgw.sh "$TARIFF_TEST_RGW_DIR"`. Nothing is kept: memstore holds
# every object in the OSD's memory, which is what a test store wants (no disk, gone with the node).
set -euo pipefail
for tool in ceph-mon ceph-osd radosgw radosgw-admin monmaptool ceph; do
  command -v "$tool" >/dev/null || { echo "start-rgw: $tool is not installed (apt-get install ceph-mon ceph-osd radosgw)" >&2; exit 1; }
done

dir=$(mktemp -d /tmp/tariff-rgw-XXXXXX)
mkdir -p "$dir"/{run,log,mon/ceph-a,osd/ceph-0}
# Three free loopback ports: the monitor's two protocols and the gateway.
read -r mon2 mon1 rgw < <(python3 -c '
import socket
ports = []
socks = []
for _ in range(3):
    s = socket.socket(); s.bind(("127.0.0.1", 0)); socks.append(s); ports.append(s.getsockname()[1])
print(*ports)')
fsid=$(cat /proc/sys/kernel/random/uuid)
conf=$dir/ceph.conf
cat >"$conf" <<EOF
[global]
fsid = $fsid
mon host = [v2:127.0.0.1:$mon2,v1:127.0.0.1:$mon1]
public addr = 127.0.0.1
ms bind ipv6 = false
keyring = $dir/keyring
auth allow insecure global id reclaim = false
run dir = $dir/run
admin socket = $dir/run/\$name.asok
pid file = $dir/run/\$name.pid
log file = $dir/log/\$name.log
mon data = $dir/mon/ceph-\$id
osd data = $dir/osd/ceph-\$id
osd objectstore = memstore
memstore device bytes = 2147483648
osd pool default size = 1
osd pool default min size = 1
osd pool default pg num = 8
osd pool default pgp num = 8
osd pool default pg autoscale mode = off
osd crush chooseleaf type = 0
mon allow pool size one = true
mon max pg per osd = 1000
mon warn on pool no redundancy = false
osd max object name len = 460
osd max object namespace len = 64
[client.rgw.tariff]
rgw frontends = beast endpoint=127.0.0.1:$rgw tcp_nodelay=1
rgw data = $dir/rgw
rgw dns name = 127.0.0.1
EOF

# cephx as every Ceph runs it: one keyring for the monitor, the admin, the OSD and the gateway.
ceph-authtool --create-keyring "$dir/keyring" --gen-key -n mon. --cap mon 'allow *' >/dev/null
ceph-authtool "$dir/keyring" --gen-key -n client.admin --cap mon 'allow *' --cap osd 'allow *' --cap mgr 'allow *' >/dev/null
ceph-authtool "$dir/keyring" --gen-key -n osd.0 --cap mon 'allow profile osd' --cap osd 'allow *' >/dev/null
ceph-authtool "$dir/keyring" --gen-key -n client.rgw.tariff --cap mon 'allow rw' --cap osd 'allow rwx' >/dev/null
monmaptool --create --fsid "$fsid" --addv a "[v2:127.0.0.1:$mon2,v1:127.0.0.1:$mon1]" "$dir/monmap" >/dev/null
ceph-mon -c "$conf" --mkfs -i a --monmap "$dir/monmap" --keyring "$dir/keyring" 2>>"$dir/log/setup.log"
ceph-mon -c "$conf" -i a 2>>"$dir/log/setup.log"
ceph() { command ceph -c "$conf" --connect-timeout 30 "$@"; }
uuid=$(cat /proc/sys/kernel/random/uuid)
id=$(ceph osd new "$uuid" 2>>"$dir/log/setup.log")
ceph-osd -c "$conf" -i "$id" --mkfs --osd-uuid "$uuid" 2>>"$dir/log/setup.log"
ceph-osd -c "$conf" -i "$id" 2>>"$dir/log/setup.log"
ceph osd crush add "osd.$id" 1 root=default host=localhost 2>>"$dir/log/setup.log"
# The gateway makes its pools on first start: wait for the OSD to be up so that they take.
for _ in $(seq 1 120); do
  ceph osd stat 2>/dev/null | grep -q '1 up' && break
  sleep 0.5
done
radosgw -c "$conf" -n client.rgw.tariff 2>>"$dir/log/setup.log"
access=$(head -c 15 /dev/urandom | od -An -tx1 | tr -d ' \n' | tr a-z A-Z)
secret=$(head -c 30 /dev/urandom | od -An -tx1 | tr -d ' \n')
radosgw-admin -c "$conf" user create --uid=tariff --display-name=tariff --access-key="$access" --secret-key="$secret" >/dev/null 2>>"$dir/log/setup.log"
for _ in $(seq 1 120); do
  curl -s -o /dev/null "http://127.0.0.1:$rgw/" && break
  sleep 0.5
done
curl -s -o /dev/null "http://127.0.0.1:$rgw/" || { echo "start-rgw: radosgw did not answer on 127.0.0.1:$rgw (logs in $dir/log)" >&2; exit 1; }
echo "TARIFF_TEST_RGW_ENDPOINT=http://127.0.0.1:$rgw"
echo "TARIFF_TEST_RGW_ACCESS_KEY=$access"
echo "TARIFF_TEST_RGW_SECRET_KEY=$secret"
echo "TARIFF_TEST_RGW_DIR=$dir"
