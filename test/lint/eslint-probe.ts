// Lint probes: a line linted as if it were written in a real file of the tree (the file's own text with the line added
// at its end), by the project's own ESLint config running only the rule under test.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** The messages `ruleId` reports for a file of the tree with a line added at its end. */
export function eslintProbe(ruleId: string): (file: string, line: string) => Promise<string[]> {
  const eslint = new ESLint({ cwd: root, ruleFilter: (rule) => rule.ruleId === ruleId });
  return async (file, line) => {
    const text = `${readFileSync(`${root}/${file}`, 'utf8')}\n${line}\n`;
    const [result] = await eslint.lintText(text, { filePath: `${root}/${file}` });
    return result!.messages.filter((m) => m.ruleId === ruleId).map((m) => m.message);
  };
}
