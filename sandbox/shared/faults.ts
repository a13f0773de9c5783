// Fault injection shared by every simulator: "make the next N calls fail with 500/429, time out, or
// answer slowly". Rules are consumed in order by the calls that match them; HTTP simulators apply them
// in an onRequest hook, the DNS simulator consults the same store for each UDP query.
import { z } from 'zod';

export const faultRuleSchema = z.object({
  /** error: answer `status` at once; timeout: never answer; slow: answer normally after `delayMs`. */
  mode: z.enum(['error', 'timeout', 'slow']),
  /** How many matching calls this rule affects. */
  count: z.number().int().min(1).max(10_000).default(1),
  status: z.number().int().min(400).max(599).default(500),
  delayMs: z.number().int().min(0).max(120_000).default(2_000),
  /** Only calls whose path starts with this (HTTP) or whose query name ends with it (DNS). */
  match: z.string().optional(),
  /** Only calls with this HTTP method (or DNS record type). */
  method: z.string().optional(),
});

export type FaultRuleInput = z.input<typeof faultRuleSchema>;
export type FaultRule = z.output<typeof faultRuleSchema> & { id: number; remaining: number };

/**
 * A call a `timeout` rule held without answering, and how the hold ended: the client gave up and closed the
 * connection (`abandoned`), or the hold ran out first (`expired`). Lets a test see that a hung upstream was
 * abandoned, and how many times it was tried, without timing anything.
 */
export interface HeldCall {
  ruleId: number;
  method: string;
  target: string;
  outcome: 'holding' | 'abandoned' | 'expired';
}

export class FaultInjector {
  private rules: FaultRule[] = [];
  private heldCalls: HeldCall[] = [];
  private nextId = 1;

  add(input: FaultRuleInput): FaultRule {
    const parsed = faultRuleSchema.parse(input);
    const rule = { ...parsed, id: this.nextId++, remaining: parsed.count };
    this.rules.push(rule);
    return rule;
  }

  list(): FaultRule[] {
    return this.rules.map((r) => ({ ...r }));
  }

  clear(): void {
    this.rules = [];
    this.heldCalls = [];
  }

  /** Records a call held by `rule`: the caller sets its outcome when the hold ends. */
  hold(rule: FaultRule, method: string, target: string): HeldCall {
    const call: HeldCall = { ruleId: rule.id, method, target, outcome: 'holding' };
    this.heldCalls.push(call);
    return call;
  }

  /** The calls held since the last clear, oldest first. */
  held(): HeldCall[] {
    return this.heldCalls.map((c) => ({ ...c }));
  }

  /** Consumes and returns the first rule matching this call, if any. */
  take(method: string, target: string, matches: (target: string, match: string) => boolean = (t, m) => t.startsWith(m)): FaultRule | undefined {
    const rule = this.rules.find(
      (r) => r.remaining > 0 && (!r.method || r.method.toUpperCase() === method.toUpperCase()) && (!r.match || matches(target, r.match)),
    );
    if (!rule) return undefined;
    rule.remaining -= 1;
    this.rules = this.rules.filter((r) => r.remaining > 0);
    return { ...rule };
  }
}
