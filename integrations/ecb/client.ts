// The ECB's euro foreign exchange reference rates, daily XML format
// (https://www.ecb.europa.eu/stats/eurofxref/eurofxref-daily.xml): one <Cube time="YYYY-MM-DD"> holding
// <Cube currency="USD" rate="1.0876"/> entries, each meaning 1 EUR = rate units of that currency.
import { XMLParser } from 'fast-xml-parser';
import { IntegrationError } from '../errors.js';

export interface ReferenceRates {
  /** Publication date, YYYY-MM-DD. */
  date: string;
  /** Currency code → decimal rate as published (string: no float rounding on the way to the database). */
  rates: Record<string, string>;
}

const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', removeNSPrefix: true });
const CURRENCY = /^[A-Z]{3}$/;
const RATE = /^\d+(\.\d+)?$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

type Node = Record<string, unknown>;
const asArray = (v: unknown): Node[] => (Array.isArray(v) ? (v as Node[]) : v && typeof v === 'object' ? [v as Node] : []);

export function parseEcbDailyXml(xml: string): ReferenceRates {
  let doc: Node;
  try {
    doc = parser.parse(xml) as Node;
  } catch (err) {
    throw new IntegrationError('ecb', 'invalid_response', `ECB rates: not XML (${(err as Error).message})`);
  }
  const envelope = doc.Envelope as Node | undefined;
  const day = asArray((envelope?.Cube as Node | undefined)?.Cube)[0];
  const date = day?.time;
  if (typeof date !== 'string' || !DATE.test(date)) {
    throw new IntegrationError('ecb', 'invalid_response', 'ECB rates: no <Cube time="YYYY-MM-DD"> in the document');
  }
  const rates: Record<string, string> = {};
  for (const entry of asArray(day?.Cube)) {
    const currency = entry.currency;
    const rate = entry.rate;
    if (typeof currency !== 'string' || !CURRENCY.test(currency) || typeof rate !== 'string' || !RATE.test(rate) || Number(rate) <= 0) {
      throw new IntegrationError('ecb', 'invalid_response', `ECB rates: malformed entry ${JSON.stringify(entry)}`);
    }
    rates[currency] = rate;
  }
  if (Object.keys(rates).length === 0) throw new IntegrationError('ecb', 'invalid_response', 'ECB rates: the document lists no currency');
  return { date, rates };
}

export async function fetchEcbDailyRates(url: string, opts: { timeoutMs?: number } = {}): Promise<ReferenceRates> {
  const timeoutMs = opts.timeoutMs ?? 15_000;
  let res: Response;
  try {
    res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), headers: { accept: 'application/xml, text/xml' } });
  } catch (err) {
    const name = (err as Error).name;
    const kind = name === 'TimeoutError' || name === 'AbortError' ? 'timeout' : 'unavailable';
    throw new IntegrationError('ecb', kind, `ECB rates: GET ${url} failed: ${(err as Error).message}`, { cause: err });
  }
  if (!res.ok) {
    throw new IntegrationError('ecb', res.status === 429 ? 'rate_limited' : res.status >= 500 ? 'unavailable' : 'rejected', `ECB rates: GET ${url} answered ${res.status}`, { status: res.status });
  }
  return parseEcbDailyXml(await res.text());
}

export function toEcbDailyXml(rates: ReferenceRates): string {
  const lines = Object.entries(rates.rates).map(([c, r]) => `\t\t\t<Cube currency='${c}' rate='${r}'/>`);
  return `<?xml version="1.0" encoding="UTF-8"?>
<gesmes:Envelope xmlns:gesmes="http://www.gesmes.org/xml/2002-08-01" xmlns="http://www.ecb.int/vocabulary/2002-08-01/eurofxref">
\t<gesmes:subject>Reference rates</gesmes:subject>
\t<gesmes:Sender>
\t\t<gesmes:name>European Central Bank</gesmes:name>
\t</gesmes:Sender>
\t<Cube>
\t\t<Cube time='${rates.date}'>
${lines.join('\n')}
\t\t</Cube>
\t</Cube>
</gesmes:Envelope>
`;
}
