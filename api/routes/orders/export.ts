// GET /api/checkout/merchant/orders/export.csv: the merchant's orders as CSV, filtered exactly as the list (the same
// query schema and the same where-clause, ./index.ts filteredOrdersWhere), newest first. Streamed: keyset pages of
// EXPORT_PAGE_SIZE rows are read from PostgreSQL one after the other as the client takes the bytes (a Readable over an
// async generator, so back-pressure holds the next read), never the whole export in memory. Money in major units
// ("19.99") with its currency beside it; cells RFC 4180-quoted and guarded against formula injection (domain/csv.ts);
// a UTF-8 byte order mark first, so Excel reads names like "Müller" right (every CSV library skips it).
import { Readable } from 'node:stream';
import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { type RouteDeps } from '../../route-deps.js';
import { csvRecord, UTF8_BOM } from '../../../domain/csv.js';
import { minorToDecimalString, isKnownCurrency } from '../../../domain/money.js';
import { orderNumberLabel, storeOrderOf } from '../../../domain/checkout/store-order.js';
import { errorResponse } from '../../schemas/common.js';
import { ordersExportQuery } from '../../schemas/orders.js';
import { customerNameOf, filteredOrdersWhere, orderPages, paymentMethodOf } from './index.js';
import type { MerchantScope } from '../../../model/merchant/merchant-scope.js';

/** Rows read per query. */
export const EXPORT_PAGE_SIZE = 500;

/** The columns, in order (the header row). */
export const EXPORT_COLUMNS = [
  'order', 'created_at', 'status', 'payment_method', 'customer_name', 'email', 'country', 'currency', 'subtotal', 'discount', 'discount_code',
  'shipping', 'tax', 'taxes_included', 'total', 'refunded', 'paid_at', 'store_order_id', 'store_order_state', 'processor_payment_id', 'checkout_token',
] as const;

const select = {
  token: true, createdAt: true, status: true, email: true, shippingAddress: true, currency: true, subtotalMinor: true, discountMinor: true,
  discountCode: true, shippingMinor: true, taxMinor: true, taxesIncluded: true, totalMinor: true, refundedMinor: true, paymentMethod: true,
  completedAt: true, storeOrderId: true, storeOrderNumber: true, storeOrderError: true, processorPaymentId: true,
} as const;

/** An amount of minor units in major units of its currency ("1999" EUR → "19.99"); an unknown currency keeps minor units. */
const major = (minor: number | null, currency: string) => (minor === null ? null : isKnownCurrency(currency) ? minorToDecimalString({ amount: minor, currency }) : String(minor));

function countryOf(address: unknown): string | null {
  const country = address && typeof address === 'object' && !Array.isArray(address) ? (address as Record<string, unknown>).country : undefined;
  return typeof country === 'string' ? country : null;
}

/** The export's text, header first, a page of rows at a time: the merchant's orders that `where` selects. */
export async function* ordersCsv(data: MerchantScope, where: ReturnType<typeof filteredOrdersWhere>): AsyncGenerator<string> {
  yield UTF8_BOM + csvRecord(EXPORT_COLUMNS);
  let cursor: string | undefined;
  do {
    const rows = await data.checkoutSessions.findMany({ where: { AND: [where, ...orderPages.after(cursor)] }, orderBy: orderPages.orderBy, take: EXPORT_PAGE_SIZE + 1, select });
    const { items, nextCursor } = orderPages.page(rows, EXPORT_PAGE_SIZE);
    let chunk = '';
    for (const s of items) {
      const store = storeOrderOf(s);
      chunk += csvRecord([
        s.storeOrderNumber ? orderNumberLabel(s.storeOrderNumber) : null,
        s.createdAt.toISOString(),
        s.status,
        paymentMethodOf(s),
        customerNameOf(s.shippingAddress),
        s.email,
        countryOf(s.shippingAddress),
        s.currency,
        major(s.subtotalMinor, s.currency),
        major(s.discountMinor, s.currency),
        s.discountCode,
        major(s.shippingMinor, s.currency),
        major(s.taxMinor, s.currency),
        s.taxesIncluded,
        major(s.totalMinor, s.currency),
        major(s.refundedMinor, s.currency),
        s.completedAt?.toISOString() ?? null,
        s.storeOrderId,
        store?.state ?? null,
        s.processorPaymentId,
        s.token,
      ]);
    }
    if (chunk) yield chunk;
    cursor = nextCursor ?? undefined;
  } while (cursor);
}

export const orderExportRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app) => {

  app.get('/orders/export.csv', {
    onRequest: app.authenticate,
    config: { apiKeyScope: 'orders:read' },
    schema: {
      tags: ['orders'],
      summary: 'Your orders as CSV, filtered as the list',
      description:
        'Takes the filters of GET /api/checkout/merchant/orders (view, status, from, to, paymentMethod, q) and answers every matching order, ' +
        'newest first, as one CSV file (Content-Disposition: attachment), streamed as it is read. RFC 4180: comma-separated, CRLF, fields with ' +
        'a comma, quote or line break in double quotes; UTF-8 with a byte order mark. A cell starting with = + - @, a tab or CR is prefixed with \' ' +
        '(formula injection). Money in major units of the currency column ("19.99"); discount and refunded are positive amounts. Columns: ' +
        `${EXPORT_COLUMNS.join(', ')}. The same orders the list shows: only yours.`,
      security: [{ bearerAuth: [] }],
      querystring: ordersExportQuery,
      response: {
        200: { description: 'The orders (text/csv; charset=utf-8, attachment)', content: { 'text/csv': { schema: z.string() } } },
        400: errorResponse,
        401: errorResponse,
      },
    },
  }, async (request, reply) => {
    const data = request.merchantData;
    const merchant = await data.merchant.get({ select: { slug: true } });
    const where = filteredOrdersWhere(request.query);
    const day = new Date().toISOString().slice(0, 10);
    return reply
      .type('text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="orders-${merchant.slug}-${day}.csv"`)
      .header('cache-control', 'private, no-store')
      .send(Readable.from(ordersCsv(data, where)) as unknown as string);
  });
};
