// Where every failed Shopify install ends (api/routes/auth/storefront-a.ts redirects here with ?problem=&code=): what
// went wrong and what to fix, in plain words, with a link back to the step that fixes it (the wizard's step 1 during
// setup, Store & payments afterwards). The code is shown small, for support.
import type { ComponentChildren } from 'preact';
import { useLocation } from '../router.js';
import { useSession } from '../session.js';
import { Alert, Link, PageHeader } from '../ui.js';

const DEV_DASHBOARD = 'https://dev.shopify.com/dashboard/';
const CREDENTIALS_DOC = 'https://shopify.dev/docs/apps/build/dev-dashboard/get-api-access-tokens';

const PROBLEMS: Record<string, { title: string; fix: ComponentChildren }> = {
  'wrong-secret': {
    title: 'The client secret you saved is not your app’s',
    fix: (
      <ol>
        <li>Shopify signs its answer with your app’s client secret, and the one saved in step 1 does not match it.</li>
        <li>
          Open your app in Shopify’s <a href={DEV_DASHBOARD} target="_blank" rel="noreferrer">Dev Dashboard</a> → <strong>Settings</strong> and copy the
          <strong> Client secret</strong> again, the whole value (it starts with <code>shpss_</code>). Check the <strong>Client ID</strong> there is the one you
          saved. If you rotated the secret, use the new one.
        </li>
        <li>Paste both in step 1 and press <strong>Save and install the app</strong>.</li>
      </ol>
    ),
  },
  'app-refused': {
    title: 'Shopify refused your app’s client ID or client secret',
    fix: (
      <ol>
        <li>Open your app in Shopify’s <a href={DEV_DASHBOARD} target="_blank" rel="noreferrer">Dev Dashboard</a> → <strong>Settings</strong>.</li>
        <li>Copy the Client ID and the Client secret again and save them in step 1, then install again.</li>
      </ol>
    ),
  },
  expired: {
    title: 'This install link has expired or was already used',
    fix: <p>Install links work once and for 10 minutes. Start the install again from step 1: press <strong>Install the app</strong> and approve it on Shopify’s page.</p>,
  },
  denied: {
    title: 'The install was cancelled on Shopify’s page',
    fix: <p>Start the install again from step 1 and press <strong>Install</strong> on Shopify’s page: the checkout needs the access it asks for.</p>,
  },
  'other-shop': {
    title: 'Shopify sent you back for another shop',
    fix: (
      <p>
        The install must run on the shop you saved. Check the shop address in step 1 (<code>your-shop.myshopify.com</code>: in your Shopify admin, Settings →
        Domains shows it), save it, and install again while logged in to that shop.
      </p>
    ),
  },
  'access-not-granted': {
    title: 'The install did not grant the access the checkout needs',
    fix: (
      <ol>
        <li>Deploy your app’s project again (step 1, “Download your app’s project”, then <code>shopify app deploy</code>): it asks for the access the checkout needs.</li>
        <li>Install the app again and approve every access Shopify lists.</li>
      </ol>
    ),
  },
  'shop-unavailable': {
    title: 'Shopify did not answer',
    fix: <p>Nothing was changed. Wait a minute and start the install again from step 1.</p>,
  },
  'in-progress': {
    title: 'Another install of your app is running',
    fix: <p>Wait a few seconds and open step 1 again: it shows whether your shop is connected.</p>,
  },
  incomplete: {
    title: 'Shopify’s answer reached us incomplete',
    fix: <p>Start the install from step 1 with the <strong>Install the app</strong> button (not from a bookmark or a copied link).</p>,
  },
  failed: {
    title: 'The install could not be completed',
    fix: <p>Nothing was changed. Start the install again from step 1; if it fails again, write to support with the time and the code below.</p>,
  },
};

export function ConnectionProblemPage() {
  const { me } = useSession();
  const { query } = useLocation();
  const problem = PROBLEMS[query.get('problem') ?? ''] ?? PROBLEMS.failed!;
  const code = query.get('code');
  const inSetup = !me?.onboardingCompletedAt;
  const back = inSetup ? '/onboarding?step=1' : '/dashboard/connections';
  return (
    <>
      <PageHeader title="Your Shopify shop is not connected yet" description="The app install stopped before it finished. Nothing was saved from it." />
      <div class="stack" data-connection-problem={query.get('problem') ?? 'failed'}>
        <Alert kind="error" title={problem.title}>
          <div class="stack">{problem.fix}</div>
        </Alert>
        <p class="hint">
          Where each value is in Shopify: <a href={CREDENTIALS_DOC} target="_blank" rel="noreferrer">Shopify’s guide to your app’s credentials</a>.
        </p>
        <div class="button-row" data-back-to-step>
          <Link href={back} class="btn btn-primary">
            {inSetup ? 'Back to step 1: Platform' : 'Back to Store & payments'}
          </Link>
        </div>
        {code && <p class="muted small">Code for support: <code>{code}</code></p>}
      </div>
    </>
  );
}
