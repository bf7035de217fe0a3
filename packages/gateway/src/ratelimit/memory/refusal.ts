import type { Policy } from '../policy.js';
import type { WindowState } from './sliding-window.js';
import { retryOf, type Position } from './window-state.js';

/** A window of a layer, brought to the decision's moment. */
export interface Counted {
  readonly window: Policy['windows'][number];
  readonly state: WindowState;
  readonly position: Position;
  /** 0: the key's own layer; then the further layers in order. */
  readonly layer: number;
  readonly layerName: string | undefined;
}

export interface Refusal {
  readonly retryAt: number | undefined;
  readonly binding: Counted;
}

/**
 * The refusal of the windows of the key's own layer (`own`) or of the others, each asked for
 * `cost`: the latest retry (never, if any never frees) and its window; `undefined` when none refuses.
 */
export function refusalOf(counted: readonly Counted[], cost: number, own: boolean): Refusal | undefined {
  let found: Refusal | undefined;
  for (const c of counted) {
    if ((c.layer === 0) !== own || c.state.total + cost <= c.window.limit) continue;
    const retryAt = retryOf(c.window, c.state, c.position, cost);
    if (found === undefined || (found.retryAt !== undefined && (retryAt === undefined || retryAt > found.retryAt))) found = { retryAt, binding: c };
  }
  return found;
}

export function combined(a: Refusal | undefined, b: Refusal | undefined): Refusal | undefined {
  if (a === undefined || b === undefined) return a ?? b;
  if (a.retryAt === undefined) return a;
  return b.retryAt === undefined || b.retryAt > a.retryAt ? b : a;
}
