// The dashboard's building blocks: fields that carry their error message (aria-invalid + aria-describedby),
// buttons, cards, alerts, status pills, a confirm step for destructive actions, and tables.
import type { ComponentChildren, HTMLInputTypeAttribute } from 'preact';
import { useEffect, useId, useRef, useState } from 'preact/hooks';
import { ApiError } from './api.js';
import { linkClick } from './router.js';
import type { CursorPages } from './session.js';

export function Link(props: { href: string; class?: string; children: ComponentChildren; 'aria-current'?: 'page' | undefined }) {
  return (
    <a href={props.href} class={props.class} aria-current={props['aria-current']} onClick={(e) => linkClick(e, props.href)}>
      {props.children}
    </a>
  );
}

/** The few extra input attributes forms use. */
interface InputProps {
  inputMode?: 'decimal' | 'numeric' | 'text' | 'email' | 'tel' | 'url';
  maxLength?: number;
  spellcheck?: boolean;
  class?: string;
}

export function Field(props: {
  label: ComponentChildren;
  name: string;
  value: string;
  onInput: (value: string) => void;
  error?: string | undefined;
  hint?: ComponentChildren;
  type?: HTMLInputTypeAttribute;
  autoComplete?: string;
  placeholder?: string;
  required?: boolean;
  disabled?: boolean;
  inputProps?: InputProps;
  suffix?: ComponentChildren;
}) {
  const id = useId();
  const describedBy = [props.hint ? `${id}-hint` : '', props.error ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined;
  return (
    <div class={`field${props.error ? ' has-error' : ''}`} data-field={props.name}>
      <label for={id}>{props.label}</label>
      <div class="field-control">
        <input
          id={id}
          name={props.name}
          // Preact types an input's attributes per type; the type is the caller's choice here.
          type={(props.type ?? 'text') as 'text'}
          value={props.value}
          onInput={(e) => props.onInput((e.currentTarget as HTMLInputElement).value)}
          autoComplete={props.autoComplete}
          placeholder={props.placeholder}
          required={props.required}
          disabled={props.disabled}
          aria-invalid={props.error ? 'true' : undefined}
          aria-describedby={describedBy}
          {...props.inputProps}
        />
        {props.suffix}
      </div>
      {props.hint && <p class="hint" id={`${id}-hint`}>{props.hint}</p>}
      {props.error && <p class="field-error" id={`${id}-error`} role="alert">{props.error}</p>}
    </div>
  );
}

export function SelectField(props: {
  label: ComponentChildren;
  name: string;
  value: string;
  onChange: (value: string) => void;
  options: Array<{ value: string; label: string }>;
  error?: string | undefined;
  hint?: ComponentChildren;
}) {
  const id = useId();
  return (
    <div class={`field${props.error ? ' has-error' : ''}`} data-field={props.name}>
      <label for={id}>{props.label}</label>
      <select id={id} name={props.name} value={props.value} onChange={(e) => props.onChange((e.currentTarget as HTMLSelectElement).value)} aria-invalid={props.error ? 'true' : undefined} aria-describedby={props.error ? `${id}-error` : undefined}>
        {props.options.map((o) => <option key={o.value} value={o.value}>{o.label}</option>)}
      </select>
      {props.hint && <p class="hint">{props.hint}</p>}
      {props.error && <p class="field-error" id={`${id}-error`} role="alert">{props.error}</p>}
    </div>
  );
}

export function Checkbox(props: { label: ComponentChildren; name: string; checked: boolean; onChange: (checked: boolean) => void; hint?: ComponentChildren; error?: string | undefined; disabled?: boolean }) {
  const id = useId();
  return (
    <div class={`field checkbox${props.error ? ' has-error' : ''}`} data-field={props.name}>
      <input id={id} type="checkbox" name={props.name} checked={props.checked} disabled={props.disabled} onChange={(e) => props.onChange((e.currentTarget as HTMLInputElement).checked)} />
      <label for={id}>
        {props.label}
        {props.hint && <span class="hint">{props.hint}</span>}
      </label>
      {props.error && <p class="field-error" role="alert">{props.error}</p>}
    </div>
  );
}

export function Button(props: {
  children: ComponentChildren;
  onClick?: () => void;
  type?: 'button' | 'submit';
  variant?: 'primary' | 'secondary' | 'danger' | 'ghost';
  busy?: boolean;
  disabled?: boolean;
  name?: string;
  title?: string;
  small?: boolean;
}) {
  return (
    <button
      type={props.type ?? 'button'}
      class={`btn btn-${props.variant ?? 'primary'}${props.small ? ' btn-small' : ''}`}
      onClick={props.onClick}
      disabled={props.disabled || props.busy}
      aria-busy={props.busy ? 'true' : undefined}
      name={props.name}
      title={props.title}
    >
      {props.busy && <span class="spinner" aria-hidden="true" />}
      {props.children}
    </button>
  );
}

/** What runs an action and keeps how it went: a form's state (./form.ts), or one made for the action alone (`useForm({})`). */
export interface Runner {
  run: (work: () => Promise<string | void>) => Promise<boolean>;
  busy: boolean;
  /** A refusal that belongs to no field. */
  error: string | null;
  /** What the last action said it did. */
  notice: string | null;
}

/**
 * The one confirm step of the dashboard: a button that asks once more ("Yes, continue" or Cancel) before an action that
 * cannot be undone, then runs `action` through `runner`, whose error and notice <Outcome> shows where the page wants
 * them (they outlive the button: a disconnect removes its own button). `busy` is the runner's flag where only this
 * button uses the runner.
 */
export function ConfirmButton(props: {
  children: ComponentChildren;
  confirm: string;
  runner: Runner;
  action: () => Promise<string | void>;
  busy?: boolean;
  disabled?: boolean;
  variant?: 'danger' | 'primary' | 'secondary';
  name?: string;
  small?: boolean;
}) {
  const [asking, setAsking] = useState(false);
  if (!asking) return <Button variant={props.variant ?? 'danger'} name={props.name} small={props.small} busy={props.busy} disabled={props.disabled} onClick={() => setAsking(true)}>{props.children}</Button>;
  return (
    <span class="confirm" role="group" aria-label="Confirm">
      <span class="confirm-text">{props.confirm}</span>
      <Button variant={props.variant ?? 'danger'} small={props.small} name={props.name ? `${props.name}-confirm` : undefined} busy={props.busy} onClick={() => { setAsking(false); void props.runner.run(props.action); }}>Yes, continue</Button>
      <Button variant="ghost" small={props.small} onClick={() => setAsking(false)}>Cancel</Button>
    </span>
  );
}

/** How a runner's (or a form's) last action went: its refusal, or what it did. */
export function Outcome(props: { of: { error?: string | null; notice?: string | null } }) {
  return (
    <>
      {props.of.error && <Alert kind="error">{props.of.error}</Alert>}
      {props.of.notice && <Alert kind="success">{props.of.notice}</Alert>}
    </>
  );
}

export function Form(props: { onSubmit: () => void; children: ComponentChildren; error?: string | null; notice?: string | null; class?: string; label?: string }) {
  return (
    <form
      class={props.class ?? 'form'}
      aria-label={props.label}
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        props.onSubmit();
      }}
    >
      <Outcome of={props} />
      {props.children}
    </form>
  );
}

export function Alert(props: { kind: 'error' | 'success' | 'info' | 'warning'; children: ComponentChildren; title?: string }) {
  return (
    <div class={`alert alert-${props.kind}`} role={props.kind === 'error' ? 'alert' : 'status'}>
      {props.title && <strong class="alert-title">{props.title}</strong>}
      <div>{props.children}</div>
    </div>
  );
}

export function Card(props: { title?: ComponentChildren; children: ComponentChildren; actions?: ComponentChildren; class?: string; id?: string }) {
  return (
    <section class={`card ${props.class ?? ''}`} id={props.id} aria-label={typeof props.title === 'string' ? props.title : undefined}>
      {(props.title || props.actions) && (
        <header class="card-header">
          {props.title && <h2>{props.title}</h2>}
          {props.actions && <div class="card-actions">{props.actions}</div>}
        </header>
      )}
      <div class="card-body">{props.children}</div>
    </section>
  );
}

export function PageHeader(props: { title: string; description?: ComponentChildren; actions?: ComponentChildren }) {
  return (
    <header class="page-header">
      <div>
        <h1>{props.title}</h1>
        {props.description && <p class="lead">{props.description}</p>}
      </div>
      {props.actions && <div class="page-actions">{props.actions}</div>}
    </header>
  );
}

const PILL_KIND: Record<string, string> = {
  COMPLETED: 'success', VERIFIED: 'success', ACTIVE: 'success', CONNECTED: 'success', REFUNDED: 'neutral', ok: 'success',
  PAYMENT_PENDING: 'warning', PENDING: 'warning', OPEN: 'info', CONNECTING: 'warning', PAST_DUE: 'warning', COD_CONFIRMED: 'info',
  FAILED: 'danger', EXPIRED: 'danger', ABANDONED: 'neutral', DEMO: 'neutral', ERROR: 'danger', missing: 'danger',
  EXPIRING: 'warning', REVOKED: 'neutral',
  // Orders: paid and held for the merchant's decision, or paid with part of it given back.
  ON_HOLD: 'warning', PARTIALLY_REFUNDED: 'info',
  // Webhook endpoints and deliveries.
  enabled: 'success', succeeded: 'success', pending: 'warning', failing: 'warning', disabled: 'neutral', dead: 'danger',
};

export function Pill(props: { status: string; label?: string }) {
  const kind = PILL_KIND[props.status] ?? 'neutral';
  return <span class={`pill pill-${kind}`} data-status={props.status}>{props.label ?? props.status.replace(/_/g, ' ').toLowerCase()}</span>;
}

/**
 * A modal dialog: the browser's own <dialog> opened with showModal(), so focus stays inside, the page behind is
 * inert and Escape closes it. Mounted open; the parent unmounts it on `onClose`.
 */
export function Dialog(props: { title: string; onClose: () => void; children: ComponentChildren; name?: string }) {
  const ref = useRef<HTMLDialogElement>(null);
  const id = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
    return () => dialog?.close();
  }, []);
  return (
    <dialog
      ref={ref}
      class="dialog"
      data-dialog={props.name}
      aria-labelledby={`${id}-title`}
      onCancel={(e) => {
        // Escape: the parent decides (it unmounts the dialog), so the state never disagrees with the screen.
        e.preventDefault();
        props.onClose();
      }}
    >
      <header class="dialog-header">
        <h2 id={`${id}-title`}>{props.title}</h2>
        <button type="button" class="btn btn-ghost btn-small" aria-label="Close" onClick={props.onClose}>✕</button>
      </header>
      <div class="dialog-body">{props.children}</div>
    </dialog>
  );
}

/**
 * A column of a <Table>: its heading, its cell for a row; `num` right-aligns figures, `class` is the cell's own class,
 * `hidden` keeps the heading for screen readers only (a row's actions).
 */
export interface Column<T> {
  label: string;
  cell: (row: T) => ComponentChildren;
  num?: boolean;
  class?: string;
  hidden?: boolean;
}

/**
 * A list's table in its scrolling wrapper (`name` in data-table), a row per item keyed by `rowKey`, with `rowData`'s
 * data- attributes. `stack`: on a phone each row stacks its cells, each under its column's label (data-label);
 * `labels`: the labels alone, for a table whose class lays it out so (records-table).
 */
export function Table<T>(props: {
  name: string;
  class?: string;
  stack?: boolean;
  labels?: boolean;
  /** The table's accessible name. */
  label?: string;
  columns: Array<Column<T>>;
  rows: T[];
  rowKey: (row: T) => string;
  rowData?: (row: T) => Record<`data-${string}`, string>;
}) {
  const label = (c: Column<T>) => ((props.stack || props.labels) && !c.hidden ? c.label : undefined);
  return (
    <div class="table-wrap">
      <table class={['table', props.class, props.stack && 'stack'].filter(Boolean).join(' ')} data-table={props.name} aria-label={props.label}>
        <thead>
          <tr>
            {props.columns.map((c) => <th key={c.label} scope="col" class={c.num ? 'num' : undefined}>{c.hidden ? <span class="visually-hidden">{c.label}</span> : c.label}</th>)}
          </tr>
        </thead>
        <tbody>
          {props.rows.map((row) => (
            <tr key={props.rowKey(row)} {...props.rowData?.(row)}>
              {props.columns.map((c) => <td key={c.label} class={c.class ?? (c.num ? 'num' : undefined)} data-label={label(c)}>{c.cell(row)}</td>)}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** A paged list's card body: its table once there are items (the children), `empty` when there are none, the spinner, Load more. */
export function PagedList(props: { pages: CursorPages<unknown>; empty: ComponentChildren; children: ComponentChildren }) {
  const { items, loading, error, cursor, more } = props.pages;
  return (
    <>
      {items.length > 0 && props.children}
      {!loading && items.length === 0 && !error && <Empty>{props.empty}</Empty>}
      {loading && <Spinner />}
      {cursor && !loading && (
        <div class="button-row center">
          <Button variant="secondary" onClick={more}>Load more</Button>
        </div>
      )}
    </>
  );
}

/** A record's page before its record came: the spinner, or why it did not come (`missing` for NOT_FOUND) and the way back. */
export function NotLoaded(props: { title: string; error: Error | null; missing: string; back: { href: string; label: string } }) {
  if (!props.error) return <Spinner />;
  return (
    <>
      <PageHeader title={props.title} />
      <Alert kind="error">{props.error instanceof ApiError && props.error.code === 'NOT_FOUND' ? props.missing : props.error.message}</Alert>
      <Link href={props.back.href}>{props.back.label}</Link>
    </>
  );
}

export function Spinner(props: { label?: string }) {
  return (
    <div class="loading" role="status">
      <span class="spinner" aria-hidden="true" /> {props.label ?? 'Loading…'}
    </div>
  );
}

export function Empty(props: { children: ComponentChildren }) {
  return <div class="empty">{props.children}</div>;
}

/** "ok" / "missing" line of a checklist. */
export function CheckItem(props: { ok: boolean; label: ComponentChildren; reason?: string | null; name?: string }) {
  return (
    <li class={`check ${props.ok ? 'check-ok' : 'check-missing'}`} data-check={props.name} data-ok={props.ok ? 'true' : 'false'}>
      <span class="check-icon" aria-hidden="true">{props.ok ? '✓' : '!'}</span>
      <span>
        <span class="check-label">{props.label}</span>
        <span class="visually-hidden">{props.ok ? ' — done' : ' — missing'}</span>
        {!props.ok && props.reason && <span class="check-reason">{props.reason}</span>}
      </span>
    </li>
  );
}

/** An on/off switch (a checkbox drawn as one): a row's enabled or active flag. */
export function Switch(props: { checked: boolean; label: string; onChange: (checked: boolean) => void }) {
  return (
    <label class="switch">
      <input type="checkbox" checked={props.checked} aria-label={props.label} onChange={(e) => props.onChange((e.currentTarget as HTMLInputElement).checked)} />
      <span aria-hidden="true" />
    </label>
  );
}

/** A DNS record's type, name and value, each to copy: the columns of the records a domain needs. */
export function recordColumns<R extends { type: string; name: string; value: string }>(): Array<Column<R>> {
  return [
    { label: 'Type', cell: (r) => <code>{r.type}</code> },
    { label: 'Name', cell: (r) => <Copyable value={r.name} label={`${r.type} name`} /> },
    { label: 'Value', cell: (r) => <Copyable value={r.value} label={`${r.type} value`} /> },
  ];
}

/** Read-only value with a copy button (DNS records, URLs). */
export function Copyable(props: { value: string; label?: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <span class="copyable">
      <code>{props.value}</code>
      <button
        type="button"
        class="btn btn-ghost btn-small"
        aria-label={`Copy ${props.label ?? props.value}`}
        onClick={() => {
          void navigator.clipboard?.writeText(props.value).then(() => {
            setCopied(true);
            setTimeout(() => setCopied(false), 1500);
          }, () => undefined);
        }}
      >
        {copied ? 'Copied' : 'Copy'}
      </button>
    </span>
  );
}
