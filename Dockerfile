# syntax=docker/dockerfile:1
# One image for every role: `mats start --role api|worker|projector` (see docker-compose.yml).
# Node 24 LTS, pinned to an exact release; bump it deliberately (node:24-slim is the moving tag).
ARG NODE_IMAGE=node:24.20.0-trixie-slim

# Build: compile the TypeScript sources into dist/ with every dependency (tsc is a devDependency).
FROM ${NODE_IMAGE} AS build
WORKDIR /app
# The lock names the workspace packages/client (the typed client): npm ci needs its manifest.
COPY package.json package-lock.json ./
COPY packages/client/package.json packages/client/package.json
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY bin bin
COPY scripts/build.mjs scripts/build-console.mjs scripts/
COPY console console
COPY src src
COPY projections projections
COPY consumers consumers
RUN npm run build

# Run: the runtime dependencies and dist/ only; no sources, so bin/mats.js always runs dist/.
FROM ${NODE_IMAGE}
ENV NODE_ENV=production
WORKDIR /app

# Dependencies first, so that a source change does not reinstall them.
COPY package.json package-lock.json ./
COPY packages/client/package.json packages/client/package.json
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY bin bin
COPY --from=build /app/dist dist

# Run as the unprivileged user of the node image.
USER node

ENV HOST=0.0.0.0 PORT=8080
EXPOSE 8080

# V8's young generation pinned (bin/node-flags.js, PRODUCTION_NODE_FLAGS): RSS flat under steady load.
ENTRYPOINT ["node", "--min-semi-space-size=16", "--max-semi-space-size=16", "bin/mats.js"]
CMD ["start", "--role", "all"]
