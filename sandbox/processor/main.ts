// Runs the processor sandbox on its own, on its fixed local port:  npx tsx sandbox/processor/main.ts
// (`npm start` runs it together with the rest of the stack.)
import { SANDBOX_PORTS } from '../../config/index.js';
import { createProcessorSimulator } from './simulator.js';

const host = process.env.SANDBOX_HOST ?? '127.0.0.1';
const port = Number(process.env.PORT ?? SANDBOX_PORTS.processor);
const sim = createProcessorSimulator({ publicUrl: `http://${host}:${port}`, logger: { level: process.env.LOG_LEVEL ?? 'info' } });
await sim.app.listen({ port, host });
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void sim.app.close().then(() => process.exit(0)));
