// Security: one's own two-factor sign-in (api/routes/merchant/security.ts). Enrolment shows a QR code of the
// otpauth:// URI (drawn here in the browser: the secret never leaves for a third-party QR service) and the secret for
// typing by hand, then asks for the app's first code; confirming shows the 10 recovery codes this once. When it is
// on: new recovery codes, or turning it off, each after a current code.
import qrcode from 'qrcode-generator';
import { useState } from 'preact/hooks';
import { api, type Answer } from '../api.js';
import { formatDate } from '../format.js';
import { invalid, useForm } from '../form.js';
import { useLoad, useSession } from '../session.js';
import { Alert, Button, Card, Copyable, Field, Form, PageHeader, Pill, Spinner } from '../ui.js';

function qrDataUrl(text: string): string {
  const qr = qrcode(0, 'M');
  qr.addData(text);
  qr.make();
  return qr.createDataURL(5, 2);
}

const codeField = { inputMode: 'numeric' as const, maxLength: 6 };

function RecoveryCodesOnce(props: { codes: string[]; onDone: () => void }) {
  return (
    <Card title="Your recovery codes" class="recovery-codes">
      <Alert kind="warning" title="Store these codes now">
        Each code signs you in once if you lose your phone. They are shown this once: only a hash of each is kept. Keep them in a password manager or print them.
      </Alert>
      <ol class="code-list" data-recovery-codes={props.codes.length}>
        {props.codes.map((c) => <li key={c}><code>{c}</code></li>)}
      </ol>
      <p><Copyable value={props.codes.join('\n')} label="the recovery codes" /></p>
      <Button variant="secondary" name="codes-done" onClick={props.onDone}>I have stored them</Button>
    </Card>
  );
}

function Enrol(props: { onEnabled: (codes: string[]) => void }) {
  const [enrolment, setEnrolment] = useState<Answer<'/api/merchant/security/two-factor/enrol', 'post'> | null>(null);
  const start = useForm({});
  const confirm = useForm({ code: '' });
  if (!enrolment) {
    return (
      <Form onSubmit={() => void start.run(async () => setEnrolment(await api.post('/api/merchant/security/two-factor/enrol')))} error={start.error} label="Set up two-factor sign-in">
        <p>After your password, sign-in will ask for a code from an authenticator app on your phone (Google Authenticator, 1Password, Authy, Microsoft Authenticator…).</p>
        <Button type="submit" busy={start.busy} name="enrol">Set up two-factor sign-in</Button>
      </Form>
    );
  }
  const submit = () =>
    confirm.run(async () => {
      if (!/^\d{6}$/.test(confirm.values.code.trim())) throw invalid({ code: 'enter the 6-digit code the app shows' });
      const { recoveryCodes } = await api.post('/api/merchant/security/two-factor/confirm', { body: { code: confirm.values.code.trim() } });
      props.onEnabled(recoveryCodes);
    });
  return (
    <div class="enrol" data-otpauth-uri={enrolment.otpauthUri}>
      <ol class="steps">
        <li>
          <p>Scan this QR code with your authenticator app:</p>
          <img class="qr" src={qrDataUrl(enrolment.otpauthUri)} alt="QR code of your two-factor secret" width={200} height={200} />
          <p class="hint">Cannot scan? Type this key into the app instead:</p>
          <p data-totp-secret={enrolment.secret}><Copyable value={enrolment.secret} label="the secret key" /></p>
        </li>
        <li>
          <Form onSubmit={submit} error={confirm.error} label="Confirm two-factor sign-in">
            <Field label="Code from the app" name="code" value={confirm.values.code} onInput={(v) => confirm.set('code', v)} error={confirm.errors.code} inputProps={codeField} />
            <Button type="submit" busy={confirm.busy} name="confirm-2fa">Turn on</Button>
          </Form>
        </li>
      </ol>
    </div>
  );
}

export function SecurityPage() {
  const { refresh } = useSession();
  const status = useLoad(() => api.get('/api/merchant/security'), []);
  const [codes, setCodes] = useState<string[] | null>(null);
  const regen = useForm({ code: '' });
  const disable = useForm({ code: '' });
  const s = status.data;
  const done = async (fresh?: string[]) => {
    if (fresh) setCodes(fresh);
    await status.reload();
    await refresh();
  };
  return (
    <>
      <PageHeader title="Security" description="How you sign in. Your two-factor sign-in is your own: other members set up theirs." />
      {codes && <RecoveryCodesOnce codes={codes} onDone={() => setCodes(null)} />}
      {status.loading && !s && <Spinner />}
      {status.error && <Alert kind="error">{status.error.message}</Alert>}
      {s && (
        <Card title={<>Two-factor sign-in <Pill status={s.twoFactor.enabled ? 'ACTIVE' : 'PENDING'} label={s.twoFactor.enabled ? 'On' : 'Off'} /></>}>
          <p class="muted">Signed in as {s.email} ({s.role}).</p>
          {!s.twoFactor.enabled && <Enrol onEnabled={(c) => void done(c)} />}
          {s.twoFactor.enabled && (
            <>
              <p data-two-factor="on">
                On since {formatDate(s.twoFactor.enabledAt)}. {s.twoFactor.recoveryCodesLeft} of 10 recovery codes left.
              </p>
              {s.twoFactor.recoveryCodesLeft <= 3 && <Alert kind="warning">Few recovery codes left: make new ones.</Alert>}
              <div class="form-grid">
                <Form onSubmit={() => void regen.run(async () => {
                  if (!/^\d{6}$/.test(regen.values.code.trim())) throw invalid({ code: 'enter the 6-digit code the app shows' });
                  const r = await api.post('/api/merchant/security/two-factor/recovery-codes', { body: { code: regen.values.code.trim() } });
                  regen.set('code', '');
                  await done(r.recoveryCodes);
                })} error={regen.error} label="New recovery codes">
                  <h3>New recovery codes</h3>
                  <Field label="Code from the app" name="regen-code" value={regen.values.code} onInput={(v) => regen.set('code', v)} error={regen.errors.code} inputProps={codeField} hint="The old codes stop working." />
                  <Button type="submit" variant="secondary" busy={regen.busy} name="regenerate">Make new codes</Button>
                </Form>
                <Form onSubmit={() => void disable.run(async () => {
                  if (!disable.values.code.trim()) throw invalid({ code: 'enter a code from the app, or a recovery code' });
                  await api.post('/api/merchant/security/two-factor/disable', { body: { code: disable.values.code.trim() } });
                  disable.set('code', '');
                  await done();
                })} error={disable.error} label="Turn off two-factor sign-in">
                  <h3>Turn off</h3>
                  <Field label="Code from the app or a recovery code" name="disable-code" value={disable.values.code} onInput={(v) => disable.set('code', v)} error={disable.errors.code} inputProps={{ maxLength: 11 }} hint="Sign-in will ask for your password only." />
                  <Button type="submit" variant="danger" busy={disable.busy} name="disable-2fa">Turn off</Button>
                </Form>
              </div>
            </>
          )}
        </Card>
      )}
    </>
  );
}
