// The store's tax, shown before the shopper pays: once the address and a rate are entered, the page asks the API for a
// quote (POST /api/checkout/:token/quote: the same pricing as init-payment plus the store's own tax for that address),
// a moment after the shopper stops typing; the newest answer wins. Until it comes, the summary shows no tax line.
import { useEffect, useState } from 'preact/hooks';
import { api } from '../shared/api.js';

export interface TaxQuote {
  taxMinor: number;
  taxesIncluded: boolean;
  totalMinor: number;
}

export function useTaxQuote(input: { token: string; preview: boolean; body: Record<string, unknown> | null }): TaxQuote | null {
  const [quote, setQuote] = useState<{ key: string; value: TaxQuote } | null>(null);
  const key = input.body ? JSON.stringify(input.body) : '';
  useEffect(() => {
    if (!input.body || input.preview) return;
    let cancelled = false;
    const timer = setTimeout(() => {
      void api<TaxQuote>('POST', `/api/checkout/${input.token}/quote`, input.body, { timeoutMs: 8_000 }).then((r) => {
        if (!cancelled && r.ok) setQuote({ key, value: { taxMinor: r.data.taxMinor, taxesIncluded: r.data.taxesIncluded, totalMinor: r.data.totalMinor } });
      });
    }, 400);
    return () => {
      cancelled = true;
      clearTimeout(timer);
    };
  }, [key]);
  // A quote for other details than those on screen is no quote.
  return quote && quote.key === key ? quote.value : null;
}
