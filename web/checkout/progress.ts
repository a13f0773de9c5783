// Funnel progress: the page tells the API when the shopper has entered a valid email and when they picked a
// shipping rate (POST /api/checkout/:token/progress), so the merchant's funnel sees shoppers who leave before
// paying. Fire-and-forget: nothing waits for it, every failure is ignored (init-payment records both steps
// anyway), and nothing the shopper typed is sent. Each step goes once per token and browser tab; the API
// records a step once per session in any case, this only spares requests (and the per-IP rate limit).

export type ProgressStep = 'contact_entered' | 'shipping_chosen';

/** What the page and the API accept as an email address (the API has the last word at init-payment). */
export const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

const sent = new Set<string>();

/** Reports a step of a real checkout (never a preview: the API ignores those too); returns at once. */
export function reportProgress(token: string, step: ProgressStep, preview: boolean): void {
  if (preview) return;
  const key = `progress:${token}:${step}`;
  if (sent.has(key)) return;
  sent.add(key);
  try {
    // A reload in the same tab does not report again; storage can be unavailable (privacy modes): memory only.
    if (sessionStorage.getItem(key)) return;
    sessionStorage.setItem(key, '1');
  } catch {
    // ignore
  }
  try {
    // keepalive: the report survives the page going to the processor's payment page right after.
    fetch(`/api/checkout/${encodeURIComponent(token)}/progress`, {
      method: 'POST',
      credentials: 'same-origin',
      keepalive: true,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ step }),
    }).catch(() => undefined);
  } catch {
    // A browser without fetch or keepalive: the step is recorded at payment start.
  }
}
