// Runs in each test worker before each of its files. Worker processes keep one module cache for all their files
// (vitest.config.ts `isolate: false`), and the Temporal SDK's Rust runtime is one per process, created by whatever
// touches Temporal first: a replay test would create it with the default logger (warnings on every time-skipping
// worker). Installing the quiet one here, before any file runs, makes it the process's runtime whatever the order.
import { quietRuntime } from '../../scripts/lib/stack/service-stack.js';

quietRuntime();
