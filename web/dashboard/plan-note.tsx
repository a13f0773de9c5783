// Why a plan-limited setting (domain/merchant/plan-features.ts) is off, or on without effect, and the way to the plan that has it.
import { useSession } from './session.js';
import type { Merchant } from './types.js';
import { Link } from './ui.js';

/** The note beside a plan-limited setting; nothing when the plan has it live. */
export function PlanNote(props: { feature: keyof Merchant['plan']['features']; what: string; on?: boolean }) {
  const { me } = useSession();
  if (!me) return null;
  const f = me.plan.features[props.feature];
  if (f.availability === 'live') return null;
  const upgrade = <Link href="/dashboard/billing">{`Choose ${f.requiredPlanName} in Billing`}</Link>;
  return (
    <p class="plan-note muted" data-plan-note={props.feature}>
      {f.availability === 'setup'
        ? <>You can set up {props.what} on Demo and see it in the preview; shoppers get it with {f.requiredPlanName}. {upgrade}.</>
        : props.on
          ? <>On, but shoppers do not see it: your {me.plan.name} plan does not include {props.what}. {upgrade}.</>
          : <>Not included in your {me.plan.name} plan: {f.requiredPlanName} includes {props.what}. {upgrade}.</>}
    </p>
  );
}

