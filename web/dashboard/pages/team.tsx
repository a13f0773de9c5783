// Team: who signs in to this dashboard, with which role, and the invitations on their way. Owners and admins see this
// page (the API refuses it to staff). What each role may do is the API's role table (domain/merchant/roles.ts); the page only
// offers the changes the viewer's role may make: admins never touch owners nor make anyone an owner, and the account
// holder (the account's own email) stays an owner.
import { useState } from 'preact/hooks';
import { MEMBER_ROLE_LABELS, MEMBER_ROLES, ROLES_GRANTABLE_BY, type MemberRole } from '../../../domain/merchant/roles.js';
import { api } from '../api.js';
import { formatDate } from '../format.js';
import { invalid, useForm } from '../form.js';
import { useLoad, useSession } from '../session.js';
import type { Invitation, Member } from '../types.js';
import { Alert, Button, Card, ConfirmButton, Empty, Field, Form, PageHeader, Pill, SelectField, Spinner } from '../ui.js';

const roleOptions = (roles: readonly MemberRole[]) => roles.map((r) => ({ value: r, label: MEMBER_ROLE_LABELS[r].label }));

function InviteForm(props: { grantable: readonly MemberRole[]; onInvited: (i: Invitation) => void }) {
  const form = useForm({ email: '', role: 'staff' as string });
  const submit = () =>
    form.run(async () => {
      if (!form.values.email.trim()) throw invalid({ email: 'enter the email address to invite' });
      const invitation = await api.post('/api/merchant/members/invitations', { body: { email: form.values.email.trim(), role: form.values.role as MemberRole } });
      props.onInvited(invitation);
      form.set('email', '');
      return `Invitation sent to ${invitation.email}: the link works once, for 7 days.`;
    });
  return (
    <Form onSubmit={submit} error={form.error} notice={form.notice} label="Invite a member" class="form invite-form">
      <div class="form-grid">
        <Field label="Email" name="email" type="email" autoComplete="off" value={form.values.email} onInput={(v) => form.set('email', v)} error={form.errors.email} />
        <SelectField label="Role" name="role" value={form.values.role} onChange={(v) => form.set('role', v)} options={roleOptions(props.grantable)} error={form.errors.role} hint={MEMBER_ROLE_LABELS[form.values.role as MemberRole]?.summary} />
      </div>
      <Button type="submit" busy={form.busy} name="invite">Send invitation</Button>
    </Form>
  );
}

function MemberRow(props: { member: Member; grantable: readonly MemberRole[]; self: boolean; onChanged: (m: Member | null) => void }) {
  const { member } = props;
  const row = useForm({});
  // The account holder is always an owner; a member whose role the viewer could not give is not the viewer's to change.
  const editable = !member.accountHolder && member.id !== null && props.grantable.includes(member.role);
  return (
    <li class="team-row" data-member={member.email} data-role={member.role}>
      <div class="team-who">
        <strong>{member.email}</strong>
        <span class="muted">
          {member.accountHolder ? 'Account holder · ' : ''}
          {props.self ? 'You · ' : ''}since {formatDate(member.createdAt, false)}
        </span>
      </div>
      <div class="team-state">
        <Pill status={member.twoFactorEnabled ? 'ACTIVE' : 'PENDING'} label={member.twoFactorEnabled ? '2FA on' : '2FA off'} />
        {editable ? (
          <select
            name="member-role"
            aria-label={`Role of ${member.email}`}
            value={member.role}
            disabled={row.busy}
            onChange={(e) => {
              const role = (e.currentTarget as HTMLSelectElement).value;
              void row.run(async () => {
                const updated = await api.patch('/api/merchant/members/{id}', { params: { id: member.id! }, body: { role: role as MemberRole } });
                props.onChanged({ ...member, role: updated.role });
              });
            }}
          >
            {roleOptions(props.grantable).map((o) => <option key={o.value} value={o.value}>{o.label}</option>)}
          </select>
        ) : (
          <span class="team-role">{MEMBER_ROLE_LABELS[member.role].label}</span>
        )}
        {editable && !props.self && (
          <ConfirmButton small name="remove-member" confirm={`${member.email} is signed out at once and can no longer sign in.`} busy={row.busy} runner={row} action={async () => {
            await api.del('/api/merchant/members/{id}', { params: { id: member.id! } });
            props.onChanged(null);
          }}>
            Remove
          </ConfirmButton>
        )}
      </div>
      {row.error && <Alert kind="error">{row.error}</Alert>}
    </li>
  );
}

export function TeamPage() {
  const { me } = useSession();
  const team = useLoad(() => api.get('/api/merchant/members'), []);
  const [inviting, setInviting] = useState(false);
  const pending = useForm({});
  const role = me?.viewer?.role ?? 'staff';
  const grantable = ROLES_GRANTABLE_BY[role];
  const data = team.data;
  const self = (m: Member) => (me?.viewer?.memberId ?? null) === m.id && (m.id !== null || !me?.viewer?.memberId);
  return (
    <>
      <PageHeader
        title="Team"
        description="Everyone who signs in to this dashboard, each with their own email, password and two-factor sign-in. A role decides what they can do: the API refuses the rest."
        actions={!inviting && <Button name="new-invitation" onClick={() => setInviting(true)}>Invite member</Button>}
      />
      {inviting && (
        <Card title="Invite a member" actions={<Button variant="ghost" small onClick={() => setInviting(false)}>Close</Button>}>
          <InviteForm grantable={grantable} onInvited={(i) => data && team.setData({ ...data, invitations: [...data.invitations.filter((x) => x.email !== i.email), i] })} />
        </Card>
      )}
      <Card title="Members">
        {team.loading && !data && <Spinner />}
        {team.error && <Alert kind="error">{team.error.message}</Alert>}
        {data && (
          <ul class="team-list">
            {data.members.map((m) => (
              <MemberRow
                key={m.id ?? 'holder'}
                member={m}
                grantable={grantable}
                self={self(m)}
                onChanged={(changed) => team.setData({ ...data, members: changed ? data.members.map((x) => (x.id === m.id ? changed : x)) : data.members.filter((x) => x.id !== m.id) })}
              />
            ))}
          </ul>
        )}
      </Card>
      <Card title="Pending invitations">
        {pending.error && <Alert kind="error">{pending.error}</Alert>}
        {data && data.invitations.length === 0 && <Empty>No invitations on their way.</Empty>}
        {data && data.invitations.length > 0 && (
          <ul class="team-list">
            {data.invitations.map((i) => (
              <li class="team-row" key={i.id} data-invitation={i.email}>
                <div class="team-who">
                  <strong>{i.email}</strong>
                  <span class="muted">Invited by {i.invitedBy} · expires {formatDate(i.expiresAt, false)}</span>
                </div>
                <div class="team-state">
                  <span class="team-role">{MEMBER_ROLE_LABELS[i.role].label}</span>
                  {grantable.includes(i.role) && (
                    <ConfirmButton small name="withdraw" confirm="The link stops working." runner={pending} action={async () => {
                      await api.del('/api/merchant/members/invitations/{id}', { params: { id: i.id } });
                      team.setData({ ...data, invitations: data.invitations.filter((x) => x.id !== i.id) });
                    }}>
                      Withdraw
                    </ConfirmButton>
                  )}
                </div>
              </li>
            ))}
          </ul>
        )}
      </Card>
      <Card title="Roles">
        <dl class="role-list">
          {MEMBER_ROLES.map((r) => (
            <div key={r}>
              <dt>{MEMBER_ROLE_LABELS[r].label}</dt>
              <dd>{MEMBER_ROLE_LABELS[r].summary}.</dd>
            </div>
          ))}
        </dl>
      </Card>
    </>
  );
}
