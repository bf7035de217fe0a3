import type { AnswerDocs } from '../../docs/index.js';
import type { Step } from '../exchange.js';

/**
 * The documentation for the API's consumers, without a key and before anything else: the
 * effective API document (`/v1/openapi.json`), the reference page (`/docs`) and its renderer.
 */
export function createDocsStep(answerDocs: AnswerDocs): Step {
  return function docs(x) {
    const answer = answerDocs(x.method, x.path, x.req.headers['if-none-match']);
    if (answer === undefined) return undefined;
    x.record.route = x.path;
    return { kind: 'asset', ...answer };
  };
}
