// Produces migration SQL offline with Prisma 6's wasm schema engine (tools/prisma-migrate), because the
// Prisma 7 CLI needs a native engine that cannot be downloaded here. Used by `npm run db:diff` and by the
// schema-drift test.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const TOOL_DIR = path.join(ROOT, 'tools/prisma-migrate');
export const SCHEMA_PATH = path.join(ROOT, 'prisma/schema.prisma');

function toolBin(): string {
  const candidates = [path.join(TOOL_DIR, 'node_modules/prisma/build/index.js')];
  const found = candidates.find((p) => existsSync(p));
  if (!found) {
    throw new Error(
      'tools/prisma-migrate is not installed (Prisma 6, the offline schema engine). Run `npm install` at the repository root.',
    );
  }
  return found;
}

/** Prisma 6 wants the URL in the datasource block; Prisma 7 keeps it in prisma.config.ts. */
export function withDatasourceUrl(schema: string): string {
  return schema.replace(/datasource\s+db\s*\{([^}]*)\}/, (block, body: string) =>
    /\burl\s*=/.test(body) ? block : `datasource db {${body.replace(/\s*$/, '')}\n  url      = env("DATABASE_URL")\n}`,
  );
}

export interface DiffInput {
  /** 'empty', or the text of the schema to diff from. */
  from: 'empty' | { schema: string };
  /** The text of the target schema. */
  to: string;
  /** Any reachable PostgreSQL (the wasm engine connects through adapter-pg). */
  databaseUrl: string;
}

export async function diffSchemas(input: DiffInput): Promise<string> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'schema-diff-'));
  try {
    const toPath = path.join(dir, 'to.prisma');
    writeFileSync(toPath, withDatasourceUrl(input.to));
    const fromArgs = input.from === 'empty' ? ['--from-empty'] : ['--from-schema-datamodel', path.join(dir, 'from.prisma')];
    if (input.from !== 'empty') writeFileSync(path.join(dir, 'from.prisma'), withDatasourceUrl(input.from.schema));
    const args = [toolBin(), 'migrate', 'diff', '--config', path.join(TOOL_DIR, 'prisma.config.ts'), ...fromArgs, '--to-schema-datamodel', toPath, '--script'];
    return await new Promise<string>((resolve, reject) => {
      execFile(
        process.execPath,
        args,
        {
          cwd: TOOL_DIR,
          env: {
            ...process.env,
            DATABASE_URL: input.databaseUrl,
            PRISMA_DIFF_SCHEMA: toPath,
            PRISMA_QUERY_ENGINE_LIBRARY: process.execPath,
            PRISMA_HIDE_UPDATE_MESSAGE: '1',
            CHECKPOINT_DISABLE: '1',
          },
          maxBuffer: 32 * 1024 * 1024,
        },
        (err, stdout, stderr) => {
          if (err) reject(new Error(`prisma migrate diff failed: ${stderr || err.message}`));
          else resolve(stdout);
        },
      );
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function readSchema(): string {
  return readFileSync(SCHEMA_PATH, 'utf8');
}
