// The checkout's commercial extras: discount codes, order bumps, upsells and tracking pixels. One list +
// form component driven by a description of each resource's fields; amounts are entered in EUR and sent
// as cents (the checkout converts them into the shopper's currency).
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { PIXEL_EVENTS, PIXEL_PLATFORMS, pixelIdProblem, type PixelPlatform } from '../../../domain/checkout/pixels.js';
import { api, type Answer, type Body, type Init, type Operation } from '../api.js';
import { centsToInput, formatAmount, formatDate, inputToCents } from '../format.js';
import { invalid, useForm } from '../form.js';
import { useLoad } from '../session.js';
import { Alert, Button, Card, Checkbox, ConfirmButton, Empty, Field, Form, Outcome, PageHeader, Pill, SelectField, Spinner, Switch, Table, type Column } from '../ui.js';
import { CARD_CHECKOUT_SAVES_CARD } from '../../../domain/checkout/upsell-purchase.js';

type Value = string | boolean | string[];

/**
 * The resources of this page: each a collection route of the API (GET lists, POST creates) with its item route `…/{id}`
 * (PATCH updates, DELETE deletes). A resource's items are typed as its routes answer them and its fields are named as
 * its POST body names them (./api.ts), so a renamed route or field fails the typecheck.
 */
type Collection = '/api/merchant/discounts' | '/api/merchant/order-bumps' | '/api/merchant/upsells' | '/api/merchant/pixels';
type Item<C extends Collection> = Answer<`${C}/{id}`, 'patch'>;
/** The names of a resource's fields: its POST body's. */
type FieldName<C extends Collection> = keyof Body<C, 'post'> & string;

interface Row {
  id: string;
  active: boolean;
}

interface Routes<T extends Row> {
  list: () => Promise<T[]>;
  create: (body: Record<string, unknown>) => Promise<T>;
  update: (id: string, body: Record<string, unknown>) => Promise<T>;
  remove: (id: string) => Promise<unknown>;
}

/**
 * A resource's routes. What they send is built from the field specs (toBody), so it is typed by the fields' names only;
 * what they answer is C's item, which TypeScript, seeing C as one of the four, knows only as one of the four items.
 */
function routes<C extends Collection>(path: C): Routes<Item<C>> {
  const collection: Collection = path;
  const item = `${collection}/{id}` as const;
  const answer = <X,>(promise: Promise<unknown>) => promise as Promise<X>;
  return {
    list: async () => (await answer<{ items: Array<Item<C>> }>(api.get(collection))).items,
    create: (body) => answer(api.post(collection, { body } as Init<Operation<Collection, 'post'>>)),
    update: (id, body) => answer(api.patch(item, { params: { id }, body } as Init<Operation<typeof item, 'patch'>>)),
    remove: (id) => api.del(item, { params: { id } }),
  };
}

interface FieldSpec<F extends string = string> {
  name: F;
  label: string;
  kind: 'text' | 'eur' | 'int' | 'checkbox' | 'select' | 'multi' | 'datetime' | 'textarea';
  hint?: string;
  placeholder?: string;
  options?: Array<{ value: string; label: string }>;
  /** Shown only when this answers true for the current values. */
  when?: (v: Record<string, Value>) => boolean;
  /** Empty input is sent as null (else left out). */
  nullable?: boolean;
  /** Fields the API does not let change after creation. */
  createOnly?: boolean;
}

interface ResourceSpec<T extends Row, F extends string = string> {
  routes: Routes<T>;
  title: string;
  description: ComponentChildren;
  noun: string;
  fields: Array<FieldSpec<F>>;
  empty: Record<string, Value>;
  fromItem: (item: T) => Record<string, Value>;
  columns: Array<Column<T>>;
  /** Local checks before sending (besides the API's own). */
  check?: (v: Record<string, Value>) => Record<string, string>;
}

function toBody(fields: FieldSpec[], values: Record<string, Value>, creating: boolean): { body: Record<string, unknown>; problems: Record<string, string> } {
  const body: Record<string, unknown> = {};
  const problems: Record<string, string> = {};
  for (const f of fields) {
    if (f.when && !f.when(values)) continue;
    if (f.createOnly && !creating) continue;
    const v = values[f.name];
    if (f.kind === 'checkbox' || f.kind === 'multi') {
      body[f.name] = v;
      continue;
    }
    const text = String(v ?? '').trim();
    if (text === '') {
      if (f.nullable) body[f.name] = null;
      continue;
    }
    if (f.kind === 'eur') {
      const cents = inputToCents(text);
      if (typeof cents === 'number') body[f.name] = cents;
      else problems[f.name] = cents.error;
    } else if (f.kind === 'int') {
      if (!/^\d+$/.test(text)) problems[f.name] = 'must be a whole number';
      else body[f.name] = Number(text);
    } else if (f.kind === 'datetime') {
      const d = new Date(text);
      if (Number.isNaN(d.getTime())) problems[f.name] = 'must be a date and time';
      else body[f.name] = d.toISOString();
    } else {
      body[f.name] = text;
    }
  }
  return { body, problems };
}

function ResourceForm<T extends Row>(props: { spec: ResourceSpec<T>; item: T | null; onDone: (saved: T) => void; onCancel: () => void }) {
  const { spec, item } = props;
  const creating = item === null;
  const form = useForm<Record<string, Value>>(item ? spec.fromItem(item) : spec.empty, spec.fields.map((f) => f.name));
  const v = form.values;
  const submit = () =>
    form.run(async () => {
      const { body, problems } = toBody(spec.fields, v, creating);
      Object.assign(problems, spec.check?.(v) ?? {});
      if (Object.keys(problems).length) throw invalid(problems);
      const saved = creating ? await spec.routes.create(body) : await spec.routes.update(item.id, body);
      props.onDone(saved);
    });
  return (
    <Form onSubmit={submit} error={form.error} label={`${creating ? 'New' : 'Edit'} ${spec.noun}`} class="form resource-form">
      <div class="form-grid">
        {spec.fields.map((f) => {
          if (f.when && !f.when(v)) return null;
          const disabled = f.createOnly && !creating;
          const error = form.errors[f.name];
          if (f.kind === 'checkbox') return <Checkbox key={f.name} label={f.label} name={f.name} checked={v[f.name] === true} onChange={(c) => form.set(f.name, c)} hint={f.hint} error={error} />;
          if (f.kind === 'select') return <SelectField key={f.name} label={f.label} name={f.name} value={String(v[f.name] ?? '')} onChange={(x) => form.set(f.name, x)} options={f.options ?? []} error={error} hint={disabled ? 'Cannot change after creation' : f.hint} />;
          if (f.kind === 'multi') {
            const chosen = (v[f.name] as string[] | undefined) ?? [];
            return (
              <fieldset key={f.name} class={`fieldset field${error ? ' has-error' : ''}`} data-field={f.name}>
                <legend>{f.label}</legend>
                <div class="multi">
                  {(f.options ?? []).map((o) => (
                    <Checkbox key={o.value} label={o.label} name={`${f.name}.${o.value}`} checked={chosen.includes(o.value)} onChange={(c) => form.set(f.name, c ? [...chosen, o.value] : chosen.filter((x) => x !== o.value))} />
                  ))}
                </div>
                {f.hint && <p class="hint">{f.hint}</p>}
                {error && <p class="field-error" role="alert">{error}</p>}
              </fieldset>
            );
          }
          return (
            <Field
              key={f.name}
              label={f.label}
              name={f.name}
              value={String(v[f.name] ?? '')}
              onInput={(x) => form.set(f.name, x)}
              error={error}
              hint={f.hint}
              placeholder={f.placeholder}
              disabled={disabled}
              type={f.kind === 'datetime' ? 'datetime-local' : 'text'}
              inputProps={f.kind === 'eur' ? { inputMode: 'decimal' } : f.kind === 'int' ? { inputMode: 'numeric' } : undefined}
            />
          );
        })}
      </div>
      <div class="button-row">
        <Button type="submit" busy={form.busy}>{creating ? `Create ${spec.noun}` : 'Save changes'}</Button>
        <Button variant="ghost" onClick={props.onCancel}>Cancel</Button>
      </div>
    </Form>
  );
}

function ResourcePage<T extends Row>(props: { spec: ResourceSpec<T> }) {
  const { spec } = props;
  const list = useLoad(async () => ({ items: await spec.routes.list() }), [spec]);
  const [editing, setEditing] = useState<T | 'new' | null>(null);
  const row = useForm({});
  const items = list.data?.items ?? [];
  const replace = (saved: T) => list.setData({ items: items.some((i) => i.id === saved.id) ? items.map((i) => (i.id === saved.id ? saved : i)) : [saved, ...items] });
  const columns: Array<Column<T>> = [
    ...spec.columns,
    { label: 'Active', cell: (item) => <Switch checked={item.active} label={`${spec.noun} active`} onChange={(active) => void row.run(async () => replace(await spec.routes.update(item.id, { active })))} /> },
    {
      label: 'Actions',
      hidden: true,
      class: 'actions',
      cell: (item) => (
        <>
          <Button variant="ghost" small onClick={() => setEditing(item)}>Edit</Button>
          <ConfirmButton small confirm="Delete?" runner={row} action={async () => {
            await spec.routes.remove(item.id);
            list.setData({ items: items.filter((i) => i.id !== item.id) });
            return 'Deleted.';
          }}>
            Delete
          </ConfirmButton>
        </>
      ),
    },
  ];
  return (
    <>
      <PageHeader title={spec.title} description={spec.description} actions={editing === null && <Button onClick={() => setEditing('new')}>New {spec.noun}</Button>} />
      {editing !== null && (
        <Card title={editing === 'new' ? `New ${spec.noun}` : `Edit ${spec.noun}`}>
          <ResourceForm
            key={editing === 'new' ? 'new' : editing.id}
            spec={spec}
            item={editing === 'new' ? null : editing}
            onCancel={() => setEditing(null)}
            onDone={(saved) => {
              replace(saved);
              setEditing(null);
              row.setNotice(`${spec.noun[0]!.toUpperCase()}${spec.noun.slice(1)} saved.`);
            }}
          />
        </Card>
      )}
      <Outcome of={row} />
      <Card>
        {list.loading && !list.data && <Spinner />}
        {list.error && <Alert kind="error">{list.error.message}</Alert>}
        {list.data && items.length === 0 && <Empty>No {spec.noun}s yet.</Empty>}
        {items.length > 0 && <Table name={spec.noun} stack columns={columns} rows={items} rowKey={(item) => item.id} />}
      </Card>
    </>
  );
}

const eur = (cents: number | null | undefined) => (cents === null || cents === undefined ? '—' : formatAmount(cents, 'EUR'));
const localDateTime = (iso: string | null) => (iso ? new Date(new Date(iso).getTime() - new Date(iso).getTimezoneOffset() * 60_000).toISOString().slice(0, 16) : '');

const discounts: ResourceSpec<Item<'/api/merchant/discounts'>, FieldName<'/api/merchant/discounts'>> = {
  routes: routes('/api/merchant/discounts'),
  title: 'Discount codes',
  description: 'Codes shoppers enter at checkout. A discount applies to the items, never to shipping, and never makes a total negative.',
  noun: 'discount code',
  fields: [
    { name: 'code', label: 'Code', kind: 'text', placeholder: 'SUMMER10', hint: '3–40 letters, digits, - or _; not case-sensitive' },
    { name: 'type', label: 'Type', kind: 'select', options: [{ value: 'percentage', label: 'Percentage off' }, { value: 'fixed_amount', label: 'Fixed amount off (EUR)' }] },
    { name: 'percentOff', label: 'Percent off', kind: 'int', placeholder: '10', when: (v) => v.type === 'percentage', nullable: true },
    { name: 'amountOffCents', label: 'Amount off (EUR)', kind: 'eur', placeholder: '5.00', when: (v) => v.type === 'fixed_amount', nullable: true },
    { name: 'minimumSubtotalCents', label: 'Minimum subtotal (EUR)', kind: 'eur', placeholder: 'optional', nullable: true },
    { name: 'usageLimit', label: 'Usage limit', kind: 'int', placeholder: 'unlimited', nullable: true, hint: 'Completed checkouts that may use it' },
    { name: 'expiresAt', label: 'Expires', kind: 'datetime', nullable: true },
    { name: 'oncePerEmail', label: 'Once per customer email', kind: 'checkbox' },
    { name: 'active', label: 'Active', kind: 'checkbox' },
  ],
  empty: { code: '', type: 'percentage', percentOff: '', amountOffCents: '', minimumSubtotalCents: '', usageLimit: '', expiresAt: '', oncePerEmail: false, active: true },
  fromItem: (d) => ({
    code: d.code,
    type: d.type,
    percentOff: d.percentOff === null ? '' : String(d.percentOff),
    amountOffCents: centsToInput(d.amountOffCents),
    minimumSubtotalCents: centsToInput(d.minimumSubtotalCents),
    usageLimit: d.usageLimit === null ? '' : String(d.usageLimit),
    expiresAt: localDateTime(d.expiresAt),
    oncePerEmail: d.oncePerEmail,
    active: d.active,
  }),
  check: (v): Record<string, string> => {
    if (v.type === 'percentage' && !String(v.percentOff ?? '').trim()) return { percentOff: 'required for a percentage code' };
    if (v.type === 'fixed_amount' && !String(v.amountOffCents ?? '').trim()) return { amountOffCents: 'required for a fixed amount code' };
    return {};
  },
  columns: [
    { label: 'Code', cell: (d) => <code>{d.code}</code> },
    { label: 'Discount', cell: (d) => (d.type === 'percentage' ? `${d.percentOff} %` : eur(d.amountOffCents)) },
    { label: 'Minimum', cell: (d) => eur(d.minimumSubtotalCents) },
    { label: 'Used', num: true, cell: (d) => `${d.timesUsed}${d.usageLimit !== null ? ` / ${d.usageLimit}` : ''}` },
    { label: 'Expires', cell: (d) => (d.expiresAt ? (new Date(d.expiresAt) < new Date() ? <Pill status="EXPIRED" label="expired" /> : formatDate(d.expiresAt)) : '—') },
  ],
};

const productFields: Array<FieldSpec<FieldName<'/api/merchant/order-bumps'> & FieldName<'/api/merchant/upsells'>>> = [
  { name: 'productId', label: 'Store product id', kind: 'text', placeholder: '6100000000014', hint: 'The numeric id in your store' },
  { name: 'variantId', label: 'Variant id', kind: 'text', placeholder: 'optional', nullable: true },
  { name: 'title', label: 'Title', kind: 'text' },
  { name: 'imageUrl', label: 'Image URL', kind: 'text', placeholder: 'https://…', nullable: true },
  { name: 'priceCents', label: 'Price (EUR)', kind: 'eur', placeholder: '9.90' },
];

const bumps: ResourceSpec<Item<'/api/merchant/order-bumps'>, FieldName<'/api/merchant/order-bumps'>> = {
  routes: routes('/api/merchant/order-bumps'),
  title: 'Order bumps',
  description: 'One extra product shoppers add with a single tick before paying. It joins the order on your store.',
  noun: 'order bump',
  fields: [
    ...productFields,
    { name: 'compareAtCents', label: 'Regular price (EUR)', kind: 'eur', placeholder: 'optional, shown struck through', nullable: true },
    { name: 'description', label: 'Description', kind: 'text', nullable: true },
    { name: 'position', label: 'Position', kind: 'int', placeholder: '0', hint: 'Lowest first' },
    { name: 'active', label: 'Active', kind: 'checkbox' },
  ],
  empty: { productId: '', variantId: '', title: '', imageUrl: '', priceCents: '', compareAtCents: '', description: '', position: '', active: true },
  fromItem: (b) => ({
    productId: b.productId, variantId: b.variantId ?? '', title: b.title, imageUrl: b.imageUrl ?? '', priceCents: centsToInput(b.priceCents),
    compareAtCents: centsToInput(b.compareAtCents), description: b.description ?? '', position: String(b.position), active: b.active,
  }),
  columns: [
    { label: 'Product', cell: (b) => <><strong>{b.title}</strong><div class="muted small mono">{b.productId}{b.variantId && ` / ${b.variantId}`}</div></> },
    { label: 'Price', num: true, cell: (b) => <>{eur(b.priceCents)}{b.compareAtCents !== null && <s class="muted"> {eur(b.compareAtCents)}</s>}</> },
    { label: 'Position', num: true, cell: (b) => b.position },
  ],
};

const upsells: ResourceSpec<Item<'/api/merchant/upsells'>, FieldName<'/api/merchant/upsells'>> = {
  routes: routes('/api/merchant/upsells'),
  title: 'Upsells',
  description: CARD_CHECKOUT_SAVES_CARD
    ? 'A one-click offer of a product at a discount: before the shopper confirms, or on the confirmation page.'
    : 'An offer of a product at a discount before the shopper confirms. "After purchase" offers are added with one click to the paid card, ' +
      'which the processor\'s payment page does not keep for later charges: they are not shown to shoppers yet.',
  noun: 'upsell',
  fields: [
    { name: 'placement', label: 'Placement', kind: 'select', options: [{ value: 'pre_confirm', label: 'Before confirming' }, { value: 'post_purchase', label: 'After purchase' }] },
    { name: 'headline', label: 'Headline', kind: 'text', placeholder: 'Complete your look' },
    ...productFields,
    { name: 'discountPercent', label: 'Discount (%)', kind: 'int', placeholder: '0' },
    { name: 'description', label: 'Description', kind: 'text', nullable: true },
    { name: 'position', label: 'Position', kind: 'int', placeholder: '0' },
    { name: 'active', label: 'Active', kind: 'checkbox' },
  ],
  empty: { placement: 'pre_confirm', headline: '', productId: '', variantId: '', title: '', imageUrl: '', priceCents: '', discountPercent: '', description: '', position: '', active: true },
  fromItem: (u) => ({
    placement: u.placement, headline: u.headline, productId: u.productId, variantId: u.variantId ?? '', title: u.title, imageUrl: u.imageUrl ?? '',
    priceCents: centsToInput(u.priceCents), discountPercent: String(u.discountPercent), description: u.description ?? '', position: String(u.position), active: u.active,
  }),
  columns: [
    { label: 'Offer', cell: (u) => <><strong>{u.headline}</strong><div class="muted small">{u.title}</div></> },
    { label: 'Placement', cell: (u) => (u.placement === 'pre_confirm' ? 'Before confirming' : 'After purchase') },
    { label: 'Price', num: true, cell: (u) => <>{eur(Math.round((u.priceCents * (100 - u.discountPercent)) / 100))}{u.discountPercent > 0 && <span class="muted"> (−{u.discountPercent} %)</span>}</> },
  ],
};

const PLATFORM_LABELS: Record<PixelPlatform, string> = { meta: 'Meta', ga4: 'Google Analytics 4', google_ads: 'Google Ads', tiktok: 'TikTok', pinterest: 'Pinterest', snapchat: 'Snapchat' };

const pixels: ResourceSpec<Item<'/api/merchant/pixels'>, FieldName<'/api/merchant/pixels'>> = {
  routes: routes('/api/merchant/pixels'),
  title: 'Pixels',
  description: 'Measure your checkout in your ad and analytics tools. The purchase event fires once per order (its id is the checkout token).',
  noun: 'pixel',
  fields: [
    { name: 'platform', label: 'Platform', kind: 'select', createOnly: true, options: PIXEL_PLATFORMS.map((p) => ({ value: p, label: PLATFORM_LABELS[p] })) },
    { name: 'trackingId', label: 'Tracking id', kind: 'text', hint: 'Pixel, measurement or conversion id' },
    { name: 'events', label: 'Events', kind: 'multi', options: PIXEL_EVENTS.map((e) => ({ value: e, label: e.replace(/_/g, ' ') })) },
    { name: 'active', label: 'Active', kind: 'checkbox' },
  ],
  empty: { platform: 'meta', trackingId: '', events: ['page_view', 'purchase'], active: true },
  fromItem: (p) => ({ platform: p.platform, trackingId: p.trackingId, events: p.events, active: p.active }),
  check: (v) => {
    const problem = pixelIdProblem(v.platform as PixelPlatform, String(v.trackingId ?? '').trim());
    const out: Record<string, string> = {};
    if (String(v.trackingId ?? '').trim() && problem) out.trackingId = problem;
    if ((v.events as string[]).length === 0) out.events = 'choose at least one event';
    return out;
  },
  columns: [
    { label: 'Platform', cell: (p) => PLATFORM_LABELS[p.platform] },
    { label: 'Tracking id', cell: (p) => <code>{p.trackingId}</code> },
    { label: 'Events', cell: (p) => p.events.map((e) => e.replace(/_/g, ' ')).join(', ') },
  ],
};

export const DiscountsPage = () => <ResourcePage spec={discounts} />;
export const OrderBumpsPage = () => <ResourcePage spec={bumps} />;
export const UpsellsPage = () => <ResourcePage spec={upsells} />;
export const PixelsPage = () => <ResourcePage spec={pixels} />;
