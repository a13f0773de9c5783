// The workflow contract (domain/temporal/workflow-names.ts) names the worker's workflows, each of them, and nothing else.
import { describe, expect, it } from 'vitest';
import * as workflows from './index.js';
import { WORKFLOWS } from '../domain/temporal/workflow-names.js';

type Exported = keyof typeof workflows;
type Named = (typeof WORKFLOWS)[keyof typeof WORKFLOWS]['type'];
// Checked by the type checker: a name in the contract that no workflow has, or a workflow the contract leaves out.
const namedAreExported: [Named] extends [Exported] ? true : never = true;
const exportedAreNamed: [Exported] extends [Named] ? true : never = true;

describe('the workflow contract', () => {
  it('names every workflow of the worker, by its exported function name', () => {
    expect(namedAreExported && exportedAreNamed).toBe(true);
    const exported = Object.entries(workflows).filter(([, v]) => typeof v === 'function').map(([k]) => k).sort();
    expect(Object.values(WORKFLOWS).map((w) => w.type).sort()).toEqual(exported);
  });

  it('gives each workflow an id of its own', () => {
    const ids = Object.values(WORKFLOWS).map((w) => w.id('x'));
    expect(new Set(ids).size).toBe(ids.length);
  });
});
