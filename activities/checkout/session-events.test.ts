// A timeline event and the funnel milestones it marks, in one statement: the event and its milestones are written
// together or not at all, a milestone keeps the first time it was reached, and an event of no milestone touches none.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../test/harness/db.js';
import { recordSessionEvent } from './session-events.js';

let database: TestDatabase;
let merchantId: string;
const db = () => database.db;

beforeAll(async () => {
  database = await createTestDatabase();
  const m = await db().merchant.create({ data: { email: 'events@timeline.test', passwordHash: 'x', shopName: 'Timeline', phone: '+4912345678', slug: 'timeline' } });
  merchantId = m.id;
});
afterAll(async () => {
  await database?.drop();
});

async function session(): Promise<string> {
  const token = `cs_${randomBytes(24).toString('base64url')}`;
  await db().checkoutSession.create({ data: { token, merchantId, platform: 'STOREFRONT_B', currency: 'EUR', items: [], subtotalMinor: 0, fxRates: {} } });
  return token;
}
const milestones = (token: string) =>
  db().checkoutSession.findUniqueOrThrow({ where: { token }, select: { contactEnteredAt: true, shippingChosenAt: true, paymentStartedAt: true } });

describe('recordSessionEvent', () => {
  it('given a payment start, the event and the milestones up to it, at its time; a later start keeps the first times', async () => {
    const token = await session();
    const first = new Date('2026-11-20T10:00:00.123Z');
    await recordSessionEvent(db(), token, 'payment_started', { paymentId: 'pay_1', amount: 2490 }, first);
    expect(await milestones(token)).toEqual({ contactEnteredAt: first, shippingChosenAt: first, paymentStartedAt: first });
    await recordSessionEvent(db(), token, 'payment_started', { paymentId: 'pay_2' }, new Date('2026-11-20T11:00:00Z'));
    expect(await milestones(token)).toEqual({ contactEnteredAt: first, shippingChosenAt: first, paymentStartedAt: first });
    const events = await db().sessionEvent.findMany({ where: { token }, orderBy: { at: 'asc' } });
    expect(events.map((e) => [e.type, e.data, e.at])).toEqual([
      ['payment_started', { paymentId: 'pay_1', amount: 2490 }, first],
      ['payment_started', { paymentId: 'pay_2' }, new Date('2026-11-20T11:00:00Z')],
    ]);
  });

  it('given an event that marks no milestone, only the event', async () => {
    const token = await session();
    await recordSessionEvent(db(), token, 'email_sent', { kind: 'order_confirmation' });
    expect(await milestones(token)).toEqual({ contactEnteredAt: null, shippingChosenAt: null, paymentStartedAt: null });
    expect(await db().sessionEvent.count({ where: { token, type: 'email_sent' } })).toBe(1);
  });

  it('given an unknown session, it fails and writes nothing (with or without milestones)', async () => {
    const token = `cs_${randomBytes(24).toString('base64url')}`;
    await expect(recordSessionEvent(db(), token, 'payment_started', {})).rejects.toThrow();
    await expect(recordSessionEvent(db(), token, 'email_sent', {})).rejects.toThrow();
    expect(await db().sessionEvent.count({ where: { token } })).toBe(0);
  });

  it('given data the database refuses (a NUL character), neither the event nor a milestone is written', async () => {
    const token = await session();
    await expect(recordSessionEvent(db(), token, 'payment_started', { note: 'a\u0000b' })).rejects.toThrow();
    expect(await db().sessionEvent.count({ where: { token } })).toBe(0);
    expect(await milestones(token)).toEqual({ contactEnteredAt: null, shippingChosenAt: null, paymentStartedAt: null });
  });
});
