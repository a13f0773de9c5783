// docker-compose.yml is checked by Docker Compose itself (Debian's docker-compose, installed by .ci/run;
// no Docker engine is needed for `config`), and against the local cluster it mirrors: the same Temporal
// server version as scripts/lib/temporal-binaries.ts builds, 2 API replicas behind the TLS edge (the Caddy version and
// Caddyfile the cluster and test/edge/pebble.test.ts run), 2 workers.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { TEMPORAL_SERVER_VERSION } from '../../scripts/lib/temporal-binaries.js';
import { REPO_ROOT } from '../../scripts/cluster/cluster.js';
import { CADDY_VERSION, ensureCaddy } from '../../scripts/lib/tls-binaries.js';
import { COMPOSE_EDGE, edgeCaddyfile } from '../../scripts/lib/tls-edge.js';

const REQUIRED = { JWT_SECRET: 'x'.repeat(40), SECRETS_KEY: Buffer.alloc(32, 7).toString('base64'), PROCESSOR_API_URL: 'https://processor.example', POSTMARK_SERVER_TOKEN: 'token', ACME_EMAIL: 'ops@example.com' };

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
    expect(services).toEqual(['api-1', 'api-2', 'edge', 'migrate', 'postgres', 'redis', 'temporal', 'temporal-namespace', 'temporal-schema', 'temporal-ui', 'worker-1', 'worker-2']);
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
    // The edge's Caddyfile is the one scripts/lib/tls-edge.ts writes (the same function the cluster and the Pebble test
    // run), with both replicas as upstreams, and the image is the Caddy version provisioning builds.
    const caddyfile = readFileSync(`${REPO_ROOT}deploy/Caddyfile`, 'utf8');
    expect(caddyfile, 'regenerate it: npx tsx scripts/lib/tls-edge.ts > deploy/Caddyfile').toBe(edgeCaddyfile(COMPOSE_EDGE));
    expect(COMPOSE_EDGE.upstreams).toEqual(['api-1:3000', 'api-2:3000']);
    expect([...file.matchAll(/image: caddy:(\S+)-alpine/g)].map((m) => m[1])).toEqual([CADDY_VERSION]);
    // The replicas trust X-Forwarded-* from the edge's fixed address only.
    expect(file).toMatch(/TRUST_PROXY: 172\.28\.0\.10\n/);
    expect(file).toMatch(/edge:[\s\S]*ipv4_address: 172\.28\.0\.10/);
  });

  it('has an edge configuration Caddy itself accepts (the Caddy build provisioning caches)', async () => {
    const caddy = await ensureCaddy();
    const checked = await new Promise<{ code: number; out: string }>((resolve) =>
      execFile(caddy, ['validate', '--config', 'deploy/Caddyfile', '--adapter', 'caddyfile'], { cwd: REPO_ROOT, env: { ...process.env, ACME_EMAIL: 'ops@example.com', HOME: os.tmpdir() } }, (err, stdout, stderr) =>
        resolve({ code: err ? 1 : 0, out: stdout + stderr })));
    expect(checked.out).toContain('Valid configuration');
    expect(checked.code).toBe(0);
  });

  it('refuses to render without the ACME contact the edge registers with', async () => {
    const { ACME_EMAIL: _omitted, ...rest } = REQUIRED;
    const checked = await compose(['config', '-q'], rest);
    expect(checked.code).not.toBe(0);
    expect(checked.stderr).toContain('set ACME_EMAIL');
  });
});
