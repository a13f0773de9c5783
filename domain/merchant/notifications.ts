// The merchant's notification settings: which events email the merchant and to which addresses. Pure: shared by the
// API (the settings routes), the activities that send (activities/merchant-notifications.ts) and the dashboard.

/** The events a merchant can be emailed about, as the settings API names them. */
export const NOTIFICATION_EVENTS = ['newOrder', 'refund', 'storeOrderFailed', 'endpointDisabled'] as const;
export type NotificationEvent = (typeof NOTIFICATION_EVENTS)[number];

/** What each event is, as the dashboard and the docs say it. */
export const NOTIFICATION_EVENT_LABELS: Record<NotificationEvent, { label: string; covers: string }> = {
  newOrder: { label: 'New order', covers: 'a checkout was paid (or cash on delivery confirmed): the order, its lines and the customer' },
  refund: { label: 'Refund', covers: 'the processor confirmed a refund, made from this dashboard, the API, Whop or the store' },
  storeOrderFailed: { label: 'Store order failed', covers: 'a paid checkout the store (Shopify or WooCommerce) refused to turn into an order, with what to do' },
  endpointDisabled: { label: 'Webhook endpoint failing or disabled', covers: 'one of your webhook endpoints kept failing: warnings on day 1 and 3, and the notice when it is disabled on day 5' },
};

/** Defaults of a new merchant: what was always mailed stays on; the refund notice is opt-in. */
export const NOTIFICATION_DEFAULTS: Record<NotificationEvent, boolean> = { newOrder: true, refund: false, storeOrderFailed: true, endpointDisabled: true };

/** At most this many addresses receive the notifications (one email with every address in To). */
export const NOTIFICATION_RECIPIENTS_MAX = 5;

/** The merchant's stored settings (the merchants row's columns). */
export interface NotificationColumns {
  email: string;
  notifyNewOrder: boolean;
  notifyRefund: boolean;
  notifyStoreOrderFailed: boolean;
  notifyEndpointDisabled: boolean;
  notificationEmails: string[];
}

export const NOTIFICATION_COLUMN: Record<NotificationEvent, keyof Omit<NotificationColumns, 'email' | 'notificationEmails'>> = {
  newOrder: 'notifyNewOrder',
  refund: 'notifyRefund',
  storeOrderFailed: 'notifyStoreOrderFailed',
  endpointDisabled: 'notifyEndpointDisabled',
};

/**
 * Where the email of `event` goes: null when the merchant switched it off, else the addresses (the account's email
 * when none are set), each once, lower-case. `always`: an email the settings do not switch (only the addresses apply).
 */
export function notificationRecipients(m: NotificationColumns, event: NotificationEvent, opts: { always?: boolean } = {}): string[] | null {
  if (!opts.always && !m[NOTIFICATION_COLUMN[event]]) return null;
  const listed = [...new Set(m.notificationEmails.map((e) => e.trim().toLowerCase()).filter(Boolean))];
  return listed.length > 0 ? listed.slice(0, NOTIFICATION_RECIPIENTS_MAX) : [m.email];
}
