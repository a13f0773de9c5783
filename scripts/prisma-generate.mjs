// Runs `prisma generate` on install. The Prisma 7 CLI wants to download its native schema engine at
// start-up, which fails without internet; generate does not use that engine, so any existing file will
// do (PLATFORM.md). A real engine path given by the caller is kept.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const env = { ...process.env };
if (!env.PRISMA_SCHEMA_ENGINE_BINARY || !existsSync(env.PRISMA_SCHEMA_ENGINE_BINARY)) {
  env.PRISMA_SCHEMA_ENGINE_BINARY = process.execPath;
}
env.PRISMA_HIDE_UPDATE_MESSAGE = '1';
const r = spawnSync(process.execPath, ['node_modules/prisma/build/index.js', 'generate'], { stdio: 'inherit', env });
process.exit(r.status ?? 1);
