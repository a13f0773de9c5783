// A database dump, after a merchant connected the processor, storefront A (through OAuth) and storefront
// B, added a webhook endpoint and rotated its secret, and reset its password, holds none of those secrets in clear
// text.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_STORE } from '../../sandbox/storefront-b/state.js';
import { DEMO_APP } from '../../sandbox/storefront-a/simulator.js';
import { processorAad } from '../../model/connections.js';
import { dataDump } from '../harness/pg-catalog.js';
import { createMerchant, installThroughOAuth, startStorefrontAStack, storedAccessToken, type StorefrontAStack } from '../harness/storefront-a-stack.js';

let s: StorefrontAStack;
beforeAll(async () => {
  s = await startStorefrontAStack();
});
afterAll(async () => {
  await s?.close();
});

describe('secrets at rest', () => {
  it('given every connection made / a dump of every row of the database contains none of their secrets in clear text', async () => {
    const { stack } = s;
    const merchant = await createMerchant(s, 'Vault Shop');
    const auth = { authorization: `Bearer ${merchant.token}` };

    const processor = await stack.app.inject({ method: 'POST', url: '/api/merchant/processor/connect', headers: auth, payload: { apiKey: 'apik_sandbox_demo' } });
    expect(processor.statusCode, processor.body).toBe(200);
    const storeB = await stack.app.inject({
      method: 'POST',
      url: '/api/merchant/storefront-b/connect',
      headers: auth,
      payload: { storeUrl: `${stack.urls.storefrontB}/stores/demo`, consumerKey: DEMO_STORE.consumerKey, consumerSecret: DEMO_STORE.consumerSecret },
    });
    expect(storeB.statusCode, storeB.body).toBe(200);
    const other = await createMerchant(s, 'Vault Shop A');
    await installThroughOAuth(s, other.token);

    // A webhook endpoint, its secret rotated: the current and the previous secret are both kept, sealed.
    const endpoint = await stack.app.inject({ method: 'POST', url: '/api/merchant/webhooks/endpoints', headers: auth, payload: { url: `${stack.urls.webhookReceiver}/hooks/ep1`, enabled: false } });
    expect(endpoint.statusCode, endpoint.body).toBe(201);
    const firstSecret = (endpoint.json() as { secret: string }).secret;
    const rotated = await stack.app.inject({ method: 'POST', url: `/api/merchant/webhooks/endpoints/${(endpoint.json() as { id: string }).id}/rotate-secret`, headers: auth });
    expect(rotated.statusCode, rotated.body).toBe(200);
    const rotatedSecret = (rotated.json() as { secret: string }).secret;

    const connection = await stack.database.db.processorConnection.findUniqueOrThrow({ where: { merchantId: merchant.id } });
    const webhookSecret = s.secrets.decrypt(connection.webhookSecretEnc!, processorAad.webhookSecret(merchant.id));
    const accessToken = await storedAccessToken(s, other.id);
    expect(accessToken).toEqual(expect.any(String));

    const secrets = {
      'processor API key': 'apik_sandbox_demo',
      'processor webhook secret': webhookSecret,
      'storefront B consumer key': DEMO_STORE.consumerKey,
      'storefront B consumer secret': DEMO_STORE.consumerSecret,
      'storefront A client secret': DEMO_APP.clientSecret,
      'storefront A access token': accessToken!,
      // The base64 part: what a careless store would keep without its prefix.
      'webhook endpoint secret': rotatedSecret.slice('whsec_'.length),
      'previous webhook endpoint secret': firstSecret.slice('whsec_'.length),
    };
    const dump = await dataDump(stack.database.url);
    expect(dump).toContain(merchant.id); // the dump is of the right database
    for (const [what, value] of Object.entries(secrets)) {
      expect(value.length, what).toBeGreaterThan(8);
      expect(dump.includes(value), `${what} found in clear text`).toBe(false);
    }
    // Nor do any API responses carry them.
    const views = await Promise.all(
      ['/api/merchant/processor', '/api/merchant/storefront-b', '/api/merchant/me', '/api/merchant/webhooks/endpoints'].map((url) => stack.app.inject({ method: 'GET', url, headers: auth }).then((r) => r.body)),
    );
    const viewsA = await stack.app.inject({ method: 'GET', url: '/api/merchant/storefront-a', headers: { authorization: `Bearer ${other.token}` } });
    for (const body of [...views, viewsA.body]) for (const value of Object.values(secrets)) expect(body.includes(value)).toBe(false);
  });
});
