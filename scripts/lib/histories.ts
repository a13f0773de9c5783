// Workflow histories kept as files (workflows/__histories__): written as the proto object's JSON and read
// back through the proto class, which is what Worker.runReplayHistory takes.
import { readFileSync, writeFileSync } from 'node:fs';
import proto from '@temporalio/proto';

type History = proto.temporal.api.history.v1.History;

export function writeHistory(file: string, history: unknown): void {
  writeFileSync(file, JSON.stringify(history, null, 2) + '\n');
}

export function readHistory(file: string): History {
  return proto.temporal.api.history.v1.History.fromObject(JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>);
}
