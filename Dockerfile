# One image for the API and the worker (docker-compose.yml picks the command). Untested here: these
# machines have no Docker engine.
# The web pages (checkout page, dashboard, script tag) are built with the dev dependencies (Vite, Preact) in a
# stage of their own; the API serves the result from web/dist.
FROM node:22-bookworm-slim AS web
WORKDIR /app
COPY package.json package-lock.json ./
COPY tools/prisma-migrate/package.json tools/prisma-migrate/package.json
COPY scripts/prisma-generate.mjs scripts/prisma-generate.mjs
COPY prisma prisma
COPY prisma.config.ts ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run web:build -- --force

FROM node:22-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json ./
COPY tools/prisma-migrate/package.json tools/prisma-migrate/package.json
COPY scripts/prisma-generate.mjs scripts/prisma-generate.mjs
COPY prisma prisma
COPY prisma.config.ts ./
RUN npm ci --omit=dev --no-audit --no-fund
COPY . .
COPY --from=web /app/web/dist web/dist
ENV NODE_ENV=production
# scripts/lib/node-flags.ts: the Node flags every process of the service runs with.
ENV NODE_OPTIONS=--max-semi-space-size=64
EXPOSE 3000
CMD ["npx", "tsx", "api/server.ts"]
