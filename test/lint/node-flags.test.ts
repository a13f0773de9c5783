// Every way the service is started runs Node with the same flags (scripts/lib/node-flags.ts): the npm scripts that
// start it (npm start, the API, the worker, the cluster, the benchmarks and the drill, whose baselines must run as the
// service does), the Docker image the compose file builds its API and workers from, and the cluster's child processes.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SERVICE_NODE_FLAGS } from '../../scripts/lib/node-flags.js';

const read = (file: string) => readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');

describe('the service’s Node flags', () => {
  it('are on every npm script that starts the service, right after tsx', () => {
    const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;
    for (const name of ['start', 'start:cluster', 'api', 'worker', 'bench', 'drill']) {
      expect(scripts[name], name).toMatch(new RegExp(`^tsx ${SERVICE_NODE_FLAGS.join(' ')} \\S+\\.ts`));
    }
  });

  it('are the Docker image’s NODE_OPTIONS, and no compose service replaces them', () => {
    expect(read('Dockerfile')).toContain(`ENV NODE_OPTIONS=${SERVICE_NODE_FLAGS.join(' ')}\n`);
    expect(read('docker-compose.yml')).not.toContain('NODE_OPTIONS');
  });

  it('are on the command line of the cluster’s Node processes', () => {
    expect(read('scripts/cluster/cluster.ts')).toMatch(/\[process\.execPath, \[\.\.\.SERVICE_NODE_FLAGS, '--import', 'tsx'/);
  });
});
