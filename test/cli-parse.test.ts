/**
 * The CLI's fast option parser (parseFast) against commander: the same values and sources wherever it answers,
 * and no answer (commander parses) wherever commander would print something or the line is unusual.
 */
import * as commander from 'commander'
import { describe, expect, it } from 'vitest'
import { buildProgram, parseFast } from '../src/cli/main.js'

function viaCommander(args: string[]) {
  const program = buildProgram(commander).exitOverride()
  program.parse(['node', 'node-cli', ...args])
  const opts = program.opts()
  const fromCli = new Set(Object.keys(opts).filter((k) => program.getOptionValueSource(k) === 'cli'))
  return { opts, fromCli }
}

describe('parseFast', () => {
  it.each([
    [[]],
    [['--silent']],
    [['--silent', '--host', '127.0.0.1', '--port', '18545']],
    [['--port', '0', '--silent', '--network', '31']],
    [['-p', '8545', '-h', '0.0.0.0', '-s', '-v']],
    [['--port=0', '--chain-id=1337', '--accounts', '2']],
    [['--port=']],
    [['--network', '30', '--block-time', '5', '--gas-limit', '0x7a1200', '--state-history', '0', '--batch-limit', '7']],
    [['--mnemonic', 'test test test test test test test test test test test junk', '--hd-path', "m/44'/60'/1'/0", '--balance', '0.5', '-a', '20']],
    [['--db', '/tmp/x', '--keystore-kdf', 'standard', '--transport', 'node', '--client-version', 'HardhatNetwork/2.22.0']],
    [['--rpc-modules', 'eth,net,web3', '--verbose']],
    [['--transport', 'bogus', '--keystore-kdf', 'x']],
  ])('%j: the values and sources commander gives', (args) => {
    const fast = parseFast(['node', 'node-cli', ...args])
    expect(fast).toBeDefined()
    const ref = viaCommander(args)
    expect(fast!.opts).toEqual(ref.opts)
    expect([...fast!.fromCli].sort()).toEqual([...ref.fromCli].sort())
  })

  it.each([
    [['--help']],
    [['-V']],
    [['--version']],
    [['--nope']],
    [['extra']],
    [['--port']],
    [['--port', '--silent']],
    [['--rpc-modules', '-eth']],
    [['--port', '99999']],
    [['--network', '29']],
    [['--gas-limit', '0']],
    [['--balance', '1.2.3']],
    [['-sv']],
    [['--silent=yes']],
    [['--port', '1', '--port', '2']],
    [['--', '--port', '1']],
  ])('%j: left to commander', (args) => {
    expect(parseFast(['node', 'node-cli', ...args])).toBeUndefined()
  })
})
