// API keys: the merchant's own systems call the merchant API with them (docs/api.md). A key is made here with a name,
// a scope per resource (none, read or write: the resources are domain/merchant/api-keys.ts's, the table the API enforces) and
// an expiry; its secret is shown once, right after it is made or rolled, with a copy button, and never again. The
// list shows each key by its prefix with its scopes, last use and status; a key can be rolled (the old secret keeps
// working for the overlap chosen) or revoked, each after a confirmation.
import { useState } from 'preact/hooks';
import { API_KEY_RESOURCE_LABELS, API_KEY_RESOURCES, type ApiKeyResource, type ApiKeyScope } from '../../../domain/merchant/api-keys.js';
import { api } from '../api.js';
import { formatDate } from '../format.js';
import { invalid, useForm } from '../form.js';
import { useLoad } from '../session.js';
import type { ApiKey, ApiKeyCreated, ApiKeyRolled } from '../types.js';
import { Alert, Button, Card, ConfirmButton, Copyable, Empty, Field, Form, PageHeader, Pill, SelectField, Spinner, Table, type Column } from '../ui.js';

type Access = 'none' | 'read' | 'write';

const ACCESS_OPTIONS = [
  { value: 'none', label: 'No access' },
  { value: 'read', label: 'Read' },
  { value: 'write', label: 'Read and write' },
];

const EXPIRY_OPTIONS = [
  { value: '', label: 'Never' },
  { value: '30', label: 'In 30 days' },
  { value: '90', label: 'In 90 days' },
  { value: '365', label: 'In a year' },
];

const OVERLAP_OPTIONS = [
  { value: '0', label: 'Stop the old key now' },
  { value: '3600', label: 'Keep the old key 1 hour' },
  { value: '86400', label: 'Keep the old key 24 hours' },
  { value: '259200', label: 'Keep the old key 3 days' },
  { value: '604800', label: 'Keep the old key 7 days' },
];

const STATUS_PILL: Record<ApiKey['status'], string> = { active: 'ACTIVE', expiring: 'EXPIRING', expired: 'EXPIRED', revoked: 'REVOKED' };

/** The secret of a key just made or rolled: shown this once. */
function SecretOnce(props: { secret: string; title: string; onDone: () => void }) {
  return (
    <Card title={props.title} class="api-key-secret">
      <Alert kind="warning" title="Copy this key now">
        It is shown this once: the dashboard and the API never show it again (only a hash of it is kept). Store it in your secret manager, never in
        code or a browser. If it is lost, roll the key.
      </Alert>
      <p data-secret={props.secret}>
        <Copyable value={props.secret} label="the API key" />
      </p>
      <Button variant="secondary" name="secret-done" onClick={props.onDone}>I have stored it</Button>
    </Card>
  );
}

function CreateKeyForm(props: { onCreated: (created: ApiKeyCreated) => void; onCancel: () => void }) {
  const initial: Record<string, string> = { name: '', expiresInDays: '', ...Object.fromEntries(API_KEY_RESOURCES.map((r) => [r, 'none'])) };
  const form = useForm<Record<string, string>>(initial, ['name', 'scopes', 'expiresAt', ...API_KEY_RESOURCES]);
  const v = form.values;
  const submit = () =>
    form.run(async () => {
      const scopes = API_KEY_RESOURCES.filter((r) => v[r] !== 'none').map((r) => `${r}:${v[r]}` as ApiKeyScope);
      const problems: Record<string, string> = {};
      if (!v.name!.trim()) problems.name = 'enter a name that says what uses the key';
      if (scopes.length === 0) problems.scopes = 'give the key access to at least one resource';
      if (Object.keys(problems).length) throw invalid(problems);
      const days = Number(v.expiresInDays);
      const expiresAt = v.expiresInDays ? new Date(Date.now() + days * 86_400_000).toISOString() : null;
      props.onCreated(await api.post('/api/merchant/api-keys', { body: { name: v.name!, scopes, expiresAt } }));
    });
  return (
    <Form onSubmit={submit} error={form.error} label="New API key" class="form api-key-form">
      <Field label="Name" name="name" value={v.name!} onInput={(x) => form.set('name', x)} error={form.errors.name} hint="What uses the key, e.g. “ERP sync”" inputProps={{ maxLength: 100 }} />
      <fieldset class={`fieldset field${form.errors.scopes ? ' has-error' : ''}`} data-field="scopes">
        <legend>Access</legend>
        <p class="hint">Give the key only what it needs. Write includes read. Managing API keys, the account's password and sessions need the dashboard.</p>
        <div class="form-grid">
          {API_KEY_RESOURCES.map((r: ApiKeyResource) => (
            <SelectField
              key={r}
              label={API_KEY_RESOURCE_LABELS[r].label}
              name={`scope-${r}`}
              value={v[r]!}
              onChange={(x) => form.set(r, x as Access)}
              options={ACCESS_OPTIONS}
              hint={API_KEY_RESOURCE_LABELS[r].covers}
              error={form.errors[r]}
            />
          ))}
        </div>
        {form.errors.scopes && <p class="field-error" role="alert">{form.errors.scopes}</p>}
      </fieldset>
      <SelectField label="Expires" name="expiresInDays" value={v.expiresInDays!} onChange={(x) => form.set('expiresInDays', x)} options={EXPIRY_OPTIONS} error={form.errors.expiresAt} />
      <div class="button-row">
        <Button type="submit" busy={form.busy}>Create key</Button>
        <Button variant="ghost" onClick={props.onCancel}>Cancel</Button>
      </div>
    </Form>
  );
}

function RollControl(props: { item: ApiKey; onRolled: (rolled: ApiKeyRolled) => void; onCancel: () => void }) {
  const [overlap, setOverlap] = useState('86400');
  const form = useForm({});
  return (
    <div class="roll" data-roll={props.item.id}>
      <SelectField label="Old key" name="overlap" value={overlap} onChange={setOverlap} options={OVERLAP_OPTIONS} hint="Time to move your systems to the new key" />
      {form.error && <Alert kind="error">{form.error}</Alert>}
      <div class="button-row">
        <ConfirmButton
          variant="primary"
          small
          name="roll-confirm"
          busy={form.busy}
          confirm="A new secret is made now."
          runner={form}
          action={async () => props.onRolled(await api.post('/api/merchant/api-keys/{id}/roll', { params: { id: props.item.id }, body: { overlapSeconds: Number(overlap) } }))}
        >
          Roll key
        </ConfirmButton>
        <Button variant="ghost" small onClick={props.onCancel}>Cancel</Button>
      </div>
    </div>
  );
}

export function ApiKeysPage() {
  const list = useLoad(() => api.get('/api/merchant/api-keys'), []);
  const [creating, setCreating] = useState(false);
  const [rolling, setRolling] = useState<string | null>(null);
  const [secret, setSecret] = useState<{ value: string; title: string } | null>(null);
  const row = useForm({});
  const items = list.data?.items ?? [];
  const columns: Array<Column<ApiKey>> = [
    { label: 'Name', cell: (k) => k.name },
    { label: 'Key', cell: (k) => <code>{k.prefix}…</code> },
    { label: 'Access', class: 'scopes', cell: (k) => k.scopes.join(', ') },
    { label: 'Created', cell: (k) => formatDate(k.createdAt) },
    { label: 'Last used', cell: (k) => (k.lastUsedAt ? formatDate(k.lastUsedAt) : 'Never') },
    { label: 'Expires', cell: (k) => (k.expiresAt ? formatDate(k.expiresAt) : 'Never') },
    { label: 'Status', cell: (k) => <Pill status={STATUS_PILL[k.status]} label={k.status} /> },
    {
      label: 'Actions',
      hidden: true,
      class: 'actions',
      cell: (k) => (
        <>
          {k.status === 'active' && rolling !== k.id && <Button variant="ghost" small name="roll" onClick={() => setRolling(k.id)}>Roll</Button>}
          {rolling === k.id && (
            <RollControl
              item={k}
              onCancel={() => setRolling(null)}
              onRolled={(rolled) => {
                setRolling(null);
                setSecret({ value: rolled.secret, title: `Key “${rolled.key.name}” rolled` });
                list.setData({ items: [rolled.key, ...items.map((i) => (i.id === rolled.previous.id ? rolled.previous : i))] });
              }}
            />
          )}
          {(k.status === 'active' || k.status === 'expiring') && (
            <ConfirmButton small name="revoke" confirm="Requests with this key fail from now on." runner={row} action={async () => {
              const revoked = await api.del('/api/merchant/api-keys/{id}', { params: { id: k.id } });
              list.setData({ items: items.map((i) => (i.id === revoked.id ? revoked : i)) });
            }}>
              Revoke
            </ConfirmButton>
          )}
        </>
      ),
    },
  ];
  return (
    <>
      <PageHeader
        title="API keys"
        description={<>Your own systems call the merchant API with a secret key in <code>Authorization: Bearer</code>. Keys of this deployment start with the prefix shown below (<code>ck_live_</code> in production, <code>ck_test_</code> on test deployments); each refuses the other's.</>}
        actions={!creating && <Button name="new-api-key" onClick={() => { setCreating(true); setSecret(null); }}>New API key</Button>}
      />
      {secret && <SecretOnce secret={secret.value} title={secret.title} onDone={() => setSecret(null)} />}
      {creating && (
        <Card title="New API key">
          <CreateKeyForm
            onCancel={() => setCreating(false)}
            onCreated={(created) => {
              setCreating(false);
              setSecret({ value: created.secret, title: `Key “${created.key.name}” created` });
              list.setData({ items: [created.key, ...items] });
            }}
          />
        </Card>
      )}
      {row.error && <Alert kind="error">{row.error}</Alert>}
      <Card>
        {list.loading && !list.data && <Spinner />}
        {list.error && <Alert kind="error">{list.error.message}</Alert>}
        {list.data && items.length === 0 && <Empty>No API keys yet.</Empty>}
        {items.length > 0 && <Table name="api keys" class="api-keys" stack columns={columns} rows={items} rowKey={(k) => k.id} rowData={(k) => ({ 'data-api-key': k.id })} />}
      </Card>
    </>
  );
}
