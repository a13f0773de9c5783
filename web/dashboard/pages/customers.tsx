// Customers: the shoppers with a paid order, one per email, derived from the orders (GET /api/checkout/merchant/customers):
// how many orders, what they spent per currency, their first and last order, and marketing consent (not collected by the
// checkout yet: the page says so rather than showing a box). The search is in the URL (?q=), so Back keeps it. One
// customer's page lists their orders, each linking to the order.
import { useEffect, useState } from 'preact/hooks';
import { api, ApiError, query } from '../api.js';
import { formatAmount, formatDate } from '../format.js';
import { navigate, useLocation } from '../router.js';
import { useLoad } from '../session.js';
import type { CustomerSummary } from '../types.js';
import { Alert, Button, Card, Empty, Field, Link, PageHeader, Spinner } from '../ui.js';
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

function CustomersTable(props: { items: CustomerSummary[] }) {
  return (
    <div class="table-wrap">
      <table class="table customers-table" data-table="customers">
        <thead>
          <tr>
            <th scope="col">Customer</th>
            <th scope="col" class="num">Orders</th>
            <th scope="col" class="num">Spent</th>
            <th scope="col">Last order</th>
            <th scope="col">First order</th>
            <th scope="col">Marketing</th>
          </tr>
        </thead>
        <tbody>
          {props.items.map((c) => (
            <tr key={c.email} data-customer={c.email}>
              <td>
                <Link href={customerHref(c.email)} class="customer-link">
                  <span class="customer">
                    {c.name ?? c.email}
                    {c.name && <span class="muted small">{c.email}</span>}
                  </span>
                </Link>
              </td>
              <td class="num"><span data-orders-count>{c.ordersCount}</span><span class="phone-only"> {c.ordersCount === 1 ? 'order' : 'orders'}</span></td>
              <td class="num"><Spent totals={c.totals} /></td>
              <td>{formatDate(c.lastOrderAt, false)}</td>
              <td>{formatDate(c.firstOrderAt, false)}</td>
              <td><Consent state={c.marketingConsent} /></td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function CustomersPage() {
  const { query: params } = useLocation();
  const q = params.get('q') ?? '';
  const [search, setSearch] = useState(q);
  const [items, setItems] = useState<CustomerSummary[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [state, setState] = useState<{ loading: boolean; error: Error | null }>({ loading: true, error: null });

  const load = async (after: string | null) => {
    setState({ loading: true, error: null });
    try {
      const page = await api.get('/api/checkout/merchant/customers', { query: { q: q || undefined, cursor: after ?? undefined, limit: '25' } });
      setItems((prev) => (after ? [...prev, ...page.items] : page.items));
      setCursor(page.nextCursor);
      setState({ loading: false, error: null });
    } catch (err) {
      setState({ loading: false, error: err as Error });
    }
  };
  useEffect(() => {
    setSearch(q);
    setItems([]);
    void load(null);
  }, [q]);

  const fieldError = state.error instanceof ApiError ? state.error.fields.q : undefined;
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
      {state.error && !fieldError && <Alert kind="error">{state.error.message}</Alert>}
      <Card>
        {items.length > 0 && <CustomersTable items={items} />}
        {!state.loading && items.length === 0 && !state.error && (
          <Empty>{q ? 'No customer matches.' : 'No customers yet. A customer appears here with their first paid order.'}</Empty>
        )}
        {state.loading && <Spinner />}
        {cursor && !state.loading && (
          <div class="button-row center">
            <Button variant="secondary" onClick={() => void load(cursor)}>Load more</Button>
          </div>
        )}
      </Card>
    </>
  );
}

export function CustomerDetailPage(props: { email: string }) {
  const customer = useLoad(() => api.get('/api/checkout/merchant/customers/{email}', { params: { email: props.email } }), [props.email]);
  const c = customer.data;
  if (!c) {
    if (customer.error) {
      return (
        <>
          <PageHeader title="Customer" />
          <Alert kind="error">{customer.error instanceof ApiError && customer.error.code === 'NOT_FOUND' ? 'No customer with this email in your shop.' : customer.error.message}</Alert>
          <Link href="/dashboard/customers">← All customers</Link>
        </>
      );
    }
    return <Spinner />;
  }
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
