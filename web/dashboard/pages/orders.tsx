// Orders: paid orders apart from unpaid checkouts (two tabs, the API's `view`), filters in the URL (so Back and
// shared links keep them), cursor pages; and one order with its session timeline, refund and status sync. An
// order is named by the store's number ("#1001", as the store, the emails and the shopper's confirmation name it)
// and its customer by the name on the shipping address. A refund is requested here and becomes REFUNDED when the
// processor's webhook confirms it, so the page watches the order until then.
import { useEffect, useState } from 'preact/hooks';
import { CHECKOUT_STATUSES } from '../../../domain/checkout-status.js';
import { orderNumberLabel } from '../../../domain/store-order.js';
import { ORDER_VIEWS, type OrderView } from '../../../domain/stats.js';
import { api, ApiError, query } from '../api.js';
import { countryName, formatAmount, formatDate } from '../format.js';
import { useForm } from '../form.js';
import { linkClick, navigate, useLocation } from '../router.js';
import { useLoad } from '../session.js';
import type { OrderDetail, OrderSummary, OrdersPage as Page, TimelineEntry } from '../types.js';
import { Alert, Button, Card, ConfirmButton, Empty, Field, Link, PageHeader, Pill, SelectField, Spinner } from '../ui.js';

const VIEW_LABELS: Record<OrderView, string> = { orders: 'Orders', checkouts: 'Unpaid checkouts' };
const VIEW_HINTS: Record<OrderView, string> = {
  orders: 'Paid orders: paid by card, cash on delivery, refunded. Newest first.',
  checkouts: 'Checkouts whose payment started and never came: pending, failed, abandoned. Not orders: nothing was paid.',
};
const viewOf = (params: URLSearchParams): OrderView => (params.get('view') === 'checkouts' ? 'checkouts' : 'orders');

/** The order's name: the store's number once it has one. */
export function orderTitle(o: Pick<OrderSummary, 'storeOrder' | 'status'>): string {
  if (o.storeOrder?.number) return `Order ${orderNumberLabel(o.storeOrder.number)}`;
  if (o.storeOrder) return 'Order (no store number yet)';
  return 'Unpaid checkout';
}

/** The order on the store, apart from the session status: COMPLETED is the payment; the store order follows it. */
function StoreOrderState(props: { order: OrderSummary['storeOrder'] }) {
  const order = props.order;
  if (!order) return <span class="muted">—</span>;
  if (order.state === 'created') return <span data-store-order="created">{order.number ? orderNumberLabel(order.number) : 'created'}</span>;
  if (order.state === 'failed') return <span data-store-order="failed"><Pill status="ERROR" label="store refused" /></span>;
  return <span data-store-order="pending"><Pill status="PENDING" label="being created" /></span>;
}

function Filters(props: { values: URLSearchParams; view: OrderView; errors: Record<string, string> }) {
  const [q, setQ] = useState(props.values.get('q') ?? '');
  const [status, setStatus] = useState(props.values.get('status') ?? '');
  const [method, setMethod] = useState(props.values.get('paymentMethod') ?? '');
  const [from, setFrom] = useState(props.values.get('from') ?? '');
  const [to, setTo] = useState(props.values.get('to') ?? '');
  const view = props.view === 'orders' ? undefined : props.view;
  const apply = (e?: Event) => {
    e?.preventDefault();
    navigate(`/dashboard/orders${query({ view, q: q.trim(), status, paymentMethod: method, from, to })}`);
  };
  // The view's statuses this API knows (ON_HOLD shows once the status exists).
  const statuses = (ORDER_VIEWS[props.view] as readonly string[]).filter((s) => (CHECKOUT_STATUSES as readonly string[]).includes(s));
  return (
    <form class="filters" onSubmit={apply} aria-label="Filter orders">
      <Field label="Search" name="q" value={q} onInput={setQ} placeholder="Email, order number or token" error={props.errors.q} />
      <SelectField
        label="Status"
        name="status"
        value={status}
        onChange={setStatus}
        error={props.errors.status}
        options={[{ value: '', label: 'Any status' }, ...statuses.map((s) => ({ value: s, label: s.replace(/_/g, ' ').toLowerCase() }))]}
      />
      <SelectField label="Payment" name="paymentMethod" value={method} onChange={setMethod} error={props.errors.paymentMethod} options={[{ value: '', label: 'Any' }, { value: 'card', label: 'Card' }, { value: 'cod', label: 'Cash on delivery' }, { value: 'free', label: 'Nothing to pay' }]} />
      <Field label="From" name="from" type="date" value={from} onInput={setFrom} error={props.errors.from} />
      <Field label="Until (excl.)" name="to" type="date" value={to} onInput={setTo} error={props.errors.to} />
      <div class="filters-actions">
        <Button type="submit" variant="secondary">Apply</Button>
        <Button variant="ghost" onClick={() => { setQ(''); setStatus(''); setMethod(''); setFrom(''); setTo(''); navigate(`/dashboard/orders${query({ view })}`); }}>Reset</Button>
      </div>
    </form>
  );
}

/** The customer: the name on the shipping address, the email under it. */
function Customer(props: { o: OrderSummary }) {
  const { customerName, email } = props.o;
  if (!customerName && !email) return <span class="muted">—</span>;
  return (
    <span class="customer">
      {customerName ?? email}
      {customerName && email && <span class="muted small">{email}</span>}
    </span>
  );
}

export function OrdersTable(props: { items: OrderSummary[] }) {
  return (
    <div class="table-wrap">
      <table class="table orders-table">
        <thead>
          <tr>
            <th scope="col">Order</th>
            <th scope="col">Date</th>
            <th scope="col">Customer</th>
            <th scope="col">Status</th>
            <th scope="col">Payment</th>
            <th scope="col" class="num">Total</th>
          </tr>
        </thead>
        <tbody>
          {props.items.map((o) => (
            <tr key={o.token} data-token={o.token} data-status={o.status}>
              <td>
                <Link href={`/dashboard/orders/${o.token}`} class="order-link">
                  {o.storeOrder?.number ? orderNumberLabel(o.storeOrder.number) : o.storeOrder ? 'View order' : 'View checkout'}
                </Link>
                {o.storeOrder && o.storeOrder.state !== 'created' && <> <StoreOrderState order={o.storeOrder} /></>}
              </td>
              <td>{formatDate(o.createdAt)}</td>
              <td><Customer o={o} /></td>
              <td><Pill status={o.status} /></td>
              <td>{o.paymentMethod === 'cod' ? `COD${o.codPaid ? ' · paid' : ''}` : o.paymentMethod === 'card' ? 'Card' : o.paymentMethod === 'free' ? 'Free' : '—'}</td>
              <td class="num">{formatAmount(o.totals.totalMinor, o.totals.currency)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** Orders | Unpaid checkouts: a link each (the view is in the URL), shown as tabs. */
function ViewTabs(props: { view: OrderView }) {
  return (
    <div class="tabs" role="tablist" aria-label="Orders or unpaid checkouts">
      {(Object.keys(VIEW_LABELS) as OrderView[]).map((v) => {
        const href = `/dashboard/orders${v === 'orders' ? '' : `?view=${v}`}`;
        return (
          <a key={v} href={href} role="tab" aria-selected={props.view === v} aria-controls="orders-panel" class={props.view === v ? 'tab active' : 'tab'} onClick={(e) => linkClick(e, href)}>
            {VIEW_LABELS[v]}
          </a>
        );
      })}
    </div>
  );
}

export function OrdersPage() {
  const { query: params } = useLocation();
  const key = params.toString();
  const [items, setItems] = useState<OrderSummary[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [state, setState] = useState<{ loading: boolean; error: ApiError | Error | null }>({ loading: true, error: null });

  const view = viewOf(params);
  const load = async (after: string | null) => {
    setState({ loading: true, error: null });
    try {
      const filters = Object.fromEntries(params.entries());
      const page = await api.get<Page>(`/api/checkout/merchant/orders${query({ ...filters, view, cursor: after ?? undefined, limit: 25 })}`);
      setItems((prev) => (after ? [...prev, ...page.items] : page.items));
      setCursor(page.nextCursor);
      setState({ loading: false, error: null });
    } catch (err) {
      setState({ loading: false, error: err as Error });
    }
  };
  useEffect(() => {
    setItems([]);
    void load(null);
  }, [key]);

  const fieldErrors = state.error instanceof ApiError ? state.error.fields : {};
  return (
    <>
      <PageHeader title="Orders" description={VIEW_HINTS[view]} />
      <ViewTabs view={view} />
      <Card>
        <Filters key={key} values={params} view={view} errors={fieldErrors} />
      </Card>
      {state.error && <Alert kind="error">{state.error.message}</Alert>}
      <Card id="orders-panel">
        {items.length > 0 && <OrdersTable items={items} />}
        {!state.loading && items.length === 0 && !state.error && (
          <Empty>{view === 'orders' ? 'No orders match. An order appears here once the shopper paid (or chose cash on delivery).' : 'No unpaid checkouts match.'}</Empty>
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

const SOURCE_LABEL: Record<TimelineEntry['source'], string> = { session: 'Checkout', webhook: 'Processor', email: 'Email' };

function Timeline(props: { entries: TimelineEntry[] }) {
  if (props.entries.length === 0) return <Empty>No events recorded.</Empty>;
  return (
    <ol class="timeline" aria-label="Session timeline">
      {props.entries.map((e, i) => (
        <li key={`${e.at}-${i}`} class={`tl tl-${e.source}`} data-type={e.type}>
          <span class="tl-dot" aria-hidden="true" />
          <div class="tl-body">
            <div class="tl-head">
              <span class="tl-source">{SOURCE_LABEL[e.source]}</span>
              <strong>{e.summary}</strong>
              <time dateTime={e.at} class="muted">{formatDate(e.at)}</time>
            </div>
            {Object.keys(e.data).length > 0 && (
              <details>
                <summary>Details</summary>
                <pre>{JSON.stringify(e.data, null, 2)}</pre>
              </details>
            )}
          </div>
        </li>
      ))}
    </ol>
  );
}

export function OrderDetailPage(props: { token: string }) {
  const order = useLoad(() => api.get<OrderDetail>(`/api/checkout/merchant/orders/${encodeURIComponent(props.token)}`), [props.token]);
  const refund = useForm({});
  const sync = useForm({});
  const [watching, setWatching] = useState(false);
  const o = order.data;

  // After a refund request: look again until the processor's webhook has made it REFUNDED (or a minute passed).
  useEffect(() => {
    if (!watching) return;
    if (o?.status === 'REFUNDED') {
      setWatching(false);
      refund.setNotice('Refunded in full: the processor confirmed the refund.');
      return;
    }
    const started = Date.now();
    const timer = setInterval(() => {
      if (Date.now() - started > 60_000) setWatching(false);
      else void order.reload();
    }, 1500);
    return () => clearInterval(timer);
  }, [watching, o?.status]);

  if (!o) {
    if (order.error) {
      return (
        <>
          <PageHeader title="Order" />
          <Alert kind="error">{order.error instanceof ApiError && order.error.code === 'NOT_FOUND' ? 'No such order in your shop.' : order.error.message}</Alert>
          <Link href="/dashboard/orders">← All orders</Link>
        </>
      );
    }
    return <Spinner />;
  }
  const currency = o.totals.currency;
  const refundable = o.status === 'COMPLETED' && o.paymentMethod === 'card' && !o.refundRequestedAt;
  return (
    <>
      <p class="crumbs"><Link href={o.storeOrder ? '/dashboard/orders' : '/dashboard/orders?view=checkouts'}>{o.storeOrder ? '← All orders' : '← Unpaid checkouts'}</Link></p>
      <PageHeader
        title={orderTitle(o)}
        description={<>{o.customerName ?? o.email ?? 'No customer details yet'} · created {formatDate(o.createdAt)}</>}
        actions={
          <div class="button-row">
            <Button variant="secondary" busy={sync.busy} onClick={() => void sync.run(async () => {
              const r = await api.post<{ status: string; processorStatus: string | null }>(`/api/checkout/merchant/orders/${o.token}/backfill-status`);
              await order.reload();
              return `Status synced: ${r.status.toLowerCase()}${r.processorStatus ? ` (processor: ${r.processorStatus})` : ''}.`;
            })}>
              Sync status
            </Button>
            {refundable && (
              <ConfirmButton
                name="refund"
                confirm={`Refund ${formatAmount(o.totals.totalMinor, currency)} in full?`}
                busy={refund.busy}
                onConfirm={() =>
                  void refund.run(async () => {
                    await api.post(`/api/checkout/merchant/orders/${o.token}/refund`, o.totals.totalMinor ? { amountMinor: o.totals.totalMinor } : {});
                    setWatching(true);
                    await order.reload();
                    return 'Refund requested: the order shows refunded as soon as the processor confirms it.';
                  })
                }
              >
                Refund
              </ConfirmButton>
            )}
          </div>
        }
      />
      <div class="status-line big" data-order-status={o.status}>
        <Pill status={o.status} />
        <strong>{formatAmount(o.totals.totalMinor, currency)}</strong>
        {o.storeOrder && <span>Store order: <StoreOrderState order={o.storeOrder} /></span>}
        {watching && <span class="muted"><span class="spinner" aria-hidden="true" /> waiting for the processor…</span>}
      </div>
      {refund.error && <Alert kind="error">{refund.error}</Alert>}
      {refund.notice && <Alert kind="success">{refund.notice}</Alert>}
      {sync.error && <Alert kind="error">{sync.error}</Alert>}
      {sync.notice && <Alert kind="success">{sync.notice}</Alert>}
      {o.storeOrder?.state === 'failed' && <Alert kind="error" title="The store refused this order">{o.storeOrder.error ?? 'The payment went through but the store did not accept the order.'}</Alert>}
      {o.storeOrder?.state === 'pending' && (
        <Alert kind="info" title="The order is not on your store yet">
          The payment is settled; the order is being created on your store, and tried again for up to two days while the store does not answer.
        </Alert>
      )}

      <div class="grid-2">
        <Card title="Items">
          <table class="table compact">
            <tbody>
              {o.items.map((l, i) => (
                <tr key={i}>
                  <td>{l.title}{l.variantTitle && <span class="muted"> · {l.variantTitle}</span>}</td>
                  <td class="num">× {l.quantity}</td>
                  <td class="num">{formatAmount(l.unitPrice * l.quantity, currency)}</td>
                </tr>
              ))}
            </tbody>
            <tfoot>
              <tr><td colSpan={2}>Subtotal</td><td class="num">{formatAmount(o.totals.subtotalMinor, currency)}</td></tr>
              {o.totals.discountMinor > 0 && <tr><td colSpan={2}>Discount {o.discountCode && <code>{o.discountCode}</code>}</td><td class="num">−{formatAmount(o.totals.discountMinor, currency)}</td></tr>}
              <tr><td colSpan={2}>Shipping {o.shippingName && <span class="muted">({o.shippingName})</span>}</td><td class="num">{o.totals.shippingMinor === 0 ? 'Free' : formatAmount(o.totals.shippingMinor, currency)}</td></tr>
              <tr class="total"><td colSpan={2}>Total</td><td class="num">{formatAmount(o.totals.totalMinor, currency)}</td></tr>
            </tfoot>
          </table>
        </Card>
        <Card title="Customer & payment">
          <dl class="dl">
            <dt>Customer</dt><dd>{o.customerName ?? '—'}</dd>
            <dt>Email</dt><dd>{o.email ?? '—'}</dd>
            <dt>Ship to</dt>
            <dd>
              {o.shippingAddress ? (
                <address>
                  {o.shippingAddress.name}<br />
                  {o.shippingAddress.line1}{o.shippingAddress.line2 && <>, {o.shippingAddress.line2}</>}<br />
                  {o.shippingAddress.postalCode} {o.shippingAddress.city}<br />
                  {countryName(o.shippingAddress.country)}
                </address>
              ) : '—'}
            </dd>
            <dt>Payment</dt><dd>{o.paymentMethod === 'cod' ? `Cash on delivery${o.codPaid ? ' (paid)' : ''}` : o.paymentMethod === 'card' ? 'Card / wallet' : o.paymentMethod === 'free' ? 'Nothing to pay (total 0)' : '—'}</dd>
            <dt>Store order</dt>
            <dd>
              {o.platform === 'storefront-a' ? 'Storefront A' : 'Storefront B'}
              {o.storeOrder && <> · <StoreOrderState order={o.storeOrder} />{o.storeOrder.id && <span class="muted"> (id <span class="mono">{o.storeOrder.id}</span>)</span>}</>}
            </dd>
            <dt>Processor payment</dt><dd class="mono">{o.processorPaymentId ?? '—'}</dd>
            <dt>Checkout session</dt><dd class="mono small">{o.token}</dd>
            <dt>Paid</dt><dd>{formatDate(o.completedAt)}</dd>
            {o.refundRequestedAt && <><dt>Refund requested</dt><dd>{formatDate(o.refundRequestedAt)}</dd></>}
            {o.refundedAt && <><dt>Refunded</dt><dd>{formatDate(o.refundedAt)}</dd></>}
          </dl>
        </Card>
      </div>
      {o.upsells.length > 0 && (
        <Card title="Accepted upsells">
          <table class="table compact" data-upsells>
            <thead><tr><th>Offer</th><th class="num">Charged</th><th>Payment</th><th>Store order</th></tr></thead>
            <tbody>
              {o.upsells.map((u) => (
                <tr key={u.upsellId} data-upsell-status={u.status}>
                  <td>{u.title}</td>
                  <td class="num">{formatAmount(u.amount, u.currency)}</td>
                  <td>{u.status}{u.failureReason && <span class="muted"> · {u.failureReason}</span>}</td>
                  <td>{u.storeOrderId ? <span class="mono">{u.storeOrderId}</span> : u.storeOrderError ? <span class="text-danger">refused: {u.storeOrderError}</span> : u.status === 'paid' ? 'being created' : '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </Card>
      )}
      <Card title="Timeline">
        <Timeline entries={o.timeline} />
      </Card>
    </>
  );
}
