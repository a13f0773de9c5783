// Account and shop settings: shop name, checkout subdomain (slug), abandoned-checkout recovery, email, phone, password, sessions,
// and which events email the merchant (notifications: new order, refund, store order failed, webhook endpoint failing or
// disabled) and where.
import { useState } from 'preact/hooks';
import { api, ApiError, type Body } from '../api.js';
import { invalid, useForm } from '../form.js';
import { navigate } from '../router.js';
import { useSession } from '../session.js';
import type { NotificationSettings } from '../types.js';
import { useLoad } from '../session.js';
import { NOTIFICATION_EVENT_LABELS, NOTIFICATION_EVENTS, NOTIFICATION_RECIPIENTS_MAX, type NotificationEvent } from '../../../domain/merchant/notifications.js';
import { RecoveryForm } from './recovery.js';
import { Alert, Button, Card, Checkbox, ConfirmButton, Copyable, Field, Form, PageHeader, Spinner } from '../ui.js';

function ShopForm() {
  const { me, setMe } = useSession();
  const form = useForm({ shopName: me?.shopName ?? '' });
  return (
    <Form
      label="Shop name"
      error={form.error}
      notice={form.notice}
      onSubmit={() =>
        void form.run(async () => {
          if (!form.values.shopName.trim()) throw invalid({ shopName: 'enter the name of your shop' });
          setMe(await api.patch('/api/merchant/shop', { body: { shopName: form.values.shopName.trim() } }));
          return 'Shop name saved.';
        })
      }
    >
      <Field label="Shop name" name="shopName" value={form.values.shopName} onInput={(v) => form.set('shopName', v)} error={form.errors.shopName} />
      <Button type="submit" busy={form.busy}>Save</Button>
    </Form>
  );
}

function SlugForm() {
  const { me, setMe } = useSession();
  const form = useForm({ slug: me?.slug ?? '' });
  const regen = useForm({});
  const save = () =>
    form.run(async () => {
      try {
        setMe(await api.patch('/api/merchant/slug', { body: { slug: form.values.slug.trim() } }));
      } catch (err) {
        // INVALID_SLUG and SLUG_COLLISION are about this one field.
        if (err instanceof ApiError && (err.code === 'INVALID_SLUG' || err.code === 'SLUG_COLLISION')) throw invalid({ slug: err.message });
        throw err;
      }
      return 'Subdomain saved: new checkouts use it.';
    });
  return (
    <Form label="Checkout subdomain" onSubmit={() => void save()} error={form.error ?? regen.error} notice={form.notice ?? regen.notice}>
      {me && <p>Checkouts are served at <Copyable value={me.checkoutOrigin} label="checkout address" /></p>}
      <Field label="Subdomain" name="slug" value={form.values.slug} onInput={(v) => form.set('slug', v.toLowerCase())} error={form.errors.slug} hint="Lower-case letters, digits and hyphens" inputProps={{ spellcheck: false, class: 'mono' }} />
      <div class="button-row">
        <Button type="submit" busy={form.busy}>Save subdomain</Button>
        <Button
          variant="secondary"
          busy={regen.busy}
          onClick={() =>
            void regen.run(async () => {
              const m = await api.post('/api/merchant/slug/regenerate');
              setMe(m);
              form.setAll({ slug: m.slug });
              return `New subdomain: ${m.slug}`;
            })
          }
        >
          Generate a new one
        </Button>
      </div>
    </Form>
  );
}

function AccountForm() {
  const { me, setMe } = useSession();
  const form = useForm({ email: me?.email ?? '', phone: me?.phone ?? '', newPassword: '', currentPassword: '' });
  const v = form.values;
  const save = () =>
    form.run(async () => {
      const body: Body<'/api/merchant/account', 'patch'> = {};
      if (v.email.trim() && v.email.trim() !== me?.email) body.email = v.email.trim();
      if (v.phone.trim() !== me?.phone) body.phone = v.phone.trim();
      if (v.newPassword) body.newPassword = v.newPassword;
      if ((body.email || body.newPassword) && !v.currentPassword) throw invalid({ currentPassword: 'enter your current password to change the email or the password' });
      if (v.currentPassword) body.currentPassword = v.currentPassword;
      if (Object.keys(body).length === 0) return 'Nothing changed.';
      try {
        const answer = await api.patch('/api/merchant/account', { body });
        setMe(answer.merchant);
      } catch (err) {
        if (err instanceof ApiError && err.code === 'INVALID_CREDENTIALS') throw invalid({ currentPassword: err.message });
        if (err instanceof ApiError && err.code === 'EMAIL_EXISTS') throw invalid({ email: err.message });
        throw err;
      }
      form.setAll({ ...v, newPassword: '', currentPassword: '' });
      return body.email ? 'Saved. Confirm the new address with the link we just sent.' : 'Saved.';
    });
  return (
    <Form label="Account" onSubmit={() => void save()} error={form.error} notice={form.notice}>
      <Field label="Email" name="email" type="email" autoComplete="email" value={v.email} onInput={(x) => form.set('email', x)} error={form.errors.email} />
      <Field label="Phone" name="phone" type="tel" autoComplete="tel" value={v.phone} onInput={(x) => form.set('phone', x)} error={form.errors.phone} />
      <Field label="New password" name="newPassword" type="password" autoComplete="new-password" value={v.newPassword} onInput={(x) => form.set('newPassword', x)} error={form.errors.newPassword} hint="Leave empty to keep it. Every other session ends when it changes." />
      <Field label="Current password" name="currentPassword" type="password" autoComplete="current-password" value={v.currentPassword} onInput={(x) => form.set('currentPassword', x)} error={form.errors.currentPassword} hint="Needed to change the email or the password" />
      <Button type="submit" busy={form.busy}>Save account</Button>
    </Form>
  );
}

/** POST /api/auth/logout-all: every token of the account stops working, this browser's included. */
function SessionsForm() {
  const { setMe } = useSession();
  const form = useForm({});
  return (
    <div class="stack">
      <p class="hint">Ends every session of this account at once: other browsers and devices, API tokens, and this one. Use it after losing a device.</p>
      <div class="button-row">
        <ConfirmButton
          confirm="Log out on every device, this one included?"
          busy={form.busy}
          runner={form}
          action={async () => {
            await api.post('/api/auth/logout-all');
            setMe(null);
            navigate('/login');
          }}
        >
          Log out everywhere
        </ConfirmButton>
      </div>
      {form.error && <Alert kind="error">{form.error}</Alert>}
    </div>
  );
}

/** GET/PUT /api/merchant/notifications: an email per event, switched on or off, to up to five addresses. */
function NotificationsForm(props: { initial: NotificationSettings; onSaved: (s: NotificationSettings) => void }) {
  const { initial } = props;
  const [events, setEvents] = useState<Record<NotificationEvent, boolean>>(initial.events);
  const form = useForm({ recipients: initial.recipients.length ? initial.recipients : [''] }, Array.from({ length: NOTIFICATION_RECIPIENTS_MAX }, (_, i) => `recipients.${i}`));
  const recipients = form.values.recipients;
  const setRecipient = (i: number, value: string) => {
    form.set('recipients', recipients.map((r, j) => (j === i ? value : r)));
    form.setErrors(Object.fromEntries(Object.entries(form.errors).filter(([k]) => k !== `recipients.${i}`)));
  };
  const save = () =>
    form.run(async () => {
      const list = recipients.map((r) => r.trim()).filter(Boolean);
      const saved = await api.put('/api/merchant/notifications', { body: { events, recipients: list } });
      props.onSaved(saved);
      setEvents(saved.events);
      form.setAll({ recipients: saved.recipients.length ? saved.recipients : [''] });
      return 'Notification settings saved.';
    });
  return (
    <Form label="Notifications" onSubmit={() => void save()} error={form.error} notice={form.notice}>
      <fieldset class="fieldset notify-events">
        <legend>Email me when</legend>
        {NOTIFICATION_EVENTS.map((e) => (
          <Checkbox key={e} name={`notify-${e}`} label={NOTIFICATION_EVENT_LABELS[e].label} hint={NOTIFICATION_EVENT_LABELS[e].covers} checked={events[e]} onChange={(on) => setEvents({ ...events, [e]: on })} />
        ))}
      </fieldset>
      <fieldset class="fieldset">
        <legend>Send them to</legend>
        <p class="hint">Up to {NOTIFICATION_RECIPIENTS_MAX} addresses; each email goes to all of them at once. Leave empty to use your account email ({initial.defaultRecipient}).</p>
        {recipients.map((r, i) => (
          <div class="recipient-row" key={i}>
            <Field label={`Address ${i + 1}`} name={`recipients.${i}`} type="email" autoComplete="email" value={r} onInput={(v) => setRecipient(i, v)} error={form.errors[`recipients.${i}`]} />
            {recipients.length > 1 && <Button variant="ghost" small onClick={() => form.set('recipients', recipients.filter((_, j) => j !== i))}>Remove</Button>}
          </div>
        ))}
        {recipients.length < NOTIFICATION_RECIPIENTS_MAX && (
          <div class="button-row"><Button variant="secondary" small onClick={() => form.set('recipients', [...recipients, ''])}>Add an address</Button></div>
        )}
      </fieldset>
      <Button type="submit" busy={form.busy}>Save notifications</Button>
    </Form>
  );
}

function NotificationsCard() {
  const settings = useLoad(() => api.get('/api/merchant/notifications'));
  return (
    <Card title="Notifications" id="notifications">
      {settings.data ? <NotificationsForm initial={settings.data} onSaved={settings.setData} /> : settings.error ? <Alert kind="error">{settings.error.message}</Alert> : <Spinner />}
    </Card>
  );
}

export function SettingsPage() {
  return (
    <>
      <PageHeader title="Settings" />
      <div class="grid-2">
        <Card title="Shop"><ShopForm /></Card>
        <Card title="Checkout subdomain"><SlugForm /></Card>
      </div>
      <Card title="Abandoned-checkout recovery" id="recovery"><RecoveryForm /></Card>
      <Card title="Account"><AccountForm /></Card>
      <NotificationsCard />
      <Card title="Sessions"><SessionsForm /></Card>
    </>
  );
}
