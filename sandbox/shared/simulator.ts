// The common frame of every HTTP simulator: a Fastify app with the fault-injection hook and the
// control routes every simulator shares:
//   GET    /_control/health   → { ok: true, simulator }
//   POST   /_control/reset    → clears the simulator's state and its fault rules
//   GET    /_control/faults   → the pending fault rules, and the calls `timeout` rules held and how each ended
//   POST   /_control/faults   → adds a rule (see faults.ts), answers it with its id
//   DELETE /_control/faults   → clears the rules
// Control routes are never subject to faults. Each simulator registers its own reset hook.
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import { FaultInjector, faultRuleSchema } from './faults.js';

export interface SimulatorOptions {
  logger?: FastifyServerOptions['logger'];
  /** The body of an injected error in the platform's own error shape (default `{ error, code }`). */
  faultBody?: (status: number) => unknown;
}

export interface Simulator {
  name: string;
  app: FastifyInstance;
  faults: FaultInjector;
  /** Registers what `POST /_control/reset` must clear. */
  onReset(hook: () => void | Promise<void>): void;
  reset(): Promise<void>;
}

const CONTROL_PREFIX = '/_control/';

export function createSimulator(name: string, opts: SimulatorOptions = {}): Simulator {
  const app = Fastify({ logger: opts.logger ?? false, bodyLimit: 5 * 1024 * 1024 });
  const faults = new FaultInjector();
  const resetHooks: Array<() => void | Promise<void>> = [];

  app.addHook('onRequest', async (request, reply) => {
    if (request.url.startsWith(CONTROL_PREFIX)) return;
    const rule = faults.take(request.method, request.url);
    if (!rule) return;
    if (rule.mode === 'slow') {
      await new Promise((r) => setTimeout(r, rule.delayMs));
      return;
    }
    if (rule.mode === 'timeout') {
      const held = faults.hold(rule, request.method, request.url);
      await holdUntilClientGivesUp(request, reply, (outcome) => (held.outcome = outcome));
      return;
    }
    if (rule.status === 429) reply.header('retry-after', '1');
    return reply.code(rule.status).send(opts.faultBody?.(rule.status) ?? { error: `injected fault (${rule.status})`, code: 'INJECTED_FAULT' });
  });

  app.get('/_control/health', async () => ({ ok: true, simulator: name }));
  app.get('/_control/faults', async () => ({ faults: faults.list(), held: faults.held() }));
  app.post('/_control/faults', async (request, reply) => {
    const parsed = faultRuleSchema.safeParse(request.body ?? {});
    if (!parsed.success) {
      return reply.code(400).send({ error: parsed.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; '), code: 'INVALID_INPUT' });
    }
    return reply.code(201).send(faults.add(parsed.data));
  });
  app.delete('/_control/faults', async () => {
    faults.clear();
    return { ok: true };
  });

  const sim: Simulator = {
    name,
    app,
    faults,
    onReset: (hook) => void resetHooks.push(hook),
    reset: async () => {
      faults.clear();
      for (const hook of resetHooks) await hook();
    },
  };
  app.post('/_control/reset', async () => {
    await sim.reset();
    return { ok: true };
  });
  return sim;
}

/**
 * Holds a request without answering until the client gives up (or 10 minutes pass), then drops the connection:
 * a time-out as the client sees it. Waits on the response's close, which is the connection's; the request's own
 * close fires as soon as its body has been read (Node 20), which would drop a POST at once.
 */
export async function holdUntilClientGivesUp(request: FastifyRequest, reply: FastifyReply, ended?: (outcome: 'abandoned' | 'expired') => void): Promise<void> {
  const outcome = await new Promise<'abandoned' | 'expired'>((resolve) => {
    const timer = setTimeout(() => resolve('expired'), 600_000);
    reply.raw.on('close', () => {
      clearTimeout(timer);
      resolve('abandoned');
    });
  });
  ended?.(outcome);
  reply.hijack();
  request.raw.socket?.destroy();
}
