// docker-compose.yml is checked by Docker Compose itself (Debian's docker-compose, installed by .ci/run;
// no Docker engine is needed for `config`), and against the local cluster it mirrors: the same Temporal
// server version as scripts/lib/temporal-binaries.ts builds, 2 API replicas behind the proxy, 2 workers.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { TEMPORAL_SERVER_VERSION } from '../../scripts/lib/temporal-binaries.js';
import { REPO_ROOT } from '../../scripts/cluster/cluster.js';

const REQUIRED = { JWT_SECRET: 'x'.repeat(40), SECRETS_KEY: Buffer.alloc(32, 7).toString('base64'), PROCESSOR_API_URL: 'https://processor.example', POSTMARK_SERVER_TOKEN: 'token' };

function compose(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !(k in REQUIRED)));
    execFile('docker-compose', ['-f', 'docker-compose.yml', ...args], { cwd: REPO_ROOT, env: { ...clean, ...env } }, (err, stdout, stderr) => {
      if (err && (err as NodeJS.ErrnoException).code === 'ENOENT') throw new Error('docker-compose is not installed: `apt-get install docker-compose` (Debian), as .ci/run does');
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

describe('docker-compose.yml', () => {
  it('is a valid Compose file with the cluster’s services', async () => {
    const checked = await compose(['config', '-q'], REQUIRED);
    expect(checked.stderr).toBe('');
    expect(checked.code).toBe(0);
    const services = (await compose(['config', '--services'], REQUIRED)).stdout.trim().split('\n').sort();
    expect(services).toEqual(['api-1', 'api-2', 'migrate', 'postgres', 'proxy', 'redis', 'temporal', 'temporal-namespace', 'temporal-schema', 'temporal-ui', 'worker-1', 'worker-2']);
  });

  it('refuses to render without the production secrets', async () => {
    const { JWT_SECRET: _omitted, ...rest } = REQUIRED;
    const checked = await compose(['config', '-q'], rest);
    expect(checked.code).not.toBe(0);
    expect(checked.stderr).toContain('set JWT_SECRET');
  });

  it('runs the Temporal server and admin tools this repository builds locally, and proxies to both replicas', () => {
    const file = readFileSync(`${REPO_ROOT}docker-compose.yml`, 'utf8');
    const tags = [...file.matchAll(/image: temporalio\/(server|admin-tools):(\S+)/g)].map((m) => m[2]);
    expect(tags.length).toBe(3);
    expect(new Set(tags)).toEqual(new Set([TEMPORAL_SERVER_VERSION]));
    const nginx = readFileSync(`${REPO_ROOT}deploy/nginx.conf`, 'utf8');
    expect([...nginx.matchAll(/server (api-\d):3000/g)].map((m) => m[1])).toEqual(['api-1', 'api-2']);
  });
});
