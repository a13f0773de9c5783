// Extras: a discount code. The page never prices it: it asks the API (validate-discount) what the code takes off
// and shows that amount; init-payment prices it again.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../../../shared/api.js';
import { t } from '../../i18n.js';
import { FieldError } from '../../parts.js';
import { EMAIL_RE } from '../../progress.js';

export interface AppliedDiscount {
  code: string;
  amount: number;
}

/**
 * Whether a refused validate-discount is a verdict on the code (unknown, expired, used up, minimum not met, or a
 * malformed code): only then is the code dropped. Anything else (the checkout moved on, the network, a rate limit)
 * says nothing about the code, so what is applied stays — the stored total is still the truth.
 */
export function refusesCode(code: string): boolean {
  return code.startsWith('DISCOUNT_') || code === 'INVALID_INPUT';
}

/** The discount a validate-discount answer grants, in minor units, or null when it names none. */
export function discountAmountOf(data: unknown): number | null {
  const d = data as Record<string, unknown> | null;
  if (!d) return null;
  const candidates = [d.discountMinor, d.amountMinor, (d.discount as { amount?: unknown } | undefined)?.amount, (d.amount as { amount?: unknown } | undefined)?.amount, d.amount];
  const found = candidates.find((c) => typeof c === 'number' && Number.isSafeInteger(c) && c >= 0);
  return typeof found === 'number' ? found : null;
}

export interface DiscountState {
  input: string;
  setInput: (value: string) => void;
  applied: AppliedDiscount | null;
  busy: boolean;
  apply: (raw?: string) => Promise<void>;
  remove: () => void;
}

/**
 * The code field's state. A code applied at an earlier visit shows with the amount it took then, and is checked
 * again on load; an applied code again whenever the ticked bumps change (a percentage follows them). `setError`
 * shows or clears the field's message.
 */
export function useDiscount(opts: {
  token: string;
  preview: boolean;
  storedCode: string | null | undefined;
  /** What the stored code took off at the last init-payment (minor units). */
  storedAmount: number;
  email: string;
  bumpIds: string[];
  setError: (message: string | null) => void;
}): DiscountState {
  const [input, setInput] = useState(opts.storedCode ?? '');
  const [applied, setApplied] = useState<AppliedDiscount | null>(() => (opts.storedCode ? { code: opts.storedCode, amount: opts.storedAmount } : null));
  const [busy, setBusy] = useState(false);

  /** `asked`: the shopper pressed Apply (every refusal is shown); else a re-check, which keeps the code unless it is refused. */
  async function apply(raw = input, ids = opts.bumpIds, asked = true) {
    const code = raw.trim();
    if (!code) {
      opts.setError(t('enterCode'));
      return;
    }
    setBusy(true);
    const validEmail = EMAIL_RE.test(opts.email.trim());
    const r = await api<unknown>('POST', `/api/checkout/${opts.token}/validate-discount`, {
      code,
      ...(validEmail ? { email: opts.email.trim() } : {}),
      ...(ids.length ? { orderBumpIds: ids } : {}),
    });
    setBusy(false);
    if (r.ok) {
      const named = (r.data as { code?: unknown }).code;
      setApplied({ code: typeof named === 'string' ? named : code.toUpperCase(), amount: discountAmountOf(r.data) ?? 0 });
      opts.setError(null);
    } else if (refusesCode(r.code)) {
      setApplied(null);
      opts.setError(r.fields.code ?? r.fields.discountCode ?? r.message);
    } else if (asked) {
      opts.setError(r.message);
    }
  }

  const firstRun = useRef(true);
  useEffect(() => {
    const code = firstRun.current ? opts.storedCode : applied?.code;
    firstRun.current = false;
    if (code && !opts.preview) void apply(code, opts.bumpIds, false);
  }, [opts.bumpIds]);

  return { input, setInput, applied, busy, apply: (raw?: string) => apply(raw), remove: () => setApplied(null) };
}

export function DiscountCode(props: { state: DiscountState; error: string | undefined; appliedAmount: number; fmt: (minor: number) => string }) {
  const { state, error } = props;
  return (
    <div class={`field discount-field${error ? ' invalid' : ''}`}>
      <label for="f-discountCode">{t('discountCode')}</label>
      <div class="inline">
        <input
          id="f-discountCode"
          name="discountCode"
          value={state.input}
          autoComplete="off"
          autoCapitalize="characters"
          aria-invalid={error ? 'true' : undefined}
          aria-describedby={error ? 'f-discountCode-err' : state.applied ? 'f-discountCode-ok' : undefined}
          onInput={(e) => state.setInput((e.currentTarget as HTMLInputElement).value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter') {
              e.preventDefault();
              void state.apply();
            }
          }}
        />
        <button type="button" class="secondary" onClick={() => void state.apply()} disabled={state.busy}>
          {state.busy ? t('checking') : t('apply')}
        </button>
      </div>
      <FieldError id="f-discountCode-err" message={error} />
      {state.applied && !error && (
        <p class="field-ok" id="f-discountCode-ok" role="status">
          {t('codeApplied', { code: state.applied.code })}{state.applied.amount ? `: −${props.fmt(props.appliedAmount)}` : ''}.{' '}
          <button type="button" class="link" onClick={state.remove}>
            {t('remove')}
          </button>
        </p>
      )}
    </div>
  );
}
