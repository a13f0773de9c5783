// Customers: the shoppers with a paid order, one per email, derived from the orders (GET /api/checkout/merchant/customers):
// how many orders, what they spent per currency, their first and last order, and marketing consent (not collected by the
// checkout yet: the page says so rather than showing a box). The search is in the URL (?q=), so Back keeps it. One
// customer's page lists their orders, each linking to the order.
import { useEffect, useState } from 'preact/hooks';
import { api, ApiError, query } from '../api.js';
import { formatAmount, formatDate } from '../format.js';
import { navigate, useLocation } from '../router.js';
import { useCursorPages, useLoad } from '../session.js';
import type { CustomerSummary } from '../types.js';
import { Alert, Button, Card, Empty, Field, Link, NotLoaded, PageHeader, PagedList, Table, type Column } from '../ui.js';
import { OrdersTable } from './orders.js';

const customerHref = (email: string) => `/dashboard/customers/${encodeURIComponent(email)}`;

/** What they spent, one line per currency, net of refunds ("€120.00", "$35.00 · $5.00 refunded"). */
function Spent(props: { totals: CustomerSummary['totals'] }) {
  return (
    <span class="spent">
      {props.totals.map((t) => (
        <span key={t.currency} data-currency={t.currency}>
          {formatAmount(t.spentMinor - t.refundedMinor, t.currency)}
          {t.refundedMinor > 0 && <span class="muted small"> · {formatAmount(t.refundedMinor, t.currency)} refunded</span>}
        </span>
      ))}
    </span>
  );
}

function Consent(props: { state: CustomerSummary['marketingConsent'] }) {
  return props.state === 'not_collected' ? <span class="muted" data-consent="not_collected" title="The checkout does not ask shoppers for marketing consent yet">Not asked</span> : <span>{props.state}</span>;
}

const CUSTOMER_COLUMNS: Array<Column<CustomerSummary>> = [
  {
    label: 'Customer',
    cell: (c) => (
      <Link href={customerHref(c.email)} class="customer-link">
        <span class="customer">
          {c.name ?? c.email}
          {c.name && <span class="muted small">{c.email}</span>}
        </span>
      </Link>
    ),
  },
  { label: 'Orders', num: true, cell: (c) => <><span data-orders-count>{c.ordersCount}</span><span class="phone-only"> {c.ordersCount === 1 ? 'order' : 'orders'}</span></> },
  { label: 'Spent', num: true, cell: (c) => <Spent totals={c.totals} /> },
  { label: 'Last order', cell: (c) => formatDate(c.lastOrderAt, false) },
  { label: 'First order', cell: (c) => formatDate(c.firstOrderAt, false) },
  { label: 'Marketing', cell: (c) => <Consent state={c.marketingConsent} /> },
];

export function CustomersPage() {
  const { query: params } = useLocation();
  const q = params.get('q') ?? '';
  const [search, setSearch] = useState(q);
  const customers = useCursorPages((cursor) => api.get('/api/checkout/merchant/customers', { query: { q: q || undefined, cursor: cursor ?? undefined, limit: '25' } }), q);
  useEffect(() => setSearch(q), [q]);

  const fieldError = customers.error instanceof ApiError ? customers.error.fields.q : undefined;
  return (
    <>
      <PageHeader
        title="Customers"
        description="Everyone who paid for an order, one line per email address, latest order first. Totals are what they paid less what was refunded, per currency."
      />
      <Card>
        <form class="filters filters-2" aria-label="Search customers" onSubmit={(e) => { e.preventDefault(); navigate(`/dashboard/customers${query({ q: search.trim() })}`); }}>
          <Field label="Search" name="q" value={search} onInput={setSearch} placeholder="Start of an email, or a name" error={fieldError} />
          <div class="filters-actions">
            <Button type="submit" variant="secondary">Search</Button>
            {q && <Button variant="ghost" onClick={() => navigate('/dashboard/customers')}>Clear</Button>}
          </div>
        </form>
        <p class="hint">
          Marketing consent: your checkout does not ask shoppers for it yet, so no customer has given it. Do not send them marketing
          emails from this list.
        </p>
      </Card>
      {customers.error && !fieldError && <Alert kind="error">{customers.error.message}</Alert>}
      <Card>
        <PagedList pages={customers} empty={q ? 'No customer matches.' : 'No customers yet. A customer appears here with their first paid order.'}>
          <Table name="customers" class="customers-table" columns={CUSTOMER_COLUMNS} rows={customers.items} rowKey={(c) => c.email} rowData={(c) => ({ 'data-customer': c.email })} />
        </PagedList>
      </Card>
    </>
  );
}

export function CustomerDetailPage(props: { email: string }) {
  const customer = useLoad(() => api.get('/api/checkout/merchant/customers/{email}', { params: { email: props.email } }), [props.email]);
  const c = customer.data;
  if (!c) return <NotLoaded title="Customer" error={customer.error} missing="No customer with this email in your shop." back={{ href: '/dashboard/customers', label: '← All customers' }} />;
  return (
    <>
      <p class="crumbs"><Link href="/dashboard/customers">← All customers</Link></p>
      <PageHeader title={c.name ?? c.email} description={c.name ? c.email : undefined} />
      <Card title="Summary">
        <dl class="dl" data-customer-summary>
          <dt>Paid orders</dt><dd data-orders-count>{c.ordersCount}</dd>
          <dt>Spent</dt><dd><Spent totals={c.totals} /></dd>
          <dt>First order</dt><dd>{formatDate(c.firstOrderAt)}</dd>
          <dt>Last order</dt><dd>{formatDate(c.lastOrderAt)}</dd>
          <dt>Marketing consent</dt><dd><Consent state={c.marketingConsent} /> <span class="muted small">(the checkout does not ask for it yet)</span></dd>
        </dl>
      </Card>
      <Card title="Orders and checkouts">
        {c.orders.length > 0 ? <OrdersTable items={c.orders} /> : <Empty>No orders.</Empty>}
        {c.moreOrders && (
          <p class="hint">
            Only the latest 100 are listed: <Link href={`/dashboard/orders${query({ q: c.email })}`}>search the orders by this email</Link> for all of them.
          </p>
        )}
      </Card>
    </>
  );
}
