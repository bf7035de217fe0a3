#!/usr/bin/env bash
# `npm run test:compose`: the stack as its users run it. Builds the real Dockerfile, starts the
# real docker-compose.yml under a project name of its own, and talks to it only through the
# gateway's published port on 127.0.0.1, as a client would. Operator actions are the README's:
# a keyring made and used with `npm run keys`, `docker restart`, `docker kill`, `docker start`.
#
# Each check prints `ok` or `FAIL`; the exit status is non-zero when any failed. The stack is
# taken down with its volumes (`down -v`) and the temporary keyring removed, however it ends.
#
# Needs a Docker engine (DOCKER_HOST) and `docker compose` (v2) or `docker-compose` (1.29). With
# neither, it says so and skips (exit 0), except under CI=true, where that is a failure.
#
# Settings (environment):
#   SMOKE_PORT  the published port on 127.0.0.1 (default: a free one)
#   RATE_LIMIT_ON_REDIS_FAILURE  passed to the gateway; the Redis-failure check expects its
#               behaviour (local and open: still answered; closed: 503)
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf 'compose-smoke: %s\n' "$*"; }

# Without an engine there is nothing to run; whether that is acceptable depends on who asks.
unavailable() {
  if [[ ${CI:-} == true ]]; then
    say "FAIL: $1 (CI=true: the compose smoke test must run)"
    exit 1
  fi
  say "skipped: $1"
  exit 0
}

docker info >/dev/null 2>&1 || unavailable "no Docker engine answers (DOCKER_HOST=${DOCKER_HOST:-unset}); see .ci/run or scripts/docker-engine.sh"
if docker compose version >/dev/null 2>&1; then
  compose_cmd=(docker compose)
elif command -v docker-compose >/dev/null 2>&1; then
  compose_cmd=(docker-compose)
else
  unavailable "neither 'docker compose' nor 'docker-compose' is installed"
fi
say "engine: $(docker version -f '{{.Server.Version}}'), compose: $("${compose_cmd[@]}" version --short 2>/dev/null || echo '?') (${compose_cmd[*]})"

# node:22-slim and redis:7-alpine, from the registry's images or local stand-ins.
bash scripts/docker-standins.sh

# ---------------------------------------------------------------------------------------------
# The stack's configuration: a throwaway keyring, its own plans, a loopback port.

# The checks below expect the gateway's defaults for what compose passes through from the shell.
unset TRUST_PROXY CORS_ORIGINS PUBLIC_BASE_PATH UPSTREAM_BASE_PATH FORWARD_AUTHORIZATION ANIMAL_STORE_TLS
project="animal-store-smoke-$$"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/animal-store-smoke.XXXXXX")
keys_dir="$tmp/keys"
plans_dir="$tmp/plans"
export COMPOSE_PROJECT_NAME=$project
export ANIMAL_STORE_KEYS=$keys_dir
export ANIMAL_STORE_PLANS=$plans_dir
free_port() { node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }
port=${SMOKE_PORT:-$(free_port)}
# Published on loopback only: this test's traffic never leaves the machine.
export ANIMAL_STORE_PORT="127.0.0.1:$port"
# The admin listener is published on the host's loopback by the compose file itself.
admin_port=$(free_port)
export ANIMAL_STORE_ADMIN_PORT=$admin_port
# The admin token file, a throwaway: readable by the gateway's uid 1000, not only by this user.
admin_token=$(node -e 'console.log(require("crypto").randomBytes(24).toString("base64url"))')
export ANIMAL_STORE_ADMIN_TOKENS="$tmp/admin-tokens"
policy=${RATE_LIMIT_ON_REDIS_FAILURE:-local}
export RATE_LIMIT_ON_REDIS_FAILURE=$policy
base="http://127.0.0.1:$port"

compose() { "${compose_cmd[@]}" "$@"; }

failures=0
checks=0
ok() { checks=$((checks + 1)); printf 'ok   %s\n' "$*"; }
fail() { checks=$((checks + 1)); failures=$((failures + 1)); printf 'FAIL %s\n' "$*"; }

# Taken down however the script ends. Built images lose the project's tags but stay in the
# engine under one stable tag per service, so the next run's build starts from its layers; the
# image that tag held before is removed (on vfs every layer is a full copy of the file system).
cleanup() {
  local status=$?
  trap - EXIT
  set +e
  if ((failures > 0 || status != 0)) && [[ -n ${stack_started:-} ]]; then
    say "logs of the failed run (last 40 lines per service):"
    compose logs --no-color --tail=40 2>&1
  fi
  say "down -v"
  compose down -v --remove-orphans >/dev/null 2>&1 || say "warning: down -v failed; remove project $project by hand"
  local service image previous
  for service in core gateway; do
    image=$(docker image ls -q "${project}_$service" 2>/dev/null; docker image ls -q "$project-$service" 2>/dev/null)
    image=${image%%$'\n'*}
    [[ -n $image ]] || continue
    previous=$(docker image ls -q "animal-store-smoke-cache/$service:latest" 2>/dev/null)
    docker tag "$image" "animal-store-smoke-cache/$service:latest"
    docker image rm "${project}_$service" "$project-$service" >/dev/null 2>&1
    [[ -z $previous || $previous == "${image:0:12}" ]] || docker image rm "$previous" >/dev/null 2>&1
  done
  rm -rf -- "$tmp"
  say "$checks checks, $failures failed"
  if ((status == 0 && failures > 0)); then status=1; fi
  exit "$status"
}
trap cleanup EXIT

# The keys CLI as the README has operators use it, on this run's keyring only. No Redis is
# reachable from the host (compose publishes none), so a revocation goes to public/revoked.json,
# which the gateway reads; the caller's own REDIS_URL or audience must not leak in.
keys() {
  env -u REDIS_URL -u REDIS_CLUSTER -u REDIS_PREFIX -u KEY_ISSUER -u KEY_AUDIENCE KEYS_DIR="$keys_dir" \
    npm run -s keys -- "$@"
}

say "project $project, gateway on $base, temporary keyring and plans in $tmp"
keys init --issuer animal-store --audience animal-store-production
printf 'smoke:%s\n' "$admin_token" >"$ANIMAL_STORE_ADMIN_TOKENS"
chmod 0644 "$ANIMAL_STORE_ADMIN_TOKENS"
mkdir -p "$plans_dir"
cp packages/gateway/plans/plans.json "$plans_dir/plans.json"

# ---------------------------------------------------------------------------------------------
# HTTP through the published port: status to stdout, headers and body into files.

headers="$tmp/headers"
body="$tmp/body"
# request METHOD PATH [curl options...]
request() {
  local method=$1 path=$2
  shift 2
  curl -sS -o "$body" -D "$headers" -w '%{http_code}' --max-time 10 -X "$method" "$@" "$base$path" 2>/dev/null || echo 000
}
header() { grep -i "^$1:" "$headers" | head -n 1 | cut -d: -f2- | sed 's/^ *//' | tr -d '\r'; }
# admin_request METHOD PATH [curl options...]: the admin API on the admin listener, with the token.
admin_request() {
  local method=$1 path=$2
  shift 2
  curl -sS -o "$body" -D "$headers" -w '%{http_code}' --max-time 10 -X "$method" -H "Authorization: Bearer $admin_token" "$@" "http://127.0.0.1:$admin_port/admin$path" 2>/dev/null || echo 000
}
# json EXPRESSION: evaluates EXPRESSION over the last body, bound to `b`.
json() { node -e 'const b=JSON.parse(require("fs").readFileSync(process.argv[1],"utf8"));const v=('"$1"');console.log(typeof v==="string"?v:JSON.stringify(v))' "$body" 2>/dev/null; }
auth() { printf 'Authorization: Bearer %s' "$1"; }

# wait_for SECONDS COMMAND...: retries COMMAND once a second until it succeeds.
wait_for() {
  local deadline=$((SECONDS + $1))
  shift
  until "$@"; do
    ((SECONDS < deadline)) || return 1
    sleep 1
  done
}
ready() { [[ $(request GET /readyz) == 200 ]]; }
healthy() { [[ $(docker inspect -f '{{if .State.Health}}{{.State.Health.Status}}{{end}}' "$1" 2>/dev/null) == healthy ]]; }
container() { compose ps -q "$1"; }

# ---------------------------------------------------------------------------------------------
say "build and up"
started=$SECONDS
stack_started=yes
if ! compose up -d --build >"$tmp/up.log" 2>&1; then
  tail -n 40 "$tmp/up.log"
  fail "compose up --build"
  exit 1
fi
say "built and started in $((SECONDS - started)) s"
if wait_for 90 ready; then ok "the gateway is ready (/readyz: core and Redis reachable)"; else fail "the gateway is not ready after 90 s"; exit 1; fi

status=$(request GET /healthz)
if [[ $status == 200 && $(json b.status) == ok ]]; then ok "GET /healthz: 200 {\"status\":\"ok\"}"; else fail "GET /healthz: $status $(cat "$body")"; fi

# Both images run node on the JavaScript that the Dockerfile's build stage compiled: PID 1 is the
# package's `npm start` without npm, and no TypeScript tooling or source is in the image.
for service in core gateway; do
  id=$(container "$service")
  command=$(docker exec "$id" cat /proc/1/cmdline | tr '\0' ' ') || command='?'
  tooling=$(docker exec "$id" find /app \( -path '*/node_modules/tsx' -o -path '*/node_modules/typescript' -o -path '*/node_modules/esbuild' \) -prune -print | tr '\n' ' ') || tooling='? (find failed)'
  sources=$(docker exec "$id" find /app/packages -name node_modules -prune -o -name '*.ts' -print | tr '\n' ' ') || sources='? (find failed)'
  if [[ $command == 'node --conditions=@animal-store/built dist/main.js ' && -z $tooling && -z $sources ]]; then
    ok "$service image: PID 1 is node on dist/main.js; no tsx, typescript or esbuild, and no TypeScript source"
  else
    fail "$service image: PID 1 is '$command'; tooling: ${tooling:-none}; sources: ${sources:-none}"
  fi
done

pro=$(keys issue --plan pro --sub smoke-pro)

# Idempotent create: the replay answers the first pet, creates nothing, and says so.
new_pet='{"name":"Rex","categoryId":1,"status":"available"}'
idem="smoke-$$-$RANDOM"
status=$(request POST /v1/pets -H "$(auth "$pro")" -H 'content-type: application/json' -H "Idempotency-Key: $idem" --data "$new_pet")
first_id=$(json b.id)
if [[ $status == 201 && -n $first_id && $(header location) == "/v1/pets/$first_id" ]]; then
  ok "POST /v1/pets with Idempotency-Key: 201, pet $first_id"
else
  fail "POST /v1/pets: $status $(cat "$body")"
fi
status=$(request POST /v1/pets -H "$(auth "$pro")" -H 'content-type: application/json' -H "Idempotency-Key: $idem" --data "$new_pet")
if [[ $status == 201 && $(json b.id) == "$first_id" && $(header idempotent-replayed) == true ]]; then
  ok "replayed POST: the same pet $first_id, Idempotent-Replayed: true"
else
  fail "replayed POST: $status $(cat "$body") (replayed: $(header idempotent-replayed))"
fi

# A page walk over every pet, following Link rel="next" as a client must (the cursor is opaque).
created=("$first_id")
for name in Tom Kitty Bella Max; do
  request POST /v1/pets -H "$(auth "$pro")" -H 'content-type: application/json' --data "{\"name\":\"$name\",\"categoryId\":2}" >/dev/null
  created+=("$(json b.id)")
done
# walk_pets FILE: every pet id into FILE, one a line, two pets a page; the page count in $pages.
walk_pets() {
  local path='/v1/pets?limit=2' status next
  pages=0
  : >"$1"
  while [[ -n $path ]]; do
    status=$(request GET "$path" -H "$(auth "$pro")")
    [[ $status == 200 ]] || { say "page $path: $status $(cat "$body")"; return 1; }
    pages=$((pages + 1))
    json 'b.map((p) => p.id).join("\n")' >>"$1"
    next=$(header link | tr ',' '\n' | sed -n 's/^ *<\([^>]*\)>;.*rel="next".*/\1/p')
    # A relative reference, or an absolute one to this same gateway.
    path=${next#"$base"}
    [[ -z $path || $path == /* ]] || { say "rel=next points elsewhere: $next"; return 1; }
    ((pages < 50)) || { say "more than 50 pages"; return 1; }
  done
}
walked="$tmp/walked"
if walk_pets "$walked"; then
  missing=$(comm -23 <(printf '%s\n' "${created[@]}" | sort) <(sort "$walked") | tr '\n' ' ')
  duplicated=$(sort "$walked" | uniq -d | tr '\n' ' ')
  if [[ -z $missing && -z $duplicated ]] && ((pages >= 3)); then
    ok "listPets page walk (Link rel=\"next\"): $(wc -l <"$walked") pets over $pages pages, each once, the 5 created among them"
  else
    fail "listPets page walk: $pages pages; missing: ${missing:-none}; twice: ${duplicated:-none}"
  fi
else
  fail "listPets page walk stopped"
fi

# The deprecated operation says so on every answer (RFC 9745 Deprecation, RFC 8594 Sunset, Link).
status=$(request GET "/v1/pets/$first_id" -H "$(auth "$pro")")
if [[ $status == 200 && $(header deprecation) =~ ^@[0-9]+$ && -n $(header sunset) && $(header link) == *'rel="deprecation"'* && $(header link) == *'rel="successor-version"'* ]]; then
  ok "getPet: 200 with Deprecation $(header deprecation), Sunset $(header sunset), Link"
else
  fail "getPet: $status; deprecation='$(header deprecation)' sunset='$(header sunset)' link='$(header link)'"
fi

# ---------------------------------------------------------------------------------------------
# Limits and plans. The free plan allows 60 a minute: the 61st request of a minute is refused.
free=$(keys issue --plan free --sub smoke-free)
limited_at=''
for ((i = 1; i <= 70; i++)); do
  status=$(request GET '/v1/pets?limit=1' -H "$(auth "$free")")
  if [[ $status == 429 ]]; then limited_at=$i; break; fi
  [[ $status == 200 ]] || break
done
if [[ $limited_at == 61 && $(json b.code) == rate_limited && -n $(header retry-after) ]]; then
  ok "free plan: 60 requests answered, the 61st refused (429 rate_limited, Retry-After $(header retry-after))"
else
  fail "free plan: first 429 at request ${limited_at:-none} (last status $status: $(cat "$body"))"
fi

# A plan change reaches the running gateway through the mounted directory: no restart. Written
# as editors and deploy tools do, to a temporary file renamed over plans.json. The gateway
# remembers a refusal for RATE_LIMIT_DENY_CACHE_MS (1 s by default) and answers the key's next
# requests from that memory, so the change is looked for once that second is over.
node -e 'const fs=require("fs");const f=process.argv[1];const p=JSON.parse(fs.readFileSync(f,"utf8"));p.plans.free.minute=1000;fs.writeFileSync(f+".tmp",JSON.stringify(p,null,2));fs.renameSync(f+".tmp",f)' "$plans_dir/plans.json"
sleep 1.2
status=$(request GET '/v1/pets?limit=1' -H "$(auth "$free")")
if [[ $status == 200 && $(header ratelimit-policy) == *'"minute";q=1000'* ]]; then
  ok "plan change (free: 1000 a minute) applies to the limited key once its refusal is no longer remembered, no restart"
else
  fail "plan change: $status, RateLimit-Policy '$(header ratelimit-policy)'"
fi

# ---------------------------------------------------------------------------------------------
# Keys: rotation and revocation through the mounted keyring, as the README tells operators.
# The gateway re-reads jwks.json within a second of a change (README): allow it five.
keys rotate
rotated=$(keys issue --plan pro --sub smoke-rotated)
accepted() { [[ $(request GET '/v1/pets?limit=1' -H "$(auth "$1")") == 200 ]]; }
if wait_for 5 accepted "$rotated"; then ok "key rotation: a key of the new kid is accepted, no restart"; else fail "key rotation: $(cat "$body")"; fi
if accepted "$pro"; then ok "key rotation: a key of the old kid still accepted"; else fail "key rotation: the old kid's key: $(cat "$body")"; fi

doomed=$(keys issue --plan pro --sub smoke-revoked)
doomed_jti=$(keys list --json | node -e 'const k=JSON.parse(require("fs").readFileSync(0,"utf8")).find((k)=>k.sub==="smoke-revoked");console.log(k?k.jti:"")')
status=$(request GET '/v1/pets?limit=1' -H "$(auth "$doomed")")
[[ $status == 200 ]] || fail "the key to revoke was refused before its revocation: $status"
keys revoke "$doomed_jti"
status=$(request GET '/v1/pets?limit=1' -H "$(auth "$doomed")")
if [[ $status == 401 ]]; then ok "revoked key ($doomed_jti) refused on the next request (401)"; else fail "revoked key: $status on the next request"; fi

# ---------------------------------------------------------------------------------------------
# The admin API, on the admin listener published on the host's loopback only.
status=$(curl -sS -o "$body" -w '%{http_code}' --max-time 10 "http://127.0.0.1:$admin_port/admin/accounts" 2>/dev/null || echo 000)
if [[ $status == 401 ]]; then ok "admin API on 127.0.0.1:$admin_port: 401 without a token"; else fail "admin API without a token: $status $(cat "$body")"; fi
# The console, from the image's built tree: the page, then each file it names, with its type.
console_check() {
  local path=$1 type=$2 status content_type
  status=$(curl -sS -o "$body" -D "$headers" -w '%{http_code}' --max-time 10 "http://127.0.0.1:$admin_port$path" 2>/dev/null || echo 000)
  content_type=$(tr -d '\r' <"$headers" | sed -n 's/^[Cc]ontent-[Tt]ype: //p' | tail -n 1)
  if [[ $status == 200 && $content_type == "$type" && -s $body ]]; then ok "console: $path 200, $type"; else fail "console: $path $status ($content_type)"; fi
}
console_check /admin 'text/html; charset=utf-8'
console_assets=$(grep -o '\(href\|src\)="admin/[^"]*"' "$body" | sed 's/^[a-z]*="\(.*\)"$/\1/' || true)
[[ -n $console_assets ]] || fail "console: the page names no file of its own"
console_modules=""
for asset in $console_assets; do
  case $asset in
    *.js)
      console_check "/$asset" 'text/javascript; charset=utf-8'
      # The modules a script imports, relative to it (admin/…): served beside it.
      console_modules+=" $(grep -o "from '\./[^']*\.js'" "$body" | sed "s|^from '\./\(.*\)'$|admin/\1|" | tr '\n' ' ' || true)"
      ;;
    *.css) console_check "/$asset" 'text/css; charset=utf-8' ;;
    *) fail "console: the page names $asset, of no known type" ;;
  esac
done
for module in $console_modules; do console_check "/$module" 'text/javascript; charset=utf-8'; done
status=$(admin_request GET /accounts/smoke-pro)
if [[ $status == 200 && $(json b.plan) == pro ]]; then ok "admin API: today's account smoke-pro, plan pro, $(json b.windows.day.used) used of its day"; else fail "admin API, smoke-pro: $status $(cat "$body")"; fi
admin_victim=$(keys issue --plan pro --sub smoke-admin-revoked)
admin_victim_jti=$(keys list --json | node -e 'const k=JSON.parse(require("fs").readFileSync(0,"utf8")).find((k)=>k.sub==="smoke-admin-revoked");console.log(k?k.jti:"")')
[[ $(request GET '/v1/pets?limit=1' -H "$(auth "$admin_victim")") == 200 ]] || fail "the key to revoke from the admin API was refused before"
seen_today() { [[ $(admin_request GET /accounts/smoke-admin-revoked) == 200 ]]; }
wait_for 10 seen_today || fail "admin API: smoke-admin-revoked not listed 10 s after its request"
status=$(admin_request POST "/keys/$admin_victim_jti/revoke")
if [[ $status == 200 && $(request GET '/v1/pets?limit=1' -H "$(auth "$admin_victim")") == 401 ]]; then
  ok "admin API: a revoked key ($admin_victim_jti) is refused on the next request (401)"
else
  fail "admin API revoke: $status $(cat "$body")"
fi

say "docker restart of every Redis container"
redis_ids=("$(container redis)" "$(container pets-redis)")
docker restart "${redis_ids[@]}" >/dev/null
for id in "${redis_ids[@]}"; do wait_for 60 healthy "$id" || fail "Redis container ${id:0:12} not healthy again after 60 s"; done
wait_for 30 ready || fail "the gateway is not ready 30 s after the Redis restarts"
status=$(request GET '/v1/pets?limit=1' -H "$(auth "$doomed")")
if [[ $status == 401 ]]; then ok "revoked key still refused after every Redis restarted empty (401)"; else fail "revoked key after Redis restarts: $status"; fi
status=$(request GET '/v1/pets?limit=1' -H "$(auth "$admin_victim")")
if [[ $status == 401 ]]; then ok "a key revoked from the admin API still refused after Redis restarted empty (the gateway-admin volume)"; else fail "admin-revoked key after Redis restarts: $status"; fi
status=$(request GET "/v1/pets/$first_id" -H "$(auth "$pro")")
if [[ $status == 200 && $(json b.name) == Rex ]]; then ok "pets survive a pets-redis restart (append-only file)"; else fail "pet $first_id after pets-redis restart: $status $(cat "$body")"; fi

# ---------------------------------------------------------------------------------------------
# The limits Redis dies: the gateway follows RATE_LIMIT_ON_REDIS_FAILURE, then recovers.
say "docker kill of the limits Redis (RATE_LIMIT_ON_REDIS_FAILURE=$policy)"
limits_redis=$(container redis)
docker kill "$limits_redis" >/dev/null
sleep 1
status=$(request GET '/v1/pets?limit=1' -H "$(auth "$pro")")
case $policy in
  closed) expected=503 ;;
  *) expected=200 ;;
esac
if [[ $status == "$expected" ]]; then
  ok "limits Redis down: $status, as RATE_LIMIT_ON_REDIS_FAILURE=$policy says"
else
  fail "limits Redis down, policy $policy: $status (expected $expected) $(cat "$body")"
fi
docker start "$limits_redis" >/dev/null
wait_for 60 healthy "$limits_redis" || fail "the limits Redis is not healthy 60 s after docker start"
# Recovered means the counters are in Redis again: a request leaves a key under the gateway's prefix.
counters_in_redis() {
  [[ $(request GET '/v1/pets?limit=1' -H "$(auth "$pro")") == 200 ]] &&
    [[ -n $(docker exec "$limits_redis" redis-cli --scan --pattern 'gw:*' 2>/dev/null | head -n 1) ]]
}
if wait_for 30 counters_in_redis; then ok "limits Redis back: requests answered and counted in Redis again"; else fail "no recovery within 30 s of docker start (last status $(request GET '/v1/pets?limit=1' -H "$(auth "$pro")"))"; fi

# ---------------------------------------------------------------------------------------------
say "docker restart of the core"
core=$(container core)
docker restart "$core" >/dev/null
wait_for 60 healthy "$core" || fail "the core is not healthy 60 s after its restart"
wait_for 30 ready || fail "the gateway is not ready 30 s after the core restart"
walked_again="$tmp/walked-again"
if walk_pets "$walked_again" && [[ $(sort "$walked_again") == "$(sort "$walked")" ]]; then
  ok "pets survive a core restart: the same $(wc -l <"$walked_again") pets"
else
  fail "after the core restart the walk gives: $(tr '\n' ' ' <"$walked_again")"
fi

# ---------------------------------------------------------------------------------------------
# TLS on the gateway's listener: the same project with docker-compose.tls.yml added, a throwaway
# self-signed certificate for localhost, and a client that trusts exactly that certificate.
if command -v openssl >/dev/null 2>&1; then
  say "the gateway again, with docker-compose.tls.yml"
  mkdir -p "$tmp/tls"
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 -subj /CN=localhost \
    -addext subjectAltName=DNS:localhost -keyout "$tmp/tls/key.pem" -out "$tmp/tls/cert.pem" 2>/dev/null
  # The gateway runs as uid 1000, not as this user; the key is a throwaway.
  chmod 0755 "$tmp/tls"
  chmod 0644 "$tmp/tls/key.pem"
  export ANIMAL_STORE_TLS="$tmp/tls"
  https_status() {
    curl -sS -o "$body" -w '%{http_code}' --max-time 10 --cacert "$tmp/tls/cert.pem" \
      --resolve "localhost:$port:127.0.0.1" "$@" 2>/dev/null || echo 000
  }
  https_ready() { [[ $(https_status "https://localhost:$port/readyz") == 200 ]]; }
  if ! compose -f docker-compose.yml -f docker-compose.tls.yml up -d gateway >"$tmp/up-tls.log" 2>&1; then
    tail -n 20 "$tmp/up-tls.log"
    fail "compose up with docker-compose.tls.yml"
  elif ! wait_for 60 https_ready; then
    fail "no answer over TLS within 60 s"
  else
    status=$(https_status -H "$(auth "$pro")" "https://localhost:$port/v1/pets/$first_id")
    if [[ $status == 200 && $(json b.name) == Rex ]]; then ok "TLS listener: https with the mounted certificate, pet $first_id answered"; else fail "TLS listener: $status $(cat "$body")"; fi
    if wait_for 30 healthy "$(container gateway)"; then ok "TLS listener: the container's healthcheck passes over https"; else fail "TLS listener: the gateway container is not healthy"; fi
  fi
else
  say "openssl is missing: the TLS listener is not checked"
fi
