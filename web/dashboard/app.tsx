// The dashboard's screens and where each merchant may be: logged out → the auth screens; email not yet
// verified → the verification screen; setup not verified → the wizard (the other pages stay reachable, as
// the spec lets the merchant go back or skip); afterwards the dashboard. Later logins go straight there.
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { DASHBOARD_PAGES, match, navigate, safeNext, useLocation, type DashboardPath } from './router.js';
import { useSession } from './session.js';
import { Link, Spinner } from './ui.js';
import { ForgotPassword, Login, Register, ResetPassword, VerifyEmail } from './pages/auth.js';
import { Wizard } from './pages/wizard.js';
import { Overview } from './pages/overview.js';
import { OrderDetailPage, OrdersPage } from './pages/orders.js';
import { CustomerDetailPage, CustomersPage } from './pages/customers.js';
import { StatsPage } from './pages/stats.js';
import { BrandingPage } from './pages/branding.js';
import { ShippingPage } from './pages/shipping.js';
import { DomainPage } from './pages/domain.js';
import { ConnectionsPage } from './pages/connections.js';
import { PreviewPage } from './pages/preview.js';
import { DiscountsPage, OrderBumpsPage, PixelsPage, UpsellsPage } from './pages/commerce.js';
import { BillingPage } from './pages/billing.js';
import { SettingsPage } from './pages/settings.js';
import { ApiKeysPage } from './pages/api-keys.js';
import { WebhooksPage } from './pages/webhooks.js';
import { ConnectionProblemPage } from './pages/connection-problem.js';
import { TeamPage } from './pages/team.js';
import { SecurityPage } from './pages/security.js';
import { AcceptInvite } from './pages/accept-invite.js';
import { useCan } from './can.js';

/** `route`: the API route the page reads first; the link shows only to roles that may call it (domain/merchant/roles.ts). */
const NAV: Array<{ section: string; items: Array<{ href: string; label: string; route?: string }> }> = [
  { section: 'Sales', items: [{ href: '/dashboard', label: 'Overview' }, { href: '/dashboard/orders', label: 'Orders' }, { href: '/dashboard/customers', label: 'Customers' }, { href: '/dashboard/stats', label: 'Statistics' }] },
  {
    section: 'Checkout',
    items: [
      { href: '/dashboard/branding', label: 'Branding' },
      { href: '/dashboard/shipping', label: 'Shipping rates' },
      { href: '/dashboard/preview', label: 'Preview' },
      { href: '/dashboard/domain', label: 'Custom domain' },
      { href: '/dashboard/connections', label: 'Store & payments' },
    ],
  },
  {
    section: 'Grow',
    items: [
      { href: '/dashboard/discounts', label: 'Discount codes' },
      { href: '/dashboard/order-bumps', label: 'Order bumps' },
      { href: '/dashboard/upsells', label: 'Upsells' },
      { href: '/dashboard/pixels', label: 'Pixels' },
    ],
  },
  {
    section: 'Developers',
    items: [
      { href: '/dashboard/api-keys', label: 'API keys', route: 'GET /api/merchant/api-keys' },
      { href: '/dashboard/webhooks', label: 'Webhooks', route: 'GET /api/merchant/webhooks/endpoints' },
    ],
  },
  {
    section: 'Account',
    items: [
      { href: '/dashboard/billing', label: 'Billing', route: 'GET /api/platform-billing/current' },
      { href: '/dashboard/team', label: 'Team', route: 'GET /api/merchant/members' },
      { href: '/dashboard/security', label: 'Security' },
      { href: '/dashboard/settings', label: 'Settings' },
    ],
  },
];

/** What each page of the route table (router.ts DASHBOARD_PAGES) renders: every path there, and only those. */
const RENDER: Record<DashboardPath, (params: Record<string, string>) => ComponentChildren> = {
  '/dashboard': () => <Overview />,
  '/dashboard/orders': () => <OrdersPage />,
  '/dashboard/orders/:token': (p) => <OrderDetailPage token={p.token!} />,
  '/dashboard/customers': () => <CustomersPage />,
  '/dashboard/customers/:email': (p) => <CustomerDetailPage email={p.email!} />,
  '/dashboard/stats': () => <StatsPage />,
  '/dashboard/branding': () => <BrandingPage />,
  '/dashboard/shipping': () => <ShippingPage />,
  '/dashboard/preview': () => <PreviewPage />,
  '/dashboard/domain': () => <DomainPage />,
  '/dashboard/connections': () => <ConnectionsPage />,
  '/dashboard/discounts': () => <DiscountsPage />,
  '/dashboard/order-bumps': () => <OrderBumpsPage />,
  '/dashboard/upsells': () => <UpsellsPage />,
  '/dashboard/pixels': () => <PixelsPage />,
  '/dashboard/billing': () => <BillingPage />,
  '/dashboard/api-keys': () => <ApiKeysPage />,
  '/dashboard/settings': () => <SettingsPage />,
  '/dashboard/webhooks': () => <WebhooksPage />,
  '/dashboard/team': () => <TeamPage />,
  '/dashboard/security': () => <SecurityPage />,
  '/dashboard/connection-problem': () => <ConnectionProblemPage />,
};
const PAGES = DASHBOARD_PAGES.map((p) => ({ ...p, render: RENDER[p.path] }));

const PUBLIC: Record<string, () => ComponentChildren> = {
  '/login': () => <Login />,
  '/register': () => <Register />,
  '/forgot-password': () => <ForgotPassword />,
  '/reset-password': () => <ResetPassword />,
};

function Redirect(props: { to: string }) {
  useEffect(() => navigate(props.to, { replace: true }), [props.to]);
  return <Spinner />;
}

function Shell(props: { path: string; children: ComponentChildren }) {
  const { me, logout } = useSession();
  const can = useCan();
  const visible = (item: { route?: string }) => {
    if (!item.route) return true;
    const [method, url] = item.route.split(' ') as [string, string];
    return can(method, url);
  };
  // A page change moves focus to the new page (screen readers announce it; Tab starts from there).
  const first = useRef(true);
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    document.getElementById('main')?.focus({ preventScroll: true });
  }, [props.path]);
  const active = (href: string) => (href === '/dashboard' ? props.path === href : props.path === href || props.path.startsWith(`${href}/`));
  // On a phone or a narrow tablet the navigation folds behind a Menu button (styles.css); any page change folds it again.
  const [menuOpen, setMenuOpen] = useState(false);
  useEffect(() => setMenuOpen(false), [props.path]);
  const current = NAV.flatMap((g) => g.items).find((i) => active(i.href));
  return (
    <div class="shell">
      <a class="skip-link" href="#main">Skip to content</a>
      <aside class={`sidebar${menuOpen ? ' open' : ''}`} aria-label="Main navigation">
        <div class="sidebar-top">
          <div class="brand">
            <span class="brand-mark" aria-hidden="true">◆</span>
            <span>Checkout</span>
          </div>
          <button type="button" class="nav-toggle" aria-expanded={menuOpen ? 'true' : 'false'} aria-controls="main-nav" onClick={() => setMenuOpen(!menuOpen)}>
            <span class="nav-toggle-icon" aria-hidden="true">{menuOpen ? '✕' : '☰'}</span>
            <span>Menu</span>
            {current && <span class="nav-toggle-current">· {current.label}</span>}
          </button>
        </div>
        <nav id="main-nav">
          {NAV.map((group) => ({ ...group, items: group.items.filter(visible) })).filter((group) => group.items.length > 0).map((group) => (
            <div class="nav-group" key={group.section}>
              <p class="nav-section">{group.section}</p>
              <ul>
                {group.items.map((item) => (
                  <li key={item.href}>
                    <Link href={item.href} class={active(item.href) ? 'nav-link active' : 'nav-link'} aria-current={active(item.href) ? 'page' : undefined}>{item.label}</Link>
                  </li>
                ))}
              </ul>
            </div>
          ))}
        </nav>
      </aside>
      <div class="main-col">
        <header class="topbar">
          <div class="topbar-shop">
            <strong>{me?.shopName}</strong>
            {me && <a class="muted" href={me.checkoutOrigin} target="_blank" rel="noreferrer">{me.checkoutOrigin.replace(/^https?:\/\//, '')}</a>}
          </div>
          <div class="topbar-actions">
            <span class="muted" data-viewer-role={me?.viewer?.role}>{me?.viewer?.email ?? me?.email}{me?.viewer && me.viewer.role !== 'owner' ? ` · ${me.viewer.role}` : ''}</span>
            <button type="button" class="btn btn-ghost btn-small" onClick={() => void logout().then(() => navigate('/login'))}>Log out</button>
          </div>
        </header>
        {me && !me.onboardingCompletedAt && (
          <div class="setup-banner" role="status">
            Your checkout is not live yet. <Link href="/onboarding">Continue the setup wizard →</Link>
          </div>
        )}
        <main id="main" class="content" tabIndex={-1}>{props.children}</main>
      </div>
    </div>
  );
}

export function App() {
  const { me } = useSession();
  const can = useCan();
  const { path, query } = useLocation();

  useEffect(() => {
    const page = PAGES.find((p) => match(p.path, path));
    document.title = `${page?.title ?? (path === '/onboarding' ? 'Setup' : 'Dashboard')} · Checkout`;
  }, [path]);

  if (me === undefined) return <Spinner label="Loading your dashboard…" />;

  // Verification links work logged in or out; so does an invitation (accepting it signs its new member in).
  if (path === '/verify-email') return <VerifyEmail />;
  if (path === '/accept-invite') return <AcceptInvite />;

  const publicPage = PUBLIC[path];
  if (publicPage) {
    // A logged-in merchant opening /login goes on; the reset link always works (it starts a new session).
    if (me && path !== '/reset-password') return <Redirect to={safeNext(query.get('next'))} />;
    return <>{publicPage()}</>;
  }

  if (!me) {
    const next = path === '/' ? '' : `?next=${encodeURIComponent(path + window.location.search)}`;
    return <Redirect to={`/login${next}`} />;
  }
  if (!me.emailVerified) return <Redirect to="/verify-email" />;
  if (path === '/') return <Redirect to={me.onboardingCompletedAt ? '/dashboard' : '/onboarding'} />;
  if (path === '/onboarding') return <Wizard />;
  // The processor's payment page returns a subscription to /billing (activities/billing/platform-billing.ts).
  if (path === '/billing') return <Redirect to={`/dashboard/billing${window.location.search}`} />;
  // The OAuth install comes back to /dashboard?storefrontA=connected: during setup that is the wizard.
  if (path === '/dashboard' && !me.onboardingCompletedAt) return <Redirect to={`/onboarding${window.location.search}`} />;

  for (const page of PAGES) {
    const params = match(page.path, path);
    if (!params) continue;
    // A page whose API the viewer's role cannot call (opened by its address) says so instead of failing piece by piece.
    const guarded = NAV.flatMap((g) => g.items).find((item) => item.href === page.path && item.route);
    // (Until /me has said who is signed in, the page renders: the API decides anyway.)
    if (guarded && me.viewer && !can(...(guarded.route!.split(' ') as [string, string]))) {
      return (
        <Shell path={path}>
          <h1>{page.title}</h1>
          <p data-role-refused={me.viewer?.role}>Your role ({me.viewer?.role}) cannot open this page: ask an owner or admin of {me.shopName}.</p>
        </Shell>
      );
    }
    return <Shell path={path}>{page.render(params)}</Shell>;
  }
  return (
    <Shell path={path}>
      <h1>Page not found</h1>
      <p>
        There is nothing at <code>{path}</code>. <Link href="/dashboard">Back to the dashboard</Link>
      </p>
    </Shell>
  );
}
