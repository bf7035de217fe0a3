/**
 * The shortest `REDIS_COMMAND_TIMEOUT_MS` the gateway starts with. A healthy Redis misses a
 * shorter deadline: a cold start and a busy host delay its replies by tens to hundreds of ms, and
 * each reply missed is answered by the failure policy on top of what Redis admits (with `local`,
 * bursts admitted 2,976 and 3,000 of 2,048 at 5 to 20 ms, 1,491 of 1,000 at 50 ms on a busy host;
 * exactly the limit at 500 ms and 1 s).
 */
export const REDIS_COMMAND_TIMEOUT_FLOOR_MS = 100;

/** What the rules read: the timeouts, as parsed (defaults applied). */
interface Timeouts {
  readonly SHUTDOWN_TIMEOUT_MS: number;
  readonly KEEP_ALIVE_TIMEOUT_MS: number;
  readonly HEADERS_TIMEOUT_MS: number;
  readonly REQUEST_TIMEOUT_MS: number;
  readonly REDIS_COMMAND_TIMEOUT_MS: number;
}

/**
 * Timeouts that cannot work together, each as a problem on the variable to change, naming the
 * other: the gateway does not start with them (nor does a reload take them).
 */
export function timeoutProblems(env: Timeouts): { path: [keyof Timeouts]; message: string }[] {
  const problems: { path: [keyof Timeouts]; message: string }[] = [];
  if (env.SHUTDOWN_TIMEOUT_MS < env.KEEP_ALIVE_TIMEOUT_MS) {
    problems.push({
      path: ['SHUTDOWN_TIMEOUT_MS'],
      message:
        `${env.SHUTDOWN_TIMEOUT_MS} is shorter than KEEP_ALIVE_TIMEOUT_MS (${env.KEEP_ALIVE_TIMEOUT_MS}): a worker handing over ` +
        '(a reload) would cut its idle keep-alive connections before their clients stop using them, failing the requests sent on them; give it at least KEEP_ALIVE_TIMEOUT_MS',
    });
  }
  if (env.HEADERS_TIMEOUT_MS > env.REQUEST_TIMEOUT_MS) {
    problems.push({
      path: ['HEADERS_TIMEOUT_MS'],
      message: `${env.HEADERS_TIMEOUT_MS} is above REQUEST_TIMEOUT_MS (${env.REQUEST_TIMEOUT_MS}): the headers are part of the request, which must be allowed at least as long`,
    });
  }
  if (env.REDIS_COMMAND_TIMEOUT_MS < REDIS_COMMAND_TIMEOUT_FLOOR_MS) {
    problems.push({
      path: ['REDIS_COMMAND_TIMEOUT_MS'],
      message:
        `${env.REDIS_COMMAND_TIMEOUT_MS} is below ${REDIS_COMMAND_TIMEOUT_FLOOR_MS}: a healthy Redis misses so short a deadline on a busy host, ` +
        'and the failure policy then answers on top of what Redis admits (over-admission with local or open, 503s with closed)',
    });
  }
  return problems;
}
