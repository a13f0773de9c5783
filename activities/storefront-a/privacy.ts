// Personal data of a store's customers, for the platforms' mandatory privacy requests (see docs/privacy.md).
// Every table that holds a shopper's personal data registers one source here: what it holds about a
// customer of one merchant (data request), how it erases it (customer redact), and how it erases all of a
// shop's customers (shop redact). The checkout tables (sessions, orders) add their source when they exist;
// the requests then cover them with no other change.
import type { Db } from '../../prisma/client.js';

/** One customer of one merchant's shop, as the platform names them. */
export interface PrivacySubject {
  merchantId: string;
  shop: string;
  email: string;
}

export interface ShopSubject {
  merchantId: string;
  shop: string;
}

export interface PersonalDataSource {
  /** Key of this source in exports and redaction reports (the table name). */
  name: string;
  /** What we hold about the customer (JSON-safe rows, no internal secrets). */
  collect(db: Db, subject: PrivacySubject): Promise<Array<Record<string, unknown>>>;
  /** Erases the customer's personal data; answers how many rows changed. */
  redact(db: Db, subject: PrivacySubject): Promise<number>;
  /** Erases every shopper's personal data of the shop; answers how many rows changed. */
  redactShop(db: Db, subject: ShopSubject): Promise<number>;
}

/** What replaces an erased value in a column that cannot be null. */
export const REDACTED = '[redacted]';

/**
 * email_messages: emails sent to a shopper (order confirmations, …). Scoped to the merchant: a customer
 * of one shop never sees, nor erases, what another merchant sent to the same address. Emails to the
 * merchant's own address are account mail, not shopper data, and are left alone by a shop redact.
 */
const emailMessages: PersonalDataSource = {
  name: 'email_messages',
  async collect(db, s) {
    const rows = await db.emailMessage.findMany({
      where: { merchantId: s.merchantId, to: { equals: s.email, mode: 'insensitive' } },
      orderBy: { createdAt: 'asc' },
      select: { id: true, kind: true, to: true, subject: true, status: true, createdAt: true, sentAt: true },
    });
    return rows.map((r) => ({ ...r, createdAt: r.createdAt.toISOString(), sentAt: r.sentAt?.toISOString() ?? null }));
  },
  async redact(db, s) {
    const { count } = await db.emailMessage.updateMany({
      where: { merchantId: s.merchantId, to: { equals: s.email, mode: 'insensitive' } },
      data: { to: REDACTED, subject: REDACTED, error: null },
    });
    return count;
  },
  async redactShop(db, s) {
    const merchant = await db.merchant.findUnique({ where: { id: s.merchantId }, select: { email: true } });
    const { count } = await db.emailMessage.updateMany({
      where: {
        merchantId: s.merchantId,
        to: { not: REDACTED },
        ...(merchant ? { NOT: { to: { equals: merchant.email, mode: 'insensitive' } } } : {}),
      },
      data: { to: REDACTED, subject: REDACTED, error: null },
    });
    return count;
  },
};

/**
 * storefront_a_webhooks.result of earlier data requests: the exports we produced hold the customer's
 * data too, so an erasure clears them (the request records themselves stay, as proof of handling).
 */
const privacyExports: PersonalDataSource = {
  name: 'privacy_exports',
  async collect() {
    return [];
  },
  async redact(db, s) {
    return db.$executeRaw`
      UPDATE storefront_a_webhooks SET result = ${JSON.stringify({ redacted: true })}::jsonb
      WHERE merchant_id = ${s.merchantId}::uuid AND shop = ${s.shop} AND topic = 'customers/data_request'
        AND lower(payload->'customer'->>'email') = lower(${s.email}) AND result IS NOT NULL
        AND NOT (result ? 'redacted')`;
  },
  async redactShop(db, s) {
    return db.$executeRaw`
      UPDATE storefront_a_webhooks SET result = ${JSON.stringify({ redacted: true })}::jsonb
      WHERE merchant_id = ${s.merchantId}::uuid AND shop = ${s.shop} AND topic = 'customers/data_request'
        AND result IS NOT NULL AND NOT (result ? 'redacted')`;
  },
};

/** Every source of shopper personal data. Add one line per new table that holds some. */
export const PERSONAL_DATA_SOURCES: readonly PersonalDataSource[] = [emailMessages, privacyExports];

/** The customer's data, one key per source. */
export async function collectCustomerData(db: Db, subject: PrivacySubject, sources = PERSONAL_DATA_SOURCES): Promise<Record<string, Array<Record<string, unknown>>>> {
  const out: Record<string, Array<Record<string, unknown>>> = {};
  for (const source of sources) out[source.name] = await source.collect(db, subject);
  return out;
}

/** Erases the customer's data in every source; answers rows changed per source. */
export async function redactCustomerData(db: Db, subject: PrivacySubject, sources = PERSONAL_DATA_SOURCES): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const source of sources) out[source.name] = await source.redact(db, subject);
  return out;
}

/** Erases every shopper's data of the shop in every source; answers rows changed per source. */
export async function redactShopCustomers(db: Db, subject: ShopSubject, sources = PERSONAL_DATA_SOURCES): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const source of sources) out[source.name] = await source.redactShop(db, subject);
  return out;
}
