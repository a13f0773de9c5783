// Outgoing webhooks (docs/webhooks.md): the merchant's endpoints (add with a URL and an event filter, the signing
// secret shown once, enable/disable, rotate the secret, send a test event, delete, replay the dead-letter list since
// a time) and the deliveries with their status and attempt log (status, duration, the start of each answer),
// filtered by endpoint and status (dead: the dead-letter list), each replayable.
import { useState } from 'preact/hooks';
import { SUBSCRIBABLE_EVENT_TYPES } from '../../../domain/merchant-webhooks/merchant-webhooks.js';
import { api, type Query } from '../api.js';
import { formatDate } from '../format.js';
import { invalid, useForm } from '../form.js';
import { useLoad } from '../session.js';
import type { WebhookDelivery, WebhookEndpoint, WebhookEndpointWithSecret } from '../types.js';
import { Alert, Button, Card, Checkbox, ConfirmButton, Copyable, Empty, Field, Form, Outcome, PageHeader, Pill, SelectField, Spinner, Switch, Table, type Column } from '../ui.js';

type DeliveryStatus = Query<'/api/merchant/webhooks/deliveries'>['status'];

function endpointState(e: WebhookEndpoint): { status: string; label: string } {
  if (!e.enabled) return { status: 'disabled', label: e.disabledReason === 'gone' ? 'disabled: answered 410' : e.disabledReason === 'failing' ? 'disabled: failing 5 days' : 'disabled' };
  if (e.failingSince) return { status: 'failing', label: `failing since ${formatDate(e.failingSince)}` };
  return { status: 'enabled', label: 'enabled' };
}

/** A secret the API answered once: shown until the merchant dismisses it. */
function SecretOnce(props: { secret: string; url: string; rotated?: string | null; onDismiss: () => void }) {
  return (
    <Alert kind="warning" title="Store this signing secret now">
      <p>
        It signs every delivery to <code>{props.url}</code> and is never shown again.
        {props.rotated && ` Until ${formatDate(props.rotated)} deliveries carry a signature with the previous secret too.`}
      </p>
      <p data-secret-once><Copyable value={props.secret} label="signing secret" /></p>
      <Button variant="ghost" small onClick={props.onDismiss}>I stored it</Button>
    </Alert>
  );
}

function NewEndpoint(props: { onCreated: (e: WebhookEndpointWithSecret) => void; onCancel: () => void }) {
  const form = useForm({ url: '', description: '', eventTypes: [] as Array<(typeof SUBSCRIBABLE_EVENT_TYPES)[number]> }, ['url', 'description', 'eventTypes']);
  const v = form.values;
  const submit = () =>
    form.run(async () => {
      if (!v.url.trim()) throw invalid({ url: 'enter the URL of your endpoint' });
      props.onCreated(await api.post('/api/merchant/webhooks/endpoints', { body: { url: v.url.trim(), description: v.description.trim() || undefined, eventTypes: v.eventTypes } }));
    });
  return (
    <Form onSubmit={submit} error={form.error} label="New webhook endpoint" class="form">
      <div class="form-grid">
        <Field label="Endpoint URL" name="url" value={v.url} onInput={(x) => form.set('url', x)} error={form.errors.url} placeholder="https://example.com/webhooks/checkout" hint="https, on a public address; checked now and before every delivery" />
        <Field label="Description" name="description" value={v.description} onInput={(x) => form.set('description', x)} error={form.errors.description} placeholder="optional" />
      </div>
      <fieldset class={`fieldset field${form.errors.eventTypes ? ' has-error' : ''}`} data-field="eventTypes">
        <legend>Events</legend>
        <div class="multi">
          {SUBSCRIBABLE_EVENT_TYPES.map((t) => (
            <Checkbox key={t} label={<code>{t}</code>} name={`eventTypes.${t}`} checked={v.eventTypes.includes(t)} onChange={(c) => form.set('eventTypes', c ? [...v.eventTypes, t] : v.eventTypes.filter((x) => x !== t))} />
          ))}
        </div>
        <p class="hint">None ticked: every event.</p>
        {form.errors.eventTypes && <p class="field-error" role="alert">{form.errors.eventTypes}</p>}
      </fieldset>
      <div class="button-row">
        <Button type="submit" busy={form.busy}>Add endpoint</Button>
        <Button variant="ghost" onClick={props.onCancel}>Cancel</Button>
      </div>
    </Form>
  );
}

function ReplaySince(props: { endpoints: WebhookEndpoint[]; onReplayed: () => void }) {
  const dayAgo = new Date(Date.now() - 24 * 3600_000);
  const local = new Date(dayAgo.getTime() - dayAgo.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
  const form = useForm({ endpointId: props.endpoints[0]?.id ?? '', since: local }, ['endpointId', 'since']);
  const v = form.values;
  const submit = () =>
    form.run(async () => {
      const since = new Date(v.since);
      if (Number.isNaN(since.getTime())) throw invalid({ since: 'choose a date and time' });
      const r = await api.post('/api/merchant/webhooks/endpoints/{id}/replay', { params: { id: v.endpointId }, body: { since: since.toISOString() } });
      props.onReplayed();
      return `${r.replayed} dead ${r.replayed === 1 ? 'delivery' : 'deliveries'} replayed${r.more ? ' (more left: replay again)' : ''}.`;
    });
  return (
    <Form onSubmit={submit} error={form.error} notice={form.notice} label="Replay dead deliveries" class="form">
      <div class="form-grid">
        <SelectField label="Endpoint" name="endpointId" value={v.endpointId} onChange={(x) => form.set('endpointId', x)} options={props.endpoints.map((e) => ({ value: e.id, label: e.url }))} error={form.errors.endpointId} />
        <Field label="Failed since" name="since" type="datetime-local" value={v.since} onInput={(x) => form.set('since', x)} error={form.errors.since} hint="Every dead delivery of an event since then is sent again (same webhook-id)" />
      </div>
      <Button type="submit" busy={form.busy}>Replay dead deliveries</Button>
    </Form>
  );
}

function DeliveryDetail(props: { id: string; onReplayed: () => void }) {
  const detail = useLoad(() => api.get('/api/merchant/webhooks/deliveries/{id}', { params: { id: props.id } }), [props.id]);
  const action = useForm({});
  const d = detail.data;
  if (!d) return detail.error ? <Alert kind="error">{detail.error.message}</Alert> : <Spinner />;
  return (
    <div class="delivery-detail" data-delivery-detail={d.id}>
      <p class="muted">
        webhook-id <code>{d.id}</code> · event <code>{d.eventId}</code> · {d.endpointUrl}
        {d.nextAttemptAt && ` · next attempt ${formatDate(d.nextAttemptAt)}`}
      </p>
      <div class="table-wrap">
        <table class="table stack" data-table="attempts">
          <thead>
            <tr><th scope="col">#</th><th scope="col">At</th><th scope="col">Answer</th><th scope="col" class="num">Duration</th><th scope="col">Response / error</th></tr>
          </thead>
          <tbody>
            {d.attemptLog.map((a) => (
              <tr key={a.number} data-attempt={a.number}>
                <td data-label="#">{a.number}{a.run > 0 && <span class="muted"> (replay {a.run})</span>}</td>
                <td data-label="At">{formatDate(a.at)}</td>
                <td data-label="Answer">{a.statusCode === null ? 'no answer' : <Pill status={a.statusCode < 300 ? 'succeeded' : 'dead'} label={String(a.statusCode)} />}</td>
                <td class="num" data-label="Duration">{a.durationMs} ms</td>
                <td class="response-cell" data-label="Response / error"><pre class="response">{a.error ?? a.responseBody ?? ''}</pre></td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {d.attemptLog.length === 0 && <p class="muted">No attempt yet.</p>}
      <details>
        <summary>Payload</summary>
        <pre class="response">{JSON.stringify(d.payload, null, 2)}</pre>
      </details>
      <Outcome of={action} />
      {d.status !== 'pending' && (
        <div class="button-row">
        <Button small busy={action.busy} onClick={() => void action.run(async () => {
          await api.post('/api/merchant/webhooks/deliveries/{id}/replay', { params: { id: d.id } });
          props.onReplayed();
          await detail.reload();
          return 'Replay started: the same message, attempted again on the schedule.';
        })}>
          Replay
        </Button>
        </div>
      )}
    </div>
  );
}

function Deliveries(props: { endpoints: WebhookEndpoint[]; version: number }) {
  const [endpointId, setEndpointId] = useState('');
  const [status, setStatus] = useState('');
  const [open, setOpen] = useState<string | null>(null);
  const [more, setMore] = useState<WebhookDelivery[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const page = useLoad(async () => {
    const first = await api.get('/api/merchant/webhooks/deliveries', { query: { endpointId, status: status as DeliveryStatus, limit: '25' } });
    setMore([]);
    setCursor(first.nextCursor);
    return first;
  }, [endpointId, status, props.version]);
  const items = [...(page.data?.items ?? []), ...more];
  const urlOf = (id: string) => props.endpoints.find((e) => e.id === id)?.url ?? id;
  return (
    <Card title="Deliveries" actions={<Button variant="ghost" small onClick={() => void page.reload()}>Refresh</Button>}>
      <div class="filters filters-2">
        <SelectField label="Endpoint" name="filter-endpoint" value={endpointId} onChange={setEndpointId} options={[{ value: '', label: 'All endpoints' }, ...props.endpoints.map((e) => ({ value: e.id, label: e.url }))]} />
        <SelectField label="Status" name="filter-status" value={status} onChange={setStatus} options={[{ value: '', label: 'All' }, { value: 'pending', label: 'Pending' }, { value: 'succeeded', label: 'Succeeded' }, { value: 'dead', label: 'Dead letter' }]} />
      </div>
      {page.loading && !page.data && <Spinner />}
      {page.error && <Alert kind="error">{page.error.message}</Alert>}
      {page.data && items.length === 0 && <Empty>No deliveries{status === 'dead' ? ' in the dead-letter list' : ''}.</Empty>}
      {items.length > 0 && (
        <div class="table-wrap">
          <table class="table stack" data-table="deliveries">
            <thead>
              <tr><th scope="col">Created</th><th scope="col">Event</th><th scope="col">Endpoint</th><th scope="col">Status</th><th scope="col" class="num">Attempts</th><th scope="col">Last answer</th><th scope="col"><span class="visually-hidden">Details</span></th></tr>
            </thead>
            <tbody>
              {items.map((d) => [
                <tr key={d.id} data-delivery={d.id} data-status={d.status}>
                  <td data-label="Created">{formatDate(d.createdAt)}</td>
                  <td data-label="Event"><code>{d.eventType}</code></td>
                  <td class="truncate" data-label="Endpoint">{urlOf(d.endpointId)}</td>
                  <td data-label="Status"><Pill status={d.status} label={d.status === 'dead' ? 'dead letter' : d.status === 'pending' && d.attempts > 0 ? 'retrying' : d.status} /></td>
                  <td class="num" data-label="Attempts">{d.attempts}</td>
                  <td data-label="Last answer">{d.lastStatusCode ?? (d.lastError ? 'no answer' : '—')}</td>
                  <td class="actions"><Button variant="ghost" small onClick={() => setOpen(open === d.id ? null : d.id)}>{open === d.id ? 'Hide' : 'Attempts'}</Button></td>
                </tr>,
                open === d.id && (
                  <tr key={`${d.id}-detail`} class="detail-row">
                    <td colSpan={7}><DeliveryDetail id={d.id} onReplayed={() => void page.reload()} /></td>
                  </tr>
                ),
              ])}
            </tbody>
          </table>
        </div>
      )}
      {cursor && (
        <Button variant="ghost" small onClick={() => void api.get('/api/merchant/webhooks/deliveries', { query: { endpointId, status: status as DeliveryStatus, limit: '25', cursor } }).then((next) => {
          setMore([...more, ...next.items]);
          setCursor(next.nextCursor);
        })}>
          Load more
        </Button>
      )}
    </Card>
  );
}

export function WebhooksPage() {
  const list = useLoad(() => api.get('/api/merchant/webhooks/endpoints'));
  const [adding, setAdding] = useState(false);
  const [secret, setSecret] = useState<{ secret: string; url: string; rotated: string | null } | null>(null);
  const [version, setVersion] = useState(0);
  const row = useForm({});
  const endpoints = list.data?.items ?? [];
  const replace = (saved: WebhookEndpoint) => list.setData({ items: endpoints.map((e) => (e.id === saved.id ? saved : e)) });
  const refreshDeliveries = () => setVersion((n) => n + 1);
  const columns: Array<Column<WebhookEndpoint>> = [
    { label: 'URL', class: 'truncate', cell: (e) => <><code>{e.url}</code>{e.description && <div class="muted">{e.description}</div>}</> },
    { label: 'Events', cell: (e) => (e.eventTypes.length === 0 ? 'all' : e.eventTypes.map((t) => <div key={t}><code>{t}</code></div>)) },
    { label: 'Status', cell: (e) => <Pill {...endpointState(e)} /> },
    {
      label: 'Enabled',
      cell: (e) => (
        <Switch checked={e.enabled} label={`Endpoint ${e.url} enabled`} onChange={(enabled) => void row.run(async () => replace(await api.patch('/api/merchant/webhooks/endpoints/{id}', { params: { id: e.id }, body: { enabled } })))} />
      ),
    },
    {
      label: 'Actions',
      hidden: true,
      class: 'actions endpoint-actions',
      cell: (e) => (
        <>
          <Button variant="ghost" small name="send-test" disabled={!e.enabled} onClick={() => void row.run(async () => {
            await api.post('/api/merchant/webhooks/endpoints/{id}/test', { params: { id: e.id } });
            refreshDeliveries();
            return 'Test event sent: see it under Deliveries.';
          })}>
            Send test event
          </Button>
          <ConfirmButton small variant="secondary" confirm="Rotate? The old secret signs for 24 more hours" runner={row} action={async () => {
            const r = await api.post('/api/merchant/webhooks/endpoints/{id}/rotate-secret', { params: { id: e.id } });
            replace(r.endpoint);
            setSecret({ secret: r.secret, url: e.url, rotated: r.previousSecretExpiresAt });
          }}>
            Rotate secret
          </ConfirmButton>
          <ConfirmButton small confirm="Delete, with its deliveries?" runner={row} action={async () => {
            await api.del('/api/merchant/webhooks/endpoints/{id}', { params: { id: e.id } });
            list.setData({ items: endpoints.filter((x) => x.id !== e.id) });
            refreshDeliveries();
            return 'Endpoint deleted.';
          }}>
            Delete
          </ConfirmButton>
        </>
      ),
    },
  ];
  return (
    <>
      <PageHeader
        title="Webhooks"
        description={<>Your systems hear of completed, refunded and abandoned checkouts and of disputes as signed POSTs (Standard Webhooks). Failed deliveries are retried for more than a day, then land in the dead-letter list. <a href="/docs" target="_blank" rel="noreferrer">Payloads</a></>}
        actions={!adding && <Button onClick={() => setAdding(true)}>Add endpoint</Button>}
      />
      {secret && <SecretOnce secret={secret.secret} url={secret.url} rotated={secret.rotated} onDismiss={() => setSecret(null)} />}
      {adding && (
        <Card title="New endpoint">
          <NewEndpoint
            onCancel={() => setAdding(false)}
            onCreated={(created) => {
              const { secret: plain, ...endpoint } = created;
              list.setData({ items: [...endpoints, endpoint] });
              setSecret({ secret: plain, url: endpoint.url, rotated: null });
              setAdding(false);
            }}
          />
        </Card>
      )}
      <Outcome of={row} />
      <Card title="Endpoints">
        {list.loading && !list.data && <Spinner />}
        {list.error && <Alert kind="error">{list.error.message}</Alert>}
        {list.data && endpoints.length === 0 && <Empty>No endpoint yet: add one to receive events.</Empty>}
        {endpoints.length > 0 && <Table name="endpoints" stack columns={columns} rows={endpoints} rowKey={(e) => e.id} rowData={(e) => ({ 'data-endpoint': e.id })} />}
      </Card>
      {endpoints.length > 0 && (
        <Card title="Replay the dead-letter list">
          <ReplaySince endpoints={endpoints} onReplayed={refreshDeliveries} />
        </Card>
      )}
      <Deliveries endpoints={endpoints} version={version} />
    </>
  );
}
