// The session as it really is, followed whatever order the processor's redirect and webhooks arrive in. The page
// never concludes from how it was reached: back from the processor (`?payment_id=…&checkout_status=…`) it asks the
// API to confirm with the processor (POST pay, once) and then reads the status (GET session) until it settles; a
// pending or failed payment is followed quietly in the background (a late success turns the page into the
// confirmation), and a paid order until the store has given it its number.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../shared/api.js';
import { isPageOutcome } from '../../domain/checkout/checkout-status.js';
import type { SessionStatus, Status } from './types.js';

export type StoreOrderState = NonNullable<SessionStatus['storeOrder']>['state'];

/** How long after a return from the processor the page shows "Confirming your payment…" before it offers the next steps. */
export const CONFIRM_WINDOW_MS = 20_000;

/**
 * When to look at the session again (ms), or null to stop; `looks` counts the looks since the status last changed.
 * - paid (COMPLETED, COD_CONFIRMED): until the store order is created (or refused), 2 s growing to 15 s;
 * - confirming a return from the processor: every 1.5 s;
 * - a pending or failed payment: quietly, 3 s growing to 30 s (a late webhook or a payment in another tab);
 * - open, refunded, abandoned: nothing can change it from the outside that the shopper waits for.
 */
export function nextLookMs(s: { status: Status; storeOrder: StoreOrderState | null; confirming: boolean; looks: number }): number | null {
  const growing = (first: number, cap: number) => Math.min(cap, Math.round(first * 1.5 ** s.looks));
  if (s.status === 'COMPLETED' || s.status === 'COD_CONFIRMED') return s.storeOrder === 'created' || s.storeOrder === 'failed' ? null : growing(2_000, 15_000);
  if (s.confirming && (s.status === 'PAYMENT_PENDING' || s.status === 'FAILED' || s.status === 'OPEN')) return 1_500;
  if (s.status === 'PAYMENT_PENDING' || s.status === 'FAILED') return growing(3_000, 30_000);
  return null;
}

/** The page was opened by the processor's redirect after a payment. */
export function returnedFromProcessor(search: string): boolean {
  const q = new URLSearchParams(search);
  return q.has('payment_id') || q.has('checkout_status');
}

export interface FollowedSession {
  status: Status;
  storeOrder: SessionStatus['storeOrder'];
  paymentUrl: string | null;
  totalMinor: number | null;
  /** Back from the processor, the first seconds: the page says it is confirming instead of showing a verdict. */
  confirming: boolean;
  /** The shopper's own action moved the session (init-payment, complete-cod answered): follow from there. */
  setStatus: (status: Status) => void;
  /** "Check again": confirm with the processor once more, and show the confirming state for a while. */
  checkAgain: () => void;
}

export function useFollowedSession(token: string, initial: Status, preview: boolean): FollowedSession {
  const [returned] = useState(() => !preview && returnedFromProcessor(location.search));
  const [state, setState] = useState<{ status: Status; storeOrder: SessionStatus['storeOrder']; paymentUrl: string | null; totalMinor: number | null }>({
    status: initial,
    storeOrder: null,
    paymentUrl: null,
    totalMinor: null,
  });
  const [confirmUntil, setConfirmUntil] = useState(() => (returned ? Date.now() + CONFIRM_WINDOW_MS : 0));
  // Also while a pending payment is first asked about: a verdict may be there already.
  const [confirming, setConfirming] = useState(returned || (!preview && initial === 'PAYMENT_PENDING'));
  // Bumped by the shopper's own actions: restarts the loop with a fresh read.
  const [round, setRound] = useState(0);
  const paying = useRef(returned || initial === 'PAYMENT_PENDING');

  useEffect(() => {
    // Nothing to follow on a preview, or on a page opened open, refunded or expired (until the shopper acts).
    if (preview || (round === 0 && !paying.current && (initial === 'OPEN' || initial === 'REFUNDED' || initial === 'ABANDONED'))) return;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let looks = 0;
    let last: Status | undefined;

    const read = async () => {
      if (paying.current) {
        // Confirm with the processor once per return (or check-again): the webhook may be late, or lost.
        paying.current = false;
        const paid = await api<{ status: Status }>('POST', `/api/checkout/${token}/pay`);
        if (stopped) return;
        if (paid.ok) setState((s) => ({ ...s, status: paid.data.status }));
      }
      const r = await api<SessionStatus>('GET', `/api/checkout/session/${token}`);
      if (stopped) return;
      let status = last ?? initial;
      let storeOrder: StoreOrderState | null = null;
      if (r.ok) {
        status = r.data.status;
        storeOrder = r.data.storeOrder?.state ?? null;
        setState({ status, storeOrder: r.data.storeOrder, paymentUrl: r.data.paymentUrl, totalMinor: r.data.totalMinor });
      }
      if (status !== last) looks = 0;
      last = status;
      const inWindow = Date.now() < confirmUntil;
      if (!inWindow) setConfirming(false);
      // Settled: the payment's verdict is in, the query parameters of the processor's redirect have served.
      if (isPageOutcome(status)) {
        setConfirming(false);
        if (returnedFromProcessor(location.search)) history.replaceState(null, '', location.pathname);
      }
      schedule(nextLookMs({ status, storeOrder, confirming: inWindow, looks: looks++ }));
    };
    const schedule = (ms: number | null) => {
      if (stopped || ms === null) return;
      // A hidden tab waits until it is looked at again.
      timer = setTimeout(() => (document.hidden ? document.addEventListener('visibilitychange', resume, { once: true }) : void read()), ms);
    };
    const resume = () => void read();

    void read();
    return () => {
      stopped = true;
      clearTimeout(timer);
      document.removeEventListener('visibilitychange', resume);
    };
  }, [token, round]);

  return {
    ...state,
    confirming,
    setStatus: (status) => {
      setState((s) => ({ ...s, status }));
      setRound((n) => n + 1);
    },
    checkAgain: () => {
      paying.current = true;
      setConfirmUntil(Date.now() + CONFIRM_WINDOW_MS);
      setConfirming(true);
      setRound((n) => n + 1);
    },
  };
}
