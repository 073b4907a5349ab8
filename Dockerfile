# syntax=docker/dockerfile:1
# One image for every role: `mats start --role api|worker|projector` (see docker-compose.yml).
# TypeScript runs through tsx at start (docs/adr/0008), so there is no build stage.
FROM node:20-slim

ENV NODE_ENV=production
WORKDIR /app

# Dependencies first, so that a source change does not reinstall them.
# Runtime needs only `dependencies` (tsx included); devDependencies are tests and type-checking.
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

# The sources (bin, src, projections, consumers, tsconfig.json); not local state or tests.
# `--exclude` needs Dockerfile syntax 1.19+, which the syntax line above provides.
COPY --exclude=node_modules --exclude=.git --exclude=.mats --exclude=.tap --exclude=test --exclude=docs . .

# Run as the unprivileged user of the node image; tsx caches transpiled files in /tmp.
USER node

ENV HOST=0.0.0.0 PORT=8080
EXPOSE 8080

ENTRYPOINT ["node", "bin/mats.js"]
CMD ["start", "--role", "all"]
