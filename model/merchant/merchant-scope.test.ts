// The merchant scope holds every query to its merchant: given two merchants with rows of the same kinds, one's scope
// reads, counts, changes and deletes only its own rows, a merchant id written into `where` or `data` anyway cannot move
// it, rows it creates are its merchant's, its own row is the merchant's, tables reached through a session are held by
// the session's merchant, and a raw query that does not bind the merchant id is refused before it runs.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../test/harness/db.js';
import { Prisma } from '../../prisma/client.js';
import { merchantScope } from './merchant-scope.js';

let database: TestDatabase;
let a: string;
let b: string;

const merchant = (n: string) => database.db.merchant.create({ data: { email: `${n}@scope.test`, passwordHash: 'x', shopName: `Shop ${n}`, phone: '+4912345678', slug: `scope-${n}` } });
const session = (merchantId: string) => database.db.checkoutSession.create({
  data: { token: `cs_${randomUUID().replaceAll('-', '')}`, merchantId, platform: 'STOREFRONT_A', status: 'OPEN', currency: 'EUR', fxRates: {}, items: [], subtotalMinor: 100, events: { create: { type: 'created' } } },
});

beforeAll(async () => {
  database = await createTestDatabase();
  [a, b] = [(await merchant('a')).id, (await merchant('b')).id];
  for (const merchantId of [a, b]) {
    await database.db.discountCode.createMany({ data: ['ONE', 'TWO'].map((code) => ({ merchantId, code, type: 'PERCENTAGE' as const, value: 10 })) });
  }
}, 120_000);
afterAll(async () => {
  await database?.drop();
});

describe('a merchant scope', () => {
  it('reads and counts its own rows only', async () => {
    const scope = merchantScope(database.db, a);
    const codes = await scope.discountCodes.findMany({ orderBy: { code: 'asc' } });
    expect(codes.map((c) => [c.merchantId, c.code])).toEqual([[a, 'ONE'], [a, 'TWO']]);
    expect(await scope.discountCodes.count()).toBe(2);
    const bsCode = await database.db.discountCode.findFirstOrThrow({ where: { merchantId: b } });
    expect(await scope.discountCodes.findFirst({ where: { id: bsCode.id } })).toBeNull();
  });

  it('cannot be moved by a merchant id written into where or data', async () => {
    const scope = merchantScope(database.db, a);
    const smuggled = { merchantId: b } as object;
    expect((await scope.discountCodes.findMany({ where: smuggled })).every((c) => c.merchantId === a)).toBe(true);
    const created = await scope.trackingPixels.create({ data: { platform: 'meta', trackingId: '123456789012345', events: ['purchase'], ...smuggled } });
    expect(created.merchantId).toBe(a);
    await database.db.trackingPixel.delete({ where: { id: created.id } });
  });

  it('changes and deletes nothing of another merchant', async () => {
    const scope = merchantScope(database.db, a);
    const bsCode = await database.db.discountCode.findFirstOrThrow({ where: { merchantId: b, code: 'ONE' } });
    expect((await scope.discountCodes.updateMany({ where: { id: bsCode.id }, data: { active: false } })).count).toBe(0);
    expect((await scope.discountCodes.deleteMany({ where: { id: bsCode.id } })).count).toBe(0);
    await expect(scope.discountCodes.update({ where: { id: bsCode.id }, data: { active: false } })).rejects.toMatchObject({ code: 'P2025' });
    await expect(scope.discountCodes.delete({ where: { id: bsCode.id } })).rejects.toMatchObject({ code: 'P2025' });
    expect(await database.db.discountCode.findUniqueOrThrow({ where: { id: bsCode.id } })).toMatchObject({ active: true, merchantId: b });
    // Its own: changed.
    expect((await scope.discountCodes.updateMany({ where: { code: 'TWO' }, data: { active: false } })).count).toBe(1);
    expect(await database.db.discountCode.count({ where: { merchantId: b, active: false } })).toBe(0);
  });

  it('is the merchant\'s own row as `merchant`, conditional updates included', async () => {
    const scope = merchantScope(database.db, a);
    expect((await scope.merchant.get({ select: { slug: true } })).slug).toBe('scope-a');
    await scope.merchant.update({ data: { shopName: 'A renamed' } });
    expect((await scope.merchant.updateIf({ where: { emailVerifiedAt: { not: null } }, data: { shopName: 'not written' } })).count).toBe(0);
    expect((await database.db.merchant.findUniqueOrThrow({ where: { id: a } })).shopName).toBe('A renamed');
    expect((await database.db.merchant.findUniqueOrThrow({ where: { id: b } })).shopName).toBe('Shop b');
  });

  it('holds tables reached through a session to the session\'s merchant', async () => {
    const theirs = await session(b);
    const mine = await session(a);
    const scope = merchantScope(database.db, a);
    expect(await scope.sessionEvents.findMany({ where: { token: theirs.token } })).toEqual([]);
    expect((await scope.sessionEvents.findMany({ where: { token: mine.token } })).map((e) => e.type)).toEqual(['created']);
  });

  it('keeps its scope inside transactions and batches', async () => {
    const scope = merchantScope(database.db, a);
    const [count, codes] = await scope.batch([scope.discountCodes.count(), scope.discountCodes.findMany()]);
    expect(count).toBe(2);
    expect(codes.every((c) => c.merchantId === a)).toBe(true);
    const inside = await scope.transaction(async (tx) => tx.discountCodes.findMany({ select: { merchantId: true } }));
    expect(inside).toEqual([{ merchantId: a }, { merchantId: a }]);
  });

  it('refuses a raw query that does not bind the merchant id', async () => {
    const scope = merchantScope(database.db, a);
    expect(() => scope.queryRaw(Prisma.sql`SELECT count(*)::int AS n FROM discount_codes`)).toThrow(/bind the merchant id/);
    const [row] = await scope.queryRaw<Array<{ n: number }>>(Prisma.sql`SELECT count(*)::int AS n FROM discount_codes WHERE merchant_id = ${scope.merchantId}::uuid`);
    expect(row!.n).toBe(2);
  });
});
