// A merchant row and a session token for it, for tests of merchant routes (registration itself is
// tested through the API in api/routes/auth). It is on a paid plan unless asked to stay on Demo, so
// checkouts of its store are not passed through (scripts/lib/stack/billing.ts).
import type { FastifyInstance } from 'fastify';
import type { Db } from '../../prisma/client.js';
import { givePaidPlan, TEST_PAID_PLAN } from '../../scripts/lib/stack/billing.js';

let n = 0;

export interface TestMerchant {
  id: string;
  token: string;
  email: string;
}

export interface TestMerchantOptions {
  /** 'demo': no plan (checkouts pass through); otherwise this paid plan, ACTIVE (default TEST_PAID_PLAN, Growth). */
  plan?: 'demo' | string;
}

export async function createTestMerchant(db: Db, app: FastifyInstance, shopName = 'Shop', opts: TestMerchantOptions = {}): Promise<TestMerchant> {
  const i = `${Date.now().toString(36)}${(n++).toString(36)}${process.pid.toString(36)}`;
  const email = `merchant-${i}@shop.test`;
  const row = await db.merchant.create({ data: { email, passwordHash: 'x', shopName, phone: '+49 30 1234', slug: `m-${i}` } });
  const plan = opts.plan ?? TEST_PAID_PLAN;
  if (plan !== 'demo') await givePaidPlan(db, row.id, plan);
  return { id: row.id, email, token: await app.issueSessionToken({ merchantId: row.id, shopDomain: '' }) };
}
