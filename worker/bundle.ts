// Bundles workflows/ once (webpack via the Temporal SDK). Our sources import `./x.js` for `./x.ts`
// (ESM + TypeScript), so the bundler is told to try `.ts` for `.js`.
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode, type WorkflowBundleWithSourceMap } from '@temporalio/worker';

export const WORKFLOWS_PATH = fileURLToPath(new URL('../workflows/index.ts', import.meta.url));

export function bundleWorkflows(): Promise<WorkflowBundleWithSourceMap> {
  return bundleWorkflowCode({
    workflowsPath: WORKFLOWS_PATH,
    logger: { log() {}, trace() {}, debug() {}, info() {}, warn: console.warn, error: console.error },
    webpackConfigHook: (config) => {
      config.resolve = { ...config.resolve, extensionAlias: { '.js': ['.ts', '.js'] } };
      return config;
    },
  });
}
