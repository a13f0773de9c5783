// The ECB's daily reference-rates feed, served locally so `npm start` refreshes rates for real and tests
// can change them. Serves the committed snapshot of the ECB's file (prisma/seed/ecb-eurofxref-daily.xml, the layout
// of https://www.ecb.europa.eu/stats/eurofxref/eurofxref-daily.xml), dated today, until a test sets other rates; set
// rates are written into that same document, so the bytes keep the ECB's layout, not our client's idea of it.
//   GET /stats/eurofxref/eurofxref-daily.xml   the feed (same path as the ECB's)
//   GET /_control/rates                         what the feed serves now
//   PUT /_control/rates { date?, rates }        serve these rates (date defaults to today)
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { createSimulator, type Simulator, type SimulatorOptions } from '../shared/simulator.js';

const SNAPSHOT = readFileSync(new URL('../../prisma/seed/ecb-eurofxref-daily.xml', import.meta.url), 'utf8');

interface FeedRates {
  date: string;
  rates: Record<string, string>;
}

const ratesBody = z.object({
  date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/).optional(),
  rates: z.record(z.string().regex(/^[A-Z]{3}$/), z.union([z.string().regex(/^\d+(\.\d+)?$/), z.number().positive()])),
});

/** The snapshot's rates, as the ECB lists them: one `<Cube currency='USD' rate='1.1562'/>` per currency. */
function snapshotRates(): Record<string, string> {
  return Object.fromEntries([...SNAPSHOT.matchAll(/<Cube currency='([A-Z]{3})' rate='([0-9.]+)'\/>/g)].map((m) => [m[1]!, m[2]!]));
}

/** The ECB's document with its day cube replaced: the same envelope, indentation and attribute quoting. */
function feed(current: FeedRates): string {
  const cubes = Object.entries(current.rates).map(([c, r]) => `\t\t\t<Cube currency='${c}' rate='${r}'/>`).join('\n');
  return SNAPSHOT.replace(/\t\t<Cube time='[^']*'>[\s\S]*?\n\t\t<\/Cube>/, `\t\t<Cube time='${current.date}'>\n${cubes}\n\t\t</Cube>`);
}

export function createEcbSimulator(opts: SimulatorOptions = {}): Simulator {
  const sim = createSimulator('ecb', opts);
  const rates = snapshotRates();
  let override: FeedRates | undefined;
  const current = (): FeedRates => override ?? { date: new Date().toISOString().slice(0, 10), rates };
  sim.onReset(() => {
    override = undefined;
  });

  sim.app.get('/stats/eurofxref/eurofxref-daily.xml', async (_request, reply) => reply.type('text/xml; charset=utf-8').send(feed(current())));
  sim.app.get('/_control/rates', async () => current());
  sim.app.put('/_control/rates', async (request, reply) => {
    const parsed = ratesBody.safeParse(request.body);
    if (!parsed.success) return reply.code(400).send({ error: parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '), code: 'INVALID_INPUT' });
    override = { date: parsed.data.date ?? new Date().toISOString().slice(0, 10), rates: Object.fromEntries(Object.entries(parsed.data.rates).map(([c, r]) => [c, String(r)])) };
    return override;
  });
  return sim;
}
