// Platform billing: the plan catalog, the current subscription, subscribe (pay the first period on the
// processor's page, which returns to /billing) and cancel (back to Demo at once). While on Demo, shoppers stay
// in the store's own checkout.
import { useEffect, useState } from 'preact/hooks';
import { api, type Answer } from '../api.js';
import { formatAmount, formatDate } from '../format.js';
import { useForm } from '../form.js';
import { useLocation } from '../router.js';
import { useLoad, useSession } from '../session.js';
import { Alert, Button, Card, ConfirmButton, Link, Outcome, PageHeader, Pill, Spinner } from '../ui.js';

/** GET /api/platform-billing/current. */
type CurrentPlan = Answer<'/api/platform-billing/current', 'get'>;

const ENDED: Record<NonNullable<CurrentPlan['endedReason']>, string> = {
  cancelled: 'you cancelled',
  grace_expired: 'the renewal could not be charged within the grace period',
  membership_ended: 'the subscription ended at the payment provider (cancelled, refunded or disputed there)',
  payment_failed: 'the first payment failed',
  payment_expired: 'the first payment was not made in time',
};


export const loadCurrent = () => api.get('/api/platform-billing/current');

const STATUS_LABEL: Record<string, string> = { DEMO: 'Demo', PENDING: 'Payment pending', ACTIVE: 'Active', PAST_DUE: 'Renewal failed: retrying' };

/** "Starter · active", "Demo", "Growth · payment pending". */
function PlanLine(props: { plan: CurrentPlan; big?: boolean }) {
  const c = props.plan;
  return (
    <div class={`status-line${props.big ? ' big' : ''}`} data-plan-status={c.status}>
      <strong>{c.planName}</strong>
      {c.status !== 'DEMO' && <Pill status={c.status} label={STATUS_LABEL[c.status] ?? c.status.toLowerCase()} />}
      {c.pending && <Pill status="PENDING" label={`${c.pending.planId.toLowerCase()} payment pending`} />}
    </div>
  );
}

export function BillingStatusLine() {
  const current = useLoad(loadCurrent);
  if (current.error) return <Alert kind="error">{current.error.message}</Alert>;
  const c = current.data;
  if (!c) return <Spinner />;
  const paid = c.paid;
  return (
    <div class="stack">
      <PlanLine plan={c} />
      {!paid && <p class="hint">A paid plan is needed before your checkout goes live: while on Demo, clicks on your store's checkout button stay in its own checkout.</p>}
      <Link href="/dashboard/billing?from=setup" class="btn btn-secondary btn-small">{paid ? 'Manage plan' : 'Choose a plan'}</Link>
    </div>
  );
}

export function BillingPage() {
  const { me } = useSession();
  const { query } = useLocation();
  const plans = useLoad(async () => (await api.get('/api/platform-billing/plans')).plans);
  const current = useLoad(loadCurrent);
  const action = useForm({});
  const returned = query.has('payment_id') || query.has('membership_id');
  const [waiting, setWaiting] = useState(returned);
  const c = current.data;
  const paid = c?.paid ?? false;

  // Back from the processor's page: the plan turns active when the processor confirms the payment.
  useEffect(() => {
    if (!waiting) return;
    if (paid) {
      setWaiting(false);
      return;
    }
    const started = Date.now();
    const timer = setInterval(() => {
      if (Date.now() - started > 60_000) setWaiting(false);
      else void current.reload();
    }, 1500);
    return () => clearInterval(timer);
  }, [waiting, paid]);

  const subscribe = (planId: string) =>
    action.run(async () => {
      const answer = await api.post('/api/platform-billing/subscribe', { body: { planId } });
      window.location.assign(answer.paymentUrl);
    });

  return (
    <>
      <PageHeader title="Billing" description="Your plan for the hosted checkout. Prices are per month, in EUR." />
      {returned && waiting && <Alert kind="info"><span class="spinner" aria-hidden="true" /> Payment received by the processor: activating your plan…</Alert>}
      {returned && !waiting && paid && <Alert kind="success" title="Plan active">Your checkout can go live. {me && !me.onboardingCompletedAt && <Link href="/onboarding">Back to the setup: mark it verified →</Link>}</Alert>}
      {returned && !waiting && !paid && <Alert kind="warning">The payment is not confirmed yet. If you completed it, this page updates within a minute; otherwise choose a plan again.</Alert>}
      {!returned && query.get('from') === 'setup' && !paid && <Alert kind="info">Setup verification needs an active paid plan. Choose one below; you come back here after paying.</Alert>}
      <Outcome of={action} />

      <Card title="Current plan">
        {current.error && <Alert kind="error">{current.error.message}</Alert>}
        {!c && !current.error && <Spinner />}
        {c && (
          <div class="stack">
            <PlanLine plan={c} big />
            <dl class="dl">
              {paid && <><dt>Price</dt><dd>{formatAmount(c.monthlyPriceCents, c.currency)} / month</dd></>}
              {c.currentPeriodEnd && <><dt>Current period ends</dt><dd>{formatDate(c.currentPeriodEnd)}</dd></>}
              {c.nextRenewalAt && <><dt>Next renewal</dt><dd>{formatDate(c.nextRenewalAt)}</dd></>}
              {c.status === 'PAST_DUE' && <><dt>Failed renewal charges</dt><dd>{c.renewalFailures}</dd></>}
              {c.graceUntil && <><dt>Grace period until</dt><dd>{formatDate(c.graceUntil)}</dd></>}
              {!paid && c.endedReason && <><dt>Back on Demo because</dt><dd>{ENDED[c.endedReason]}{c.cancelledAt && c.endedReason === 'cancelled' ? ` (${formatDate(c.cancelledAt)})` : ''}</dd></>}
            </dl>
            {c.status === 'PAST_DUE' && <Alert kind="warning">The last renewal could not be charged. We retry until {formatDate(c.graceUntil)}; after that your account returns to Demo.</Alert>}
            {c.pending && <a class="btn btn-primary" href={c.pending.paymentUrl}>Complete the payment for {plans.data?.find((p) => p.id === c.pending!.planId)?.name ?? c.pending.planId}</a>}
            {paid && (
              <ConfirmButton name="cancel-plan" confirm="Cancel now? Your account returns to Demo at once and shoppers use your store's own checkout." busy={action.busy} runner={action} action={async () => {
                await api.post('/api/platform-billing/cancel');
                await current.reload();
                return 'Subscription cancelled: your account is on Demo.';
              }}>
                Cancel subscription
              </ConfirmButton>
            )}
          </div>
        )}
      </Card>

      {plans.error && <Alert kind="error">{plans.error.message}</Alert>}
      <div class="plans">
        {(plans.data ?? []).map((p) => {
          const isCurrent = c?.planId === p.id && (p.monthlyPriceCents === 0 || paid);
          return (
            <section key={p.id} class={`plan card${isCurrent ? ' plan-current' : ''}`} aria-label={`${p.name} plan`} data-plan={p.id}>
              <div class="card-body">
                <h2>{p.name}</h2>
                <p class="plan-price">{p.monthlyPriceCents === 0 ? 'Free' : <>{formatAmount(p.monthlyPriceCents, p.currency)}<span class="muted"> / month</span></>}</p>
                <p class="muted">{p.description}</p>
                <ul class="plan-includes">{p.includes.map((i) => <li key={i}>{i}</li>)}</ul>
                {isCurrent ? (
                  <span class="pill pill-success">Current plan</span>
                ) : p.monthlyPriceCents > 0 ? (
                  <Button name={`subscribe-${p.id}`} busy={action.busy} onClick={() => void subscribe(p.id)}>{paid ? `Switch to ${p.name}` : `Subscribe to ${p.name}`}</Button>
                ) : null}
              </div>
            </section>
          );
        })}
      </div>
    </>
  );
}
