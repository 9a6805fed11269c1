#!/usr/bin/env bash
# Stops the one-node Ceph cluster scripts/start-rgw.sh started under the folder given, and removes it.
set -euo pipefail
dir=${1:?usage: stop-rgw.sh <TARIFF_TEST_RGW_DIR>}
case "$dir" in /tmp/tariff-rgw-*) ;; *) echo "stop-rgw: $dir is not a folder start-rgw.sh made" >&2; exit 2 ;; esac
# The gateway first, then the OSD and the monitor: each by the pid file its daemon wrote.
for daemon in client.rgw.tariff osd.0 mon.a; do
  pidfile=$dir/run/$daemon.pid
  [ -f "$pidfile" ] || continue
  pid=$(cat "$pidfile")
  kill "$pid" 2>/dev/null || continue
  for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -9 "$pid" 2>/dev/null || true
done
rm -rf "$dir"
