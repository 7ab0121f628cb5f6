/**
 * The error every guard of this folder raises when @ethereumjs no longer has the shape a patch relies on.
 */

/** The @ethereumjs release every reach of this folder was written and checked against (all its packages but wallet). */
export const VERIFIED_ETHEREUMJS_VERSION = '10.1.3'

/**
 * An @ethereumjs internal a patch relies on is missing or changed: the node refuses to start (or, for a reach
 * only observable while running, the execution fails) instead of running with the patch silently off.
 */
export class EthereumjsShapeError extends Error {
  /**
   * @param reach the patch, as docs/architecture.md#dependency-patches names it
   * @param problems what was found instead of what the patch relies on
   */
  constructor(
    readonly reach: string,
    readonly problems: string[],
  ) {
    super(
      `node-cli cannot use this @ethereumjs: the ${reach} patch relies on internals that changed ` +
        `(${problems.join('; ')}). The patches were checked against @ethereumjs ${VERIFIED_ETHEREUMJS_VERSION}; ` +
        'see docs/architecture.md#dependency-patches.',
    )
    this.name = 'EthereumjsShapeError'
  }
}

/**
 * Throws {@link EthereumjsShapeError} when `problems` is not empty.
 * @param reach the patch's name; @param problems what does not match
 */
export function failOnProblems(reach: string, problems: string[]): void {
  if (problems.length > 0) throw new EthereumjsShapeError(reach, problems)
}

/** Problems when `obj` lacks one of `methods` (callable members, own or inherited). */
export function missingMethods(what: string, obj: unknown, methods: readonly string[]): string[] {
  const o = obj as Record<string, unknown> | undefined
  return methods.filter((m) => typeof o?.[m] !== 'function').map((m) => `${what}.${m} is not a function`)
}
