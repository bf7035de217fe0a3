import type { BlockList } from 'node:net';
import { deprecationHeaders } from '../../deprecation/index.js';
import { clientView } from '../../http/client-view.js';
import type { RouteMatch } from '../../routing/index.js';
import { refuse } from '../answer.js';
import type { Step } from '../exchange.js';

/**
 * Routing: which operation of the interface the request is, and who sent it (the trusted view of
 * the client's address). A request that is no operation is answered (404, 405) by the key guard,
 * once its address's anonymous limit allowed it. An operation's deprecation headers join every
 * answer from here on, 401 and 429 included.
 */
export function createRouting(matchRoute: (method: string, path: string) => RouteMatch, trustProxy: BlockList | undefined, docUrl: string): Step {
  return function route(x) {
    x.client = clientView(x.req, trustProxy);
    const match = matchRoute(x.method, x.path);
    if (match.kind === 'not_found') {
      x.miss = refuse('not_found');
      return undefined;
    }
    if (match.kind === 'method_not_allowed') {
      x.record.route = match.template; // the path is an operation's: logs and metrics name it
      x.miss = refuse('method_not_allowed', `${x.method} is not allowed here; allowed: ${match.allow}.`, { allow: match.allow });
      return undefined;
    }
    const { operation } = match;
    x.operation = operation;
    x.record.route = operation.template;
    if (operation.deprecation !== undefined) Object.assign(x.headers, deprecationHeaders(operation.deprecation, docUrl));
    return undefined;
  };
}
