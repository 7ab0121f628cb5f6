/**
 * The failures of stored data (`--db`, the block backends, state files' blocks): the database holds a chain this
 * configuration cannot continue, or stored data is inconsistent. Neither is a DomainError (./domain-errors.ts):
 * they have no JSON-RPC code of their own (src/rpc/error-mapping.ts maps no row to them: the dispatcher answers
 * them as internal errors, -32603 with their message).
 */

/** The stored data is inconsistent (a block does not decode, does not link to its parent, a state is missing). */
export class StorageCorruptError extends Error {}

/** The database holds a chain that this configuration cannot continue (other genesis, chain id or format). */
export class StorageMismatchError extends Error {}
