// The order on the merchant's store, as its own state beside the session status. COMPLETED (or COD_CONFIRMED)
// means the payment side is settled; the checkout workflow creates the store order after that, retrying while
// the store is down (up to 48 hours), so a paid session can be without its store order for a while, or for
// good when the store refuses it. Pure: derived from what the workflow records (storeOrderId, storeOrderError).
import { hasStoreOrder } from './checkout-status.js';


export type StoreOrderState = 'pending' | 'created' | 'failed';
export const STORE_ORDER_STATES = ['pending', 'created', 'failed'] as const satisfies readonly StoreOrderState[];

export interface StoreOrder {
  /** pending: being created (the store may be down: it is retried); created: on the store; failed: the store refused it for good. */
  state: StoreOrderState;
  /** The store's order id, once created. */
  id: string | null;
  /** The order's name on the store ("#1001"), the one number the merchant, the shopper and the emails use. */
  number: string | null;
  /** Why the store refused it (failed only), written for the merchant. */
  error: string | null;
}

/** The store order of a session, or null while the session has none to expect (not paid, not confirmed for COD). */
export function storeOrderOf(session: { status: string; storeOrderId: string | null; storeOrderNumber?: string | null; storeOrderError: string | null }): StoreOrder | null {
  if (session.storeOrderId) return { state: 'created', id: session.storeOrderId, number: session.storeOrderNumber ?? null, error: null };
  if (!hasStoreOrder(session.status)) return null;
  if (session.storeOrderError) return { state: 'failed', id: null, number: null, error: session.storeOrderError };
  return { state: 'pending', id: null, number: null, error: null };
}

/** The order's number as people read it: "#1001" as storefront A names it, "#57" for storefront B's "57". */
export function orderNumberLabel(number: string): string {
  const trimmed = number.trim();
  return trimmed.startsWith('#') ? trimmed : `#${trimmed}`;
}
