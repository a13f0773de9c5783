// Statistics and the funnel. GET /api/merchant/stats answers totals for a range, so the trend chart asks
// it once per day (or per week for long ranges), a handful at a time; each answer is one indexed query.
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.js';
import { Donut, FunnelChart, TimeChart } from '../charts.js';
import { formatAmount, formatNumber, formatPercent, isoDay, locale } from '../format.js';
import type { Funnel, Stats } from '../types.js';
import { Alert, Button, Card, Empty, Field, Link, PageHeader, Spinner } from '../ui.js';

const DAY = 24 * 60 * 60 * 1000;
export const FUNNEL_LABELS: Record<string, string> = {
  created: 'Checkout opened',
  contact_entered: 'Contact entered',
  shipping_chosen: 'Shipping chosen',
  payment_started: 'Payment started',
  completed: 'Completed',
};

export interface Bucket {
  from: Date;
  to: Date;
  label: string;
}

/** Days for up to 31 days, else weeks (at most ~53 requests for a year). */
export function buckets(from: Date, to: Date): Bucket[] {
  const span = to.getTime() - from.getTime();
  const step = span <= 31 * DAY ? DAY : 7 * DAY;
  const fmt = new Intl.DateTimeFormat(locale, { month: 'short', day: 'numeric' });
  const out: Bucket[] = [];
  for (let t = from.getTime(); t < to.getTime(); t += step) out.push({ from: new Date(t), to: new Date(Math.min(t + step, to.getTime())), label: fmt.format(new Date(t)) });
  return out;
}

async function inBatches<T, R>(items: T[], size: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < items.length; i += size) out.push(...(await Promise.all(items.slice(i, i + size).map(work))));
  return out;
}

/** The statistics routes' range. */
const range = (from: Date, to: Date) => ({ query: { from: from.toISOString(), to: to.toISOString() } });

export function useStats(from: Date, to: Date, withSeries: boolean) {
  const [data, setData] = useState<{ stats: Stats; funnel: Funnel; series: Array<{ bucket: Bucket; stats: Stats }> } | null>(null);
  const [error, setError] = useState<Error | null>(null);
  const [loading, setLoading] = useState(true);
  const key = `${from.toISOString()}|${to.toISOString()}|${withSeries}`;
  useEffect(() => {
    let live = true;
    setLoading(true);
    setError(null);
    void (async () => {
      try {
        const [stats, funnel] = await Promise.all([api.get('/api/merchant/stats', range(from, to)), api.get('/api/merchant/stats/funnel', range(from, to))]);
        const series = withSeries ? await inBatches(buckets(from, to), 6, async (bucket) => ({ bucket, stats: await api.get('/api/merchant/stats', range(bucket.from, bucket.to)) })) : [];
        if (live) setData({ stats, funnel, series });
      } catch (err) {
        if (live) setError(err as Error);
      } finally {
        if (live) setLoading(false);
      }
    })();
    return () => {
      live = false;
    };
  }, [key]);
  return { data, error, loading };
}

/**
 * The orders of a range, as the KPIs and the outcome chart split them: paid (money kept; `partial` of them refunded in
 * part), refunded in full, cash on delivery. Held payments are apart: paid by the shopper, but not orders (no store order).
 */
export function orderOutcomes(s: Stats): { orders: number; paid: number; partial: number; refunded: number; cod: number; held: number } {
  return { orders: s.paidOrders + s.refundedOrders + s.codOrders, paid: s.paidOrders, partial: s.partiallyRefundedOrders, refunded: s.refundedOrders, cod: s.codOrders, held: s.heldOrders };
}

/** The orders list with the held payments only (the list's status filter, in the URL). */
export const HELD_ORDERS_HREF = '/dashboard/orders?status=ON_HOLD';

export function Kpis(props: { stats: Stats }) {
  const s = props.stats;
  const o = orderOutcomes(s);
  return (
    <div class="kpis">
      <div class="kpi"><span class="kpi-label">Checkouts</span><span class="kpi-value" data-kpi="sessions">{formatNumber(s.sessions)}</span></div>
      <div class="kpi">
        <span class="kpi-label">Orders</span>
        <span class="kpi-value" data-kpi="orders">{formatNumber(o.orders)}</span>
        <span class="kpi-sub" data-kpi="outcomes">{formatNumber(o.paid)} paid · {formatNumber(o.refunded)} refunded · {formatNumber(o.cod)} COD</span>
        {o.partial > 0 && <span class="kpi-sub" data-kpi="partially-refunded">{formatNumber(o.partial)} of the paid partially refunded</span>}
        {o.held > 0 && (
          <span class="kpi-sub" data-kpi="held">
            <Link href={HELD_ORDERS_HREF}>{formatNumber(o.held)} on hold</Link>
          </span>
        )}
      </div>
      <div class="kpi"><span class="kpi-label">Conversion</span><span class="kpi-value" data-kpi="conversion">{formatPercent(s.conversionRate)}</span></div>
      <div class="kpi">
        <span class="kpi-label">Revenue</span>
        {s.revenue.length === 0 ? <span class="kpi-value">—</span> : s.revenue.map((r) => <span key={r.currency} class="kpi-value" data-kpi={`revenue-${r.currency}`}>{formatAmount(r.amountMinor, r.currency)}</span>)}
        {s.revenue.map((r) => <span key={r.currency} class="kpi-sub">avg. order {formatAmount(r.averageOrderValueMinor, r.currency)}</span>)}
        {s.revenue.filter((r) => r.refundedMinor > 0).map((r) => (
          <span key={r.currency} class="kpi-sub" data-kpi={`revenue-refunded-${r.currency}`}>{formatAmount(r.refundedMinor, r.currency)} refunded of {formatAmount(r.grossMinor, r.currency)}</span>
        ))}
      </div>
    </div>
  );
}

/** Revenue per currency with its two parts: what was charged, what came back of it (partial refunds), what is kept. */
function RevenueTable(props: { stats: Stats }) {
  return (
    <div class="table-wrap">
      <table class="table compact stack" data-revenue data-table="revenue">
        <thead><tr><th scope="col">Currency</th><th scope="col" class="num">Orders</th><th scope="col" class="num">Charged</th><th scope="col" class="num">Refunded</th><th scope="col" class="num">Revenue (kept)</th><th scope="col" class="num">Average order</th></tr></thead>
        <tbody>
          {props.stats.revenue.map((r) => (
            <tr key={r.currency} data-currency={r.currency}>
              <td data-label="Currency">{r.currency}</td>
              <td class="num" data-label="Orders">{formatNumber(r.orders)}</td>
              <td class="num" data-label="Charged">{formatAmount(r.grossMinor, r.currency)}</td>
              <td class="num" data-label="Refunded">{r.refundedMinor > 0 ? `−${formatAmount(r.refundedMinor, r.currency)}` : '—'}</td>
              <td class="num" data-label="Revenue (kept)">{formatAmount(r.amountMinor, r.currency)}</td>
              <td class="num" data-label="Average order">{formatAmount(r.averageOrderValueMinor, r.currency)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** Everything given back per currency, as the processor reports it, and the held payments waiting for the merchant. */
function RefundsAndHolds(props: { stats: Stats }) {
  const s = props.stats;
  return (
    <>
      {s.refunds.length > 0 && (
        <div class="table-wrap">
          <table class="table compact stack" data-refunds data-table="refunds">
            <thead><tr><th scope="col">Currency</th><th scope="col" class="num">Refunded</th><th scope="col" class="num">Orders</th><th scope="col" class="num">In full (orders)</th></tr></thead>
            <tbody>
              {s.refunds.map((r) => (
                <tr key={r.currency} data-currency={r.currency}>
                  <td data-label="Currency">{r.currency}</td>
                  <td class="num" data-label="Refunded">{formatAmount(r.amountMinor, r.currency)}</td>
                  <td class="num" data-label="Orders">{formatNumber(r.orders)}</td>
                  <td class="num" data-label="In full (orders)">{formatAmount(r.fullyRefundedMinor, r.currency)} ({formatNumber(r.fullyRefundedOrders)})</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {s.held.length > 0 && (
        <p class="small" data-held>
          <Link href={HELD_ORDERS_HREF}>{formatNumber(s.heldOrders)} on hold</Link>: paid, but held before the order (refunded, disputed or another amount); not revenue until you act on them:{' '}
          {s.held.map((h, i) => <span key={h.currency}>{i > 0 && ', '}{formatAmount(h.amountMinor, h.currency)} ({formatNumber(h.orders)})</span>)}.
        </p>
      )}
    </>
  );
}

/** What the reminders brought back (docs/recovery.md): checkouts paid after a reminder, and the money kept, per currency. */
function Recovery(props: { stats: Stats }) {
  const r = props.stats.recovery;
  return (
    <div data-recovery>
      <p>
        <strong data-recovered>{formatNumber(r.recoveredOrders)}</strong> {r.recoveredOrders === 1 ? 'checkout' : 'checkouts'} paid after a reminder, of{' '}
        {formatNumber(r.remindedSessions)} reminded ({formatNumber(r.remindersSent)} {r.remindersSent === 1 ? 'email' : 'emails'} sent)
        {r.recovered.length > 0 && <>: {r.recovered.map((c, i) => <span key={c.currency} data-currency={c.currency}>{i > 0 && ', '}{formatAmount(c.amountMinor, c.currency)}</span>)} recovered</>}.
      </p>
      <p class="small muted">
        Counted on the checkouts opened in the range; an order counts once it is paid after the first reminder (cash on delivery is not counted).{' '}
        <Link href="/dashboard/settings#recovery">Recovery settings</Link>
      </p>
    </div>
  );
}

export function StatsPage() {
  const [range, setRange] = useState(30);
  const [custom, setCustom] = useState<{ from: string; to: string } | null>(null);
  const [draft, setDraft] = useState({ from: isoDay(new Date(Date.now() - 30 * DAY)), to: isoDay(new Date(Date.now() + DAY)) });
  // Whole days, so the series buckets line up with the calendar.
  const [now] = useState(() => new Date(Math.ceil(Date.now() / DAY) * DAY));
  const to = custom ? new Date(`${custom.to}T00:00:00Z`) : now;
  const from = custom ? new Date(`${custom.from}T00:00:00Z`) : new Date(now.getTime() - range * DAY);
  const { data, error, loading } = useStats(from, to, true);

  const main = data?.stats.revenue.slice().sort((a, b) => b.amountMinor - a.amountMinor)[0]?.currency;
  return (
    <>
      <PageHeader
        title="Statistics"
        description="Checkouts created from store carts (previews never count), grouped by the day they were opened."
        actions={
          <div class="segmented" role="group" aria-label="Range">
            {[7, 30, 90].map((d) => (
              <button type="button" key={d} class={!custom && range === d ? 'active' : ''} aria-pressed={!custom && range === d} onClick={() => { setCustom(null); setRange(d); }}>
                {d} days
              </button>
            ))}
          </div>
        }
      />
      <Card>
        <form class="filters" onSubmit={(e) => { e.preventDefault(); setCustom({ ...draft }); }} aria-label="Custom range">
          <Field label="From" name="from" type="date" value={draft.from} onInput={(v) => setDraft({ ...draft, from: v })} />
          <Field label="Until (excl.)" name="to" type="date" value={draft.to} onInput={(v) => setDraft({ ...draft, to: v })} />
          <div class="filters-actions"><Button type="submit" variant="secondary">Show range</Button></div>
        </form>
      </Card>
      {error && <Alert kind="error">{error.message}</Alert>}
      {loading && !data && <Spinner label="Counting…" />}
      {data && (
        <div class={`page-stack${loading ? ' stale' : ''}`}>
          <Kpis stats={data.stats} />
          <div class="grid-2">
            <Card title="Checkouts and orders">
              {data.series.length ? (
                <TimeChart
                  label="Checkouts and orders per period"
                  labels={data.series.map((p) => p.bucket.label)}
                  series={[
                    { name: 'Checkouts', kind: 'bar', color: 'var(--chart-1)', values: data.series.map((p) => p.stats.sessions) },
                    { name: 'Orders', kind: 'line', color: 'var(--chart-2)', values: data.series.map((p) => orderOutcomes(p.stats).orders) },
                  ]}
                />
              ) : <Empty>No data.</Empty>}
            </Card>
            <Card title={`Revenue${main ? ` (${main})` : ''}`}>
              {main ? (
                <TimeChart
                  label={`Revenue kept in ${main} per period (refunds taken off)`}
                  labels={data.series.map((p) => p.bucket.label)}
                  format={(v) => formatAmount(Math.round(v), main)}
                  series={[{ name: `Revenue ${main}`, kind: 'bar', color: 'var(--chart-3)', values: data.series.map((p) => p.stats.revenue.find((r) => r.currency === main)?.amountMinor ?? 0) }]}
                />
              ) : <Empty>No paid orders in this range yet.</Empty>}
            </Card>
          </div>
          <div class="grid-2">
            <Card title="Funnel">
              {data.funnel.steps[0]?.sessions ? (
                <FunnelChart steps={data.funnel.steps.map((s) => ({ label: FUNNEL_LABELS[s.step] ?? s.step, sessions: s.sessions, stepConversion: s.stepConversion, overallConversion: s.overallConversion }))} />
              ) : <Empty>No checkouts in this range.</Empty>}
            </Card>
            <Card title="Order outcomes">
              <Donut
                label="Orders by outcome"
                center={formatNumber(orderOutcomes(data.stats).orders)}
                parts={[
                  { label: 'Paid', value: orderOutcomes(data.stats).paid - orderOutcomes(data.stats).partial, color: 'var(--chart-2)' },
                  { label: 'Partially refunded', value: orderOutcomes(data.stats).partial, color: 'var(--chart-3)' },
                  { label: 'Refunded', value: orderOutcomes(data.stats).refunded, color: 'var(--chart-4)' },
                  { label: 'Cash on delivery', value: orderOutcomes(data.stats).cod, color: 'var(--chart-1)' },
                ]}
              />
              {data.stats.cod.length > 0 && (
                <ul class="plain-list small">
                  {data.stats.cod.map((c) => (
                    <li key={c.currency}>COD {c.currency}: {formatAmount(c.amountMinor, c.currency)} owed, {formatAmount(c.collectedAmountMinor, c.currency)} collected ({formatNumber(c.collectedOrders)} of {formatNumber(c.orders)})</li>
                  ))}
                </ul>
              )}
            </Card>
          </div>
          {data.stats.revenue.length > 0 && (data.stats.revenue.length > 1 || data.stats.refunds.length > 0) && (
            <Card title="Revenue by currency">
              <RevenueTable stats={data.stats} />
            </Card>
          )}
          {(data.stats.refunds.length > 0 || data.stats.held.length > 0) && (
            <Card title="Refunds and held payments">
              <RefundsAndHolds stats={data.stats} />
            </Card>
          )}
          <Card title="Abandoned-checkout recovery">
            <Recovery stats={data.stats} />
          </Card>
        </div>
      )}
    </>
  );
}
