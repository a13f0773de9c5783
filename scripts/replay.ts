// `npm run replay -- <workflowId> [--run <runId>] [--save <name>]`
// Downloads a workflow's history from Temporal (TEMPORAL_ADDRESS, default 127.0.0.1:7233) and replays it
// against the current workflow code: a change that would break running workflows fails here first.
// --save writes the history to workflows/__histories__/<name>.json, where the replay test picks it up.
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import { bundleWorkflows } from '../worker/bundle.js';
import { loadConfig } from '../config/index.js';
import { writeHistory } from './lib/histories.js';

const { values, positionals } = parseArgs({ allowPositionals: true, options: { run: { type: 'string' }, save: { type: 'string' } } });
const workflowId = positionals[0];
if (!workflowId) {
  console.error('usage: npm run replay -- <workflowId> [--run <runId>] [--save <name>]');
  process.exit(2);
}
const config = loadConfig();
const address = config.temporal.address ?? `127.0.0.1:${config.temporal.devPort}`;
const connection = await Connection.connect({ address });
try {
  const client = new Client({ connection, namespace: config.temporal.namespace });
  const history = await client.workflow.getHandle(workflowId, values.run).fetchHistory();
  console.log(`${workflowId}: ${history.events?.length ?? 0} events from ${address}`);
  if (values.save) {
    const file = path.join('workflows', '__histories__', `${values.save.replace(/[^a-z0-9-]/gi, '-')}.json`);
    writeHistory(file, history);
    console.log(`saved ${file}`);
  }
  const { code } = await bundleWorkflows();
  await Worker.runReplayHistory({ workflowBundle: { code } }, history, workflowId);
  console.log('replay OK: the current code is deterministic for this history');
} catch (err) {
  console.error(`replay FAILED: ${(err as Error).message}`);
  process.exitCode = 1;
} finally {
  await connection.close();
}
