// A storefront A connection as a finished install leaves it, without the OAuth dance: the app installed on the
// simulated shop, its Admin token and the private Storefront API token the install creates (through the Admin API, as
// activities/storefront-a/storefront-a.ts does), both sealed into the merchant's row. For tests that are about what comes
// after the install (checkout create, orders); the install itself is tested through OAuth in api/routes/auth.
import type { Config } from '../../config/index.js';
import type { Db } from '../../prisma/client.js';
import type { SecretBox } from '../../security/secrets.js';
import { createStorefrontAClient } from '../../integrations/storefront-a/client.js';
import { storefrontAAad } from '../../model/connections.js';
import { DEMO_APP, type StorefrontASimulator } from '../../sandbox/storefront-a/simulator.js';
import type { SimOrder, SimShop } from '../../sandbox/storefront-a/state.js';

export interface SeedStorefrontA {
  db: Db;
  secrets: SecretBox;
  config: Pick<Config, 'storefrontA'>;
  sim: StorefrontASimulator;
}

export async function seedStorefrontAConnection(deps: SeedStorefrontA, merchantId: string, shop: string, opts: { connected?: boolean } = {}): Promise<{ accessToken: string; storefrontToken: string }> {
  const accessToken = deps.sim.install(shop);
  const admin = createStorefrontAClient({ shop, accessToken, apiUrlTemplate: deps.config.storefrontA.apiTemplate, shopSuffix: deps.config.storefrontA.shopSuffix });
  const storefrontToken = await admin.createStorefrontPrivateToken();
  await deps.db.storefrontAConnection.create({
    data: {
      merchantId,
      shop,
      clientId: DEMO_APP.clientId,
      clientSecretEnc: deps.secrets.encrypt(DEMO_APP.clientSecret, storefrontAAad.clientSecret(merchantId)),
      accessTokenEnc: deps.secrets.encrypt(accessToken, storefrontAAad.accessToken(merchantId)),
      storefrontPrivateTokenEnc: deps.secrets.encrypt(storefrontToken, storefrontAAad.storefrontPrivateToken(merchantId)),
      scopes: deps.sim.state.tokens.get(accessToken)?.scopes.join(',') ?? null,
      connected: opts.connected ?? true,
      installedAt: new Date(),
      shopOrigins: [`https://${shop}`],
    },
  });
  await deps.db.merchant.update({ where: { id: merchantId }, data: { storePlatform: 'STOREFRONT_A', shopDomain: shop } });
  return { accessToken, storefrontToken };
}

/** The orders the checkout service made in a simulated shop for one session (the custom attribute our draft orders carry). */
export const simOrdersOf = (shop: SimShop, sessionToken: string): SimOrder[] =>
  [...shop.orders.values()].filter((o) => o.customAttributes.some((a) => a.key === 'checkout_session_token' && a.value === sessionToken));
