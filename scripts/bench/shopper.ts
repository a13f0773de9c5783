// One shopper's whole card checkout over HTTP, as a browser does it: the store's checkout button (create),
// the checkout page's bundle, init-payment, the card form on the processor's hosted page, and (optionally)
// the checkout page calling `pay` when the processor sends the shopper back. The processor's webhook, the
// store order and the emails follow on their own; the caller observes them (scripts/cluster/observer.ts).
// Every shopper has a loopback source address of its own (127.20.x.y), so per-IP rate limits and the
// proxy see distinct shoppers, as in a real sale. The processor protocol lives only in payOnProcessorPage.
import http from 'node:http';

export interface ShopperTarget {
  /** The API as shoppers reach it (the proxy in the cluster). */
  apiUrl: string;
  /** POST /api/checkout/create as the store's plugin sends it: the body and its signature headers (fresh per call). */
  cart: { body: string; headers(): Record<string, string> };
}

export type Step = 'create' | 'bundle' | 'initPayment' | 'processorPage' | 'payPage' | 'confirm';

export interface ShopperResult {
  index: number;
  token?: string;
  paymentId?: string;
  /** Epoch ms when the processor page accepted the card. */
  paidAt?: number;
  stepsMs: Partial<Record<Step, number>>;
  /** Clicking Pay → the processor's page shown: init-payment, then the browser's GET of the page it answered. */
  payToPageMs?: number;
  /** The step that failed and why (the run goes on; the report counts it). */
  error?: { step: Step; message: string };
}

export interface ShopperOptions {
  /** Call POST /api/checkout/:token/pay after the processor page (as the checkout page does on return). */
  confirmOnReturn?: boolean;
  /** Attempts per step when the answer is a 5xx or the connection fails (a replica killed mid-request). */
  attempts?: number;
}

const TEST_CARD = { card_number: '4242 4242 4242 4242', expiry: '12/34', cvc: '123', name: 'Flash Shopper' };

/** A distinct loopback source address per shopper (Linux routes all of 127.0.0.0/8 to lo). */
export function shopperAddress(index: number): string {
  return `127.20.${Math.floor(index / 250) % 250}.${(index % 250) + 1}`;
}

interface Answer {
  status: number;
  body: string;
  headers: http.IncomingHttpHeaders;
}

function request(agent: http.Agent, localAddress: string, method: string, url: string, body?: string, contentType = 'application/json', extra: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const req = http.request(
      {
        agent,
        localAddress,
        method,
        host: u.hostname === 'localhost' ? '127.0.0.1' : u.hostname,
        port: u.port,
        path: u.pathname + u.search,
        headers: { ...extra, host: u.host, ...(body !== undefined ? { 'content-type': contentType, 'content-length': Buffer.byteLength(body) } : {}) },
        timeout: 60_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), headers: res.headers }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', reject);
    req.end(body);
  });
}

class StepError extends Error {}

export async function runShopper(target: ShopperTarget, index: number, opts: ShopperOptions = {}): Promise<ShopperResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 2 });
  const address = shopperAddress(index);
  const result: ShopperResult = { index, stepsMs: {} };
  const attempts = opts.attempts ?? 1;

  /** Times one step; retries a 5xx or a broken connection like a shopper clicking again. */
  async function step(name: Step, call: () => Promise<Answer>, ok: (a: Answer) => boolean): Promise<Answer> {
    const t0 = performance.now();
    let last = '';
    for (let attempt = 1; attempt <= attempts; attempt++) {
      try {
        const answer = await call();
        if (ok(answer)) {
          result.stepsMs[name] = performance.now() - t0;
          return answer;
        }
        last = `HTTP ${answer.status}: ${answer.body.slice(0, 200)}`;
        if (answer.status < 500) break;
      } catch (err) {
        last = (err as Error).message;
      }
      if (attempt < attempts) await new Promise((r) => setTimeout(r, 500 * attempt));
    }
    result.error = { step: name, message: last };
    throw new StepError(last);
  }
  const api = (method: string, path: string, body?: unknown) => () => request(agent, address, method, `${target.apiUrl}${path}`, body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body));

  try {
    // Signed when the request is sent (a retried click signs again, as the plugin does on every checkout).
    const created = await step('create', () => request(agent, address, 'POST', `${target.apiUrl}/api/checkout/create`, target.cart.body, 'application/json', target.cart.headers()), (a) => a.status === 201);
    const token = (JSON.parse(created.body) as { token: string }).token;
    result.token = token;
    const bundle = await step('bundle', api('GET', `/api/checkout/session-bundle/${token}`), (a) => a.status === 200);
    const rate = (JSON.parse(bundle.body) as { shipping: Array<{ id: string }> }).shipping[0]!;
    const init = await step(
      'initPayment',
      api('POST', `/api/checkout/${token}/init-payment`, {
        email: `shopper-${index}-${token.slice(-6)}@customer.test`,
        address: { name: 'Flash Shopper', line1: 'Hauptstr. 1', city: 'Berlin', postalCode: '10115', country: 'DE' },
        shippingRateId: rate.id,
      }),
      (a) => a.status === 200,
    );
    const { paymentId, paymentUrl } = JSON.parse(init.body) as { paymentId: string; paymentUrl: string };
    result.paymentId = paymentId;
    // The browser follows to the processor's hosted page: the shopper waited from Pay until it is shown.
    await step('processorPage', () => request(agent, address, 'GET', paymentUrl), (a) => a.status === 200);
    result.payToPageMs = result.stepsMs.initPayment! + result.stepsMs.processorPage!;
    await step('payPage', () => payOnProcessorPage(agent, address, paymentUrl), (a) => a.status === 303);
    result.paidAt = Date.now();
    if (opts.confirmOnReturn) await step('confirm', api('POST', `/api/checkout/${token}/pay`), (a) => a.status === 200);
  } catch (err) {
    if (!(err instanceof StepError)) result.error ??= { step: 'create', message: (err as Error).message };
  } finally {
    agent.destroy();
  }
  return result;
}

/**
 * The processor's hosted page: the card form posted with the test card; success answers 303 to the
 * checkout's return URL. The one place that knows the processor's page protocol.
 */
function payOnProcessorPage(agent: http.Agent, address: string, paymentUrl: string): Promise<Answer> {
  return request(agent, address, 'POST', paymentUrl, new URLSearchParams(TEST_CARD).toString(), 'application/x-www-form-urlencoded');
}
