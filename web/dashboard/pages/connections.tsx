// Store and payment connections: Shopify (storefront A: OAuth app install) or WooCommerce (storefront B: REST keys +
// plugin), our app embed in a Shopify theme, Whop (the processor: API key) and cash on delivery. Secrets are
// write-only: the API never returns them, so the forms show what is stored (last 4 characters, booleans). Every
// credential field says where to find it on the platform, with a link to the platform's own docs.
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { api, apiHref, ApiError } from '../api.js';
import { formatDate } from '../format.js';
import { invalid, useForm, type FormState } from '../form.js';
import { useLoad, useSession } from '../session.js';
import type { ApplePayDomain, Merchant, ProcessorStatus, StorefrontAConnection, WalletStatus } from '../types.js';
import { Alert, Button, Card, Checkbox, CheckItem, ConfirmButton, Field, Form, Outcome, PageHeader, Pill, recordColumns, SelectField, Spinner, Table, type Runner } from '../ui.js';
import { PlanNote } from '../plan-note.js';

type Platform = 'storefront-a' | 'storefront-b';

/** What stops working while the shop has not granted a scope the checkout asks for. */
const SCOPE_EFFECTS: Record<string, string> = {
  write_orders: 'refunds are not recorded on your shop\'s orders: record them there by hand (the shopper is refunded either way)',
  write_draft_orders: 'paid checkouts cannot become orders on your shop',
  unauthenticated_write_checkouts: 'shoppers\' carts keep the items they paid for',
  unauthenticated_read_checkouts: 'shoppers cannot check out (their cart cannot be read)',
  read_themes: 'the dashboard cannot tell whether the checkout button is on',
  read_legal_policies: 'your checkout shows no links to your refund, privacy and terms policies',
};

/**
 * A credential the merchant copies from a platform: the field with its value and error in `form`, and under it where
 * to find the value on the platform (the children), marked `data-help` with the field's name.
 */
function CredentialField<N extends string>(props: {
  form: Pick<FormState<Record<N, string>>, 'values' | 'errors' | 'set'>;
  name: N;
  label: string;
  children: ComponentChildren;
  type?: 'password' | 'url';
  placeholder?: string;
  autoComplete?: 'off';
}) {
  const { form, name } = props;
  return (
    <Field
      label={props.label}
      name={name}
      type={props.type}
      value={form.values[name]}
      onInput={(v) => form.set(name, v)}
      error={form.errors[name]}
      placeholder={props.placeholder}
      autoComplete={props.autoComplete}
      hint={<span data-help={name}>{props.children}</span>}
    />
  );
}

/**
 * A connection's Disconnect: asks first, then deletes the connection, reloads what shows it and tells the page. What
 * came of it shows through the runner (<Outcome>) outside the button, which goes away with the connection.
 */
function Disconnect(props: {
  route: '/api/merchant/storefront-a' | '/api/merchant/storefront-b' | '/api/merchant/processor';
  confirm: string;
  runner: Runner;
  reload: () => Promise<unknown>;
  onChange: (() => void) | undefined;
  /** What to say, given the API's warning (storefront A: a legacy script tag it could not remove). */
  done: (warning: string | null) => string;
}) {
  const action = async () => {
    const answer = await api.del(props.route);
    await props.reload();
    props.onChange?.();
    return props.done('warning' in answer ? answer.warning : null);
  };
  return <ConfirmButton confirm={props.confirm} busy={props.runner.busy} runner={props.runner} action={action}>Disconnect</ConfirmButton>;
}

async function loadStorefrontA(): Promise<StorefrontAConnection | null> {
  try {
    return await api.get('/api/merchant/storefront-a');
  } catch (err) {
    if (err instanceof ApiError && err.code === 'NOT_FOUND') return null;
    throw err;
  }
}

function StorefrontAPanel(props: { onChange?: () => void; justInstalled?: boolean }) {
  const { refresh } = useSession();
  const current = useLoad(loadStorefrontA);
  const conn = current.data;
  const [editing, setEditing] = useState(false);
  const form = useForm({ shop: '', clientId: '', clientSecret: '' });
  const disconnect = useForm({});

  if (current.loading && conn === undefined) return <Spinner />;
  const showForm = !conn || editing || !conn.connected;

  const submit = () =>
    form.run(async () => {
      const problems: Record<string, string> = {};
      if (!form.values.shop.trim()) problems.shop = 'enter your shop address, e.g. my-shop.myshopify.com';
      if (!form.values.clientId.trim()) problems.clientId = 'enter the client ID of your Shopify app (Dev Dashboard → your app → Settings)';
      if (!form.values.clientSecret.trim()) problems.clientSecret = 'enter the client secret of your Shopify app (same page as the client ID)';
      if (Object.keys(problems).length) throw invalid(problems);
      const saved = await api.put('/api/merchant/storefront-a', { body: form.values });
      await refresh();
      // The platform's consent page, then back to /dashboard?storefrontA=connected.
      window.location.assign(saved.installUrl);
    });

  return (
    <div class="stack">
      {conn && (
        <div class="status-line" data-connection="storefront-a">
          <Pill status={conn.connected ? 'CONNECTED' : 'PENDING'} label={conn.connected ? 'Connected' : conn.uninstalledAt ? 'Uninstalled' : 'Install not completed'} />
          <span>
            <strong>{conn.shop}</strong>
            {conn.installedAt && <span class="muted"> · installed {formatDate(conn.installedAt)}</span>}
          </span>
        </div>
      )}
      {conn?.connected && conn.scopes.length > 0 && <p class="hint">Access granted: {conn.scopes.join(', ')}</p>}
      {conn?.connected && conn.missingScopes.length > 0 && !conn.pending && (
        <Alert kind="warning" title="Reinstall the app to grant new access">
          The app was installed before the checkout asked for {conn.missingScopes.join(', ')}. Until you reinstall it:
          <ul>{conn.missingScopes.map((scope) => <li key={scope}>{SCOPE_EFFECTS[scope] ?? `what needs ${scope} does not work`}</li>)}</ul>
          <div class="button-row"><a class="btn btn-primary" href={conn.installUrl}>Reinstall the app on {conn.shop}</a></div>
        </Alert>
      )}
      {conn?.connected && <AppEmbedStatus justInstalled={props.justInstalled} />}
      {conn?.pending && (
        <Alert kind="info" title={`New app details for ${conn.pending.shop} wait for their install`}>
          Your connection to {conn.shop} keeps working until the install completes; if it does not, nothing changes.
          <div class="button-row"><a class="btn btn-primary" href={conn.installUrl}>Install the app on {conn.pending.shop}</a></div>
        </Alert>
      )}
      {conn && !conn.connected && (
        <Alert kind="warning">
          {conn.uninstalledAt ? 'The app was uninstalled from your shop.' : 'The app install was not completed.'} Run the install again to connect.
          <div class="button-row"><a class="btn btn-primary" href={conn.installUrl}>Install the app on {conn.shop}</a></div>
        </Alert>
      )}
      {showForm && <StorefrontAAppSteps saved={Boolean(conn)} />}
      {showForm ? (
        <Form onSubmit={submit} error={form.error} label="Shopify install">
          <CredentialField form={form} name="shop" label="Shop address" placeholder={conn?.shop ?? 'my-shop.myshopify.com'}>
            Your shop's <code>….myshopify.com</code> address (not your own domain): in your Shopify admin, Settings → Domains lists it.
          </CredentialField>
          <CredentialField form={form} name="clientId" label="App client ID" placeholder={conn?.clientId ?? ''} autoComplete="off">
            In Shopify's <a href="https://dev.shopify.com/dashboard/" target="_blank" rel="noreferrer">Dev Dashboard</a> (or Partners → Apps): open the app you
            created for your shop → <strong>Settings</strong> → <strong>Client ID</strong>. <a href="https://shopify.dev/docs/apps/build/dev-dashboard/get-api-access-tokens" target="_blank" rel="noreferrer">Shopify's guide</a>
          </CredentialField>
          <CredentialField form={form} name="clientSecret" label="App client secret" type="password" autoComplete="off">
            Same page, <strong>Client secret</strong> (starts with <code>shpss_</code>): reveal it and copy the whole value. Shopify signs the install with it, so a
            wrong one stops the install. Stored encrypted; never shown again.
          </CredentialField>
          <div class="button-row">
            <Button type="submit" busy={form.busy}>Save and install the app</Button>
            {editing && <Button variant="ghost" onClick={() => setEditing(false)}>Cancel</Button>}
          </div>
          <p class="hint">You will approve the install on your shop's page, then come back here.</p>
        </Form>
      ) : (
        <div class="button-row">
          {!conn.pending && <a class="btn btn-secondary" href={conn.installUrl}>Reinstall the app</a>}
          <Button variant="ghost" onClick={() => setEditing(true)}>Change shop or app</Button>
          <Disconnect
            route="/api/merchant/storefront-a"
            confirm="Remove any legacy script tag of ours and forget this shop?"
            runner={disconnect}
            reload={() => Promise.all([current.reload(), refresh()])}
            onChange={props.onChange}
            done={(warning) => (warning ? `Disconnected. ${warning}` : 'Disconnected: the checkout button goes to your store’s own checkout again.')}
          />
        </div>
      )}
      <Outcome of={disconnect} />
    </div>
  );
}

function StorefrontBPanel(props: { onChange?: () => void }) {
  const { refresh } = useSession();
  const current = useLoad(() => api.get('/api/merchant/storefront-b'));
  const [result, setResult] = useState<{ pluginActive?: boolean; currency?: string } | null>(null);
  const form = useForm({ storeUrl: '', consumerKey: '', consumerSecret: '' });
  const disconnect = useForm({});
  const status = current.data;
  if (!status) return current.error ? <Alert kind="error">{current.error.message}</Alert> : <Spinner />;

  const submit = () =>
    form.run(async () => {
      const problems: Record<string, string> = {};
      if (!form.values.storeUrl.trim()) problems.storeUrl = 'enter your store address (https://…)';
      if (!form.values.consumerKey.trim()) problems.consumerKey = 'enter the WooCommerce REST consumer key (ck_…)';
      if (!form.values.consumerSecret.trim()) problems.consumerSecret = 'enter the WooCommerce REST consumer secret (cs_…)';
      if (Object.keys(problems).length) throw invalid(problems);
      try {
        const r = await api.post('/api/merchant/storefront-b/connect', { body: form.values });
        setResult({ pluginActive: r.pluginActive, currency: r.currency });
      } catch (err) {
        if (err instanceof ApiError && err.code === 'INVALID_STORE_CREDENTIALS') throw invalid({ consumerKey: err.message });
        throw err;
      }
      form.setAll({ storeUrl: '', consumerKey: '', consumerSecret: '' });
      await Promise.all([current.reload(), refresh()]);
      props.onChange?.();
      return 'Store connected.';
    });

  return (
    <div class="stack">
      <PluginInstall />
      {status.connected && (
        <>
          <div class="status-line" data-connection="storefront-b">
            <Pill status="CONNECTED" label="Connected" />
            <span>
              <strong>{status.storeUrl}</strong> <span class="muted">· key …{status.consumerKeyLast4} · since {formatDate(status.connectedAt)}</span>
            </span>
          </div>
          <ul class="checklist">
            <CheckItem ok={status.pluginInterceptedAt !== null} label="Our official plugin has sent a checkout" reason="Install and activate the plugin in your store, then click checkout once." />
          </ul>
          {result && result.pluginActive === false && <Alert kind="warning">The store reports our plugin as inactive: activate it so it can send checkouts here.</Alert>}
          {result?.currency && <p class="hint">Store currency: {result.currency}</p>}
        </>
      )}
      <Form onSubmit={submit} error={form.error} notice={form.notice} label="WooCommerce connection">
        <CredentialField form={form} name="storeUrl" label="Store URL" type="url" placeholder={status.connected ? status.storeUrl : 'https://shop.example'}>
          Your store's home page address, https://…, as shoppers open it (WordPress → Settings → General → Site Address).
        </CredentialField>
        <CredentialField form={form} name="consumerKey" label="Consumer key" autoComplete="off" placeholder="ck_…">
          In your WordPress admin: WooCommerce → Settings → Advanced → REST API → <strong>Add key</strong>, user an administrator or shop manager, Permissions
          <strong> Read/Write</strong>, Generate API key; copy the Consumer key (<code>ck_…</code>). <a href="https://developer.woocommerce.com/docs/apis/rest-api/authentication/" target="_blank" rel="noreferrer">WooCommerce's guide</a>
        </CredentialField>
        <CredentialField form={form} name="consumerSecret" label="Consumer secret" type="password" autoComplete="off" placeholder="cs_…">
          Shown beside the key only once, when WooCommerce generates it (<code>cs_…</code>). Stored encrypted, never shown again.
        </CredentialField>
        <div class="button-row">
          <Button type="submit" busy={form.busy}>{status.connected ? 'Replace keys' : 'Connect store'}</Button>
          {status.connected && (
            <Disconnect
              route="/api/merchant/storefront-b"
              confirm="Disconnect this store?"
              runner={disconnect}
              reload={() => Promise.all([current.reload(), refresh()])}
              onChange={props.onChange}
              done={() => 'Store disconnected.'}
            />
          )}
        </div>
      </Form>
      {disconnect.error && <Alert kind="error">{disconnect.error}</Alert>}
    </div>
  );
}

/**
 * Storefront A: the merchant's own app, step by step (Dev Dashboard app, its configuration and our app embed deployed
 * with Shopify CLI from the project the API builds for that app, then the install and the embed switched on).
 */
function StorefrontAAppSteps(props: { saved: boolean }) {
  return (
    <section class="stack" data-app-steps>
      <ol class="hint">
        <li>
          Create an app for your shop in Shopify's <a href="https://dev.shopify.com/dashboard/" target="_blank" rel="noreferrer">Dev Dashboard</a>{' '}
          (<a href="https://shopify.dev/docs/apps/build/dev-dashboard/create-apps-using-dev-dashboard" target="_blank" rel="noreferrer">how</a>), and copy its client id and client secret from its Settings.
        </li>
        <li>Enter them below with your shop address and save.</li>
        <li>
          {props.saved ? (
            <a href={apiHref('/api/merchant/storefront-a/app.zip')} download>Download your app's project (zip)</a>
          ) : (
            "Download your app's project (after saving)"
          )}
          : its configuration (access, redirect URL, privacy webhooks) and our checkout button. Unzip it and run{' '}
          <code>npx --yes @shopify/cli@4.8.2 app deploy --allow-updates</code> in its folder (Node 20 or newer; Shopify CLI asks you to log in, or
          uses an <a href="https://shopify.dev/docs/apps/build/dev-dashboard/app-automation-tokens" target="_blank" rel="noreferrer">App Automation Token</a> set as{' '}
          <code>SHOPIFY_APP_AUTOMATION_TOKEN</code>).
        </li>
        <li>Install the app with the button here and approve it on your shop's page.</li>
        <li>Turn the checkout button on: "Turn on the app embed in the theme editor" (shown here once installed) opens your theme editor with our app embed; save there.</li>
      </ol>
    </section>
  );
}

/** The plugin zip (served by the API with the session cookie) and how to install it. */
function PluginInstall() {
  return (
    <section class="stack" data-plugin-install>
      <p>
        <a class="btn btn-secondary" href={apiHref('/api/merchant/storefront-b/plugin.zip')} download>
          Download the plugin (zip)
        </a>
      </p>
      <ol class="hint">
        <li>In your store's WordPress admin: Plugins → Add New → Upload Plugin, choose the zip, Install Now, then Activate.</li>
        <li>
          WooCommerce → Settings → Advanced → REST API → Add key: Read/Write, for an administrator or shop manager (WordPress permalinks must not be
          “Plain”: Settings → Permalinks).
        </li>
        <li>Connect the store below with that consumer key and secret.</li>
        <li>
          WooCommerce → Hosted Checkout (our plugin's settings): enter the service URL <code>{location.origin}</code> and the same consumer key, then press
          "Test connection". If it fails, the plugin says why: most often the key differs from the one connected here, or the store URL above is not the store's.
        </li>
        <li>Put something in your store's cart and go to checkout once: the plugin sends it here, which completes the setup check.</li>
      </ol>
    </section>
  );
}

/** Wizard step 1 and the Store card: choose the platform, then connect it. */
export function StoreConnection(props: { onChange?: () => void; justInstalled?: boolean }) {
  const { me, setMe } = useSession();
  const [platform, setPlatform] = useState<Platform | null>(me?.storePlatform ?? null);
  const choose = async (p: Platform) => {
    setPlatform(p);
    // Remember the choice (the wizard resumes with it); connecting confirms it anyway.
    if (me?.storePlatform !== p && !me?.shopDomain) {
      try {
        setMe(await api.patch('/api/merchant/shop', { body: { storePlatform: p } }));
      } catch {
        // Only a convenience: connecting sets the platform too.
      }
    }
    // The wizard's Continue follows the stored choice.
    props.onChange?.();
  };
  return (
    <div class="stack store-connection">
      <div class="choice-grid" role="radiogroup" aria-label="Store platform">
        {([
          ['storefront-a', 'Shopify', 'Install your own Shopify app on your shop; its app embed sends the checkout button here.'],
          ['storefront-b', 'WooCommerce', 'Your WordPress store: REST API keys plus our plugin, which sends the checkout button here.'],
        ] as const).map(([value, title, text]) => (
          <label class={`choice${platform === value ? ' selected' : ''}`} key={value}>
            <input type="radio" name="platform" value={value} checked={platform === value} onChange={() => void choose(value)} />
            <span class="choice-title">{title}</span>
            <span class="choice-text">{text}</span>
          </label>
        ))}
      </div>
      {platform === 'storefront-a' && <StorefrontAPanel onChange={props.onChange} justInstalled={props.justInstalled} />}
      {platform === 'storefront-b' && <StorefrontBPanel onChange={props.onChange} />}
    </div>
  );
}

/**
 * Storefront A's interception: our app embed in the shop's published theme (only the merchant can turn it on,
 * in the theme editor, through the activation link), checked live at the shop; a legacy script tag is removed.
 * Shown in wizard step 1 (once installed) and on Store & payments.
 */
export function AppEmbedStatus(props: { justInstalled?: boolean | undefined }) {
  const status = useLoad(() => api.get('/api/merchant/script-tag/status'));
  const install = useForm({});
  const s = status.data;
  return (
    <div class="stack" id="app-embed" data-app-embed={s ? (s.installed ? 'on' : 'off') : 'unknown'}>
      {/* Back from the install: the banner reads the same live status as the checklist below, so the two never disagree. */}
      {props.justInstalled && (
        <Alert kind={s?.installed ? 'success' : 'info'} title="Shopify app installed: your shop is connected">
          <span data-install-banner={s ? (s.installed ? 'on' : 'off') : 'unknown'}>
            {!s ? 'Checking the app embed in your theme…' : s.installed ? `Our app embed is on in ${s.themeName ?? 'your published theme'}: the checkout button comes here.` : 'One step left: the app embed is off in your theme. Turn it on below, then Save in the theme editor.'}
          </span>
        </Alert>
      )}
      <p class="hint">Our app embed in your shop's theme sends the checkout button to your hosted checkout. Checked live at the shop.</p>
      {status.loading && !s && <Spinner label="Asking your shop…" />}
      {status.error && !s && <Alert kind={status.error instanceof ApiError && status.error.code === 'CONFLICT' ? 'info' : 'error'}>{status.error.message}</Alert>}
      {s && (
        <ul class="checklist">
          <CheckItem ok={s.installed} name="app-embed" label={s.installed ? `App embed on in ${s.themeName ?? 'your published theme'}` : `App embed off in ${s.themeName ?? 'your published theme'}`} reason="Open the theme editor with the link below, check that “Hosted checkout” is on, and Save." />
          {s.scriptTagId && <CheckItem ok={false} name="legacy-script-tag" label="A legacy script tag of ours is still in your shop" reason="Script tags stop running on 1 March 2027: “Check again” removes it." />}
          <li class="muted small">Checked {formatDate(s.checkedAt)}</li>
        </ul>
      )}
      <div class="button-row">
        {s && !s.installed && <a class="btn btn-primary" href={s.activationUrl} target="_blank" rel="noopener" data-activation-link>Turn on the app embed in the theme editor</a>}
        <Button variant="secondary" small busy={install.busy} onClick={() => void install.run(async () => {
          const next = await api.post('/api/merchant/script-tag/install');
          status.setData(next);
          return next.installed ? 'The app embed is on.' : 'Checked: the app embed is still off. Turn it on in the theme editor, then check again.';
        })}>
          Check again
        </Button>
      </div>
      <Outcome of={install} />
    </div>
  );
}

/** Wizard step 4 and the Payments card: the processor API key, what it set up, and wallets. */
export function ProcessorConnection(props: { onChange?: () => void }) {
  // Connecting answers the connection without `wallets`: they show again at the next load.
  const current = useLoad<Omit<ProcessorStatus, 'wallets'> & Partial<Pick<ProcessorStatus, 'wallets'>>>(() => api.get('/api/merchant/processor'));
  const form = useForm({ apiKey: '' });
  const disconnect = useForm({});
  const s = current.data;
  const submit = () =>
    form.run(async () => {
      if (!form.values.apiKey.trim()) throw invalid({ apiKey: 'paste a Company API key of your Whop business (Whop dashboard → Developer)' });
      try {
        current.setData(await api.post('/api/merchant/processor/connect', { body: { apiKey: form.values.apiKey.trim() } }));
      } catch (err) {
        // The previous connection is unchanged; the status now says why the new key was not taken.
        void current.reload();
        if (err instanceof ApiError && err.code === 'INVALID_PROCESSOR_KEY') throw invalid({ apiKey: err.message });
        throw err;
      }
      form.setAll({ apiKey: '' });
      props.onChange?.();
      return 'Whop connected.';
    });
  return (
    <div class="stack">
      {!s && (current.error ? <Alert kind="error">{current.error.message}</Alert> : <Spinner />)}
      {s && (
        <>
          <div class="status-line" data-connection="processor">
            <Pill status={s.ready ? 'CONNECTED' : s.status ?? 'DEMO'} label={s.ready ? 'Ready' : s.status ? s.status.toLowerCase() : 'Not connected'} />
            {s.apiKeyLast4 && <span class="muted">API key …{s.apiKeyLast4}{s.connectedAt ? ` · connected ${formatDate(s.connectedAt)}` : ''}</span>}
          </div>
          {s.status && (
            <ul class="checklist" aria-label="Processor readiness">
              <CheckItem ok={!!s.businessId} name="businessId" label={<>Business ID {s.businessId && <code>{s.businessId}</code>}</>} reason="The key did not lead to a business: create the key inside the business you sell with (the business switcher in your Whop dashboard), then connect again." />
              <CheckItem ok={!!s.productId} name="productId" label={<>Product ID {s.productId && <code>{s.productId}</code>}</>} reason="The checkout product was not created yet: the key needs permission to create products; connect again." />
              <CheckItem ok={s.webhookRegistered} name="webhook" label="Webhook registered, secret stored" reason="Payment updates cannot reach us yet: the key needs permission to create webhooks; connect again." />
              {/* Why not: the plan note below says it, with the plan to choose. */}
              {s.wallets && (
                <CheckItem
                  ok={s.wallets.ready}
                  name="wallets"
                  label={s.wallets.status === 'embedded' ? 'Apple Pay in your checkout page (optional)' : "Apple Pay and Google Pay on Whop's checkout page (optional)"}
                />
              )}
            </ul>
          )}
          {s.wallets && (
            // Whop's hosted page: nothing to set up, the plan decides. The embedded page: Apple Pay once Whop verified the
            // checkout host (model/merchant/wallets.ts).
            <div class="wallets" data-wallets={s.wallets.status}>
              {(s.wallets.ready || s.wallets.status === 'embedded') && <p class="muted">{s.wallets.statusMessage}</p>}
              {s.wallets.status === 'embedded' && s.wallets.applePayDomain && (
                <ApplePayDomainPanel domain={s.wallets.applePayDomain} onChange={(wallets) => current.setData({ ...s, wallets })} />
              )}
              <PlanNote feature="wallets" what="wallet payments (Apple Pay, Google Pay)" />
            </div>
          )}
          {s.lastError && (
            <Alert kind="error" title={s.attempt ? `The key …${s.attempt.apiKeyLast4} was not taken` : 'Last connection attempt failed'}>
              {s.lastError}
              {s.connected && ` Your connection with the key …${s.apiKeyLast4} keeps working.`}
            </Alert>
          )}
        </>
      )}
      <Form onSubmit={submit} error={form.error} notice={form.notice} label="Processor connection">
        <CredentialField form={form} name="apiKey" label={s?.connected ? 'Replace the Whop API key' : 'Whop API key'} type="password" autoComplete="off" placeholder="sk_…">
          In your <a href="https://whop.com/dashboard" target="_blank" rel="noreferrer">Whop dashboard</a>, choose your business, open <strong>Developer</strong> →
          Company API keys → <strong>Create</strong>, give it the <strong>Admin</strong> role (or permissions to read your business, create products, checkout
          configurations and webhooks, and read and refund payments) and copy the key. <a href="https://docs.whop.com/developer/api/getting-started" target="_blank" rel="noreferrer">Whop's guide</a>. Stored encrypted.
        </CredentialField>
        <WhopValuesHelp />
        <div class="button-row">
          <Button type="submit" busy={form.busy}>{form.busy ? 'Connecting…' : 'Connect Whop'}</Button>
          {s?.status && (
            <Disconnect route="/api/merchant/processor" confirm="Disconnect Whop? Card payments stop." runner={disconnect} reload={current.reload} onChange={props.onChange} done={() => 'Whop disconnected.'} />
          )}
        </div>
      </Form>
      <Outcome of={disconnect} />
    </div>
  );
}

const APPLE_PAY_STATUS: Record<ApplePayDomain['status'], string> = {
  not_registered: 'Not registered with Whop',
  pending: 'Whop is registering it with Apple',
  ready: 'Ready: registered with Apple',
  action_required: 'Apple could not verify it',
  releasing: 'Whop is removing it from Apple',
};

/** The checkout host registered with Whop for Apple Pay in the embedded checkout: its status, what Whop asks, Check again. */
function ApplePayDomainPanel(props: { domain: ApplePayDomain; onChange: (wallets: WalletStatus) => void }) {
  const d = props.domain;
  const action = useForm({});
  const registered = d.status === 'pending' || d.status === 'ready' || d.status === 'action_required';
  const run = () =>
    void action.run(async () => {
      const wallets = await api.post('/api/merchant/processor/apple-pay-domain', { body: {} });
      props.onChange(wallets);
      return wallets.applePayDomain?.status === 'ready' ? 'Apple Pay is ready on your checkout page.' : "Whop was asked: its answer is shown here.";
    });
  return (
    <div class="apple-pay-domain" data-apple-pay-status={d.status}>
      <dl class="dl">
        <dt>Checkout host</dt><dd><code>{d.hostname}</code></dd>
        <dt>Apple Pay</dt><dd>{APPLE_PAY_STATUS[d.status]}{d.checkedAt && <span class="muted"> · checked {formatDate(d.checkedAt)}</span>}</dd>
      </dl>
      {d.status !== 'ready' && d.issues.map((issue) => (
        // Whop's own words and records (its Domains API issue for apple_pay), shown as Whop sent them.
        <div class="apple-pay-issue" data-issue={issue.code} key={issue.code}>
          <p><strong>Whop says:</strong> {issue.message}</p>
          {issue.dnsRecords.length > 0 && (
            <Table name="whop domain records" class="records-table" labels label="DNS records Whop asks for" columns={recordColumns()} rows={issue.dnsRecords} rowKey={(r) => `${r.type}-${r.name}-${r.value}`} />
          )}
          {issue.codeBlock && <pre aria-label="Code Whop asks you to add"><code>{issue.codeBlock}</code></pre>}
          <p class="hint">Once that is done, check again.</p>
        </div>
      ))}
      <div class="button-row">
        <Button name="apple-pay-domain" variant="secondary" busy={action.busy} onClick={run}>
          {registered ? 'Check again' : 'Register for Apple Pay'}
        </Button>
      </div>
      <Outcome of={action} />
    </div>
  );
}

/**
 * Where the three values step 4 needs come from. The merchant types none of them: the API key leads to them (GET
 * /accounts/me, POST /products, POST /webhooks at Whop), and each is where Whop's dashboard shows it, to check.
 */
function WhopValuesHelp() {
  return (
    <details class="hint" data-help="whop-values">
      <summary>Business ID, Product ID and webhook secret: where they come from</summary>
      <ul>
        <li>
          <strong>Business ID</strong> (<code>biz_…</code>): the Whop business your API key belongs to, the one chosen in the business switcher of your Whop
          dashboard when you created the key. We read it from the key and show it here once connected.
        </li>
        <li><strong>Product ID</strong> (<code>prod_…</code>): a hidden product “Hosted checkout” we create in that business for your checkouts; Whop's dashboard lists it under Products.</li>
        <li>
          <strong>Webhook secret</strong>: we register our webhook in your business (it then shows on the Developer page of Whop's dashboard) and keep the secret
          Whop gives us for it, encrypted; you never copy it. <a href="https://docs.whop.com/developer/api/getting-started" target="_blank" rel="noreferrer">Whop's developer docs</a>
        </li>
      </ul>
      <p>If one stays unchecked after connecting, the reason beside it says what the key lacks.</p>
    </details>
  );
}

export function CodToggle(props: { onChange?: () => void }) {
  const { me, setMe } = useSession();
  const form = useForm({});
  const on = me?.codEnabled ?? false;
  // Off and not on the plan: it cannot be switched on (the API would refuse); on (from an earlier plan): it can be switched off.
  const locked = me?.plan.features.cod.availability === 'none' && !on;
  return (
    <div>
      <Checkbox
        label="Offer cash on delivery"
        name="codEnabled"
        checked={on}
        disabled={form.busy || locked}
        hint="The order is created in your store as pending payment; you mark it paid when the money arrives."
        onChange={(checked) =>
          void form.run(async () => {
            setMe(await api.patch('/api/merchant/config', { body: { codEnabled: checked } }));
            props.onChange?.();
          })
        }
      />
      <PlanNote feature="cod" what="cash on delivery" on={on} />
      {form.error && <Alert kind="error">{form.error}</Alert>}
    </div>
  );
}

/** Where shoppers pay by card: inside the checkout (Whop's embedded checkout) or on Whop's own page. */
export function PaymentPageChoice() {
  const { me, setMe } = useSession();
  const form = useForm({});
  const value = me?.paymentPage ?? 'embedded';
  return (
    <div>
      <SelectField
        label="Where shoppers pay by card"
        name="paymentPage"
        value={value}
        onChange={(choice) =>
          void form.run(async () => {
            setMe(await api.patch('/api/merchant/config', { body: { paymentPage: choice as Merchant['paymentPage'] } }));
            return choice === 'embedded' ? 'Shoppers pay on your checkout page.' : "Shoppers pay on Whop's payment page.";
          })
        }
        options={[
          { value: 'embedded', label: 'On your checkout page (recommended)' },
          { value: 'hosted', label: "On Whop's payment page" },
        ]}
        hint="On your checkout page, Whop's card form sits inside your branded page, already filled in with the shopper's email and address; if it cannot load, the shopper goes on to Whop's page. On Whop's page, the shopper leaves your page to pay."
      />
      <Outcome of={form} />
    </div>
  );
}

export function ConnectionsPage() {
  return (
    <>
      <PageHeader title="Store & payments" description="Where carts come from (Shopify or WooCommerce) and how shoppers pay (Whop, cash on delivery)." />
      <Card title="Store">
        <StoreConnection />
      </Card>
      <Card title="Payments with Whop">
        <ProcessorConnection />
      </Card>
      <Card title="Payment page">
        <PaymentPageChoice />
      </Card>
      <Card title="Cash on delivery">
        <CodToggle />
      </Card>
    </>
  );
}
