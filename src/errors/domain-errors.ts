/**
 * The failures the domain (chain/, txpool/, execution/, events/, accounts/) reports to its caller, as opposed to
 * bugs. Each class says what went wrong in the domain's terms and carries what a caller needs to answer it; none
 * knows JSON-RPC. The RPC layer turns them into the reference node's codes, messages and `data` in one place,
 * src/rpc/error-mapping.ts; the table is in docs/architecture.md#errors. Messages are worded as the reference
 * node words them where it defines one (docs/reference-rules.md#rule-error-codes), since they are passed on as
 * they are.
 */

/** Base of every domain failure; anything else thrown out of the domain is a bug (an internal error). */
export abstract class DomainError extends Error {
  constructor(message: string) {
    super(message)
    this.name = new.target.name
  }
}

/**
 * A value the domain refuses: out of range, malformed, or inconsistent with the chain (a timestamp not after
 * the parent's, typed data that does not encode, a private key outside 1 … n-1). The message names the
 * argument where one is known (`invalid argument 0: …`).
 */
export class InvalidArgumentError extends DomainError {}

/**
 * A transaction the pool does not admit (docs/reference-rules.md#rule-error-pool).
 * `message` is the reason as the reference words it, e.g. `transaction nonce too low`.
 */
export class TxRejectedError extends DomainError {}

/**
 * An execution that failed in the EVM: a revert, out of gas, an invalid opcode… (eth_call, eth_estimateGas, or
 * an auto-mined send; docs/reference-rules.md#rule-error-revert). Built by `executionError`
 * (src/chain/queries/revert.ts), which words the message.
 */
export class VmExecutionError extends DomainError {
  /**
   * @param message the reference's wording (`VM Exception while processing transaction: …`)
   * @param evmError the EVM's error name (`revert`, `out of gas`, `code store out of gas`, …)
   * @param returnValue the execution's return data
   * @param transactionHash the 32-byte hash of the mined transaction that failed (sends), else undefined (calls)
   */
  constructor(
    message: string,
    readonly evmError: string,
    readonly returnValue: Uint8Array,
    readonly transactionHash?: Uint8Array,
  ) {
    super(message)
  }

  /** The revert bytes for a revert (possibly empty); undefined for any other failure. */
  get revertData(): Uint8Array | undefined {
    return this.evmError === 'revert' ? this.returnValue : undefined
  }
}

/**
 * A call or estimate that cannot start: the sender cannot pay the value it transfers (`insufficient funds for
 * transfer`), or the VM refused the transaction before running it (its message).
 */
export class CallPreconditionError extends DomainError {}

/**
 * An execution that ran past its deadline (`--rpc-timeout`; docs/reference-rules.md#rule-limits). The message
 * is the reference's, verbatim.
 */
export class ExecutionTimeoutError extends DomainError {
  constructor() {
    super('Execution has got timeout out.')
  }
}

/** A result larger than the reference's response size limit (docs/reference-rules.md#rule-limits). */
export class ResponseTooLargeError extends DomainError {}

/**
 * The state of a block the node no longer holds (older than `--state-history` without `--db`;
 * docs/reference-rules.md#rule-state-not-found).
 */
export class StateNotFoundError extends DomainError {
  /** @param blockHashKey the block's hash as hex without `0x` */
  constructor(readonly blockHashKey: string) {
    super(`State not found for block with hash 0x${blockHashKey}`)
  }
}

/**
 * A storage cell longer than the 32-byte word `eth_getStorageAt` answers (only native contracts write such
 * cells; `ext_getStorageBytesAt` reads them). The reference fails there with its generic internal error, worded
 * as it words it (docs/reference-rules.md#rule-json-numbers).
 */
export class StorageCellTooLongError extends DomainError {
  constructor() {
    super('Internal server error')
  }
}

/** A block or transaction the tracers cannot replay (the genesis block has nothing to trace). */
export class NotTraceableError extends DomainError {}

/**
 * A filter id that is not installed, has expired, or is not of the kind asked for
 * (docs/reference-rules.md#rule-filters).
 */
export class FilterNotFoundError extends DomainError {
  /** @param filterId the id asked for */
  constructor(readonly filterId: string) {
    super('filter not found')
  }
}

/**
 * A log query past the reference's limits on blocks per query or logs per answer (docs/reference-rules.md#rule-limits).
 */
export class LogQueryLimitError extends DomainError {}

/** Hex of an address for messages (errors/ imports nothing of node-cli). */
const hex = (address: Uint8Array): string => '0x' + Buffer.from(address).toString('hex')

/** An address the node holds no account for (reference wording; docs/reference-rules.md#rule-personal). */
export class UnknownAccountError extends DomainError {
  /** @param address 20 bytes */
  constructor(readonly address: Uint8Array) {
    super(`Could not find account for address: ${hex(address)}`)
  }
}

/** A keystore-backed account that is locked, or whose unlock expired. */
export class LockedAccountError extends DomainError {
  /** @param address 20 bytes */
  constructor(readonly address: Uint8Array) {
    super(`account ${hex(address)} is locked; unlock it with personal_unlockAccount`)
  }
}

/** A passphrase that does not open an account's keystore (its MAC does not match). */
export class WrongPassphraseError extends DomainError {
  /** @param address the account (20 bytes) when known; the keystore decoder does not know it */
  constructor(readonly address?: Uint8Array) {
    super(address === undefined ? 'wrong passphrase' : `wrong passphrase for account ${hex(address)}`)
  }
}

/**
 * Merged-mining work a miner submitted that cannot be used (bad Bitcoin data, unknown or stale work;
 * docs/reference-rules.md#rule-mnr-methods).
 */
export class MergedMiningSubmitError extends DomainError {}

/**
 * A fork's remote node could not give what the fork needs (docs/architecture.md#forking): it cannot be reached,
 * it answered with an error or with something that is not JSON-RPC, or it lacks a block, header, method or cell.
 * The subclasses (src/fork/remote-errors.ts) say which; all answer alike.
 */
export class ForkRemoteError extends DomainError {
  /**
   * Set when the remote cannot show a native contract's storage cell at all (longer than 32 bytes, and no
   * storage-bytes method): asking again cannot help (docs/reference-rules.md#rule-fork-remote).
   */
  unreadableCell = false
}
