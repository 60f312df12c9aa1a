#!/usr/bin/env bash
# Local infrastructure without Docker: a real Apache Kafka broker (KRaft, jars
# from Maven Central), the machine's PostgreSQL and Redis, and the chdb engine
# behind a ClickHouse-compatible HTTP endpoint.
#
#   bash deploy/local/infra.sh up       # idempotent; returns once all three are ready
#   bash deploy/local/infra.sh down     # stops Kafka and the chdb endpoint (keeps their data)
#   bash deploy/local/infra.sh status
#   bash deploy/local/infra.sh reset    # down, then deletes Kafka's and ClickHouse's data
#   bash deploy/local/infra.sh jars     # only fetches the Kafka jars (the fleet uses them too)
#
# State lives in .infra/ at the repository root.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
STATE="$ROOT/.infra"
KAFKA_HOME="$STATE/kafka"
KAFKA_LIBS="$KAFKA_HOME/libs"
KAFKA_DATA="$KAFKA_HOME/data"
KAFKA_PID="$KAFKA_HOME/kafka.pid"
KAFKA_LOG="$KAFKA_HOME/kafka.log"
CH_DATA="$STATE/clickhouse"
CH_PID="$STATE/chdb-server.pid"
CH_LOG="$STATE/chdb-server.log"
PG_ADMIN_URL="postgres://postgres@127.0.0.1:5432/postgres"
PG_DATABASE="shortlink"

log() { printf '[infra] %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

alive() { [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }
port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

build_tools() {
  [ -d "$ROOT/node_modules" ] || die "node_modules is missing: run 'npm ci' first"
  (cd "$ROOT" && npx --no-install tsc -b libs/event-log libs/chdb-server)
}

# --- PostgreSQL -------------------------------------------------------------
postgres_up() {
  if ! pg_isready -q -h 127.0.0.1 -p 5432; then
    command -v pg_ctlcluster >/dev/null || die "PostgreSQL is not running on 127.0.0.1:5432 and pg_ctlcluster is not installed"
    local version
    version=$(ls /etc/postgresql | sort -V | tail -n 1)
    log "starting PostgreSQL $version"
    pg_ctlcluster --skip-systemctl-redirect "$version" main start
    for _ in $(seq 1 30); do pg_isready -q -h 127.0.0.1 -p 5432 && break; sleep 1; done
    pg_isready -q -h 127.0.0.1 -p 5432 || die "PostgreSQL did not become ready"
  fi
  if [ "$(psql "$PG_ADMIN_URL" -Atc "SELECT 1 FROM pg_database WHERE datname = '$PG_DATABASE'")" != "1" ]; then
    psql "$PG_ADMIN_URL" -qc "CREATE DATABASE $PG_DATABASE" >/dev/null
    log "created database $PG_DATABASE"
  fi
  log "PostgreSQL ready on 127.0.0.1:5432 (database $PG_DATABASE)"
}

# --- Redis: the rate-limit counts ---------------------------------------------
redis_ping() { [ "$(redis-cli -h 127.0.0.1 -p 6379 ping 2>/dev/null)" = "PONG" ]; }

redis_up() {
  if ! redis_ping; then
    command -v redis-server >/dev/null || die "Redis is not running on 127.0.0.1:6379 and redis-server is not installed"
    log "starting Redis"
    # As the machine starts it: loopback only, nothing kept on disk (rate-limit counts live one minute).
    mkdir -p /var/lib/redis /var/log/redis 2>/dev/null || true
    redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
      --dir /var/lib/redis --logfile /var/log/redis/ci.log
    for _ in $(seq 1 30); do redis_ping && break; sleep 0.2; done
    redis_ping || die "Redis did not become ready"
  fi
  log "Redis ready on 127.0.0.1:6379"
}

# --- Kafka ------------------------------------------------------------------
kafka_jars() {
  if [ ! -f "$KAFKA_LIBS/.complete" ]; then
    command -v mvn >/dev/null || die "Maven is needed to fetch the Kafka jars"
    log "fetching Apache Kafka jars from Maven Central"
    rm -rf "$KAFKA_LIBS"
    mvn -B -q -f "$ROOT/deploy/kafka/pom.xml" dependency:copy-dependencies >&2
    ls "$KAFKA_LIBS"/kafka_2.13-*.jar >/dev/null 2>&1 || die "Kafka jars missing after Maven ran"
    touch "$KAFKA_LIBS/.complete"
  fi
}

kafka_ready() { node "$ROOT/libs/event-log/dist/kafka/ready-cli.js" 127.0.0.1:9092 "${1:-5000}" 2>/dev/null; }

kafka_up() {
  if alive "$KAFKA_PID" && kafka_ready 10000; then
    log "Kafka already running on 127.0.0.1:9092"
    return
  fi
  if ! alive "$KAFKA_PID" && port_open 9092; then
    kafka_ready 10000 && { log "Kafka found on 127.0.0.1:9092 (not started by this script)"; return; }
    die "port 9092 is taken by something that is not a ready Kafka broker"
  fi
  command -v java >/dev/null || die "Java is needed to run Kafka"
  kafka_jars
  mkdir -p "$KAFKA_DATA"
  sed "s#@DATA_DIR@#$KAFKA_DATA#" "$ROOT/deploy/kafka/server.properties" > "$KAFKA_HOME/server.properties"
  if [ ! -f "$KAFKA_DATA/meta.properties" ]; then
    local cluster_id
    # Kafka's own generator: a home-made id can start with '-', which the tool reads as an option
    cluster_id=$(java -Xmx256m -cp "$KAFKA_LIBS/*" kafka.tools.StorageTool random-uuid) \
      || die "kafka-storage random-uuid failed"
    log "formatting KRaft storage (cluster $cluster_id)"
    java -Xmx256m -cp "$KAFKA_LIBS/*" kafka.tools.StorageTool format \
      -t "$cluster_id" -c "$KAFKA_HOME/server.properties" >>"$KAFKA_LOG" 2>&1 \
      || die "kafka-storage format failed; see $KAFKA_LOG"
  fi
  if ! alive "$KAFKA_PID"; then
    log "starting Kafka broker"
    nohup java -Xms256m -Xmx768m -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -Djava.awt.headless=true \
      -Dlog4j2.configurationFile="$ROOT/deploy/kafka/log4j2.yaml" \
      -cp "$KAFKA_LIBS/*" kafka.Kafka "$KAFKA_HOME/server.properties" >>"$KAFKA_LOG" 2>&1 &
    echo $! > "$KAFKA_PID"
  fi
  kafka_ready 90000 || { tail -n 30 "$KAFKA_LOG" >&2; die "Kafka did not become ready; see $KAFKA_LOG"; }
  log "Kafka ready on 127.0.0.1:9092"
}

# --- ClickHouse (chdb) -------------------------------------------------------
ch_ping() { curl -fsS -m 2 http://127.0.0.1:8123/ping >/dev/null 2>&1; }

clickhouse_up() {
  if ch_ping; then
    log "ClickHouse endpoint already answering on 127.0.0.1:8123"
    return
  fi
  alive "$CH_PID" && die "chdb-server (pid $(cat "$CH_PID")) is running but not answering; see $CH_LOG"
  mkdir -p "$CH_DATA"
  log "starting the chdb ClickHouse endpoint"
  nohup node "$ROOT/libs/chdb-server/dist/cli.js" --path "$CH_DATA" --host 127.0.0.1 --port 8123 >>"$CH_LOG" 2>&1 &
  echo $! > "$CH_PID"
  for _ in $(seq 1 60); do ch_ping && break; alive "$CH_PID" || break; sleep 0.5; done
  ch_ping || { tail -n 20 "$CH_LOG" >&2; die "chdb endpoint did not start; see $CH_LOG"; }
  log "ClickHouse endpoint ready on 127.0.0.1:8123 (chdb, data in $CH_DATA)"
}

stop_pid() {
  local name=$1 pidfile=$2
  if alive "$pidfile"; then
    local pid
    pid=$(cat "$pidfile")
    log "stopping $name (pid $pid)"
    kill "$pid"
    for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
    kill -0 "$pid" 2>/dev/null && { log "$name did not stop in 30 s; killing"; kill -9 "$pid"; }
  fi
  rm -f "$pidfile"
}

status() {
  pg_isready -q -h 127.0.0.1 -p 5432 && echo "postgres:   up (127.0.0.1:5432)" || echo "postgres:   down"
  [ -f "$ROOT/libs/event-log/dist/kafka/ready-cli.js" ] && kafka_ready 3000 && echo "kafka:      up (127.0.0.1:9092)" || echo "kafka:      down"
  ch_ping && echo "clickhouse: up (127.0.0.1:8123, chdb)" || echo "clickhouse: down"
  redis_ping && echo "redis:      up (127.0.0.1:6379)" || echo "redis:      down"
}

case "${1:-}" in
  up)
    mkdir -p "$STATE" "$KAFKA_HOME"
    build_tools
    postgres_up
    redis_up
    kafka_up
    clickhouse_up
    ;;
  down)
    stop_pid "chdb endpoint" "$CH_PID"
    stop_pid "Kafka" "$KAFKA_PID"
    ;;
  status) status ;;
  jars) mkdir -p "$STATE" "$KAFKA_HOME"; kafka_jars ;;
  reset)
    stop_pid "chdb endpoint" "$CH_PID"
    stop_pid "Kafka" "$KAFKA_PID"
    rm -rf "$KAFKA_DATA" "$CH_DATA"
    log "deleted Kafka and ClickHouse data"
    ;;
  *) echo "usage: $0 up|down|status|reset|jars" >&2; exit 2 ;;
esac
