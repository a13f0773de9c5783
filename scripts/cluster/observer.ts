// What the simulators saw, per checkout session: when the processor first delivered the payment's success
// webhook, when the store order was created and how many, and the emails sent by kind. The flash-sale
// benchmark reads webhook → order from it, and the drill its exactly-once counts. One clock (the
// simulators' process) for both ends of webhook → order. Works on the sims in this process (`npm start`
// topology, the benchmark stack) and behind the cluster sandbox's observer port.
import type { ProcessorSimulator } from '../../sandbox/processor/index.js';
import type { StorefrontBSimulator } from '../../sandbox/storefront-b/simulator.js';
import type { EmailSimulator } from '../../sandbox/email/index.js';
import { PLUGIN_SESSION_META, type BOrder } from '../../sandbox/storefront-b/state.js';

/** Where the processor's payment carries the session token (our payment metadata). */
export const TOKEN_META_KEY = 'checkout_session_token';
/** Whop's event for a paid payment; its `data` is the Payment, carrying the checkout configuration's metadata. */
export const PAYMENT_SUCCEEDED = 'payment.succeeded';

export interface SessionObservation {
  token: string;
  /** The processor's payment.succeeded event (Whop's name) exists: the shopper paid. */
  paid: boolean;
  /** Epoch ms of the first delivery attempt of that event (absent: not delivered yet, or dropped). */
  webhookAt?: number;
  /** Delivery attempts of that event (copies and retries included); 0 when dropped. */
  webhookDeliveries: number;
  dropped: boolean;
  /** Epoch ms when the first store order for the session was created. */
  orderAt?: number;
  orders: number;
  /** Emails by kind (Tag), e.g. { 'order-confirmation': 1, 'merchant-order-notification': 1 }. */
  emails: Record<string, number>;
}

export interface SandboxReport {
  at: number;
  sessions: SessionObservation[];
}

export interface SandboxObserver {
  report(): SandboxReport;
  stop(): void;
}

type Sims = { processor: ProcessorSimulator; storefrontB: StorefrontBSimulator; email: EmailSimulator };

const tokenOfOrder = (order: BOrder): string | undefined => {
  const value = order.metaData.find((m) => m.key === PLUGIN_SESSION_META)?.value;
  return typeof value === 'string' ? value : undefined;
};

export function observeSandbox(sims: Sims): SandboxObserver {
  // Order creation times, observed as they happen (storefront B's order table), for every store.
  const orderAt = new Map<string, number>();
  const unhooks: Array<() => void> = [];
  for (const store of sims.storefrontB.stores.values()) {
    const orders = store.orders;
    const insert = orders.set.bind(orders);
    orders.set = (id: number, order: BOrder) => {
      const token = tokenOfOrder(order);
      if (token && !orders.has(id) && !orderAt.has(token)) orderAt.set(token, Date.now());
      return insert(id, order);
    };
    unhooks.push(() => Reflect.deleteProperty(orders, 'set'));
  }

  return {
    report(): SandboxReport {
      const sessions = new Map<string, SessionObservation>();
      const session = (token: string): SessionObservation => {
        let s = sessions.get(token);
        if (!s) sessions.set(token, (s = { token, paid: false, webhookDeliveries: 0, dropped: false, orders: 0, emails: {} }));
        return s;
      };
      const eventToken = new Map<string, string>();
      for (const event of sims.processor.webhooks.listEvents()) {
        if (event.event !== PAYMENT_SUCCEEDED) continue;
        const token = (event.payload.data as { metadata?: Record<string, unknown> }).metadata?.[TOKEN_META_KEY];
        if (typeof token !== 'string') continue;
        const s = session(token);
        s.paid = true;
        s.dropped ||= event.state === 'dropped';
        eventToken.set(event.id, token);
      }
      for (const attempt of sims.processor.webhooks.deliveries()) {
        const token = eventToken.get(attempt.event_id);
        if (!token) continue;
        const s = session(token);
        s.webhookDeliveries += 1;
        const at = Date.parse(attempt.at);
        if (s.webhookAt === undefined || at < s.webhookAt) s.webhookAt = at;
      }
      for (const store of sims.storefrontB.stores.values()) {
        for (const order of store.orders.values()) {
          const token = tokenOfOrder(order);
          if (token) session(token).orders += 1;
        }
      }
      for (const [token, at] of orderAt) if (sessions.has(token)) sessions.get(token)!.orderAt = at;
      for (const message of sims.email.messages()) {
        const token = message.Metadata?.token;
        if (!token) continue;
        const s = session(token);
        s.emails[message.Tag] = (s.emails[message.Tag] ?? 0) + 1;
      }
      return { at: Date.now(), sessions: [...sessions.values()] };
    },
    stop() {
      for (const unhook of unhooks) unhook();
    },
  };
}
