/**
 * Library entry: `createNode` and its types.
 */
export { createNode, VERSION, type Node, type Eip1193Provider } from './node.js'
export type { NodeConfig } from './config.js'
export { RpcError, ErrorCode } from './errors/rpc-error.js'
