import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { publishPlansReload, type PlansReloadEvent, type PlansVersion } from '../events/index.js';
import { fileStamp, stampSize, statStamp } from '../sources/file-stamp.js';
import { loadPlansFile, own, type LoadedPlans, type PlansContext, type PlansFile } from './plans-file.js';
import { longStill, readWhole, REAL_CLOCK, SETTLE_MS, type SettleClock, type WholeRead } from './whole-change.js';

/**
 * A changed plans file up to this size is read and validated at once, on the event loop (a
 * millisecond or so); a larger one in a worker thread, so the requests in flight go on meanwhile.
 */
export const OFF_THREAD_BYTES = 64 * 1024;

/**
 * The longest a request waits for a change to be taken: past it, requests are decided by the plans
 * in force while the change is still waited for (a file that never stands still, a slow read).
 */
export const MAX_WAIT_MS = 2_000;

export interface PlansSourceOptions extends PlansContext {
  /** `SHADOW_PLANS`: each must name a plan of the file at start; a reload that drops one says so. */
  readonly shadowPlans?: ReadonlySet<string>;
  /** The gateway these plans are of, named in its events. */
  readonly source?: object;
  /** How long a change must stand still before it is read as whole (`SETTLE_MS`); tests inject the clock and timer. */
  readonly settleMs?: number;
  readonly clock?: SettleClock;
}

/** `PLANS_FILE` while the gateway runs: the content in force, and the read of a change under way. */
export interface PlansSource {
  /** The plans in force, after looking at the file (one `stat` per event-loop turn, see `fileStamp`). */
  current(): PlansFile;
  /**
   * After looking at the file: a change being waited for until it is whole, or read in a worker
   * thread when large (it settles once its outcome applies), or `undefined`. A small change whose
   * last write is long past is applied before this returns.
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
  /** What requests wait for: `pending`, for `MAX_WAIT_MS` at most (a file that never stands still holds no request longer). */
  let waited: Promise<void> | undefined;
  const { source } = options;
  const clock = options.clock ?? REAL_CLOCK;
  const settleMs = options.settleMs ?? SETTLE_MS;

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

  type Outcome = { readonly loaded: LoadedPlans } | { readonly error: unknown };
  const readNow = (): Outcome => {
    try {
      return { loaded: loadPlansFile(file, context) };
    } catch (error) {
      return { error };
    }
  };
  /** A read of the file as it is: on the loop, or in a worker thread when it is large. */
  const read = (): Outcome | Promise<Outcome> =>
    stampSize(statStamp(file)) > OFF_THREAD_BYTES
      ? loadOffThread(file, context).then(
          (loaded) => ({ loaded }),
          (error: unknown) => ({ error }),
        )
      : readNow();
  /** What a read found, to tell two reads apart: the content's hash, or why it is not valid. */
  const identityOf = (outcome: Outcome) => ('loaded' in outcome ? outcome.loaded.version.hash : `invalid: ${String(outcome.error)}`);
  /** The outcome of a whole version of the file (or of its absence) put in force. */
  const settle = (whole: WholeRead<Outcome>) => {
    stamp = whole.stamp;
    if (!('read' in whole)) publishPlansReload({ source, outcome: 'missing', file, version: loaded.version });
    else if ('loaded' in whole.read) apply(whole.read.loaded);
    else fail(whole.read.error);
  };

  /**
   * Looks at the file. A change is taken only once it is whole (`readWhole`): two reads `settleMs`
   * apart found it the same. One whose last write is long past, and small, is read and applied
   * now, on the loop; any other is waited for (`reloading`).
   */
  function refresh(): void {
    if (pending !== undefined) return;
    const next = look();
    if (next === stamp) return;
    if (next === 'missing') return settle({ stamp: next });
    if (stampSize(next) <= OFF_THREAD_BYTES && longStill(next, clock, settleMs)) {
      const outcome = readNow();
      if (statStamp(file) === next) return settle({ stamp: next, read: outcome });
    }
    const reading = (pending = readWhole(file, next, read, identityOf, clock, settleMs)
      .then(settle)
      .finally(() => {
        pending = undefined;
      }));
    waited = Promise.race([reading, clock.sleep(MAX_WAIT_MS)]).then(() => {
      if (waited === bounded) waited = undefined;
    });
    const bounded = waited;
  }
  return {
    current() {
      refresh();
      return loaded.plans;
    },
    reloading() {
      refresh();
      return waited;
    },
    version: () => loaded.version,
  };
}
