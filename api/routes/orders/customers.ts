// The merchant's customers, derived from the orders (no table of their own): every shopper with at least one paid order
// (COMPLETED, COD_CONFIRMED, REFUNDED, ON_HOLD; never a preview), one per email whatever its letter case, with the paid
// orders' count, what they spent and got back per currency, their first and last order, and the name of their latest
// order. One grouped read of the merchant's paid orders per page (the (merchant_id, ...) indexes bound it to the
// merchant); keyset pages on (last order, email), newest customer first. Marketing consent: the checkout does not ask
// for it yet, so every customer answers not_collected (docs/orders-and-stats.md).
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { z } from 'zod';
import { type RouteDeps } from '../../route-deps.js';
import { AppError } from '../../../domain/errors.js';
import { ORDER_VIEWS } from '../../../domain/stats.js';
import { Prisma } from '../../../prisma/client.js';
import type { MerchantScope } from '../../../model/merchant/merchant-scope.js';
import { errorResponse } from '../../schemas/common.js';
import { customerDetail, customerParams, customersPage, customersQuery, type customerSummary } from '../../schemas/customers.js';
import { PAGE_SIZE_DEFAULT, PAGE_SIZE_MAX } from '../../schemas/pagination.js';
import { ORDER_WHERE, toOrderSummary } from './index.js';

const tags = ['orders'];
const auth = { security: [{ bearerAuth: [] }] };
const DETAIL_ORDERS = 100;
const PAID = Prisma.join([...ORDER_VIEWS.orders]);

type Summary = z.output<typeof customerSummary>;
interface Row {
  email: string;
  name: string | null;
  orders: number;
  first_order_at: Date;
  last_order_at: Date;
  totals: Array<{ currency: string; spentMinor: number; refundedMinor: number }>;
}

const invalidCursor = () => new AppError('INVALID_INPUT', 'querystring.cursor: not a cursor of this list', { fields: { 'querystring.cursor': 'not a cursor of this list' } });
const encodeCursor = (r: Row) => Buffer.from(JSON.stringify([r.last_order_at.toISOString(), r.email])).toString('base64url');
function decodeCursor(value: string): { at: Date; email: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(value, 'base64url').toString('utf8'));
  } catch {
    throw invalidCursor();
  }
  if (!Array.isArray(parsed) || parsed.length !== 2 || typeof parsed[0] !== 'string' || typeof parsed[1] !== 'string') throw invalidCursor();
  const at = new Date(parsed[0]);
  if (Number.isNaN(at.getTime())) throw invalidCursor();
  return { at, email: parsed[1] };
}

/** LIKE pattern characters taken literally. */
const literal = (s: string) => s.replace(/[\\%_]/g, '\\$&');

/**
 * The customers of the merchant: `only` one email, or those matching `q`, after `cursor`, at most `take`. Paid orders
 * grouped by (email, currency) first, then by email: the totals per currency come out of the same pass.
 */
async function readCustomers(data: MerchantScope, o: { only?: string; q?: string; after?: { at: Date; email: string }; take: number }): Promise<Row[]> {
  const byEmail = o.only !== undefined ? Prisma.sql`AND lower(email) = ${o.only}` : Prisma.empty;
  const search = o.q
    ? Prisma.sql`WHERE (c.email LIKE ${`${literal(o.q.toLowerCase())}%`} OR lower(coalesce(c.name, '')) LIKE ${`%${literal(o.q.toLowerCase())}%`})`
    : Prisma.sql`WHERE true`;
  const after = o.after ? Prisma.sql`AND (c.last_order_at, c.email) < (${o.after.at}::timestamptz, ${o.after.email})` : Prisma.empty;
  return data.queryRaw<Row[]>(Prisma.sql`
    WITH paid AS (
      SELECT lower(email) AS email, currency, coalesce(total_minor, 0) AS total_minor, refunded_minor, created_at,
             nullif(btrim(shipping_address->>'name'), '') AS name
      FROM checkout_sessions
      WHERE merchant_id = ${data.merchantId}::uuid AND source <> 'preview' AND email IS NOT NULL AND status IN (${PAID}) ${byEmail}
    ), per_currency AS (
      SELECT email, currency, count(*) AS n, sum(total_minor) AS spent, sum(refunded_minor) AS refunded,
             min(created_at) AS first_at, max(created_at) AS last_at,
             (array_agg(name ORDER BY created_at DESC) FILTER (WHERE name IS NOT NULL))[1] AS name
      FROM paid GROUP BY email, currency
    ), c AS (
      SELECT email, sum(n)::int AS orders, min(first_at) AS first_order_at, max(last_at) AS last_order_at,
             (array_agg(name ORDER BY last_at DESC) FILTER (WHERE name IS NOT NULL))[1] AS name,
             json_agg(json_build_object('currency', currency, 'spentMinor', spent, 'refundedMinor', refunded) ORDER BY currency) AS totals
      FROM per_currency GROUP BY email
    )
    SELECT c.email, c.name, c.orders, c.first_order_at, c.last_order_at, c.totals FROM c
    ${search} ${after}
    ORDER BY c.last_order_at DESC, c.email DESC
    LIMIT ${o.take}`);
}

function toSummary(r: Row): Summary {
  return {
    email: r.email,
    name: r.name,
    ordersCount: r.orders,
    totals: r.totals.map((t) => ({ currency: t.currency, spentMinor: Number(t.spentMinor), refundedMinor: Number(t.refundedMinor) })),
    firstOrderAt: r.first_order_at.toISOString(),
    lastOrderAt: r.last_order_at.toISOString(),
    marketingConsent: 'not_collected',
  };
}

export const customerRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app) => {

  app.get('/customers', {
    onRequest: app.authenticate,
    config: { apiKeyScope: 'orders:read' },
    schema: {
      tags,
      summary: 'Your customers: shoppers with a paid order, one per email, latest order first',
      description:
        'Derived from your orders: every email (case-insensitive) with at least one paid order (COMPLETED, COD_CONFIRMED, REFUNDED, ON_HOLD). ' +
        'ordersCount counts those orders; totals gives per currency what they paid (spentMinor) and what was given back (refundedMinor), in ' +
        'minor units. name is the name on the latest order\'s shipping address. marketingConsent is not_collected: the checkout does not ask for ' +
        `it yet. q searches the start of the email or a part of the name. Page size: limit, default ${PAGE_SIZE_DEFAULT}, capped at ${PAGE_SIZE_MAX}; ` +
        'pass nextCursor as cursor for the next page (with the same q).',
      ...auth,
      querystring: customersQuery,
      response: { 200: customersPage, 400: errorResponse, 401: errorResponse },
    },
  }, async (request) => {
    const { q, cursor, limit } = request.query;
    const size = limit ?? PAGE_SIZE_DEFAULT;
    const rows = await readCustomers(request.merchantData, { q, after: cursor ? decodeCursor(cursor) : undefined, take: size + 1 });
    const items = rows.slice(0, size);
    const last = items[items.length - 1];
    return { items: items.map(toSummary), nextCursor: rows.length > size && last ? encodeCursor(last) : null };
  });

  app.get('/customers/:email', {
    onRequest: app.authenticate,
    config: { apiKeyScope: 'orders:read' },
    schema: {
      tags,
      summary: 'One customer with their orders',
      description:
        'The customer as the list shows them, and their orders (paid ones and unpaid checkouts of the same email, any letter case), newest ' +
        `first, at most ${DETAIL_ORDERS}. 404 NOT_FOUND when the email has no paid order in your shop.`,
      ...auth,
      params: customerParams,
      response: { 200: customerDetail, 401: errorResponse, 404: errorResponse },
    },
  }, async (request) => {
    const email = request.params.email.trim().toLowerCase();
    const data = request.merchantData;
    const [row] = await readCustomers(data, { only: email, take: 1 });
    if (!row) throw new AppError('NOT_FOUND', 'No customer with this email in your shop');
    // The stored emails are lower-case (api/schemas/text.ts emailAddress); `mode: insensitive` finds older rows too.
    const sessions = await data.checkoutSessions.findMany({
      where: { AND: [{ email: { equals: email, mode: 'insensitive' } }, ORDER_WHERE] },
      orderBy: [{ createdAt: 'desc' }, { token: 'desc' }],
      take: DETAIL_ORDERS + 1,
    });
    return { ...toSummary(row), orders: sessions.slice(0, DETAIL_ORDERS).map(toOrderSummary), moreOrders: sessions.length > DETAIL_ORDERS };
  });
};
