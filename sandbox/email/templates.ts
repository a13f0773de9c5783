// Postmark's server templates: stored by numeric TemplateId and optional unique Alias, rendered with the
// Mustachio subset in mustache.ts. Layout templates are not simulated (TemplateType 'Layout' is refused).
import { z } from 'zod';
import { parseTemplate, renderTemplate } from './mustache.js';
import { ERROR, Rejection, parseShape } from './validate.js';

export interface Template {
  TemplateId: number;
  Name: string;
  Alias: string | null;
  Subject: string;
  HtmlBody: string | null;
  TextBody: string | null;
  TemplateType: 'Standard';
  LayoutTemplate: null;
  Active: boolean;
  AssociatedServerId: number;
}

const MAX_TEMPLATES = 100;
const ALIAS = /^[A-Za-z][A-Za-z0-9._-]*$/;
const FIRST_ID = 1_000_001;

const templateFields = z.object({
  Name: z.string().nullish(),
  Alias: z.string().nullish(),
  Subject: z.string().nullish(),
  HtmlBody: z.string().nullish(),
  TextBody: z.string().nullish(),
  TemplateType: z.enum(['Standard', 'Layout']).nullish(),
  LayoutTemplate: z.string().nullish(),
});

export function summary(t: Template) {
  return { TemplateId: t.TemplateId, Name: t.Name, Alias: t.Alias, Active: t.Active, TemplateType: t.TemplateType, LayoutTemplate: t.LayoutTemplate };
}

export function createTemplateStore() {
  let templates: Template[] = [];
  let nextId = FIRST_ID;

  function find(idOrAlias: string | number): Template | undefined {
    const key = String(idOrAlias);
    return /^\d+$/.test(key) ? templates.find((t) => t.TemplateId === Number(key)) : templates.find((t) => t.Alias?.toLowerCase() === key.toLowerCase());
  }

  function get(idOrAlias: string | number): Template {
    const template = find(idOrAlias);
    if (!template) throw new Rejection(ERROR.templateNotFound, `The template '${idOrAlias}' was not found.`);
    return template;
  }

  /** Checks a candidate template (the merge of stored and submitted fields) the way Postmark does on save. */
  function check(candidate: Omit<Template, 'TemplateId' | 'Active' | 'AssociatedServerId'>, self?: Template): void {
    if (!candidate.Name) throw new Rejection(ERROR.missingTemplateField, "The 'Name' field is required.");
    if (!candidate.Subject) throw new Rejection(ERROR.missingTemplateField, "The 'Subject' field is required.");
    if (!candidate.HtmlBody && !candidate.TextBody) throw new Rejection(ERROR.missingTemplateField, "Either the 'HtmlBody' or the 'TextBody' field is required.");
    if (candidate.Alias !== null) {
      if (!ALIAS.test(candidate.Alias)) throw new Rejection(ERROR.invalidTemplateField, `The 'Alias' '${candidate.Alias}' is invalid: it must start with a letter and contain only letters, digits, '.', '-' and '_'.`);
      const owner = find(candidate.Alias);
      if (owner && owner !== self) throw new Rejection(ERROR.invalidTemplateField, `The 'Alias' '${candidate.Alias}' is already used by template ${owner.TemplateId}.`);
    }
    for (const field of ['Subject', 'HtmlBody', 'TextBody'] as const) {
      const source = candidate[field];
      if (!source) continue;
      try {
        parseTemplate(source);
      } catch (err) {
        throw new Rejection(ERROR.invalidTemplateField, `The '${field}' content is invalid: ${(err as Error).message}.`);
      }
    }
  }

  function fields(body: unknown) {
    if (body === null || body === undefined) throw new Rejection(ERROR.missingTemplateField, 'No template data received.');
    const input = parseShape(templateFields, body);
    if (input.TemplateType === 'Layout' || input.LayoutTemplate) throw new Rejection(ERROR.invalidTemplateField, 'Layout templates are not supported by the sandbox.');
    return input;
  }

  return {
    get,
    list: (): Template[] => [...templates],
    create(body: unknown): Template {
      const input = fields(body);
      if (templates.length >= MAX_TEMPLATES) throw new Rejection(ERROR.templateLimit, `Template limit would be exceeded: a server may have up to ${MAX_TEMPLATES} templates.`);
      const candidate = { Name: input.Name ?? '', Alias: input.Alias || null, Subject: input.Subject ?? '', HtmlBody: input.HtmlBody || null, TextBody: input.TextBody || null, TemplateType: 'Standard' as const, LayoutTemplate: null };
      check(candidate);
      const template: Template = { ...candidate, TemplateId: nextId++, Active: true, AssociatedServerId: 1 };
      templates.push(template);
      return template;
    },
    update(idOrAlias: string, body: unknown): Template {
      const existing = get(idOrAlias);
      const input = fields(body);
      const pick = <K extends 'Name' | 'Subject' | 'HtmlBody' | 'TextBody' | 'Alias'>(k: K) => (input[k] === undefined ? existing[k] : input[k] || null);
      const candidate = { Name: pick('Name') ?? '', Alias: pick('Alias'), Subject: pick('Subject') ?? '', HtmlBody: pick('HtmlBody'), TextBody: pick('TextBody'), TemplateType: 'Standard' as const, LayoutTemplate: null };
      check(candidate, existing);
      Object.assign(existing, candidate);
      return existing;
    },
    remove(idOrAlias: string): Template {
      const existing = get(idOrAlias);
      templates = templates.filter((t) => t !== existing);
      return existing;
    },
    clear(): void {
      templates = [];
      nextId = FIRST_ID;
    },
  };
}

export type TemplateStore = ReturnType<typeof createTemplateStore>;

export function renderWith(template: Template, model: Record<string, unknown>) {
  return {
    Subject: renderTemplate(template.Subject, model),
    HtmlBody: template.HtmlBody === null ? null : renderTemplate(template.HtmlBody, model),
    TextBody: template.TextBody === null ? null : renderTemplate(template.TextBody, model),
  };
}
