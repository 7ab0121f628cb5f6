/**
 * The method table as the node serves it (docs/architecture.md#one-method-table): every namespace's methods
 * (src/rpc/methods/*.ts) and `rpc_modules`, which answers from the table itself. A new namespace file's list is
 * registered here.
 */
import type { FilterManager } from '../events/filters.js'
import type { SubscriptionManager } from '../events/subscriptions.js'
import { method, type MethodSpec, type ModuleName } from './method-table.js'
import { debugMethods, type DefaultTracer } from './methods/debug.js'
import { devAccountMethods } from './methods/dev-accounts.js'
import { devInfoMethods } from './methods/dev-info.js'
import { devMiningMethods } from './methods/dev-mining.js'
import { devTimeMethods } from './methods/dev-time.js'
import { ethMethods } from './methods/eth.js'
import { extMethods } from './methods/ext.js'
import { filterMethods } from './methods/filters.js'
import { forkMethods, installForkLayer } from './methods/fork.js'
import { nodeInfoMethods } from './methods/node-info.js'
import { otterscanBlockMethods } from './methods/otterscan-blocks.js'
import { otterscanTraceMethods } from './methods/otterscan-traces.js'
import { otterscanSearchMethods } from './methods/otterscan-search.js'
import { personalMethods, signingMethods } from './methods/personal.js'
import { stateFileMethods } from './methods/state-files.js'
import { traceMethods } from './methods/trace.js'
import { txpoolMethods } from './methods/txpool.js'
import { web3NetMethods } from './methods/web3-net.js'
import type { Services } from './services.js'

/** What {@link methodList} needs besides the services. */
export interface MethodListOptions {
  /** Polled filters (eth_newFilter …). */
  filters: FilterManager
  /** WebSocket subscriptions (eth_subscribe …). */
  subscriptions: SubscriptionManager
  /** Modules switched off (`--rpc-modules`): `rpc_modules` leaves them out. */
  disabledModules: ReadonlySet<ModuleName>
  /** The tracer of debug_trace* requests that name none (undefined: the reference's `rskTracer`). */
  defaultTracer?: DefaultTracer
}

/**
 * Every method the node has, disabled modules included (the dispatcher answers those -32601).
 * @param s the services the handlers use
 */
export function methodList(s: Services, o: MethodListOptions): MethodSpec[] {
  const methods = [
    ...web3NetMethods(s),
    ...ethMethods(s),
    ...filterMethods(s, o.filters, o.subscriptions),
    ...txpoolMethods(s),
    ...nodeInfoMethods(),
    ...devTimeMethods(s),
    ...devMiningMethods(s),
    ...devAccountMethods(s),
    ...devInfoMethods(s),
    ...forkMethods(s),
    ...stateFileMethods(s),
    ...extMethods(s),
    ...personalMethods(s),
    ...signingMethods(s),
    ...debugMethods(s, { defaultTracer: o.defaultTracer }),
    ...traceMethods(s),
    ...otterscanBlockMethods(s),
    ...otterscanTraceMethods(s),
    ...otterscanSearchMethods(s),
  ]
  // a fork answers history at or below its fork block from the remote
  if (s.fork) installForkLayer(methods, s, s.fork)
  methods.push(rpcModulesMethod(methods, o.disabledModules))
  return methods
}

/**
 * `rpc_modules`: the enabled modules of `methods`, plus `rpc` itself, each at version "1.0".
 * @param methods the table it describes (read at each call)
 * @param disabled modules switched off
 */
export function rpcModulesMethod(methods: readonly MethodSpec[], disabled: ReadonlySet<ModuleName>): MethodSpec {
  return method('rpc_modules', 'eth', 'enabled RPC modules and their versions', [], () =>
    Object.fromEntries(
      [...new Set(methods.filter((m) => !disabled.has(m.module)).map((m) => m.module)), 'rpc'].map((m) => [m, '1.0']),
    ),
  )
}
