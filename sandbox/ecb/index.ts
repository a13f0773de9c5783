// The ECB's daily reference-rates feed, served locally so `npm start` refreshes rates for real and tests
// can change them. Serves the committed snapshot dated today until a test sets other rates.
//   GET /stats/eurofxref/eurofxref-daily.xml   the feed (same path as the ECB's)
//   GET /_control/rates                         what the feed serves now
//   PUT /_control/rates { date?, rates }        serve these rates (date defaults to today)
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { parseEcbDailyXml, toEcbDailyXml, type ReferenceRates } from '../../integrations/ecb/client.js';
import { SNAPSHOT_PATH } from '../../activities/fx-rates.js';
import { createSimulator, type Simulator, type SimulatorOptions } from '../shared/simulator.js';

const ratesBody = z.object({
  date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/).optional(),
  rates: z.record(z.string().regex(/^[A-Z]{3}$/), z.union([z.string().regex(/^\d+(\.\d+)?$/), z.number().positive()])),
});

export function createEcbSimulator(opts: SimulatorOptions = {}): Simulator {
  const sim = createSimulator('ecb', opts);
  const snapshot = parseEcbDailyXml(readFileSync(SNAPSHOT_PATH, 'utf8'));
  let override: ReferenceRates | undefined;
  const current = (): ReferenceRates => override ?? { date: new Date().toISOString().slice(0, 10), rates: snapshot.rates };
  sim.onReset(() => {
    override = undefined;
  });

  sim.app.get('/stats/eurofxref/eurofxref-daily.xml', async (_request, reply) =>
    reply.type('text/xml; charset=utf-8').send(toEcbDailyXml(current())),
  );
  sim.app.get('/_control/rates', async () => current());
  sim.app.put('/_control/rates', async (request, reply) => {
    const parsed = ratesBody.safeParse(request.body);
    if (!parsed.success) return reply.code(400).send({ error: parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '), code: 'INVALID_INPUT' });
    const rates = Object.fromEntries(Object.entries(parsed.data.rates).map(([c, r]) => [c, String(r)]));
    override = { date: parsed.data.date ?? new Date().toISOString().slice(0, 10), rates };
    return override;
  });
  return sim;
}
