// The SDK is generated from the OpenAPI document: these fail when the committed document (sdk/openapi.json) or
// the types generated from it (sdk/src/schema.ts) no longer match the app — run `npm run sdk:generate`.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { documentText, openApiDocument } from '../../scripts/openapi-document.js';

const sdk = path.resolve(import.meta.dirname, '../../sdk');
const run = promisify(execFile);

describe('the SDK against the app', () => {
  it('given the app as it is / sdk/openapi.json is its OpenAPI document, byte for byte', async () => {
    const committed = await readFile(path.join(sdk, 'openapi.json'), 'utf8');
    expect(committed === documentText(await openApiDocument()), 'sdk/openapi.json is stale: run npm run sdk:generate').toBe(true);
  });

  it('given the committed document / sdk/src/schema.ts is what openapi-typescript generates from it', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'sdk-schema-'));
    try {
      const out = path.join(dir, 'schema.ts');
      await run(path.join(sdk, 'node_modules/.bin/openapi-typescript'), ['openapi.json', '--output', out], { cwd: sdk });
      expect((await readFile(out, 'utf8')) === (await readFile(path.join(sdk, 'src/schema.ts'), 'utf8')), 'sdk/src/schema.ts is stale: run npm run sdk:generate').toBe(true);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
