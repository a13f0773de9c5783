import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseEcbDailyXml, toEcbDailyXml } from './client.js';
import { SNAPSHOT_PATH } from '../../activities/fx/fx-rates.js';
import { IntegrationError } from '../errors.js';

describe('ECB daily reference rates', () => {
  it('parses the committed snapshot: a date and a rate per currency, as published strings', () => {
    const rates = parseEcbDailyXml(readFileSync(SNAPSHOT_PATH, 'utf8'));
    expect(rates.date).toBe('2026-11-20');
    expect(rates.rates.USD).toBe('1.1562');
    expect(rates.rates.JPY).toBe('178.42');
    expect(Object.keys(rates.rates)).toHaveLength(29);
  });

  it('round-trips through the XML it writes', () => {
    const rates = { date: '2030-01-02', rates: { USD: '1.2', ISK: '146.90' } };
    expect(parseEcbDailyXml(toEcbDailyXml(rates))).toEqual(rates);
  });

  it.each([
    ['not XML at all', '<<<'],
    ['an HTML error page', '<html><body>Service unavailable</body></html>'],
    ['no date', toEcbDailyXml({ date: '2030-01-02', rates: { USD: '1' } }).replace("time='2030-01-02'", '')],
    ['a negative rate', toEcbDailyXml({ date: '2030-01-02', rates: { USD: '-1' } })],
    ['a bad currency code', toEcbDailyXml({ date: '2030-01-02', rates: { usd: '1' } })],
  ])('rejects %s as invalid_response', (_label, xml) => {
    expect(() => parseEcbDailyXml(xml)).toThrow(IntegrationError);
    try {
      parseEcbDailyXml(xml);
    } catch (err) {
      expect((err as IntegrationError).kind).toBe('invalid_response');
    }
  });
});
