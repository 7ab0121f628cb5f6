/**
 * Large state files for tests: an Anvil-format file of `accounts` accounts with `slots` storage cells each,
 * written in pieces (the text is never held whole).
 */
import { closeSync, openSync, writeSync } from 'node:fs'

/** The address of account `i` (1-based) of {@link writeAnvilStateFile}. */
export function stateFileAddress(i: number): string {
  return '0x' + (0x10000000 + i).toString(16).padStart(40, '0')
}

/**
 * Writes an Anvil-format state file: accounts 1 … `accounts` ({@link stateFileAddress}), each with nonce 1, balance
 * i wei, code 0x6001 and `slots` non-zero storage cells.
 */
export function writeAnvilStateFile(file: string, accounts: number, slots: number): void {
  const fd = openSync(file, 'w')
  try {
    writeSync(fd, '{"block":{"number":"0x0","timestamp":"0x1","gas_limit":30000000},"accounts":{')
    let piece = ''
    for (let i = 1; i <= accounts; i++) {
      const storage: string[] = []
      for (let s = 0; s < slots; s++)
        storage.push(
          `"0x${s.toString(16).padStart(64, '0')}":"0x${(i * slots + s + 1).toString(16).padStart(64, '0')}"`,
        )
      piece += `${i > 1 ? ',' : ''}"${stateFileAddress(i)}":{"nonce":1,"balance":"0x${i.toString(16)}","code":"0x6001","storage":{${storage.join(',')}}}`
      if (piece.length > 1 << 20) {
        writeSync(fd, piece)
        piece = ''
      }
    }
    writeSync(fd, piece + '},"best_block_number":0}')
  } finally {
    closeSync(fd)
  }
}
