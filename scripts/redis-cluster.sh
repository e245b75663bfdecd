#!/usr/bin/env bash
# A throwaway Redis Cluster of 3 masters on free local ports, for the cluster pass of the tests
# (scripts/test.sh, .ci/run). No Docker: `redis-server --cluster-enabled yes` processes and
# `redis-cli --cluster create`.
#
#   scripts/redis-cluster.sh start DIR   start it, wait for cluster_state:ok, print host:port,... (masters first)
#   scripts/redis-cluster.sh stop DIR    stop its servers and remove DIR
#   scripts/redis-cluster.sh restart DIR PORT   start the node of PORT again (after a test killed it):
#                                        it rejoins with its identity (its nodes file), as a replica
#                                        if its replica took over meanwhile
#
# REDIS_CLUSTER_REPLICAS=1 gives each master a replica (6 servers), for the fault tests.
# REDIS_CLUSTER_NODE_TIMEOUT (ms, default 5000): how long a node may be silent before the others
# fail it over; the fault tests use less, so that a killed master is replaced sooner.
#
# Everything (node configs, pid files, logs) lives in DIR, so stop can clean up after a crash too.
set -euo pipefail

usage() { echo "usage: $0 start|stop DIR, or restart DIR PORT" >&2; exit 2; }
[ $# -ge 2 ] || usage
action=$1; dir=$2

stop_cluster() {
  [ -d "$dir" ] || return 0
  for pidfile in "$dir"/redis-*.pid; do
    [ -f "$pidfile" ] || continue
    pid=$(cat "$pidfile")
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
  done
  rm -rf "$dir"
}

replicas=${REDIS_CLUSTER_REPLICAS:-0}
timeout=${REDIS_CLUSTER_NODE_TIMEOUT:-5000}

start_node() { # port
  redis-server --daemonize yes --bind 127.0.0.1 --port "$1" \
    --cluster-enabled yes --cluster-config-file "$dir/nodes-$1.conf" --cluster-node-timeout "$timeout" \
    --save '' --appendonly no --dir "$dir" --pidfile "$dir/redis-$1.pid" --logfile "$dir/redis-$1.log" >/dev/null
}
count=$((3 * (1 + replicas)))

# $count ports whose cluster bus ports (port + 10000) are free as well.
free_ports() {
  COUNT=$count node -e '
    const net = require("node:net");
    const free = (port) => new Promise((resolve) => {
      const s = net.createServer();
      s.once("error", () => resolve(false));
      s.listen(port, "127.0.0.1", () => s.close(() => resolve(true)));
    });
    (async () => {
      const found = [];
      const count = Number(process.env.COUNT);
      for (let tries = 0; found.length < count && tries < 500; tries++) {
        const port = 20000 + Math.floor(Math.random() * 25000);
        if (found.includes(port) || found.includes(port - 10000) || found.includes(port + 10000)) continue;
        if ((await free(port)) && (await free(port + 10000))) found.push(port);
      }
      if (found.length < count) process.exit(1);
      console.log(found.join(" "));
    })();'
}

case "$action" in
  stop) stop_cluster ;;
  restart)
    [ $# -eq 3 ] || usage
    [ -f "$dir/nodes-$3.conf" ] || { echo "no node of port $3 in $dir" >&2; exit 1; }
    start_node "$3"
    for _ in $(seq 1 100); do redis-cli -p "$3" ping >/dev/null 2>&1 && break; sleep 0.1; done
    redis-cli -p "$3" ping >/dev/null
    ;;
  start)
    for tool in redis-server redis-cli; do
      command -v "$tool" >/dev/null 2>&1 || { echo "$tool not found (apt-get install redis-server)" >&2; exit 3; }
    done
    mkdir -p "$dir"
    read -r -a ports <<<"$(free_ports)"
    for port in "${ports[@]}"; do start_node "$port"; done
    for port in "${ports[@]}"; do
      for _ in $(seq 1 100); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.1; done
      redis-cli -p "$port" ping >/dev/null 2>&1 || { echo "redis-server on port $port did not start (log: $dir/redis-$port.log)" >&2; stop_cluster; exit 1; }
    done
    nodes=()
    for port in "${ports[@]}"; do nodes+=("127.0.0.1:$port"); done
    if ! redis-cli --cluster create "${nodes[@]}" --cluster-replicas "$replicas" --cluster-yes >"$dir/create.log" 2>&1; then
      echo "redis-cli --cluster create failed:" >&2; cat "$dir/create.log" >&2; stop_cluster; exit 1
    fi
    # Every node must agree the cluster is up (slots assigned, gossip done) before a client connects.
    for port in "${ports[@]}"; do
      for _ in $(seq 1 200); do redis-cli -p "$port" cluster info 2>/dev/null | grep -q 'cluster_state:ok' && break; sleep 0.1; done
      redis-cli -p "$port" cluster info | grep -q 'cluster_state:ok' || { echo "node $port never reached cluster_state:ok" >&2; stop_cluster; exit 1; }
    done
    (IFS=,; echo "${nodes[*]}")
    ;;
  *) usage ;;
esac
