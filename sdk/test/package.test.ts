// The package as npm would publish it: built with its own build script, packed with `npm pack` (dry run, nothing
// published), and imported through its `exports` from the built files, as a merchant's project would import it.
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const sdk = path.resolve(import.meta.dirname, '..');
const run = promisify(execFile);

describe('the SDK package', () => {
  it('given `npm run build` / `npm pack` ships the built code with types, the README and the OpenAPI document, and the entry point exports the client', async () => {
    await run('npm', ['run', 'build'], { cwd: sdk });
    const { stdout } = await run('npm', ['pack', '--dry-run', '--json'], { cwd: sdk });
    const [packed] = JSON.parse(stdout) as Array<{ name: string; version: string; files: Array<{ path: string }> }>;
    const files = packed!.files.map((f) => f.path);
    expect(files).toEqual(expect.arrayContaining(['README.md', 'openapi.json', 'package.json', 'dist/index.js', 'dist/index.d.ts', 'dist/client.js', 'dist/webhooks.js', 'dist/schema.d.ts']));
    // Only what a user needs: no sources of tests, no configuration.
    expect(files.filter((f) => !f.startsWith('dist/') && !['README.md', 'openapi.json', 'package.json'].includes(f))).toEqual([]);

    const manifest = JSON.parse(await readFile(path.join(sdk, 'package.json'), 'utf8')) as { exports: { '.': { import: string; types: string } }; private?: boolean };
    expect(manifest.private).toBeUndefined();
    const entry = await import(path.join(sdk, manifest.exports['.'].import)) as Record<string, unknown>;
    expect(Object.keys(entry)).toEqual(expect.arrayContaining(['createCheckoutClient', 'verifyWebhook', 'CheckoutApiError', 'WebhookVerificationError', 'SDK_VERSION']));
    expect(entry.SDK_VERSION).toBe(packed!.version);
    const client = (entry.createCheckoutClient as (o: object) => Record<string, unknown>)({ baseUrl: 'https://api.example', apiKey: 'ck_test_x' });
    expect(Object.keys(client).sort()).toEqual(['api', 'discounts', 'orders', 'webhooks']);
  }, 120_000);
});
