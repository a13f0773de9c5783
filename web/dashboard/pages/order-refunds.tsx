// The money side of one order: the refund dialog (everything left, or a part: an amount, returned items with
// their quantities, restock, a reason), the Refunds section (each refund, who made it, where it stands at the
// processor and on the store order, a store's refusal in full with what to do), and the banner of a payment held
// for the merchant (ON_HOLD). The rules of what is sent live in ../refunds.ts.
import { useId } from 'preact/hooks';
import { orderNumberLabel } from '../../../domain/checkout/store-order.js';
import { api, ApiError, type Answer } from '../api.js';
import { centsToInput, formatAmount, formatDate, readableAmounts } from '../format.js';
import { invalid, useForm } from '../form.js';
import {
  chosenLines, dialogField, emptyDraft, HOLD_WORDS, lineField, linesAmount, ORIGIN_LABELS, pendingMinor, processorState, refundRequest, returnedQuantities, storeState,
  type OrderRefund, type RefundBody, type RefundDraft,
} from '../refunds.js';
import type { OrderDetail } from '../types.js';
import { Alert, Button, Card, Checkbox, Dialog, Empty, Field, Pill } from '../ui.js';

/** What POST /api/checkout/merchant/orders/{token}/refund answers (202). */
export type RefundRequested = Answer<'/api/checkout/merchant/orders/{token}/refund', 'post'>;

const money = (o: Pick<OrderDetail, 'totals'>, minor: number) => formatAmount(minor, o.totals.currency);

/** A refusal in words a merchant acts on, on the field it concerns; `fresh` is the order as it is now. */
function explain(err: unknown, sent: RefundBody, draft: RefundDraft, fresh: OrderDetail | undefined): unknown {
  if (!(err instanceof ApiError)) return err;
  const left = fresh ? money(fresh, fresh.refundableMinor) : null;
  switch (err.code) {
    case 'INVALID_INPUT': {
      const fields: Record<string, string> = {};
      for (const [path, message] of Object.entries(err.fields)) fields[dialogField(path, sent) ?? path] = message;
      return new ApiError(err.message, err.code, err.status, fields);
    }
    case 'REFUND_EXCEEDS_BALANCE':
      // The typed amount is too much; with "everything left", the order changed since the page was loaded.
      return draft.mode === 'part'
        ? invalid({ amount: `more than is left: at most ${left ?? 'what is left'} can still be refunded` })
        : new ApiError(`The order changed meanwhile: ${left ?? 'less'} is left to refund now. Check the refunds below and try again.`, err.code, err.status);
    case 'REFUND_ALREADY_REQUESTED':
      return new ApiError(`${err.message}. The refunds below show where each one stands.`, err.code, err.status);
    case 'NOT_REFUNDABLE':
      return new ApiError(`${err.message}.`, err.code, err.status);
    case 'UPSTREAM_ERROR':
      return new ApiError(`The processor did not accept the refund: ${err.message}. The refunds below show what it did.`, err.code, err.status);
    case 'PROCESSOR_TIMEOUT':
      return new ApiError('The processor did not answer in time. If it made the refund meanwhile, the refund shows below: look there before you try again.', err.code, err.status);
    default:
      return err;
  }
}

/** One order line in the dialog: how many of it came back (its label, what was bought, what went back already). */
function LineQuantity(props: { order: OrderDetail; line: number; back: number; value: string; error: string | undefined; onInput: (value: string) => void }) {
  const item = props.order.items[props.line]!;
  const id = useId();
  const describedBy = [`${id}-hint`, props.error ? `${id}-error` : ''].filter(Boolean).join(' ');
  return (
    <li class={`refund-line field${props.error ? ' has-error' : ''}`} data-field={lineField(props.line)}>
      <label for={id}>
        <span class="refund-line-title">{item.title}{item.variantTitle && <span class="muted"> · {item.variantTitle}</span>}</span>
        <span class="hint" id={`${id}-hint`}>
          {item.quantity} bought at {money(props.order, item.unitPrice)}{props.back > 0 && <> · {props.back} given back already</>}
        </span>
      </label>
      <input
        id={id}
        name={lineField(props.line)}
        class="qty"
        inputMode="numeric"
        placeholder="0"
        value={props.value}
        onInput={(e) => props.onInput((e.currentTarget as HTMLInputElement).value)}
        aria-invalid={props.error ? 'true' : undefined}
        aria-describedby={describedBy}
      />
      {props.error && <p class="field-error" id={`${id}-error`} role="alert">{props.error}</p>}
    </li>
  );
}

/**
 * The Refund dialog. Everything left is the default; "Part of it" takes an amount, which follows the returned items'
 * value until the merchant types one. `refresh` reloads the order (after a refusal, so what is left is current).
 */
export function RefundDialog(props: { order: OrderDetail; onClose: () => void; onRequested: (answer: RefundRequested, amountMinor: number) => void; refresh: () => Promise<OrderDetail | undefined> }) {
  const o = props.order;
  const currency = o.totals.currency;
  const fieldNames = ['amount', 'reason', 'restock', ...o.items.map((_, i) => lineField(i))];
  const form = useForm<RefundDraft>(emptyDraft(), fieldNames);
  const d = form.values;
  const order = { items: o.items, refunds: o.refunds, refundableMinor: o.refundableMinor, currency };
  const returned = returnedQuantities(o.refunds);
  const chosen = chosenLines(order, d.quantities).lines;
  const request = refundRequest(order, d);
  const pending = pendingMinor(o.refunds);

  const update = (next: Partial<RefundDraft>, touched: string[]) => {
    const merged = { ...d, ...next };
    // Until the merchant types an amount, it is the returned items' value.
    if (merged.mode === 'part' && !merged.amountEdited) {
      const lines = chosenLines(order, merged.quantities).lines;
      if (lines.length) merged.amount = centsToInput(linesAmount(order, lines), currency);
    }
    form.setAll(merged);
    if (touched.some((t) => t in form.errors)) form.setErrors(Object.fromEntries(Object.entries(form.errors).filter(([k]) => !touched.includes(k))));
  };

  const submit = () =>
    void form.run(async () => {
      const req = refundRequest(order, d);
      if (!req.ok) throw invalid(req.errors);
      let answer: RefundRequested;
      try {
        answer = await api.post('/api/checkout/merchant/orders/{token}/refund', { params: { token: o.token }, body: req.body });
      } catch (err) {
        // A refusal may come from a change elsewhere (a refund in the store, at the processor): show the order as it is now.
        const fresh = err instanceof ApiError && err.code !== 'INVALID_INPUT' ? await props.refresh() : undefined;
        throw explain(err, req.body, d, fresh ?? o);
      }
      props.onRequested(answer, answer.refund.amountMinor ?? req.amountMinor);
    });

  return (
    <Dialog title={`Refund ${o.storeOrder?.number ? `order ${orderNumberLabel(o.storeOrder.number)}` : 'this payment'}`} name="refund" onClose={props.onClose}>
      <form
        class="form refund-form"
        aria-label="Refund"
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          submit();
        }}
      >
        <p class="refund-balance" data-refundable={o.refundableMinor}>
          Paid {money(o, o.totals.totalMinor ?? 0)}
          {o.refundedMinor > 0 && <> · refunded {money(o, o.refundedMinor)}</>}
          {pending > 0 && <> · on its way back {money(o, pending)}</>}
          {' · '}<strong>{money(o, o.refundableMinor)} left to refund</strong>
        </p>
        {form.error && <Alert kind="error">{form.error}</Alert>}

        <fieldset class="fieldset">
          <legend>How much</legend>
          <label class="radio">
            <input type="radio" name="mode" value="full" checked={d.mode === 'full'} onChange={() => update({ mode: 'full' }, ['amount'])} />
            <span>Everything left <span class="muted">({money(o, o.refundableMinor)})</span></span>
          </label>
          <label class="radio">
            <input type="radio" name="mode" value="part" checked={d.mode === 'part'} onChange={() => update({ mode: 'part' }, [])} />
            <span>Part of it</span>
          </label>
          {d.mode === 'part' && (
            <Field
              label={`Amount (${currency})`}
              name="amount"
              value={d.amount}
              onInput={(v) => update({ amount: v, amountEdited: true }, ['amount'])}
              error={form.errors.amount}
              inputProps={{ inputMode: 'decimal' }}
              placeholder={centsToInput(o.refundableMinor, currency)}
              hint={<>At most {money(o, o.refundableMinor)}. Choosing returned items below fills in their value; you can change it.</>}
            />
          )}
        </fieldset>

        <fieldset class="fieldset">
          <legend>Returned items <span class="muted">(optional)</span></legend>
          <p class="hint">Which items the shopper sent back: they are named on the store's refund{d.mode === 'part' ? ', and their value is the amount' : ''}.</p>
          <ul class="refund-lines">
            {o.items.map((item, i) => (
              <LineQuantity
                key={i}
                order={o}
                line={i}
                back={returned.get(i) ?? 0}
                value={d.quantities[i] ?? ''}
                error={form.errors[lineField(i)]}
                onInput={(v) => update({ quantities: { ...d.quantities, [i]: v } }, [lineField(i)])}
              />
            ))}
          </ul>
          <Checkbox
            label="Restock the returned items"
            name="restock"
            checked={d.restock && chosen.length > 0}
            disabled={chosen.length === 0}
            onChange={(v) => update({ restock: v }, ['restock'])}
            error={form.errors.restock}
            hint={chosen.length ? 'Puts the items chosen above back in stock in your store.' : 'Only with returned items: choose them above first. Without items nothing is restocked.'}
          />
        </fieldset>

        <Field
          label="Reason (optional)"
          name="reason"
          value={d.reason}
          onInput={(v) => update({ reason: v }, ['reason'])}
          error={form.errors.reason}
          inputProps={{ maxLength: 500 }}
          hint="Shown on the store's refund and in the email the shopper gets."
        />

        <p class="hint">The processor sends the money back to the shopper's card; once it confirms, the refund is booked on your store order and the shopper gets an email.</p>
        <div class="button-row dialog-actions">
          <Button type="submit" variant="danger" name="refund-submit" busy={form.busy}>
            {request.ok ? `Refund ${money(o, request.amountMinor)}` : 'Refund'}
          </Button>
          <Button variant="ghost" onClick={props.onClose}>Cancel</Button>
        </div>
      </form>
    </Dialog>
  );
}

/** "1 × Mug · blue, 2 × Shirt" for a refund's lines. */
function lineNames(o: OrderDetail, lines: OrderRefund['lines']): string {
  return lines.map((l) => {
    const item = o.items[l.line];
    return `${l.quantity} × ${item ? `${item.title}${item.variantTitle ? ` · ${item.variantTitle}` : ''}` : `line ${l.line + 1}`}`;
  }).join(', ');
}

function RefundEntry(props: { order: OrderDetail; refund: OrderRefund }) {
  const { order: o, refund: r } = props;
  const processor = processorState(r);
  const store = storeState(r);
  return (
    <li class="refund" data-refund-id={r.id} data-refund-state={r.state} data-store-state={r.store.state}>
      <div class="refund-head">
        <strong class="refund-amount">{formatAmount(r.amount, r.currency)}</strong>
        <span class="muted">{formatDate(r.createdAt)}</span>
        <span class="refund-origin">Made {ORIGIN_LABELS[r.origin].replace(/^[A-Z]/, (c) => c.toLowerCase())}</span>
      </div>
      <dl class="dl refund-facts">
        <dt>Reason</dt><dd>{r.reason ?? <span class="muted">—</span>}</dd>
        {r.lines.length > 0 && <><dt>Items</dt><dd>{lineNames(o, r.lines)}{r.restock ? ' · restocked' : ' · not restocked'}</dd></>}
        <dt>Processor</dt>
        <dd data-processor-state={r.state}>
          <Pill status={processor.key} label={processor.label} />
          {r.state === 'succeeded' && r.succeededAt && <span class="muted"> {formatDate(r.succeededAt)}</span>}
          {r.state === 'requested' && <span class="muted"> on its way back to the shopper</span>}
          {r.failureReason && <span class="text-danger"> {readableAmounts(r.failureReason)}</span>}
        </dd>
        <dt>Store order</dt>
        <dd data-store-refund={r.store.state}>
          <Pill status={store.key} label={store.label} />
          {r.store.refundId && <span class="muted"> (refund <span class="mono">{r.store.refundId}</span>)</span>}
        </dd>
      </dl>
      {r.store.state === 'failed' && (
        <Alert kind="error" title="The store refused to book this refund">
          <p class="store-error">{r.store.error ?? 'The store gave no reason.'}</p>
          <p><strong>What to do:</strong> the money is back with the shopper, but your store order does not say so. Record this refund of {formatAmount(r.amount, r.currency)} in your store's admin by hand{r.lines.length ? ' (with the items above)' : ''}, so the order is not shipped or counted as paid.</p>
        </Alert>
      )}
      {r.state === 'failed' && r.origin === 'store' && (
        <Alert kind="error" title="Refunded in the store, not at the processor">
          The store order says refunded, but no money went back to the shopper. Refund it here, or in the processor's dashboard.
        </Alert>
      )}
    </li>
  );
}

/** Every refund of the order, oldest first, with the totals: refunded so far, on its way back, still refundable. */
export function RefundsCard(props: { order: OrderDetail }) {
  const o = props.order;
  const pending = pendingMinor(o.refunds);
  return (
    <Card title="Refunds" class="refunds-card">
      <dl class="refund-totals" data-refunds-total={o.refundedMinor}>
        <div><dt>Refunded so far</dt><dd data-total="refunded">{money(o, o.refundedMinor)}</dd></div>
        {pending > 0 && <div><dt>On its way back</dt><dd data-total="pending">{money(o, pending)}</dd></div>}
        <div><dt>Still refundable</dt><dd data-total="refundable">{money(o, o.refundableMinor)}</dd></div>
      </dl>
      {o.refunds.length === 0 ? (
        <Empty>No refunds yet.</Empty>
      ) : (
        <ol class="refund-list" aria-label="Refunds">
          {o.refunds.map((r) => <RefundEntry key={r.id} order={o} refund={r} />)}
        </ol>
      )}
    </Card>
  );
}

/** ON_HOLD: why the paid checkout did not become a store order, and what the merchant can do about it. */
export function HoldBanner(props: { order: OrderDetail; onRefund?: (() => void) | undefined }) {
  const hold = props.order.hold;
  if (!hold) return null;
  return (
    <div class="hold-banner" data-hold={hold.reason}>
      <Alert kind="warning" title={`On hold: ${HOLD_WORDS[hold.reason].title}`}>
        <p>{readableAmounts(hold.message)}.</p>
        <p>Your store has no order for this payment. What you can do:</p>
        <ul class="plain-list">
          {hold.reason === 'payment_disputed' && <li>Answer the dispute in the processor's dashboard; the order stays held meanwhile.</li>}
          <li>Refund the payment{props.onRefund ? ' (the button below)' : ''}: the money goes back to the shopper.</li>
          <li>Or, to ship anyway, create the order in your store by hand with the items and address below, and keep the payment.</li>
        </ul>
        {props.onRefund && (
          <div class="button-row">
            <Button variant="danger" name="hold-refund" onClick={props.onRefund}>Refund…</Button>
          </div>
        )}
      </Alert>
    </div>
  );
}
