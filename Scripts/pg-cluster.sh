#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for the tests: `source Scripts/pg-cluster.sh` starts one (installing
# Debian's postgresql when initdb is missing) in a temporary directory owned by `postgres`, on a free
# port, exports DRILLDOWN_TEST_PG_URL, DRILLDOWN_TEST_PG_DATA, DRILLDOWN_TEST_PG_CTL and
# DRILLDOWN_TEST_PG_OPTS (what the restart test runs as `postgres`), and defines pg_cluster_stop, which the caller runs in a trap.
pg_bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
if [ -z "$pg_bin" ] || [ ! -x "$pg_bin/initdb" ]; then
  echo "==> installing postgresql (apt-get)"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends postgresql >/dev/null
  pg_bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
fi
pg_dir=$(mktemp -d /tmp/drilldown-pg.XXXXXX)
chown postgres "$pg_dir"
pg_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
pg_opts="-p $pg_port -k $pg_dir -c listen_addresses=127.0.0.1 -c fsync=off"
su postgres -s /bin/bash -c "$pg_bin/initdb -D $pg_dir/data -A trust -U dd >/dev/null &&
  $pg_bin/pg_ctl -D $pg_dir/data -o '$pg_opts' -l $pg_dir/log -w start >/dev/null"
export DRILLDOWN_TEST_PG_URL="postgres://dd@127.0.0.1:$pg_port/postgres?sslmode=disable"
export DRILLDOWN_TEST_PG_DATA="$pg_dir/data"
export DRILLDOWN_TEST_PG_CTL="$pg_bin/pg_ctl"
export DRILLDOWN_TEST_PG_OPTS="$pg_opts"
pg_cluster_stop() {
  su postgres -s /bin/bash -c "$pg_bin/pg_ctl -D $pg_dir/data stop -m immediate" >/dev/null 2>&1 || true
  rm -rf "$pg_dir"
}
