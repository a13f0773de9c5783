// Custom checkout domain: claim checkout.<your domain>, create the DNS records shown, and watch the
// verification (the server keeps checking for 72 hours; this page refreshes the status while it is pending).
import { useEffect } from 'preact/hooks';
import { api, ApiError, type Answer } from '../api.js';
import { formatDate } from '../format.js';
import { invalid, useForm } from '../form.js';
import { useLoad, useSession } from '../session.js';
import { Alert, Button, Card, ConfirmButton, Copyable, Field, Form, Outcome, PageHeader, Pill, recordColumns, Spinner, Table, type Column } from '../ui.js';
import { PlanNote } from '../plan-note.js';

type DomainStatus = Answer<'/api/merchant/domain/status', 'get'>;

async function loadDomain(): Promise<DomainStatus | null> {
  try {
    return await api.get('/api/merchant/domain/status');
  } catch (err) {
    if (err instanceof ApiError && err.code === 'NOT_FOUND') return null;
    throw err;
  }
}

const RECORD_COLUMNS: Array<Column<DomainStatus['records'][number]>> = [
  ...recordColumns(),
  { label: 'Needed', class: 'purpose', cell: (r) => <>{r.required ? 'Yes' : 'Alternative'}<div class="hint">{r.purpose}</div></> },
];

const STATUS_TEXT: Record<DomainStatus['status'], string> = {
  pending: 'Checking your DNS records: right away, then after 1 minute, doubling up to hourly, for 72 hours.',
  verified: 'Verified: your checkouts are served and linked on this domain.',
  failed: 'The records we found were not right after 72 hours. Fix them, then check again.',
  expired: 'No record appeared within 72 hours. Create them, then check again.',
};

export function DomainPage() {
  const { refresh } = useSession();
  const current = useLoad(loadDomain);
  const add = useForm({ domain: '' });
  const actions = useForm({});
  const d = current.data;

  useEffect(() => {
    if (d?.status !== 'pending') return;
    const timer = setInterval(() => void current.reload(), 10_000);
    return () => clearInterval(timer);
  }, [d?.status]);

  const submit = () =>
    add.run(async () => {
      const domain = add.values.domain.trim().toLowerCase();
      if (!domain) throw invalid({ domain: 'enter checkout.<your domain>, e.g. checkout.example.com' });
      try {
        current.setData(await api.post('/api/merchant/domain', { body: { domain } }));
      } catch (err) {
        if (err instanceof ApiError && (err.code === 'DOMAIN_EXISTS' || err.code === 'INVALID_INPUT') && !Object.keys(err.fields).length) throw invalid({ domain: err.message });
        throw err;
      }
      await refresh();
      return 'Domain added: create the DNS records below.';
    });

  return (
    <>
      <PageHeader title="Custom domain" description="Serve your checkout at checkout.<your domain> instead of your subdomain." />
      <PlanNote feature="customDomain" what="a custom checkout domain" />
      {current.loading && d === undefined && <Spinner />}
      {current.error && <Alert kind="error">{current.error.message}</Alert>}
      {d === null && (
        <Card title="Add your domain">
          <Form onSubmit={submit} error={add.error} label="Add a custom domain">
            <Field label="Checkout domain" name="domain" value={add.values.domain} onInput={(v) => add.set('domain', v)} error={add.errors.domain} placeholder="checkout.example.com" hint="Exactly checkout.<your domain>. You will create one DNS record at your DNS host." />
            <Button type="submit" busy={add.busy}>Add domain</Button>
          </Form>
        </Card>
      )}
      {d && (
        <>
          <Card
            title={d.domain}
            actions={
              <div class="button-row">
                {d.status !== 'verified' && (
                  <Button variant="secondary" small busy={actions.busy} onClick={() => void actions.run(async () => {
                    const s = await api.post('/api/merchant/domain/verify');
                    current.setData(s);
                    await refresh();
                    return s.status === 'verified' ? 'Verified.' : 'Checked: not verified yet.';
                  })}>
                    Check now
                  </Button>
                )}
                <ConfirmButton small confirm="Remove this domain? Checkouts go back to your subdomain." busy={actions.busy} runner={actions} action={async () => {
                  await api.del('/api/merchant/domain');
                  current.setData(null);
                  await refresh();
                  return 'Domain removed: checkouts use your subdomain again.';
                }}>
                  Remove
                </ConfirmButton>
              </div>
            }
          >
            <div class="status-line" data-domain-status={d.status}>
              <Pill status={d.status.toUpperCase()} label={d.status} />
              <span>{STATUS_TEXT[d.status]}</span>
            </div>
            <Outcome of={actions} />
            <dl class="dl">
              <dt>Checks so far</dt><dd>{d.checks}{d.lastCheckedAt && <span class="muted"> · last {formatDate(d.lastCheckedAt)}</span>}</dd>
              {d.status === 'pending' && d.expiresAt && <><dt>Checking until</dt><dd>{formatDate(d.expiresAt)}</dd></>}
              {d.lastError && <><dt>Last check saw</dt><dd class="text-danger">{d.lastError}</dd></>}
              {d.verifiedAt && <><dt>Verified</dt><dd>{formatDate(d.verifiedAt)}{d.verifiedBy && ` (by ${d.verifiedBy.toUpperCase()})`}</dd></>}
              {d.checkoutOrigin && <><dt>Checkouts at</dt><dd><Copyable value={d.checkoutOrigin} /></dd></>}
            </dl>
          </Card>
          <Card title="DNS records to create">
            <p class="hint">Create these at your DNS host. Changes can take a few minutes to an hour to show.</p>
            <Table name="dns records" stack columns={RECORD_COLUMNS} rows={d.records} rowKey={(r) => `${r.type}-${r.name}`} />
          </Card>
        </>
      )}
    </>
  );
}
