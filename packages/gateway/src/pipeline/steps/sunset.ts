import { isPastSunset } from '../../deprecation/index.js';
import { refuse } from '../answer.js';
import type { Step } from '../exchange.js';

/** After its sunset date a deprecated operation answers 410 (unless ENFORCE_SUNSET is off). */
export function createSunsetStep(enforce: boolean, now: () => number): Step {
  return function sunset(x) {
    const deprecation = x.operation?.deprecation;
    if (!enforce || deprecation === undefined || !isPastSunset(deprecation, now())) return undefined;
    const successor = deprecation.successor === undefined ? '' : ` Use GET ${deprecation.successor} instead.`;
    return refuse('gone', `${x.operation?.operationId} was removed on ${deprecation.sunset?.toUTCString()}.${successor}`);
  };
}
