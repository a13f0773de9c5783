// `npm run drill`: the chaos drill on the cluster (scripts/cluster/drill.ts) during a flash sale of
// DRILL_SHOPPERS shoppers (default 300), DRILL_CONCURRENCY at a time (default 30). Prints what it broke and
// when, then the counts; exits 1 unless every paid session has exactly one order and one of each email.
import { runDrill } from './cluster/drill.js';

const n = (name: string, fallback: number) => {
  const v = process.env[name];
  if (v === undefined || v === '') return fallback;
  if (!/^\d+$/.test(v) || Number(v) < 1) {
    console.error(`${name} must be a positive whole number`);
    process.exit(2);
  }
  return Number(v);
};

const outcome = await runDrill({ shoppers: n('DRILL_SHOPPERS', 300), concurrency: n('DRILL_CONCURRENCY', 30), log: (line) => console.log(line) });
const a = outcome.account;
console.log(`
drill finished in ${outcome.seconds.toFixed(1)} s
  shoppers                 ${outcome.shoppers} (${outcome.shopperErrors} gave up on a step)
  paid sessions            ${a.paid}
  with one order + emails  ${a.completed}
  lost (paid, no order)    ${a.lost}
  missing emails           ${a.missingEmails}
  duplicate orders         ${a.duplicateOrders}
  duplicate emails         ${a.duplicateEmails}
  webhooks dropped         ${a.droppedWebhooks}
  webhook deliveries       ${a.webhookDeliveries} (${outcome.redeliveries} redeliveries of 2 copies)
${outcome.failures.length ? `FAILED:\n${outcome.failures.map((f) => `  - ${f}`).join('\n')}` : 'PASSED: every paid session has exactly one order, one confirmation and one merchant notification'}`);
process.exit(outcome.failures.length ? 1 : 0);
