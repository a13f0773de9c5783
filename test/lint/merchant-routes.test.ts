// The merchant routes' data rule of eslint.config.js, proven by probes: a query on `db` written into a merchant route
// (where it could forget the merchant id) is refused, the same query through request.merchantData passes, and a
// checkout route (no merchant caller) is not held to it.
import { describe, expect, it } from 'vitest';
import { eslintProbe } from './eslint-probe.js';

const refusals = eslintProbe('no-restricted-syntax');

describe('the merchant routes\' data rule', () => {
  it.each([
    ['a model query', 'api/routes/merchant/commerce.ts', "export const probe = (db: import('../../../prisma/client.js').Db, merchantId: string) => db.discountCode.findMany({ where: { merchantId } });"],
    ['a raw query', 'api/routes/orders/customers.ts', "export const probe = (db: import('../../../prisma/client.js').Db) => db.$queryRaw`SELECT 1`;"],
    ['a transaction', 'api/routes/billing/index.ts', "export const probe = (db: import('../../../prisma/client.js').Db) => db.$transaction([]);"],
  ])('given %s on db in a merchant route / lint refuses it', async (_what, file, line) => {
    const found = await refusals(file, line);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/request\.merchantData/);
  });

  it('given the same query through the merchant scope, or on db in a checkout route / lint lets it through', async () => {
    expect(await refusals('api/routes/merchant/commerce.ts', "export const probe = (request: import('fastify').FastifyRequest) => request.merchantData.discountCodes.findMany();")).toEqual([]);
    expect(await refusals('api/routes/checkout/quote.ts', "export const probe = (db: import('../../../prisma/client.js').Db) => db.discountCode.findMany();")).toEqual([]);
  });
});
