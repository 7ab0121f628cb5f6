// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";

/// An OpenZeppelin 5 ERC-20 with the whole supply minted to the deployer.
contract Token is ERC20 {
    constructor(uint256 supply) ERC20("Test Token", "TST") {
        _mint(msg.sender, supply);
    }
}
