export { apiOperations } from './api-operations.js';
export { isCanonicalPath } from './canonical-path.js';
export { loadOperations, serverBasePath } from './load-operations.js';
export type { Deprecation, Operation } from './operation.js';
export { createRouteTable, type RouteMatch } from './route-table.js';
export { gatewayOperations, USAGE_OPERATION_ID } from './gateway-operations.js';
