// The checkout page's entry: the session the page route embedded (or, in `npm run web:dev`, read from the
// API), the merchant's colors applied before the first paint, then the page.
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api, configureApi } from '../shared/api.js';
import { Checkout } from './Checkout.js';
import { parseOrderBumps, parseUpsells } from './offers.js';
import { Frame, Notice } from './parts.js';
import { setLanguage, t } from './i18n.js';
import type { Bundle, Embedded } from './types.js';
import './checkout.css';

const token = decodeURIComponent(location.pathname.split('/').filter(Boolean)[1] ?? '');

function readEmbedded(): Embedded | null {
  const el = document.getElementById('checkout-data');
  if (!el?.textContent) return null;
  try {
    return JSON.parse(el.textContent) as Embedded;
  } catch {
    return null;
  }
}

function App({ embedded }: { embedded: Embedded | null }) {
  // undefined: still loading; null: no such checkout.
  const [bundle, setBundle] = useState<Bundle | null | undefined>(embedded ? embedded.bundle : undefined);
  const [bumps, setBumps] = useState<unknown>(embedded?.orderBumps);
  const [upsells, setUpsells] = useState<unknown>(embedded?.upsells);
  useEffect(() => {
    if (embedded) return;
    void api<Bundle>('GET', `/api/checkout/session-bundle/${encodeURIComponent(token)}`).then((r) => setBundle(r.ok ? r.data : null));
    void api<unknown>('GET', `/api/checkout/${encodeURIComponent(token)}/order-bumps`).then((r) => r.ok && setBumps(r.data));
    void api<unknown>('GET', `/api/checkout/${encodeURIComponent(token)}/upsells`).then((r) => r.ok && setUpsells(r.data));
  }, []);
  if (bundle === undefined) {
    return (
      <Frame bundle={null}>
        <p class="card" role="status">
          {t('loading')}
        </p>
      </Frame>
    );
  }
  if (bundle === null) {
    return (
      <Frame bundle={null}>
        <Notice title={t('notFoundTitle')} body={t('notFoundBody')} />
      </Frame>
    );
  }
  // The brand's colors come with the page: the page route writes them, contrast-corrected (domain/merchant/brand-colors.ts), as
  // CSS custom properties, so the script carries none of that code.
  document.title = `${t('headline')} · ${bundle.shopName}`;
  return <Checkout token={token} bundle={bundle} orderBumps={parseOrderBumps(bumps, bundle.currency)} upsells={parseUpsells(upsells)} cardEnabled={embedded?.cardEnabled} embed={embedded?.embed} pixelsScript={embedded?.pixelsScript} />;
}

// Back from the processor's page with the browser's Back button, the page may come out of the back-forward cache as it
// was left ("Redirecting to payment…"): read the session afresh instead.
window.addEventListener('pageshow', (e) => {
  if (e.persisted) location.reload();
});

const root = document.getElementById('app')!;
root.textContent = '';
const embedded = readEmbedded();
setLanguage(embedded?.language, embedded?.messages);
// The API answers the page's refusals in the page's language (which the store's may have chosen over the browser's).
configureApi({
  headers: embedded?.language ? { 'accept-language': embedded.language } : {},
  network: t('networkError'),
  failed: (status) => t('serverError', { status }),
});
render(<App embedded={embedded} />, root);
