# edge-stream-queue on Node (docs/deploy-node.md): the bundle is built with every dependency, then
# runs on the production dependencies only, as the unprivileged `node` user, listening on every
# interface (HOST=0.0.0.0), in production mode: it refuses to start without API_TOKENS of 16+
# characters and a Redis (REDIS_URL, REDIS_CLUSTER_NODES or UPSTASH_REDIS_REST_URL + _TOKEN).
#
#   docker build -t edge-stream-queue .
#   docker run -p 127.0.0.1:8787:8787 -e API_TOKENS=admin:<token> -e REDIS_URL=redis://host:6379 edge-stream-queue
#
# compose.yaml runs it beside Redis.

ARG NODE_VERSION=20

# --- build: dist/node.mjs from the sources (esbuild, through tsx) ---
FROM node:${NODE_VERSION}-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# No install scripts: the build needs none (they fetch deno, workerd and browsers for the tests).
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY . .
RUN npm run build

# --- runtime: production dependencies and the bundle, nothing else ---
FROM node:${NODE_VERSION}-bookworm-slim AS runtime
ENV NODE_ENV=production \
    API_MODE=production \
    HOST=0.0.0.0 \
    PORT=8787
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
    && npm cache clean --force \
    && mkdir -p /app/.data \
    && chown node:node /app/.data
COPY --from=build /app/dist ./dist
USER node
EXPOSE 8787
# /healthz answers 200 only while Redis answers; Node 20's fetch needs no curl in the image.
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
    CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8787) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "--enable-source-maps", "dist/node.mjs"]
