import { parentPort, workerData } from 'node:worker_threads';
import { loadPlansFile, type PlansContext } from './plans-file.js';

// A worker thread's whole work (see `plans-source.ts`): read and validate one version of a large
// plans file away from the event loop, and hand back the result or why it failed.
const { file, context } = workerData as { readonly file: string; readonly context: PlansContext };
try {
  parentPort?.postMessage({ loaded: loadPlansFile(file, context) });
} catch (error) {
  parentPort?.postMessage({ error: (error as Error).message });
}
