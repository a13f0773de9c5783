// A merchant row and a session token for it, for tests of merchant routes (registration itself is
// tested through the API in api/routes/auth).
import type { FastifyInstance } from 'fastify';
import type { Db } from '../../prisma/client.js';

let n = 0;

export interface TestMerchant {
  id: string;
  token: string;
  email: string;
}

export async function createTestMerchant(db: Db, app: FastifyInstance, shopName = 'Shop'): Promise<TestMerchant> {
  const i = `${Date.now().toString(36)}${(n++).toString(36)}${process.pid.toString(36)}`;
  const email = `merchant-${i}@shop.test`;
  const row = await db.merchant.create({ data: { email, passwordHash: 'x', shopName, phone: '+49 30 1234', slug: `m-${i}` } });
  return { id: row.id, email, token: app.jwt.sign({ merchantId: row.id, shopDomain: '' }) };
}
