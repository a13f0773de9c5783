// A session's refund balance as the API reads it: what was charged, what came back, what is on its way back (the
// refunds table's rows), for the order detail's refundable amount and the refund route's checks before the workflow.
import { isCheckoutStatus } from '../../domain/checkout/checkout-status.js';
import { type RefundBalance } from '../../domain/checkout/refunds.js';

export function refundBalanceOf(
  session: { status: string; paymentMethod: string | null; totalMinor: number | null; refundedMinor: number },
  refunds: ReadonlyArray<{ state: string; amountMinor: number }>,
): RefundBalance {
  return {
    status: isCheckoutStatus(session.status) ? session.status : 'OPEN',
    paymentMethod: session.paymentMethod,
    totalMinor: session.totalMinor,
    refundedMinor: session.refundedMinor,
    pendingMinor: refunds.filter((r) => r.state === 'requested').reduce((n, r) => n + r.amountMinor, 0),
  };
}
