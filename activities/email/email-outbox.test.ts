// The outbox row every email is recorded in before it is sent (email-outbox.ts): one row per idempotency key, whoever
// asks first and however many ask at once; a later call gets that row as it stands, never a second one.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../test/harness/db.js';
import { recordEmail } from './email-outbox.js';

let database: TestDatabase;
let merchantId: string;
const db = () => database.db;

beforeAll(async () => {
  database = await createTestDatabase();
  const m = await db().merchant.create({ data: { email: 'outbox@mail.test', passwordHash: 'x', shopName: 'Outbox', phone: '+4912345678', slug: 'outbox' } });
  merchantId = m.id;
});
afterAll(async () => {
  await database?.drop();
});

const email = (idempotencyKey: string, subject = 'New order #1') => ({ idempotencyKey, merchantId, kind: 'merchant_order_notification', to: 'outbox@mail.test', subject });

describe('recordEmail', () => {
  it('given a new key, one PENDING row with what was given', async () => {
    const key = `outbox:${randomUUID()}`;
    const row = await recordEmail(db(), email(key));
    expect(row).toMatchObject({ idempotencyKey: key, merchantId, status: 'PENDING', subject: 'New order #1', providerMessageId: null });
    expect(await db().emailMessage.count({ where: { idempotencyKey: key } })).toBe(1);
  });

  it('given ten first calls at once, all get the one row of the key', async () => {
    const key = `outbox-race:${randomUUID()}`;
    const rows = await Promise.all(Array.from({ length: 10 }, (_, i) => recordEmail(db(), email(key, `subject ${i}`))));
    expect(new Set(rows.map((r) => r.id)).size).toBe(1);
    expect(await db().emailMessage.count({ where: { idempotencyKey: key } })).toBe(1);
  });

  it('given a row already sent, a later call gets it as it stands (status, provider id, first subject)', async () => {
    const key = `outbox-sent:${randomUUID()}`;
    const first = await recordEmail(db(), email(key));
    await db().emailMessage.update({ where: { id: first.id }, data: { status: 'SENT', providerMessageId: 'msg-1', sentAt: new Date() } });
    expect(await recordEmail(db(), email(key, 'another subject'))).toMatchObject({ id: first.id, status: 'SENT', providerMessageId: 'msg-1', subject: 'New order #1' });
  });

  it('given a merchant that does not exist, it fails and records nothing', async () => {
    const key = `outbox-orphan:${randomUUID()}`;
    await expect(recordEmail(db(), { ...email(key), merchantId: randomUUID() })).rejects.toThrow();
    expect(await db().emailMessage.count({ where: { idempotencyKey: key } })).toBe(0);
  });
});
