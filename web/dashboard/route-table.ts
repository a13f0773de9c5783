// The dashboard router's route table: every page of the dashboard shell, its path pattern (router.ts match()) and
// its title. Data only (no Preact, no DOM): test/browser/dashboard-layout.test.ts reads it outside the browser.
/**
 * Every page of the dashboard shell: its path pattern and title. app.tsx renders exactly these (its page table is
 * keyed by them, so a page missing here or there does not compile), and test/browser/dashboard-layout.test.ts visits
 * every one at phone, tablet and laptop widths.
 */
export const DASHBOARD_PAGES = [
  { path: '/dashboard', title: 'Overview' },
  { path: '/dashboard/orders', title: 'Orders' },
  { path: '/dashboard/orders/:token', title: 'Order' },
  { path: '/dashboard/customers', title: 'Customers' },
  { path: '/dashboard/customers/:email', title: 'Customer' },
  { path: '/dashboard/stats', title: 'Statistics' },
  { path: '/dashboard/branding', title: 'Branding' },
  { path: '/dashboard/shipping', title: 'Shipping rates' },
  { path: '/dashboard/preview', title: 'Preview' },
  { path: '/dashboard/domain', title: 'Custom domain' },
  { path: '/dashboard/connections', title: 'Store & payments' },
  { path: '/dashboard/discounts', title: 'Discount codes' },
  { path: '/dashboard/order-bumps', title: 'Order bumps' },
  { path: '/dashboard/upsells', title: 'Upsells' },
  { path: '/dashboard/pixels', title: 'Pixels' },
  { path: '/dashboard/billing', title: 'Billing' },
  { path: '/dashboard/api-keys', title: 'API keys' },
  { path: '/dashboard/settings', title: 'Settings' },
  { path: '/dashboard/webhooks', title: 'Webhooks' },
  { path: '/dashboard/team', title: 'Team' },
  { path: '/dashboard/security', title: 'Security' },
  { path: '/dashboard/connection-problem', title: 'Store not connected' },
] as const;

export type DashboardPath = (typeof DASHBOARD_PAGES)[number]['path'];

