// Each check's outcome as a JSON line in $HH3_REPORT (when set), so that the end-to-end test that runs this
// project (node-cli's test/e2e/hardhat3-project.test.ts) can assert which checks pass under which node profile.
import { appendFileSync } from "node:fs";

/** One check's outcome: its name, whether it passed, the error message when it did not, what it saw when it did. */
export interface CheckResult {
  name: string;
  ok: boolean;
  error?: string;
  detail?: string;
}

function write(result: CheckResult): void {
  const file = process.env.HH3_REPORT;
  if (file !== undefined && file !== "")
    appendFileSync(file, JSON.stringify(result) + "\n");
}

/**
 * Wraps a test body: records `name` as passed (with the text the body returns, if any) or failed (with the
 * error's message and its cause chain's messages) and rethrows, so that the test runner reports it as usual.
 */
export function check(
  name: string,
  body: () => Promise<string | void>
): () => Promise<void> {
  return async () => {
    try {
      const detail = await body();
      write({
        name,
        ok: true,
        ...(typeof detail === "string" ? { detail } : {}),
      });
    } catch (error) {
      write({ name, ok: false, error: errorChain(error) });
      throw error;
    }
  };
}

/** An error's message followed by its causes' messages (viem and Hardhat wrap the node's answer). */
export function errorChain(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (
    let depth = 0;
    current !== undefined && current !== null && depth < 8;
    depth++
  ) {
    if (current instanceof Error) {
      parts.push(current.message);
      current = (current as { cause?: unknown }).cause;
    } else {
      parts.push(String(current));
      break;
    }
  }
  return parts.join("\n  caused by: ");
}
