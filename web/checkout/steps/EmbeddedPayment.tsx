// The payment step inside our page: Whop's embedded checkout, mounted by ../embed.ts (an entry of its own, loaded only
// now) for the payment init-payment started. Whop's hosted page stays the way out: when the embed's script or iframe is
// not there within EMBED_READY_MS (blocked, failed, offline), or the payment URL is not one the embed can take, the
// browser goes to it as before. Paid in the embed: onPaid, once, and the page confirms as after the hosted page.
import { useEffect, useRef } from 'preact/hooks';
import { t } from '../i18n.js';
import { Spinner } from '../parts.js';
import type * as Embed from '../embed.js';

type EmbedModule = typeof Embed;

export const EMBED_READY_MS = 6_000;

export function EmbeddedPayment(props: { origin: string; script: string; paymentUrl: string; email: string; address: Record<string, string>; onPaid: (paymentId: string) => void }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    let unmount: (() => void) | undefined;
    let gone = false;
    const hosted = () => gone || location.assign(props.paymentUrl);
    const timer = setTimeout(hosted, EMBED_READY_MS);
    // The embed's own entry (web/vite.config.ts), at the URL the page route read from the build's manifest.
    (import(/* @vite-ignore */ props.script) as Promise<EmbedModule>).then(
      (m) => gone || (unmount = m.mountEmbed(box.current!, { ...props, title: t('paymentHeading'), ready: () => clearTimeout(timer), fail: hosted })),
      hosted,
    );
    return () => {
      gone = true;
      clearTimeout(timer);
      unmount?.();
    };
  }, [props.paymentUrl]);
  return (
    <div class="embed" ref={box}>
      <p role="status" class="muted">
        <Spinner /> {t('loading')}
      </p>
    </div>
  );
}
