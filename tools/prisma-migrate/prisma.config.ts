// Prisma 6 in "js engine" mode: its wasm schema engine reaches PostgreSQL through @prisma/adapter-pg,
// so `migrate diff` works with no native engine download. DATABASE_URL: any reachable PostgreSQL.
import { defineConfig } from 'prisma/config';
import { PrismaPg } from '@prisma/adapter-pg';

export default defineConfig({
  engine: 'js',
  experimental: { adapter: true },
  schema: process.env.PRISMA_DIFF_SCHEMA ?? '../../prisma/schema.prisma',
  adapter: async () => new PrismaPg({ connectionString: process.env.DATABASE_URL, idleTimeoutMillis: 200 }),
});
