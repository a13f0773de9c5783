// Checkout preview (wizard step 5 and the Preview page): a prev_ session with two placeholder products,
// your shipping rates and payment disabled, opened in a new tab on your checkout address.
import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { formatDate } from '../format.js';
import { useForm } from '../form.js';
import { useSession } from '../session.js';
import { Button, Card, Copyable, Link, Outcome, PageHeader } from '../ui.js';

export function PreviewCard(props: { onOpened?: () => void; openedAt?: string | null }) {
  const form = useForm({});
  const [url, setUrl] = useState<string | null>(null);
  const open = () => {
    // Opened in the click itself (then pointed at the preview) so no popup blocker stops it.
    const tab = window.open('about:blank', '_blank');
    void form.run(async () => {
      try {
        const preview = await api.post('/api/merchant/preview');
        setUrl(preview.previewUrl);
        if (tab) {
          tab.opener = null;
          tab.location.href = preview.previewUrl;
        }
        props.onOpened?.();
        return tab ? 'The preview opened in a new tab.' : 'Your browser blocked the new tab: use the link below.';
      } catch (err) {
        tab?.close();
        throw err;
      }
    });
  };
  return (
    <div class="stack">
      <p>See your checkout as shoppers will: your logo and colors, two sample products and your shipping rates. Payment is disabled in a preview.</p>
      <div class="button-row">
        <Button onClick={open} busy={form.busy} name="open-preview">Open checkout preview</Button>
      </div>
      {props.openedAt && <p class="hint">Last opened {formatDate(props.openedAt)}.</p>}
      <Outcome of={form} />
      {url && (
        <p>
          Preview link: <a href={url} target="_blank" rel="noopener">{url}</a>
        </p>
      )}
    </div>
  );
}

export function PreviewPage() {
  const { me } = useSession();
  return (
    <>
      <PageHeader title="Preview" description="Check every change before shoppers see it." />
      <Card title="Checkout preview">
        <PreviewCard />
      </Card>
      {me && (
        <Card title="Your checkout address">
          <p>Checkouts are served at <Copyable value={me.checkoutOrigin} label="checkout address" /></p>
          <p class="hint">Change the subdomain in <Link href="/dashboard/settings">Settings</Link>, or add your own domain under <Link href="/dashboard/domain">Custom domain</Link>.</p>
        </Card>
      )}
    </>
  );
}
