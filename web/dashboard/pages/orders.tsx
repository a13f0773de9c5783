// Orders: paid orders apart from unpaid checkouts (two tabs, the API's `view`), filters in the URL (so Back and
// shared links keep them), cursor pages; and one order with its session timeline, refunds and status sync. An
// order is named by the store's number ("#1001", as the store, the emails and the shopper's confirmation name it)
// and its customer by the name on the shipping address. A refund is requested here (./order-refunds.tsx) and is
// done when the processor has confirmed it and the store has booked it, so the page follows it until then.
import { useEffect, useRef, useState } from 'preact/hooks';
import { CHECKOUT_STATUSES, isCheckoutStatus, isOrdered, isPaidNotRefunded, isProcessorPaid } from '../../../domain/checkout/checkout-status.js';
import { orderNumberLabel } from '../../../domain/checkout/store-order.js';
import { ORDER_VIEWS, type OrderView } from '../../../domain/stats.js';
import { api, apiHref, ApiError, query, type Query } from '../api.js';
import { countryName, formatAmount, formatDate, readableAmounts } from '../format.js';
import { useForm } from '../form.js';
import { inFlight, orderStatus, STATUS_LABELS, storeOrderStatusLabel, type StatusFacts } from '../refunds.js';
import { linkClick, navigate, useLocation } from '../router.js';
import { useCursorPages, useLoad } from '../session.js';
import type { OrderDetail, OrderSummary, TimelineEntry } from '../types.js';
import { Alert, Button, Card, Empty, Field, Link, NotLoaded, Outcome, PageHeader, PagedList, Pill, SelectField, Table, type Column } from '../ui.js';
import { useCan } from '../can.js';
import { HoldBanner, RefundDialog, RefundsCard, type RefundRequested } from './order-refunds.js';

const VIEW_LABELS: Record<OrderView, string> = { orders: 'Orders', checkouts: 'Unpaid checkouts' };
const VIEW_HINTS: Record<OrderView, string> = {
  orders: 'Paid orders: paid by card, cash on delivery, on hold, refunded. Newest first.',
  checkouts: 'Checkouts whose payment started and never came: pending, failed, abandoned. Not orders: nothing was paid.',
};
/** The list's filters, as the page's URL holds them (the Filters form writes them there). */
type OrderFilters = Query<'/api/checkout/merchant/orders'>;
const viewOf = (params: URLSearchParams): OrderView => (params.get('view') === 'checkouts' ? 'checkouts' : 'orders');

/** The order's name: the store's number once it has one. A held payment is paid, but has no store order. */
export function orderTitle(o: Pick<OrderSummary, 'storeOrder' | 'status'>): string {
  if (o.storeOrder?.number) return `Order ${orderNumberLabel(o.storeOrder.number)}`;
  if (o.storeOrder) return 'Order (no store number yet)';
  if (o.status === 'ON_HOLD') return 'Payment on hold';
  return 'Unpaid checkout';
}

/** The list's link to one order, by what it is. */
function orderLinkText(o: Pick<OrderSummary, 'storeOrder' | 'status'>): string {
  if (o.storeOrder?.number) return orderNumberLabel(o.storeOrder.number);
  if (o.storeOrder) return 'View order';
  return o.status === 'ON_HOLD' ? 'View payment' : 'View checkout';
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
  // The view's statuses this API knows.
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
        options={[{ value: '', label: 'Any status' }, ...statuses.map((s) => ({ value: s, label: STATUS_LABELS[s as keyof typeof STATUS_LABELS] }))]}
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

/** The order's status in words ("Partially refunded", "On hold", "Refunded"); `withNote`: and what the status alone does not say (how much came back, why it is held). */
/** A postal address as the store prints it: name, street, postal code and city (region), country. */
function PostalAddress(props: { address: NonNullable<OrderDetail['shippingAddress']> }) {
  const a = props.address;
  return (
    <address>
      {a.name}<br />
      {a.line1}{a.line2 && <>, {a.line2}</>}<br />
      {a.postalCode} {a.city}{a.region && <>, {a.region}</>}<br />
      {countryName(a.country)}
    </address>
  );
}

function StatusPill(props: { o: StatusFacts; withNote?: boolean }) {
  const s = orderStatus(props.o);
  return (
    <>
      <Pill status={s.key} label={s.label} />
      {props.withNote && s.note && <span class="status-note muted small" data-status-note>{s.note}</span>}
    </>
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

const ORDER_COLUMNS: Array<Column<OrderSummary>> = [
  {
    label: 'Order',
    cell: (o) => (
      <>
        <Link href={`/dashboard/orders/${o.token}`} class="order-link">
          {orderLinkText(o)}
        </Link>
        {o.storeOrder && o.storeOrder.state !== 'created' && <> <StoreOrderState order={o.storeOrder} /></>}
      </>
    ),
  },
  { label: 'Date', class: 'order-date', cell: (o) => formatDate(o.createdAt) },
  { label: 'Customer', class: 'order-customer', cell: (o) => <Customer o={o} /> },
  { label: 'Status', class: 'status-cell', cell: (o) => <StatusPill o={o} withNote /> },
  { label: 'Payment', class: 'order-payment', cell: (o) => (o.paymentMethod === 'cod' ? `COD${o.codPaid ? ' · paid' : ''}` : o.paymentMethod === 'card' ? 'Card' : o.paymentMethod === 'free' ? 'Free' : '—') },
  { label: 'Total', num: true, cell: (o) => formatAmount(o.totals.totalMinor, o.totals.currency) },
];

export function OrdersTable(props: { items: OrderSummary[] }) {
  return <Table name="orders" class="orders-table" columns={ORDER_COLUMNS} rows={props.items} rowKey={(o) => o.token} rowData={(o) => ({ 'data-token': o.token, 'data-status': o.status })} />;
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

/** The CSV export of what the list shows: the same filters and view (GET /api/checkout/merchant/orders/export.csv). */
function exportHref(params: URLSearchParams, view: OrderView): string {
  const filters = Object.fromEntries(['q', 'status', 'paymentMethod', 'from', 'to'].map((k) => [k, params.get(k) ?? undefined])) as OrderFilters;
  return apiHref('/api/checkout/merchant/orders/export.csv', { query: { ...filters, view } });
}

export function OrdersPage() {
  const { query: params } = useLocation();
  const key = params.toString();
  const view = viewOf(params);
  const filters = Object.fromEntries(params.entries()) as OrderFilters;
  const orders = useCursorPages((cursor) => api.get('/api/checkout/merchant/orders', { query: { ...filters, view, cursor: cursor ?? undefined, limit: '25' } }), key);

  const fieldErrors = orders.error instanceof ApiError ? orders.error.fields : {};
  return (
    <>
      <PageHeader
        title="Orders"
        description={VIEW_HINTS[view]}
        actions={
          // A plain link: the browser downloads the file with the session cookie, the API streams it (no copy in this page).
          <a class="btn btn-secondary" href={exportHref(params, view)} download data-export-csv aria-disabled={orders.error ? 'true' : undefined}>
            Export CSV
          </a>
        }
      />
      <ViewTabs view={view} />
      <Card>
        <Filters key={key} values={params} view={view} errors={fieldErrors} />
      </Card>
      {orders.error && <Alert kind="error">{orders.error.message}</Alert>}
      <Card id="orders-panel">
        <PagedList pages={orders} empty={view === 'orders' ? 'No orders match. An order appears here once the shopper paid (or chose cash on delivery).' : 'No unpaid checkouts match.'}>
          <OrdersTable items={orders.items} />
        </PagedList>
      </Card>
    </>
  );
}

const SOURCE_LABEL: Record<TimelineEntry['source'], string> = { session: 'Checkout', webhook: 'Processor', email: 'Email' };

/** Each entry one line: when (and, for repeats, how often until when) in small type beside or above what happened. */
function Timeline(props: { entries: TimelineEntry[] }) {
  if (props.entries.length === 0) return <Empty>No events recorded.</Empty>;
  return (
    <ol class="timeline" aria-label="Session timeline">
      {props.entries.map((e, i) => (
        <li key={`${e.at}-${i}`} class={`tl tl-${e.source}`} data-type={e.type} data-count={e.count}>
          <span class="tl-dot" aria-hidden="true" />
          <div class="tl-meta">
            <time dateTime={e.at}>{formatDate(e.at)}</time>
            <span class="tl-source">{SOURCE_LABEL[e.source]}</span>
          </div>
          <div class="tl-body">
            <p class="tl-summary">
              {readableAmounts(e.summary)}
              {e.count > 1 && (
                <span class="tl-count" title={`${e.count} times, the last ${formatDate(e.lastAt)}`}>
                  {' '}× {e.count}<span class="muted"> · last <time dateTime={e.lastAt}>{formatDate(e.lastAt)}</time></span>
                </span>
              )}
            </p>
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

/** How long the page follows a refund after asking for it: the sandbox takes seconds, a card network may take days. */
const FOLLOW_MS = 2 * 60_000;
const FOLLOW_EVERY_MS = 2_000;

type Notice = { kind: 'success' | 'info' | 'warning' | 'error'; text: string };

/** What became of the refund the merchant asked for, once nothing is moving any more. */
function refundOutcome(o: OrderDetail, id: string | null, amountMinor: number): Notice {
  const r = id ? o.refunds.find((x) => x.id === id) : undefined;
  const amount = formatAmount(amountMinor, o.totals.currency);
  if (!r) return { kind: 'success', text: 'The refund went through: see Refunds below.' };
  if (r.state === 'failed') return { kind: 'error', text: `The processor could not refund ${amount}${r.failureReason ? `: ${readableAmounts(r.failureReason)}` : ''}.` };
  if (r.store.state === 'failed') return { kind: 'warning', text: `The processor refunded ${amount}, but the store refused to book it: see Refunds below for what to do.` };
  if (r.store.state === 'none') return { kind: 'success', text: `Refunded ${amount}: the processor sent the money back. There is no store order to book it on.` };
  return { kind: 'success', text: `Refunded ${amount}: the processor sent the money back and the refund is booked on your store order.` };
}

export function OrderDetailPage(props: { token: string }) {
  const load = () => api.get('/api/checkout/merchant/orders/{token}', { params: { token: props.token } });
  const order = useLoad(load, [props.token]);
  const sync = useForm({});
  const [dialog, setDialog] = useState(false);
  const [notice, setNotice] = useState<Notice | null>(null);
  // The refund being followed since the request was accepted; `polls` moves on after each look, also a failed one.
  const [follow, setFollow] = useState<{ id: string | null; amountMinor: number; since: number; fromPoll: number } | null>(null);
  const [polls, setPolls] = useState(0);
  const refundButton = useRef<HTMLDivElement>(null);
  const can = useCan();
  const o = order.data;

  /** The order as it is now (after a refusal: what is left may have changed elsewhere). */
  const refresh = async () => {
    try {
      const fresh = await load();
      order.setData(fresh);
      return fresh;
    } catch {
      return undefined;
    }
  };

  // After a refund request: look again every few seconds until the processor confirmed it and the store booked it.
  useEffect(() => {
    if (!follow || !o) return;
    const mine = follow.id ? o.refunds.find((r) => r.id === follow.id) : undefined;
    // At least one look after the request, so an answer read before it never ends the following.
    const moving = polls === follow.fromPoll || o.refunds.some(inFlight) || (follow.id !== null && !mine);
    if (!moving) {
      setFollow(null);
      setNotice(refundOutcome(o, follow.id, follow.amountMinor));
      return;
    }
    if (Date.now() - follow.since > FOLLOW_MS) {
      setFollow(null);
      setNotice({ kind: 'info', text: 'The refund is still on its way: the processor or the card network has not confirmed it yet. Refunds below shows where it stands; Sync status asks the processor again.' });
      return;
    }
    const timer = setTimeout(() => void order.reload().finally(() => setPolls((n) => n + 1)), FOLLOW_EVERY_MS);
    return () => clearTimeout(timer);
  }, [follow, o, polls]);

  if (!o) return <NotLoaded title="Order" error={order.error} missing="No such order in your shop." back={{ href: '/dashboard/orders', label: '← All orders' }} />;
  const currency = o.totals.currency;
  // A confirmed card payment with something left (the API answers 0 when nothing can be refunded).
  const refundable = o.paymentMethod === 'card' && isPaidNotRefunded(o.status) && o.refundableMinor > 0;
  const showRefunds = o.refunds.length > 0 || (o.paymentMethod === 'card' && isProcessorPaid(o.status));
  const onRequested = (answer: RefundRequested, amountMinor: number) => {
    setDialog(false);
    setNotice({ kind: 'info', text: `Refund of ${formatAmount(amountMinor, currency)} requested. It shows below as "Refund requested" until the processor confirms it; then it is booked on your store order.` });
    setFollow({ id: answer.refund.id ?? null, amountMinor, since: Date.now(), fromPoll: polls });
    void refresh();
  };
  const openDialog = () => {
    // Earlier notices are about earlier actions.
    setNotice(null);
    sync.setNotice(null);
    setDialog(true);
  };
  const closeDialog = () => {
    setDialog(false);
    // Back to the button that opened it.
    refundButton.current?.querySelector<HTMLButtonElement>('button[name="refund"]')?.focus();
  };
  return (
    <>
      <p class="crumbs"><Link href={o.storeOrder || o.status === 'ON_HOLD' ? '/dashboard/orders' : '/dashboard/orders?view=checkouts'}>{o.storeOrder || o.status === 'ON_HOLD' ? '← All orders' : '← Unpaid checkouts'}</Link></p>
      <PageHeader
        title={orderTitle(o)}
        description={<>{o.customerName ?? o.email ?? 'No customer details yet'} · created {formatDate(o.createdAt)}</>}
        actions={
          <div class="button-row" ref={refundButton}>
            {can('POST', '/api/checkout/merchant/orders/:token/backfill-status') && <Button variant="secondary" busy={sync.busy} onClick={() => void sync.run(async () => {
              const r = await api.post('/api/checkout/merchant/orders/{token}/backfill-status', { params: { token: o.token } });
              await order.reload();
              const ours = isCheckoutStatus(r.status) ? STATUS_LABELS[r.status].toLowerCase() : r.status;
              return `Status synced: ${ours}${r.processorStatus ? ` (processor: ${r.processorStatus.replace(/_/g, ' ')})` : ''}.`;
            })}>
              Sync status
            </Button>}
            {refundable && can('POST', '/api/checkout/merchant/orders/:token/refund') && <Button variant="danger" name="refund" onClick={openDialog}>Refund…</Button>}
          </div>
        }
      />
      <div class="status-line big" data-order-status={o.status}>
        <StatusPill o={o} />
        <strong>{formatAmount(o.totals.totalMinor, currency)}</strong>
        {o.storeOrder && (
          <span class="store-status" data-store-order-status={o.storeOrderStatus ?? ''}>
            Store: <StoreOrderState order={o.storeOrder} />
            {o.storeOrder.state === 'created' && o.storeOrderStatus && <> · {storeOrderStatusLabel(o.storeOrderStatus)}</>}
          </span>
        )}
        {follow && <span class="muted following" role="status"><span class="spinner" aria-hidden="true" /> following the refund…</span>}
      </div>
      <HoldBanner order={o} onRefund={refundable ? openDialog : undefined} />
      {notice && <div data-refund-notice={notice.kind}><Alert kind={notice.kind}>{notice.text}</Alert></div>}
      <Outcome of={sync} />
      {o.storeOrder?.state === 'failed' && <Alert kind="error" title="The store refused this order">{o.storeOrder.error ?? 'The payment went through but the store did not accept the order.'}</Alert>}
      {o.storeOrder?.state === 'pending' && (
        <Alert kind="info" title="The order is not on your store yet">
          The payment is settled; the order is being created on your store, and tried again for up to two days while the store does not answer.
        </Alert>
      )}

      <div class="grid-2">
        <Card title="Items">
          <table class="table compact" data-table="items">
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
            <dt>Email</dt><dd>{o.email && isOrdered(o.status) ? <Link href={`/dashboard/customers/${encodeURIComponent(o.email)}`}>{o.email}</Link> : (o.email ?? '—')}</dd>
            <dt>Ship to</dt>
            <dd>
              {o.shippingAddress ? <PostalAddress address={o.shippingAddress} /> : '—'}
            </dd>
            <dt>Bill to</dt>
            <dd>{o.billingAddress ? <PostalAddress address={o.billingAddress} /> : o.shippingAddress ? <span class="muted">Same as shipping address</span> : '—'}</dd>
            <dt>Payment</dt><dd>{o.paymentMethod === 'cod' ? `Cash on delivery${o.codPaid ? ' (paid)' : ''}` : o.paymentMethod === 'card' ? 'Card / wallet' : o.paymentMethod === 'free' ? 'Nothing to pay (total 0)' : '—'}</dd>
            <dt>Store order</dt>
            <dd>
              {o.platform === 'storefront-a' ? 'Shopify' : 'WooCommerce'}
              {o.storeOrder && <> · <StoreOrderState order={o.storeOrder} />{o.storeOrder.id && <span class="muted"> (id <span class="mono">{o.storeOrder.id}</span>)</span>}</>}
            </dd>
            <dt>Processor payment</dt><dd class="mono">{o.processorPaymentId ?? '—'}</dd>
            <dt>Checkout session</dt><dd class="mono small">{o.token}</dd>
            <dt>Paid</dt><dd>{formatDate(o.completedAt)}</dd>
            {o.refundedAt && <><dt>Refunded in full</dt><dd>{formatDate(o.refundedAt)}</dd></>}
          </dl>
        </Card>
      </div>
      {showRefunds && <RefundsCard order={o} />}
      {o.upsells.length > 0 && (
        <Card title="Accepted upsells">
          <div class="table-wrap">
            <table class="table compact stack" data-upsells data-table="accepted upsells">
              <thead><tr><th>Offer</th><th class="num">Charged</th><th>Payment</th><th>Store order</th></tr></thead>
              <tbody>
                {o.upsells.map((u) => (
                  <tr key={u.upsellId} data-upsell-status={u.status}>
                    <td data-label="Offer">{u.title}</td>
                    <td class="num" data-label="Charged">{formatAmount(u.amount, u.currency)}</td>
                    <td data-label="Payment">{u.status}{u.failureReason && <span class="muted"> · {u.failureReason}</span>}</td>
                    <td data-label="Store order">{u.storeOrderId ? <span class="mono">{u.storeOrderId}</span> : u.storeOrderError ? <span class="text-danger">refused: {u.storeOrderError}</span> : u.status === 'paid' ? 'being created' : '—'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </Card>
      )}
      <Card title="Timeline">
        <Timeline entries={o.timeline} />
      </Card>
      {dialog && <RefundDialog order={o} onClose={closeDialog} onRequested={onRequested} refresh={refresh} />}
    </>
  );
}
