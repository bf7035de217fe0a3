import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { publishPlansReload, type PlansReloadEvent, type PlansVersion } from '../events/index.js';
import { fileStamp, stampSize } from '../sources/file-stamp.js';
import { loadPlansFile, own, type LoadedPlans, type PlansContext, type PlansFile } from './plans-file.js';

/**
 * A changed plans file up to this size is read and validated at once, on the event loop (a
 * millisecond or so); a larger one in a worker thread, so the requests in flight go on meanwhile.
 */
export const OFF_THREAD_BYTES = 64 * 1024;

export interface PlansSourceOptions extends PlansContext {
  /** `SHADOW_PLANS`: each must name a plan of the file at start; a reload that drops one says so. */
  readonly shadowPlans?: ReadonlySet<string>;
  /** The gateway these plans are of, named in its events. */
  readonly source?: object;
}

/** `PLANS_FILE` while the gateway runs: the content in force, and the read of a change under way. */
export interface PlansSource {
  /** The plans in force, after looking at the file (one `stat` per event-loop turn, see `fileStamp`). */
  current(): PlansFile;
  /**
   * After looking at the file: the read of a large changed file while it is under way (it settles
   * once its outcome applies), or `undefined`. A small change is applied before this returns.
   */
  reloading(): Promise<void> | undefined;
  /** Which content is in force. */
  version(): PlansVersion;
}

const WORKER = new URL(`./plans-worker${extname(fileURLToPath(import.meta.url))}`, import.meta.url);

/** `loadPlansFile` in a worker thread of its own, which ends with the read. */
function loadOffThread(file: string, context: PlansContext): Promise<LoadedPlans> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER, { workerData: { file, context } });
    worker.unref();
    worker.once('message', (message: { loaded?: LoadedPlans; error?: string }) => {
      if (message.loaded === undefined) reject(new Error(message.error));
      else resolve(message.loaded);
      void worker.terminate();
    });
    worker.once('error', reject);
    // Without a message first (a crash): settles nothing twice, a promise settles once.
    worker.once('exit', (code) => reject(new Error(`PLANS_FILE ${file}: the reading thread stopped (exit code ${code})`)));
  });
}

/** The names of `SHADOW_PLANS` that `plans` has no plan of. */
const missingShadowPlans = (plans: PlansFile, shadowPlans: ReadonlySet<string> | undefined) =>
  [...(shadowPlans ?? [])].filter((name) => own(plans.plans, name) === undefined);

/** Which plans a change added, removed and changed, by name. */
function planChanges(before: PlansFile, after: PlansFile): NonNullable<PlansReloadEvent['plans']> {
  const names = (plans: PlansFile) => Object.keys(plans.plans);
  return {
    added: names(after).filter((name) => !Object.hasOwn(before.plans, name)),
    removed: names(before).filter((name) => !Object.hasOwn(after.plans, name)),
    changed: names(after).filter((name) => Object.hasOwn(before.plans, name) && JSON.stringify(before.plans[name]) !== JSON.stringify(after.plans[name])),
  };
}

/**
 * Reads `file` now (throwing as `loadPlansFile` does, or when `SHADOW_PLANS` names a plan it does
 * not have: a wrong setting stops the start) and watches it. A change is published as one
 * `plansReload` event per outcome, each naming the version in force after it: `loaded`, or
 * `failed` and `missing`, which keep the last good content.
 */
export function watchPlans(file: string, options: PlansSourceOptions = {}): PlansSource {
  const context: PlansContext = {
    ...(options.operations === undefined ? {} : { operations: options.operations }),
    ...(options.noCeilings === undefined ? {} : { noCeilings: options.noCeilings }),
  };
  const look = fileStamp(file);
  let stamp = look();
  let loaded = loadPlansFile(file, context);
  const unknownShadow = missingShadowPlans(loaded.plans, options.shadowPlans);
  if (unknownShadow.length > 0) throw new Error(`SHADOW_PLANS names no plan of PLANS_FILE ${file}: ${unknownShadow.join(', ')}`);
  let pending: Promise<void> | undefined;
  const { source } = options;

  const apply = (next: LoadedPlans) => {
    const before = loaded.plans;
    loaded = next;
    const shadowPlansMissing = missingShadowPlans(next.plans, options.shadowPlans);
    publishPlansReload({
      source,
      outcome: 'loaded',
      file,
      version: next.version,
      plans: planChanges(before, next.plans),
      ...(shadowPlansMissing.length === 0 ? {} : { shadowPlansMissing }),
    });
  };
  const fail = (error: unknown) => publishPlansReload({ source, outcome: 'failed', file, version: loaded.version, error });

  /** Looks at the file: a change is applied now, or its read in a worker thread is started. */
  function refresh(): void {
    if (pending !== undefined) return;
    const next = look();
    if (next === stamp) return;
    stamp = next;
    if (next === 'missing') publishPlansReload({ source, outcome: 'missing', file, version: loaded.version });
    else if (stampSize(next) > OFF_THREAD_BYTES)
      pending = loadOffThread(file, context)
        .then(apply, fail)
        .finally(() => {
          pending = undefined;
        });
    else {
      try {
        apply(loadPlansFile(file, context));
      } catch (error) {
        fail(error);
      }
    }
  }
  return {
    current() {
      refresh();
      return loaded.plans;
    },
    reloading() {
      refresh();
      return pending;
    },
    version: () => loaded.version,
  };
}
