/**
 * Library entry: `createNode` and its types.
 */
export { createNode, VERSION } from './node.js'
export type { Node, Eip1193Provider } from './node-api.js'
export type { MiningControls } from './miner/miner.js'
export type { MethodInfo, ModuleName } from './rpc/method-table.js'
export type { NodeConfig, Progress, ProgressListener } from './config.js'
export { RpcError, ErrorCode } from './rpc/rpc-error.js'
