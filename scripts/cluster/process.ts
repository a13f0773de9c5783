// One process of the cluster: started in a process group of its own (a terminal's Ctrl-C reaches only the
// launcher, which stops everything in order), its stdout and stderr appended to a log file of its own, and
// a readiness check of its own that start() waits for. The drill kills and restarts processes through it.
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import path from 'node:path';

export interface ProcessSpec {
  /** Unique, short: `api-1`, `worker-2`, `temporal`; also the log file's name. */
  name: string;
  command: string;
  args: string[];
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Resolves once the process serves; throws (or keeps throwing) until then. */
  ready: (proc: ManagedProcess) => Promise<unknown>;
  readyTimeoutMs?: number;
  /** SIGTERM, then SIGKILL after this long. */
  stopGraceMs?: number;
}

const live = new Set<ManagedProcess>();
let exitHookInstalled = false;

/** Whatever happens to the launcher, no process it started outlives it. */
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const p of live) p.signalGroup('SIGKILL');
  });
}

export class ManagedProcess {
  child: ChildProcess | undefined;
  /** Starts so far (a restart counts). */
  starts = 0;
  readonly logFile: string;
  private log: WriteStream | undefined;
  private exited: Promise<void> = Promise.resolve();

  constructor(readonly spec: ProcessSpec, logDir: string) {
    mkdirSync(logDir, { recursive: true });
    this.logFile = path.join(logDir, `${spec.name}.log`);
    installExitHook();
  }

  get name(): string {
    return this.spec.name;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  get running(): boolean {
    return !!this.child && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Spawns the process and waits for its readiness; a process that exits first fails with its log's tail. */
  async start(): Promise<void> {
    this.log ??= createWriteStream(this.logFile, { flags: 'a' });
    this.log.write(`\n=== ${new Date().toISOString()} start #${this.starts + 1}: ${this.spec.command} ${this.spec.args.join(' ')}\n`);
    const child = spawn(this.spec.command, this.spec.args, {
      env: this.spec.env ?? process.env,
      cwd: this.spec.cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    this.child = child;
    this.starts += 1;
    live.add(this);
    let tail = '';
    const keep = (d: Buffer) => {
      this.log?.write(d);
      tail = (tail + d.toString()).slice(-3000);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    this.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        this.log?.write(`=== ${new Date().toISOString()} exited (${signal ?? `code ${code}`})\n`);
        resolve();
      });
      child.once('error', (err) => {
        tail += `\n${err.message}`;
        resolve();
      });
    });
    const timeoutMs = this.spec.readyTimeoutMs ?? 60_000;
    const deadline = Date.now() + timeoutMs;
    let lastError: unknown;
    while (Date.now() < deadline) {
      if (!this.running) throw new Error(`${this.name} exited before it was ready (log: ${this.logFile}):\n${tail.trim()}`);
      try {
        await this.spec.ready(this);
        return;
      } catch (err) {
        lastError = err;
        await new Promise((r) => setTimeout(r, 200));
      }
    }
    throw new Error(`${this.name} was not ready within ${timeoutMs} ms: ${lastError instanceof Error ? lastError.message : String(lastError)} (log: ${this.logFile})`);
  }

  /** A signal to the whole process group (the process and anything it spawned). */
  signalGroup(signal: NodeJS.Signals): void {
    if (!this.child?.pid || !this.running) return;
    try {
      process.kill(-this.child.pid, signal);
    } catch {
      // Already gone.
    }
  }

  /** SIGKILL, no grace: what the drill does to a worker or an API replica. */
  async kill(): Promise<void> {
    this.signalGroup('SIGKILL');
    await this.exited;
    live.delete(this);
  }

  /** SIGTERM (the process shuts down gracefully), SIGKILL after the grace time. */
  async stop(): Promise<void> {
    if (!this.running) {
      live.delete(this);
      return;
    }
    this.signalGroup('SIGTERM');
    const timer = setTimeout(() => this.signalGroup('SIGKILL'), this.spec.stopGraceMs ?? 10_000);
    await this.exited;
    clearTimeout(timer);
    live.delete(this);
  }

  async restart(): Promise<void> {
    if (this.running) await this.stop();
    await this.start();
  }

  async close(): Promise<void> {
    await this.stop();
    await new Promise<void>((resolve) => (this.log ? this.log.end(resolve) : resolve()));
    this.log = undefined;
  }
}
