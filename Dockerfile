# Both services, one Dockerfile: pick the service with the target. From the repository root:
#   docker build --target core -t animal-store-core .
#   docker build --target gateway -t animal-store-gateway .
# (docker-compose.yml does the same with `build.target`.)
#
# The services run as JavaScript that `npm run build` (tsc) compiled, on plain `node`: no
# TypeScript loader and no TypeScript tooling in the images. Not tsx, which takes two to three
# times the time and CPU to start a service in a new container; not Node's type stripping, which
# cannot run this code as it is written (docs/development.md#the-build says why, with figures).
#
# Stages, in the order a builder without BuildKit runs them (it builds every stage up to the
# target, so the core's stages come first and building the core skips the gateway's, but for
# `build`, which compiles both):
#   manifests     the lockfile and every workspace's package.json
#   build         every dependency, dev ones too, and `npm run build`: dist/ of http-kit, core, gateway
#   base          what both services run on: http-kit's dist/, user, healthcheck, CMD
#   core-deps     the core's production dependencies       -> core
#   gateway-deps  the gateway's production dependencies    -> gateway

# manifests: npm ci checks the lockfile against every workspace, so each workspace's package.json
# is needed even though only one workspace's dependencies are installed.
FROM node:22-slim AS manifests
WORKDIR /app
COPY package.json package-lock.json ./
COPY packages/client/package.json packages/client/
COPY packages/core/package.json packages/core/
COPY packages/gateway/package.json packages/gateway/
COPY packages/http-kit/package.json packages/http-kit/
COPY packages/testkit/package.json packages/testkit/

# build: the repository's own tsc and settings, as `npm run build` runs them (it type-checks too).
# Only the compiled dist/ folders leave this stage, not its dependencies. One COPY for the
# sources (.dockerignore keeps tests and node_modules out): on a vfs engine every layer is a full
# copy of the file system.
FROM manifests AS build
RUN npm ci --no-audit --no-fund --ignore-scripts
COPY tsconfig.base.json tsconfig.build.json ./
# The build's second half: the files beside the code that tsc does not copy (the admin console's).
COPY scripts/copy-assets.mjs scripts/
COPY packages packages
RUN npm run build

# base: what both services run on. No sources, no dev dependencies, no tests.
FROM node:22-slim AS base
ENV NODE_ENV=production \
    HOST=0.0.0.0
WORKDIR /app
# Workspace dependencies are links in node_modules to packages/<name>; both services use http-kit.
# Its package.json sends the condition the services run with (CMD) to dist/, everything else
# (the tests, tsx) to src/.
COPY packages/http-kit/package.json packages/http-kit/
COPY --from=build /app/packages/http-kit/dist packages/http-kit/dist
# Every COPY leaves its files owned by root, whatever USER says: the service can read its code
# but not change it.
USER node
# Slim images have no curl; node has http and https. Each service stage sets PORT to the port it
# listens on, so the check probes the port the service was told to use, over TLS when the
# gateway's listener has it (TLS_CERT_FILE). It asks 127.0.0.1, which no certificate names, so it
# does not verify the certificate: it checks that the process answers.
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
  CMD ["node", "-e", "require(process.env.TLS_CERT_FILE?'https':'http').get({host:'127.0.0.1',port:process.env.PORT,path:'/healthz',rejectUnauthorized:false,timeout:2000},r=>process.exit(r.statusCode===200?0:1)).on('error',()=>process.exit(1)).on('timeout',()=>process.exit(1))"]
# The package's own `npm start`, run by node itself rather than npm, which passes on SIGTERM and
# SIGINT but not SIGHUP: node is PID 1, the gateway's primary, so `docker stop` (SIGTERM) drains
# every worker and `docker kill -s HUP` reloads them; it reaps its workers itself, so no init is
# needed. The workers are forked with the primary's flags, the condition among them.
CMD ["node", "--conditions=@animal-store/built", "dist/main.js"]

FROM manifests AS core-deps
RUN npm ci --omit=dev --workspace @animal-store/core --include-workspace-root=false --no-audit --no-fund

# core: the pets core.
FROM base AS core
ENV PORT=8081
COPY --from=core-deps /app/node_modules node_modules
COPY packages/core/package.json packages/core/
COPY --from=build /app/packages/core/dist packages/core/dist
WORKDIR /app/packages/core
EXPOSE 8081

FROM manifests AS gateway-deps
RUN npm ci --omit=dev --workspace @animal-store/gateway --include-workspace-root=false --no-audit --no-fund

# gateway: the gateway, with the default plans and the interface document it routes by.
FROM base AS gateway
ENV PORT=8080
COPY --from=gateway-deps /app/node_modules node_modules
COPY packages/gateway/package.json packages/gateway/
COPY --from=build /app/packages/gateway/dist packages/gateway/dist
# The default plans: PLANS_FILE defaults to this path, relative to the gateway's code. A
# deployment mounts its own plans directory over it (docker-compose.yml).
COPY packages/gateway/plans packages/gateway/plans
# OPENAPI_FILE defaults to this path, relative to the gateway's code. No other file of the
# core is shipped; the gateway knows the core only by URL.
COPY packages/core/openapi.json packages/core/openapi.json
# The admin API's deny-list lives here (ADMIN_REVOCATIONS_FILE in docker-compose.yml): a named
# volume mounted on it takes this directory's owner, so the gateway's user can write it.
USER root
RUN install -d -o node -g node -m 0755 /var/lib/animal-store
USER node
WORKDIR /app/packages/gateway
EXPOSE 8080
