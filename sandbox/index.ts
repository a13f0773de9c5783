// Starts every local simulator on its fixed port (config SANDBOX_PORTS) for `npm start` and lists the
// pages a person can open. Each simulator is also usable alone (tests start them on port 0).
import type { Config } from '../config/index.js';
import type { Simulator } from './shared/simulator.js';
import { createEcbSimulator } from './ecb/index.js';

export interface RunningSandbox {
  pages: Array<{ label: string; url: string }>;
  simulators: Simulator[];
  stop(): Promise<void>;
}

export async function startSandbox(config: Config): Promise<RunningSandbox> {
  const { host, ports, urls } = config.sandbox;
  const entries: Array<{ sim: Simulator; port: number; pages: Array<{ label: string; url: string }> }> = [
    { sim: createEcbSimulator(), port: ports.ecb, pages: [{ label: 'ECB rates feed', url: `${urls.ecb}/stats/eurofxref/eurofxref-daily.xml` }] },
  ];
  const started: Simulator[] = [];
  try {
    for (const entry of entries) {
      await entry.sim.app.listen({ port: entry.port, host });
      started.push(entry.sim);
    }
  } catch (err) {
    await Promise.all(started.map((s) => s.app.close()));
    throw new Error(`Could not start the sandbox: ${(err as Error).message} (is another \`npm start\` running?)`);
  }
  return {
    pages: entries.flatMap((e) => e.pages),
    simulators: started,
    stop: async () => {
      await Promise.all(started.map((s) => s.app.close()));
    },
  };
}
