// The dashboard's first page: the last 30 days at a glance, the latest orders, and whether the checkout is live.
import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { FunnelChart } from '../charts.js';
import { useLocation } from '../router.js';
import { useLoad, useSession } from '../session.js';
import { Alert, Card, CheckItem, Copyable, Empty, Link, PageHeader, Spinner } from '../ui.js';
import { OrdersTable } from './orders.js';
import { FUNNEL_LABELS, Kpis, useStats } from './stats.js';

const DAY = 24 * 60 * 60 * 1000;

export function Overview() {
  const { me } = useSession();
  const { query: params } = useLocation();
  const [range] = useState(() => {
    const to = new Date(Math.ceil(Date.now() / DAY) * DAY);
    return { from: new Date(to.getTime() - 30 * DAY), to };
  });
  const stats = useStats(range.from, range.to, false);
  const recent = useLoad(() => api.get('/api/checkout/merchant/orders', { query: { view: 'orders', limit: '5' } }));
  const activation = useLoad(() => api.get('/api/merchant/checkout-activation'));
  return (
    <>
      <PageHeader title={`Hello, ${me?.shopName ?? ''}`} description="The last 30 days of your hosted checkout." />
      {params.get('welcome') && <Alert kind="success" title="Setup verified">Your checkout is live: shoppers who click checkout in your store now land on your branded page.</Alert>}
      {stats.error && <Alert kind="error">{stats.error.message}</Alert>}
      {stats.data ? <Kpis stats={stats.data.stats} /> : !stats.error && <Spinner />}
      <div class="grid-2">
        <Card title="Latest orders" actions={<Link href="/dashboard/orders" class="btn btn-ghost btn-small">All orders →</Link>}>
          {recent.error && <Alert kind="error">{recent.error.message}</Alert>}
          {recent.data && (recent.data.items.length ? <OrdersTable items={recent.data.items} /> : <Empty>No orders yet.</Empty>)}
          {!recent.data && !recent.error && <Spinner />}
        </Card>
        <Card title="Funnel (30 days)" actions={<Link href="/dashboard/stats" class="btn btn-ghost btn-small">Statistics →</Link>}>
          {stats.data?.funnel.steps[0]?.sessions ? (
            <FunnelChart steps={stats.data.funnel.steps.map((s) => ({ label: FUNNEL_LABELS[s.step] ?? s.step, sessions: s.sessions, stepConversion: s.stepConversion, overallConversion: s.overallConversion }))} />
          ) : (
            <Empty>No checkouts in the last 30 days.</Empty>
          )}
        </Card>
      </div>
      <div class="grid-2">
        <Card title="Checkout status">
          {activation.data ? (
            <ul class="checklist">
              <CheckItem ok={activation.data.active} name="checkout-active" label={activation.data.active ? 'Live: your store’s checkout button opens your hosted checkout' : 'Not live'} reason={activation.data.reason} />
              {activation.data.storefrontA && <CheckItem ok={activation.data.storefrontA.scriptTagInstalled === true} name="app-embed" label={`App embed on in ${activation.data.storefrontA.themeName ?? 'your shop’s theme'}`} reason={activation.data.storefrontA.checkError ?? 'Turn it on in the theme editor (link below) and Save.'} />}
              {activation.data.storefrontA && activation.data.storefrontA.scriptTagInstalled === false && activation.data.storefrontA.activationUrl && (
                <li><a class="btn btn-secondary" href={activation.data.storefrontA.activationUrl} target="_blank" rel="noopener" data-activation-link>Turn on the app embed in the theme editor</a></li>
              )}
              {activation.data.storefrontB && <CheckItem ok={activation.data.storefrontB.pluginIntercepted} label="Official plugin active" reason="Activate the plugin in your store." />}
            </ul>
          ) : activation.error ? <Alert kind="error">{activation.error.message}</Alert> : <Spinner />}
        </Card>
        <Card title="Your checkout address">
          {me && <p><Copyable value={me.checkoutOrigin} label="checkout address" /></p>}
          <p class="hint">Shoppers see this address. <Link href="/dashboard/domain">Use your own domain</Link> · <Link href="/dashboard/preview">Preview</Link></p>
        </Card>
      </div>
    </>
  );
}
