// Register, login, password reset (request + the emailed link) and the email verification screen.
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiError } from '../api.js';
import { invalid, useForm } from '../form.js';
import { navigate, safeNext, useLocation } from '../router.js';
import { useSession } from '../session.js';
import type { Merchant } from '../types.js';
import { Alert, Button, Field, Form, Link, Spinner } from '../ui.js';

export function AuthLayout(props: { title: string; subtitle?: ComponentChildren; children: ComponentChildren; footer?: ComponentChildren }) {
  return (
    <div class="auth">
      <main class="auth-card" id="main">
        <div class="brand auth-brand">
          <span class="brand-mark" aria-hidden="true">◆</span>
          <span>Checkout</span>
        </div>
        <h1>{props.title}</h1>
        {props.subtitle && <p class="lead">{props.subtitle}</p>}
        {props.children}
      </main>
      {props.footer && <p class="auth-footer">{props.footer}</p>}
    </div>
  );
}

/** Where a merchant goes after logging in: verification screen, the wizard, or the dashboard. */
export function landingFor(m: Merchant, next?: string | null): string {
  if (!m.emailVerified) return '/verify-email';
  if (!m.onboardingCompletedAt) return next && next !== '/dashboard' ? safeNext(next) : '/onboarding';
  return safeNext(next ?? null);
}

export function Login() {
  const { refresh } = useSession();
  const { query } = useLocation();
  const form = useForm({ email: '', password: '' });
  // After the password, when two-factor sign-in is on: the challenge the API answered, waiting for a code.
  const [challenge, setChallenge] = useState<string | null>(null);
  const second = useForm({ code: '' });
  const landed = async () => {
    // GET /me also says who signed in (role, scopes): the navigation depends on it.
    const me = await refresh();
    if (me) navigate(landingFor(me, query.get('next')));
  };
  const submit = () =>
    form.run(async () => {
      const errors: Record<string, string> = {};
      if (!form.values.email.trim()) errors.email = 'enter your email address';
      if (!form.values.password) errors.password = 'enter your password';
      if (Object.keys(errors).length) throw invalid(errors);
      const answer = await api.post('/api/auth/login', { body: form.values });
      if ('twoFactorRequired' in answer) setChallenge(answer.challenge);
      else await landed();
    });
  const submitCode = () =>
    second.run(async () => {
      if (!second.values.code.trim()) throw invalid({ code: 'enter the 6-digit code of your authenticator app, or a recovery code' });
      try {
        await api.post('/api/auth/login/two-factor', { body: { challenge: challenge!, code: second.values.code.trim() } });
      } catch (err) {
        // The challenge lasts 5 minutes: past it, start again with the password.
        if (err instanceof ApiError && err.code === 'UNAUTHORIZED') setChallenge(null);
        if (err instanceof ApiError && err.code === 'INVALID_TWO_FACTOR_CODE') throw invalid({ code: err.message });
        throw err;
      }
      await landed();
    });
  if (challenge) {
    return (
      <AuthLayout title="Two-factor sign-in" subtitle="Enter the 6-digit code your authenticator app shows for Checkout." footer={<Link href="/login" >Use another account</Link>}>
        <Form onSubmit={submitCode} error={second.error} label="Two-factor code">
          <Field label="Code" name="code" autoComplete="one-time-code" inputProps={{ inputMode: 'text', maxLength: 11 }} value={second.values.code} onInput={(v) => second.set('code', v)} error={second.errors.code} hint="Lost your phone? Enter one of your recovery codes (like abcde-fghjk) instead: each works once." />
          <Button type="submit" busy={second.busy}>Verify</Button>
        </Form>
      </AuthLayout>
    );
  }
  return (
    <AuthLayout title="Log in" subtitle="Your hosted checkout, orders and settings." footer={<>New here? <Link href="/register">Create an account</Link></>}>
      {query.get('reset') === 'sent' && <Alert kind="info">If an account exists for that email, a reset link is on its way.</Alert>}
      <Form onSubmit={submit} error={form.error} label="Log in">
        <Field label="Email" name="email" type="email" autoComplete="email" value={form.values.email} onInput={(v) => form.set('email', v)} error={form.errors.email} required />
        <Field label="Password" name="password" type="password" autoComplete="current-password" value={form.values.password} onInput={(v) => form.set('password', v)} error={form.errors.password} required />
        <Button type="submit" busy={form.busy}>Log in</Button>
        <p class="form-aside"><Link href="/forgot-password">Forgot your password?</Link></p>
      </Form>
    </AuthLayout>
  );
}

export function Register() {
  const { setMe } = useSession();
  const [needsInvite, setNeedsInvite] = useState(false);
  const form = useForm({ shopName: '', email: '', phone: '', password: '', inviteToken: '' });
  const submit = () =>
    form.run(async () => {
      const { inviteToken, ...rest } = form.values;
      const errors: Record<string, string> = {};
      if (!rest.shopName.trim()) errors.shopName = 'enter the name of your shop';
      if (!rest.email.trim()) errors.email = 'enter your email address';
      if (!rest.phone.trim()) errors.phone = 'enter a phone number';
      if (!rest.password) errors.password = 'choose a password';
      if (Object.keys(errors).length) throw invalid(errors);
      try {
        const answer = await api.post('/api/auth/register', { body: inviteToken.trim() ? { ...rest, inviteToken: inviteToken.trim() } : rest });
        setMe(answer.merchant);
        navigate('/verify-email');
      } catch (err) {
        if (err instanceof ApiError && err.code === 'SIGNUP_CLOSED') {
          setNeedsInvite(true);
          throw invalid({ inviteToken: err.message });
        }
        if (err instanceof ApiError && err.code === 'EMAIL_EXISTS') throw invalid({ email: err.message });
        throw err;
      }
    });
  return (
    <AuthLayout title="Create your account" subtitle="Replace your store's checkout with a branded one in six steps." footer={<>Already have an account? <Link href="/login">Log in</Link></>}>
      <Form onSubmit={submit} error={form.error} label="Create your account">
        <Field label="Shop name" name="shopName" autoComplete="organization" value={form.values.shopName} onInput={(v) => form.set('shopName', v)} error={form.errors.shopName} hint="Also the start of your checkout address" />
        <Field label="Email" name="email" type="email" autoComplete="email" value={form.values.email} onInput={(v) => form.set('email', v)} error={form.errors.email} />
        <Field label="Phone" name="phone" type="tel" autoComplete="tel" value={form.values.phone} onInput={(v) => form.set('phone', v)} error={form.errors.phone} placeholder="+49 30 1234567" />
        <Field label="Password" name="password" type="password" autoComplete="new-password" value={form.values.password} onInput={(v) => form.set('password', v)} error={form.errors.password} hint="10 characters or more; not a common password, not your email" />
        {(needsInvite || form.errors.inviteToken) && (
          <Field label="Invite token" name="inviteToken" value={form.values.inviteToken} onInput={(v) => form.set('inviteToken', v)} error={form.errors.inviteToken} hint="Signup is by invitation: paste the token you received" />
        )}
        <Button type="submit" busy={form.busy}>Create account</Button>
      </Form>
    </AuthLayout>
  );
}

export function ForgotPassword() {
  const form = useForm({ email: '' });
  const [sent, setSent] = useState<string | null>(null);
  const submit = () =>
    form.run(async () => {
      if (!form.values.email.trim()) throw invalid({ email: 'enter your email address' });
      const answer = await api.post('/api/auth/password/reset-request', { body: { email: form.values.email } });
      setSent(answer.message ?? 'If an account exists for this email, a reset link is on its way.');
    });
  return (
    <AuthLayout title="Reset your password" subtitle="We email you a link that works once, for one hour." footer={<Link href="/login">Back to login</Link>}>
      {sent ? (
        <Alert kind="success" title="Check your inbox">{sent}</Alert>
      ) : (
        <Form onSubmit={submit} error={form.error} label="Reset your password">
          <Field label="Email" name="email" type="email" autoComplete="email" value={form.values.email} onInput={(v) => form.set('email', v)} error={form.errors.email} />
          <Button type="submit" busy={form.busy}>Send reset link</Button>
        </Form>
      )}
    </AuthLayout>
  );
}

export function ResetPassword() {
  const { setMe } = useSession();
  const { query } = useLocation();
  const token = query.get('token') ?? '';
  const form = useForm({ password: '', confirm: '' });
  const submit = () =>
    form.run(async () => {
      if (!form.values.password) throw invalid({ password: 'choose a new password' });
      if (form.values.password !== form.values.confirm) throw invalid({ confirm: 'the two passwords differ' });
      const answer = await api.post('/api/auth/password/reset-confirm', { body: { token, password: form.values.password } });
      setMe(answer.merchant);
      navigate(landingFor(answer.merchant));
    });
  if (!token) {
    return (
      <AuthLayout title="Reset your password">
        <Alert kind="error">This page needs the link from the reset email. <Link href="/forgot-password">Ask for a new link</Link>.</Alert>
      </AuthLayout>
    );
  }
  return (
    <AuthLayout title="Choose a new password" subtitle="Other sessions end when the password changes." footer={<Link href="/forgot-password">Ask for a new link</Link>}>
      <Form onSubmit={submit} error={form.error} label="Choose a new password">
        <Field label="New password" name="password" type="password" autoComplete="new-password" value={form.values.password} onInput={(v) => form.set('password', v)} error={form.errors.password} hint="10 characters or more; not a common password, not your email" />
        <Field label="Repeat the new password" name="confirm" type="password" autoComplete="new-password" value={form.values.confirm} onInput={(v) => form.set('confirm', v)} error={form.errors.confirm} />
        <Button type="submit" busy={form.busy}>Set password and log in</Button>
      </Form>
    </AuthLayout>
  );
}

/** The verification screen: confirms a link's token, or asks the merchant to open the email (resend). */
export function VerifyEmail() {
  const { me, refresh } = useSession();
  const { query } = useLocation();
  const token = query.get('token');
  const [state, setState] = useState<{ kind: 'idle' | 'checking' | 'verified' | 'failed'; message?: string }>({ kind: token ? 'checking' : 'idle' });
  const started = useRef(false);
  const resend = useForm({});

  useEffect(() => {
    if (!token || started.current) return;
    started.current = true;
    api
      .post('/api/auth/email/verify-confirm', { body: { token } })
      .then(async () => {
        setState({ kind: 'verified' });
        await refresh();
      })
      .catch((err: unknown) => setState({ kind: 'failed', message: err instanceof Error ? err.message : String(err) }));
  }, [token, refresh]);

  if (state.kind === 'checking') return <AuthLayout title="Verifying your email…"><Spinner /></AuthLayout>;
  if (state.kind === 'verified') {
    return (
      <AuthLayout title="Email address verified" subtitle="Thank you. Next: connect your store and brand your checkout.">
        {me ? <Button onClick={() => navigate(landingFor({ ...me, emailVerified: true }))}>Continue to setup</Button> : <Link href="/login" class="btn btn-primary">Log in to continue</Link>}
      </AuthLayout>
    );
  }
  if (me?.emailVerified && !token) {
    return (
      <AuthLayout title="Your email is verified">
        <Button onClick={() => navigate(landingFor(me))}>Continue</Button>
      </AuthLayout>
    );
  }
  return (
    <AuthLayout
      title="Verify your email"
      subtitle={me ? <>We sent a link to <strong>{me.email}</strong>. Open it to continue; it works for 48 hours.</> : 'Open the link in the email we sent you.'}
      footer={me ? undefined : <Link href="/login">Log in</Link>}
    >
      {state.kind === 'failed' && <Alert kind="error" title="This link did not work">{state.message}</Alert>}
      {resend.notice && <Alert kind="success">{resend.notice}</Alert>}
      {resend.error && <Alert kind="error">{resend.error}</Alert>}
      {me && (
        <div class="button-row">
          <Button
            variant="secondary"
            busy={resend.busy}
            onClick={() => void resend.run(async () => (await api.post('/api/auth/email/verify-request')).message ?? 'A new link is on its way.')}
          >
            Send the link again
          </Button>
          <Button variant="ghost" onClick={() => void refresh().then((m) => m?.emailVerified && navigate(landingFor(m)))}>I have verified it</Button>
        </div>
      )}
    </AuthLayout>
  );
}
