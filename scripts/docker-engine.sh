#!/usr/bin/env bash
# A Docker engine of this project's own, for CI and for machines without one (.ci/run uses it):
# Debian's dockerd with its own data root, socket, pid file and exec root, so it never meets
# another engine on the machine.
#
#   scripts/docker-engine.sh start    start it (if it is not running) and wait until it answers
#   scripts/docker-engine.sh stop     stop the one the pid file names, and wait until it is gone
#   scripts/docker-engine.sh status   exit 0 when it answers
# Then: export DOCKER_HOST=unix:///run/animal-store-docker.sock
#
# vfs is the storage driver that works everywhere, including inside containers and VMs without
# overlayfs support; it copies every layer in full, so builds are slower and use more disk.
#
# Settings (environment): ANIMAL_STORE_DOCKER_ROOT, the data root (default
# /var/lib/animal-store-docker; keep it between runs for warm builds); ANIMAL_STORE_DOCKER_SOCK.
# Needs root and `apt-get install docker.io`.
set -euo pipefail

readonly DATA_ROOT=${ANIMAL_STORE_DOCKER_ROOT:-/var/lib/animal-store-docker}
readonly SOCK=${ANIMAL_STORE_DOCKER_SOCK:-/run/animal-store-docker.sock}
readonly EXEC_ROOT=/run/animal-store-docker
readonly PIDFILE=/run/animal-store-docker.pid
readonly LOG=$DATA_ROOT.log

say() { printf 'docker-engine: %s\n' "$*"; }
answers() { DOCKER_HOST="unix://$SOCK" docker info >/dev/null 2>&1; }
# The pid in the pid file, when that process is still a dockerd.
running_pid() {
  local pid
  pid=$(cat "$PIDFILE" 2>/dev/null) || return 1
  [[ $pid =~ ^[0-9]+$ && $(cat "/proc/$pid/comm" 2>/dev/null) == dockerd ]] && printf '%s\n' "$pid"
}

start() {
  if answers; then
    say "already running on $SOCK"
    return
  fi
  command -v dockerd >/dev/null || { say "dockerd is missing (apt-get install docker.io)"; exit 1; }
  mkdir -p "$DATA_ROOT" "$EXEC_ROOT"
  say "starting dockerd (vfs, data root $DATA_ROOT, socket $SOCK, log $LOG)"
  # setsid: the engine is not in the caller's process group, so a ^C or a job-control kill
  # aimed at the caller does not take it down halfway; `stop` ends it.
  setsid dockerd --storage-driver vfs --data-root "$DATA_ROOT" --exec-root "$EXEC_ROOT" \
    --pidfile "$PIDFILE" -H "unix://$SOCK" >>"$LOG" 2>&1 </dev/null &
  local deadline=$((SECONDS + 60))
  until answers; do
    if ((SECONDS >= deadline)); then
      tail -n 30 "$LOG" >&2
      say "dockerd did not answer within 60 s"
      exit 1
    fi
    sleep 1
  done
  say "running (pid $(running_pid || echo '?')): export DOCKER_HOST=unix://$SOCK"
}

stop() {
  local pid
  if ! pid=$(running_pid); then
    say "not running (no dockerd in $PIDFILE)"
    return
  fi
  say "stopping dockerd (pid $pid)"
  kill -TERM "$pid"
  # dockerd stops its containers first (10 s each at most, in parallel), then containerd.
  local deadline=$((SECONDS + 45))
  while kill -0 "$pid" 2>/dev/null; do
    if ((SECONDS >= deadline)); then
      say "still running after 45 s: SIGKILL"
      kill -KILL "$pid" 2>/dev/null || true
      break
    fi
    sleep 1
  done
  say "stopped"
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  status) answers ;;
  *)
    echo "usage: $0 start|stop|status" >&2
    exit 2
    ;;
esac
