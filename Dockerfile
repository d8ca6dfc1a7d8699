# The hosted-browser server (`tendril hosted serve`) with Debian's Chromium.
#   docker build -t tendril-hosted .
#   docker run -p 3000:3000 -e HOSTED_API_KEYS=change-me tendril-hosted
# Several instances, Redis and a load balancer: examples/container/compose.yaml. Batch workers
# (ENTRYPOINT node dist/cli.js worker): examples/batch/compose.yaml.

# Build: the package as npm would install it (dist/), from a locked install. The `redis` package
# (an optional peer, needed for REDIS_URL and used by examples/container) is kept from that
# install through the prune that drops the dev dependencies: its @redis/* parts depend on nothing else.
# `bullmq` (an optional peer, for `tendril worker` in examples/batch) has dependencies of its own:
# it is installed again, at the locked install's version, after the prune.
FROM node:20-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY . .
RUN npm run build \
 && mkdir /keep && cp -r node_modules/redis node_modules/@redis /keep/ \
 && npm prune --omit=dev --ignore-scripts --no-audit --no-fund \
 && npm install --no-save --omit=dev --ignore-scripts --no-audit --no-fund "bullmq@$(node -p "require('./package.json').devDependencies.bullmq")" \
 && cp -r /keep/redis /keep/@redis node_modules/

FROM node:20-bookworm-slim
# Chromium from Debian, with fonts so pages render text; tini is not used: the server is PID 1
# and ends its sessions and browsers itself on SIGTERM (each Chrome waits in a small sh that reaps it).
RUN apt-get update \
 && apt-get install -y --no-install-recommends chromium fonts-liberation fonts-noto-color-emoji ca-certificates \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY --from=build /src/package.json ./
COPY --from=build /src/node_modules ./node_modules
COPY --from=build /src/dist ./dist
# The server listens on every interface of the container; the port is mapped by whoever runs it.
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000 CHROME_PATH=/usr/bin/chromium HOME=/home/node
# The image's own unprivileged user: Chromium keeps its sandbox where the runtime allows user
# namespaces (if yours does not, CHROME_ARGS=--no-sandbox leaves the container as the boundary).
USER node
EXPOSE 3000
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=15s --timeout=5s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# Exec form: node itself is PID 1 and receives SIGTERM.
ENTRYPOINT ["node", "dist/cli.js", "hosted", "serve"]
