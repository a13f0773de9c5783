// Back from the processor's page: ask the API to confirm (pay), then follow the session's status for a while;
// if no result comes, offer to continue the payment or check again.
import { useEffect, useState } from 'preact/hooks';
import { api } from '../../shared/api.js';
import { Notice, Spinner } from '../parts.js';
import type { SessionStatus, Status } from '../types.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function Confirming({ token, onStatus }: { token: string; onStatus: (s: Status) => void }) {
  const [stuck, setStuck] = useState<{ paymentUrl: string | null } | null>(null);
  const [round, setRound] = useState(0);
  useEffect(() => {
    let cancelled = false;
    void (async () => {
      setStuck(null);
      // Coming back from the payment page (?payment_id=…): the result is usually there within a second or two.
      const returned = new URLSearchParams(location.search).has('payment_id') || round > 0;
      const paid = await api<{ status: Status }>('POST', `/api/checkout/${token}/pay`);
      let current: Status | undefined = paid.ok ? paid.data.status : undefined;
      let paymentUrl: string | null = null;
      const deadline = Date.now() + (returned ? 20_000 : 0);
      for (;;) {
        const s = await api<SessionStatus>('GET', `/api/checkout/session/${token}`);
        if (s.ok) {
          current = s.data.status;
          paymentUrl = s.data.paymentUrl;
        }
        if (cancelled || current !== 'PAYMENT_PENDING' || Date.now() > deadline) break;
        await sleep(1_500);
      }
      if (cancelled) return;
      if (current && current !== 'PAYMENT_PENDING') {
        history.replaceState(null, '', location.pathname);
        onStatus(current);
      } else setStuck({ paymentUrl });
    })();
    return () => {
      cancelled = true;
    };
  }, [token, round]);

  if (!stuck) {
    return (
      <section class="card notice" aria-busy="true">
        <h1>
          <Spinner /> Confirming your payment…
        </h1>
        <p role="status">This takes a few seconds. Please keep this page open.</p>
      </section>
    );
  }
  return (
    <Notice title="Your payment is not complete yet" body="We have not received a confirmation of your payment. If you left the payment page early, continue your payment there.">
      <div class="actions">
        {stuck.paymentUrl && (
          <a class="button" href={stuck.paymentUrl}>
            Continue to payment
          </a>
        )}
        <button type="button" class="secondary" onClick={() => setRound((r) => r + 1)}>
          Check again
        </button>
      </div>
    </Notice>
  );
}
