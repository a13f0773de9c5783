# One image for the API and the worker (docker-compose.yml picks the command). Untested here: these
# machines have no Docker engine.
FROM node:20-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json ./
COPY tools/prisma-migrate/package.json tools/prisma-migrate/package.json
COPY scripts/prisma-generate.mjs scripts/prisma-generate.mjs
COPY prisma prisma
COPY prisma.config.ts ./
RUN npm ci --omit=dev --no-audit --no-fund
COPY . .
ENV NODE_ENV=production
EXPOSE 3000
CMD ["npx", "tsx", "api/server.ts"]
