// Abandoned-checkout recovery settings (docs/recovery.md): on/off and when each of up to three reminders goes, in hours
// after the shopper's consent. The API checks the schedule (1 to 3 ascending delays, 30 minutes to 30 days).
import { api, ApiError, type Answer } from '../api.js';
import { invalid, useForm } from '../form.js';
import { useLoad } from '../session.js';
import { Alert, Button, Checkbox, Field, Form, Spinner } from '../ui.js';

type RecoverySettings = Answer<'/api/merchant/recovery', 'get'>;

const hours = (minutes: number | undefined) => (minutes === undefined ? '' : String(Math.round((minutes / 60) * 100) / 100));

export function RecoveryForm() {
  const settings = useLoad(() => api.get('/api/merchant/recovery'), []);
  if (settings.error) return <Alert kind="error">{settings.error.message}</Alert>;
  if (!settings.data) return <Spinner label="Loading recovery settings" />;
  return <RecoveryFields initial={settings.data} />;
}

function RecoveryFields(props: { initial: RecoverySettings }) {
  const { initial } = props;
  const form = useForm({ enabled: initial.enabled, first: hours(initial.delaysMinutes[0]), second: hours(initial.delaysMinutes[1]), third: hours(initial.delaysMinutes[2]) }, ['enabled', 'first', 'second', 'third']);
  const save = () =>
    form.run(async () => {
      const given = (['first', 'second', 'third'] as const).map((k) => [k, form.values[k].trim()] as const).filter(([, v]) => v !== '');
      const bad = given.find(([, v]) => !/^\d+(\.\d+)?$/.test(v));
      if (bad) throw invalid({ [bad[0]]: 'enter a number of hours, e.g. 24' });
      if (given.length === 0) throw invalid({ first: 'give at least the first reminder' });
      try {
        const saved = await api.patch('/api/merchant/recovery', { body: { enabled: form.values.enabled, delaysMinutes: given.map(([, v]) => Math.round(Number(v) * 60)) } });
        form.setAll({ enabled: saved.enabled, first: hours(saved.delaysMinutes[0]), second: hours(saved.delaysMinutes[1]), third: hours(saved.delaysMinutes[2]) });
      } catch (err) {
        if (err instanceof ApiError && err.code === 'INVALID_INPUT') throw invalid({ first: err.message.replace(/^delaysMinutes: /, 'Reminders: ') });
        throw err;
      }
      return form.values.enabled ? 'Recovery is on: the checkout asks for consent, and reminders follow this schedule.' : 'Recovery is off: no consent box, no reminders.';
    });
  return (
    <Form label="Abandoned-checkout recovery" onSubmit={() => void save()} error={form.error} notice={form.notice}>
      <p>
        Shoppers who leave the checkout after giving their email can get up to three reminder emails with a link back to their cart (prices
        checked again with your Shopify or WooCommerce store). Only shoppers who tick the reminder box on the checkout get them: the box is never
        ticked for them, and every email has an unsubscribe link.
      </p>
      <Checkbox label="Send reminders to shoppers who consented" name="recoveryEnabled" checked={form.values.enabled} onChange={(v) => form.set('enabled', v)} />
      <div class="grid-3">
        <Field label="1st reminder (hours)" name="first" value={form.values.first} onInput={(v) => form.set('first', v)} error={form.errors.first} hint="After the shopper's consent, e.g. 1" inputProps={{ inputMode: 'decimal' }} />
        <Field label="2nd reminder (hours)" name="second" value={form.values.second} onInput={(v) => form.set('second', v)} error={form.errors.second} hint="Empty: none, e.g. 24" inputProps={{ inputMode: 'decimal' }} />
        <Field label="3rd reminder (hours)" name="third" value={form.values.third} onInput={(v) => form.set('third', v)} error={form.errors.third} hint="Empty: none, e.g. 72" inputProps={{ inputMode: 'decimal' }} />
      </div>
      <Button type="submit" busy={form.busy}>Save recovery</Button>
    </Form>
  );
}
