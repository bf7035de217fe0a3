import { DOCS_METHODS, type AnswerDocs, type DocsAnswer } from '../../docs/index.js';
import { refuse, type Answer } from '../answer.js';
import type { Exchange, Step } from '../exchange.js';

/**
 * The documentation for the API's consumers, without a key and before anything else: the
 * effective API document (`/v1/openapi.json`), the reference page (`/docs`) and its renderer.
 * Another method than GET or HEAD on one of those paths is a 405 with the Error body.
 */
export function createDocsStep(answerDocs: AnswerDocs): Step {
  return function docs(x) {
    const answer = answerDocs(x.method, x.path, x.req.headers['if-none-match'], x.req.headers['accept-encoding']);
    if (answer === undefined) return undefined;
    x.record.route = x.path;
    return answer instanceof Promise ? answer.then((ready) => asAnswer(x, ready)) : asAnswer(x, answer);
  };
}

function asAnswer(x: Exchange, answer: DocsAnswer): Answer {
  if (answer.status === 405) return refuse('method_not_allowed', `${x.method} is not allowed here; allowed: ${DOCS_METHODS}.`, answer.headers);
  return { kind: 'asset', ...answer };
}
