// The six-step onboarding wizard. Its state lives on the server (GET /api/merchant/onboarding), so it
// resumes where the merchant left off on any device; moving between steps saves the step
// (PATCH /api/merchant/onboarding). Going back or skipping through the stepper is always possible (the spec);
// Continue obeys the step's canContinue (what the step needs: a platform chosen, brand, a shipping rate, a usable
// payment method, the preview opened) and the server refuses it too (PATCH with continueFrom). Step 6 lists the
// five prerequisites and runs setup verification, showing what blocks, or going to billing. ?step=N opens step N
// (the connection-problem page links back to step 1 so).
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api, ApiError, type Answer } from '../api.js';
import { formatDate } from '../format.js';
import { useForm } from '../form.js';
import { navigate, useLocation } from '../router.js';
import { useLoad, useSession } from '../session.js';
import { Alert, Button, CheckItem, Link, Pill, Spinner } from '../ui.js';
import { BrandingForm } from './branding.js';
import { ShippingRatesForm, StoreCountries } from './shipping.js';
import { CodToggle, ProcessorConnection, StoreConnection } from './connections.js';
import { PreviewCard } from './preview.js';
import { BillingStatusLine } from './billing.js';

type OnboardingState = Answer<'/api/merchant/onboarding', 'get'>;

const INTRO: Record<number, string> = {
  1: 'Choose the platform your store runs on, Shopify or WooCommerce, and connect it. We read carts from it and create the orders there.',
  2: 'Your logo and two colors make the checkout yours. The preview shows what shoppers will see.',
  3: 'Add at least one shipping rate and say where it ships. Shoppers pick one that ships to their country; it is added to the total.',
  4: 'Connect Whop, which takes the card payments, or offer cash on delivery (a COD-only launch is fine). Whop needs one API key: we read your Business ID from it, create the Product and register the webhook with its secret.',
  5: 'Open a preview of your checkout once before going live.',
  6: 'Everything that must be true before your checkout takes over the store’s checkout button.',
};

function Stepper(props: { state: OnboardingState; current: number; go: (n: number) => void }) {
  return (
    <nav class="stepper" aria-label="Setup steps">
      <ol>
        {props.state.steps.map((s) => {
          const here = s.number === props.current;
          return (
            <li key={s.number} class={`step${here ? ' current' : ''}${s.filled ? ' filled' : ''}${s.unlocked ? '' : ' locked'}`}>
              <button type="button" onClick={() => props.go(s.number)} aria-current={here ? 'step' : undefined} data-step={s.number}>
                <span class="step-number" aria-hidden="true">{s.filled ? '✓' : s.number}</span>
                <span class="step-title">{s.title}</span>
                <span class="visually-hidden">{s.filled ? ' (done)' : s.unlocked ? '' : ' (previous step not done yet)'}</span>
              </button>
            </li>
          );
        })}
      </ol>
    </nav>
  );
}

function StepNav(props: { state: OnboardingState; current: number; go: (n: number, continueFrom?: number) => void; children?: ComponentChildren }) {
  const step = props.state.steps[props.current - 1]!;
  return (
    <div class="step-nav">
      <Button variant="ghost" disabled={props.current === 1} onClick={() => props.go(props.current - 1)}>← Back</Button>
      {props.children}
      {props.current < 6 && (
        <Button name="continue" disabled={!step.canContinue} onClick={() => props.go(props.current + 1, props.current)} title={step.canContinue ? undefined : step.reason ?? undefined}>
          Continue →
        </Button>
      )}
    </div>
  );
}

const BLOCKED_AT: Record<number, string> = {
  1: 'Step 1 of the verification: your setup',
  2: 'Step 2: a payment method',
  3: 'Step 3: an active plan',
  4: 'Step 4: checkout activation',
  5: 'Step 5: the script tag',
};

function FinalCheck(props: { state: OnboardingState; reload: () => Promise<void> }) {
  const { refresh } = useSession();
  const activation = useLoad(() => api.get('/api/merchant/checkout-activation'));
  const [result, setResult] = useState<Answer<'/api/merchant/setup-verification', 'post'> | null>(null);
  const form = useForm({});
  const verify = () =>
    form.run(async () => {
      const r = await api.post('/api/merchant/setup-verification');
      setResult(r);
      if (r.verified) {
        await refresh();
        navigate('/dashboard?welcome=1');
        return;
      }
      await Promise.all([props.reload(), activation.reload()]);
      if (r.redirect === 'billing') navigate('/dashboard/billing?from=setup');
    });
  const { prerequisites, ready } = props.state.finalCheck;
  return (
    <div class="stack">
      <ul class="checklist" aria-label="Final check">
        {prerequisites.map((p) => <CheckItem key={p.key} name={p.key} ok={p.ok} label={p.label} reason={p.reason} />)}
      </ul>
      <div class="grid-2">
        <div class="subtle-box">
          <h3>Plan</h3>
          <BillingStatusLine />
        </div>
        <div class="subtle-box" data-activation={activation.data?.active ? 'active' : 'inactive'}>
          <h3>Checkout activation</h3>
          {activation.loading && !activation.data && <Spinner label="Checking your store…" />}
          {activation.error && <Alert kind="error">{activation.error.message}</Alert>}
          {activation.data && (
            <ul class="checklist compact">
              <CheckItem ok={activation.data.realCheckoutExists} name="activation-real" label="A real checkout from your store" reason="Add a product to your store's cart and click its checkout button (a paid plan is needed first)." />
              {activation.data.storefrontA && (
                <CheckItem ok={activation.data.storefrontA.scriptTagInstalled === true} name="activation-script-tag" label="App embed on in your shop's theme" reason={activation.data.storefrontA.checkError ?? 'Turn it on in the theme editor (step 1 has the link) and Save.'} />
              )}
              {activation.data.storefrontB && <CheckItem ok={activation.data.storefrontB.pluginIntercepted} name="activation-plugin" label="Official plugin intercepted a checkout" reason="Activate the plugin and click checkout in your store." />}
            </ul>
          )}
          <Button variant="ghost" small onClick={() => void Promise.all([activation.reload(), props.reload()])}>Check again</Button>
        </div>
      </div>
      {result && !result.verified && (
        <Alert kind="error" title={`Setup not verified — ${BLOCKED_AT[result.blockedAt] ?? `step ${result.blockedAt}`}`}>
          <span data-blocked-code={result.code}>{result.reason}</span>
          {result.redirect === 'billing' && <div class="button-row"><Link href="/dashboard/billing?from=setup" class="btn btn-primary">Choose a plan</Link></div>}
        </Alert>
      )}
      {form.error && <Alert kind="error">{form.error}</Alert>}
      <div class="button-row">
        <Button name="verify-setup" onClick={() => void verify()} busy={form.busy}>Mark setup verified</Button>
        <span class="hint">{ready ? 'Everything is in place: verify to go live.' : 'Verification tells you exactly what still blocks.'}</span>
      </div>
      {result && (
        <details class="steps-report">
          <summary>What the verification checked</summary>
          <ol>
            {result.steps.map((s) => (
              <li key={s.step}>
                <Pill status={s.outcome === 'passed' ? 'ok' : s.outcome === 'blocked' ? 'FAILED' : 'ABANDONED'} label={s.outcome.replace('_', ' ')} /> {s.name}
                {s.detail && <span class="muted"> — {s.detail}</span>}
              </li>
            ))}
          </ol>
        </details>
      )}
    </div>
  );
}

export function Wizard() {
  const { me, logout } = useSession();
  const { query } = useLocation();
  const state = useLoad(() => api.get('/api/merchant/onboarding'));
  const [current, setCurrent] = useState<number | null>(null);
  const s = state.data;

  useEffect(() => {
    // Back from the storefront A install: show step 1 with its result first.
    if (s && current === null) {
      const asked = Number(query.get('step'));
      setCurrent(query.get('storefrontA') ? 1 : asked >= 1 && asked <= 6 ? asked : s.currentStep);
    }
  }, [s, current]);

  useEffect(() => {
    document.getElementById('wizard-step')?.focus();
  }, [current]);

  const [refusal, setRefusal] = useState<string | null>(null);
  /** Moves to step n. With continueFrom (the Continue button), the server checks that step has what it needs first. */
  const go = (n: number, continueFrom?: number) => {
    const step = Math.min(6, Math.max(1, n));
    setRefusal(null);
    if (continueFrom !== undefined) {
      void api.patch('/api/merchant/onboarding', { body: { currentStep: step, continueFrom } }).then(
        (next) => {
          state.setData(next);
          show(step);
        },
        (err: unknown) => setRefusal(err instanceof ApiError ? err.message : 'Could not continue: try again.'),
      );
      return;
    }
    show(step);
    // Saving the resume step is a convenience: a failure must not stop the merchant.
    api.patch('/api/merchant/onboarding', { body: { currentStep: step } }).catch(() => undefined);
    void state.reload();
  };
  const show = (step: number) => {
    setCurrent(step);
    // The install's "connected" note and a ?step= belong to the page they came with only.
    if (query.has('storefrontA') || query.has('step')) navigate('/onboarding', { replace: true });
    window.scrollTo(0, 0);
  };
  const reload = () => state.reload();

  if (!s || current === null) {
    return state.error ? (
      <div class="auth"><Alert kind="error">{state.error instanceof ApiError ? state.error.message : 'Could not load your setup.'}</Alert></div>
    ) : (
      <Spinner label="Loading your setup…" />
    );
  }
  const step = s.steps[current - 1]!;
  const done = s.steps.filter((x) => x.filled).length;
  return (
    <div class="wizard">
      <a class="skip-link" href="#wizard-step">Skip to the step</a>
      <header class="wizard-top">
        <div class="brand">
          <span class="brand-mark" aria-hidden="true">◆</span>
          <span>Checkout setup</span>
        </div>
        <div class="topbar-actions">
          <span class="muted">{me?.shopName}</span>
          <Link href="/dashboard/orders" class="btn btn-ghost btn-small">Skip to dashboard</Link>
          <button type="button" class="btn btn-ghost btn-small" onClick={() => void logout().then(() => navigate('/login'))}>Log out</button>
        </div>
      </header>
      <div class="wizard-body">
        <aside>
          <Stepper state={s} current={current} go={go} />
          <div class="progress" role="progressbar" aria-label="Setup progress" aria-valuemin={0} aria-valuemax={6} aria-valuenow={done}>
            <div class="progress-bar" style={{ width: `${(done / 6) * 100}%` }} />
          </div>
          <p class="hint">{done} of 6 steps done</p>
        </aside>
        <main class="wizard-main" id="wizard-step" tabIndex={-1} aria-labelledby="step-title">
          <p class="eyebrow">Step {current} of 6</p>
          <h1 id="step-title">{step.title}</h1>
          <p class="lead">{INTRO[current]}</p>
          {!step.filled && step.reason && current !== 6 && <p class="step-reason" data-step-reason={step.code ?? ''}>{step.reason}</p>}

          <div class="card wizard-card">
            {current === 1 && <StoreConnection onChange={reload} justInstalled={query.get('storefrontA') === 'connected'} />}
            {current === 2 && <BrandingForm onSaved={() => go(3)} submitLabel="Save and continue" />}
            {current === 3 && (
              <div class="stack">
                <StoreCountries />
                <ShippingRatesForm onSaved={() => go(4)} submitLabel="Save and continue" />
              </div>
            )}
            {current === 4 && (
              <div class="stack">
                <h2 class="h3">Card payments with Whop</h2>
                <ProcessorConnection onChange={reload} />
                <h2 class="h3">Cash on delivery</h2>
                <CodToggle onChange={reload} />
              </div>
            )}
            {current === 5 && <PreviewCard onOpened={reload} openedAt={s.preview.openedAt} />}
            {current === 6 && <FinalCheck state={s} reload={reload} />}
          </div>
          {refusal && <Alert kind="error" title="This step is not done yet"><span data-continue-refused>{refusal}</span></Alert>}
          <StepNav state={s} current={current} go={go} />
          {s.completed && <p class="hint">Setup verified {formatDate(s.onboardingCompletedAt)}. <Link href="/dashboard">Go to the dashboard</Link></p>}
        </main>
      </div>
    </div>
  );
}
