// GET /api/checkout/address-rules/:country: one country's address metadata, the same the API's own rules read
// (domain/address-rules.ts), so the page checks exactly what init-payment checks; null for a country without a rule.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../../../test/harness/stack.js';
import { addressRulesFrom } from '../../../domain/address-rule-logic.js';
import { addressProblems } from '../../../domain/address-rules.js';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => {
  await stack?.close();
});

const get = async (country: string) => {
  const res = await stack.app.inject({ method: 'GET', url: `/api/checkout/address-rules/${country}` });
  return { status: res.statusCode, body: res.json() as { country: string; metadata: unknown }, headers: res.headers };
};

describe('one country\'s address rules for the page', () => {
  it('given the US / its ZIP format, examples and states, cached a day; the rules over what it answers refuse what the API refuses', async () => {
    const us = await get('us');
    expect(us.status).toBe(200);
    expect(us.headers['cache-control']).toBe('public, max-age=86400');
    expect(us.body).toMatchObject({ country: 'US', metadata: { key: 'US', zip_name_type: 'zip', state_name_type: 'state' } });
    const onPage = addressRulesFrom((c) => (c === 'US' ? (us.body.metadata as never) : undefined));
    for (const address of [{ country: 'US', postalCode: '1011', region: 'NY' }, { country: 'US', postalCode: '10118', region: '' }, { country: 'US', postalCode: '10118', region: 'Atlantis' }, { country: 'US', postalCode: '10118', region: 'new york' }]) {
      expect(onPage.addressProblems(address), JSON.stringify(address)).toEqual(addressProblems(address));
    }
    expect(onPage.regionCode('US', 'new york')).toBe('NY');
  });

  it('given Japan (no specific rule) / metadata null; given a code that is no country / 400 INVALID_INPUT', async () => {
    expect((await get('JP')).body).toEqual({ country: 'JP', metadata: null });
    const bad = await get('XX');
    expect(bad.status).toBe(400);
  });
});
