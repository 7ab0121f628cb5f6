/**
 * The ABI fragments the explorer decodes without artifacts: the ERC-20 and ERC-721 events (Transfer, Approval,
 * ApprovalForAll; ERC-20 and ERC-721 share the Transfer and Approval signatures and differ in which arguments are
 * indexed, hence two lists) and OpenZeppelin 5's custom errors of IERC6093 (ERC-20, ERC-721, ERC-1155).
 */
import type { Abi } from 'viem'

type Param = [type: string, name: string, indexed?: boolean]

function event(name: string, params: Param[]): Abi[number] {
  return {
    type: 'event',
    name,
    anonymous: false,
    inputs: params.map(([type, n, indexed]) => ({ type, name: n, indexed: indexed === true })),
  }
}

function error(name: string, params: Param[]): Abi[number] {
  return { type: 'error', name, inputs: params.map(([type, n]) => ({ type, name: n })) }
}

const A = 'address'
const U = 'uint256'

/** ERC-20's events (value not indexed). */
export const ERC20_EVENTS: Abi = [
  event('Transfer', [
    [A, 'from', true],
    [A, 'to', true],
    [U, 'value'],
  ]),
  event('Approval', [
    [A, 'owner', true],
    [A, 'spender', true],
    [U, 'value'],
  ]),
]

/** ERC-721's events (token id indexed). */
export const ERC721_EVENTS: Abi = [
  event('Transfer', [
    [A, 'from', true],
    [A, 'to', true],
    [U, 'tokenId', true],
  ]),
  event('Approval', [
    [A, 'owner', true],
    [A, 'approved', true],
    [U, 'tokenId', true],
  ]),
  event('ApprovalForAll', [
    [A, 'owner', true],
    [A, 'operator', true],
    ['bool', 'approved'],
  ]),
]

/** OpenZeppelin 5's standard token errors (IERC6093). */
export const OZ_ERRORS: Abi = [
  error('ERC20InsufficientBalance', [
    [A, 'sender'],
    [U, 'balance'],
    [U, 'needed'],
  ]),
  error('ERC20InvalidSender', [[A, 'sender']]),
  error('ERC20InvalidReceiver', [[A, 'receiver']]),
  error('ERC20InsufficientAllowance', [
    [A, 'spender'],
    [U, 'allowance'],
    [U, 'needed'],
  ]),
  error('ERC20InvalidApprover', [[A, 'approver']]),
  error('ERC20InvalidSpender', [[A, 'spender']]),
  error('ERC721InvalidOwner', [[A, 'owner']]),
  error('ERC721NonexistentToken', [[U, 'tokenId']]),
  error('ERC721IncorrectOwner', [
    [A, 'sender'],
    [U, 'tokenId'],
    [A, 'owner'],
  ]),
  error('ERC721InvalidSender', [[A, 'sender']]),
  error('ERC721InvalidReceiver', [[A, 'receiver']]),
  error('ERC721InsufficientApproval', [
    [A, 'operator'],
    [U, 'tokenId'],
  ]),
  error('ERC721InvalidApprover', [[A, 'approver']]),
  error('ERC721InvalidOperator', [[A, 'operator']]),
  error('ERC1155InsufficientBalance', [
    [A, 'sender'],
    [U, 'balance'],
    [U, 'needed'],
    [U, 'tokenId'],
  ]),
  error('ERC1155InvalidSender', [[A, 'sender']]),
  error('ERC1155InvalidReceiver', [[A, 'receiver']]),
  error('ERC1155MissingApprovalForAll', [
    [A, 'operator'],
    [A, 'owner'],
  ]),
  error('ERC1155InvalidApprover', [[A, 'approver']]),
  error('ERC1155InvalidOperator', [[A, 'operator']]),
  error('ERC1155InvalidArrayLength', [
    [U, 'idsLength'],
    [U, 'valuesLength'],
  ]),
]
