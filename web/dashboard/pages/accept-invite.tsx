// The page an invitation email links to (/accept-invite?token=…): it says which shop and role the link is for, the
// invitee chooses a password, and accepting signs the new member in (api/routes/auth: invitations/lookup, /accept).
import { useEffect, useState } from 'preact/hooks';
import { api, ApiError } from '../api.js';
import { invalid, useForm } from '../form.js';
import { navigate, useLocation } from '../router.js';
import { useSession } from '../session.js';
import type { Answer } from '../api.js';
import { Alert, Button, Field, Form, Link, Spinner } from '../ui.js';
import { AuthLayout, landingFor } from './auth.js';
import { MEMBER_ROLE_LABELS } from '../../../domain/merchant/roles.js';

export function AcceptInvite() {
  const { refresh } = useSession();
  const { query } = useLocation();
  const token = query.get('token') ?? '';
  const [invitation, setInvitation] = useState<Answer<'/api/auth/invitations/lookup', 'post'> | null | undefined>(undefined);
  const [problem, setProblem] = useState<string | null>(null);
  const form = useForm({ password: '' });
  useEffect(() => {
    api.post('/api/auth/invitations/lookup', { body: { token } }).then(setInvitation, (err: unknown) => {
      setInvitation(null);
      setProblem(err instanceof ApiError ? err.message : 'This invitation could not be read');
    });
  }, [token]);
  const submit = () =>
    form.run(async () => {
      if (!form.values.password) throw invalid({ password: 'choose a password' });
      await api.post('/api/auth/invitations/accept', { body: { token, password: form.values.password } });
      const me = await refresh();
      if (me) navigate(landingFor(me));
    });
  if (invitation === undefined) return <Spinner label="Reading the invitation…" />;
  if (!invitation) {
    return (
      <AuthLayout title="Invitation" footer={<Link href="/login">Log in</Link>}>
        <Alert kind="error">{problem}</Alert>
      </AuthLayout>
    );
  }
  return (
    <AuthLayout title={`Join ${invitation.shopName}`} subtitle={<>You are invited as <strong data-invited-role={invitation.role}>{MEMBER_ROLE_LABELS[invitation.role].label}</strong>: {MEMBER_ROLE_LABELS[invitation.role].summary.toLowerCase()}.</>}>
      <Form onSubmit={submit} error={form.error} label="Accept the invitation">
        <Field label="Email" name="email" type="email" value={invitation.email} onInput={() => undefined} disabled />
        <Field label="Password" name="password" type="password" autoComplete="new-password" value={form.values.password} onInput={(v) => form.set('password', v)} error={form.errors.password} hint="10 characters or more; not a common password, not your email" />
        <Button type="submit" busy={form.busy}>Accept and sign in</Button>
      </Form>
    </AuthLayout>
  );
}
