// Every history committed under workflows/__histories__ replays against the current workflow code, so a
// change that would break workflows already running in production fails CI (record one with
// `npm run replay -- <workflowId> --save <name>`; see docs/operations.md).
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, inject, it } from 'vitest';
import { Worker } from '@temporalio/worker';
import { readHistory } from '../scripts/lib/histories.js';

const dir = path.join(path.dirname(fileURLToPath(import.meta.url)), '__histories__');
const files = readdirSync(dir).filter((f) => f.endsWith('.json')).sort();

describe('replay of committed workflow histories', () => {
  it('has histories to replay', () => {
    expect(files.length).toBeGreaterThan(0);
  });

  it.each(files)('%s replays deterministically', async (file) => {
    const workflowBundle = { code: readFileSync(inject('workflowBundlePath'), 'utf8') };
    await expect(Worker.runReplayHistory({ workflowBundle }, readHistory(path.join(dir, file)), file)).resolves.toBeUndefined();
  });
});
