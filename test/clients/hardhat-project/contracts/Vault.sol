// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// A time-locked vault: events, require reasons, a custom error, value transfers.
contract Vault {
    error TooSmall(uint256 amount, uint256 minimum);

    event Deposited(address indexed who, uint256 amount);
    event Withdrawn(uint256 amount, uint256 when);

    uint256 public unlockTime;
    address payable public owner;
    mapping(address => uint256) public deposits;

    constructor(uint256 _unlockTime) payable {
        require(block.timestamp < _unlockTime, "Unlock time should be in the future");
        unlockTime = _unlockTime;
        owner = payable(msg.sender);
    }

    function deposit() external payable {
        if (msg.value < 100) revert TooSmall(msg.value, 100);
        deposits[msg.sender] += msg.value;
        emit Deposited(msg.sender, msg.value);
    }

    function withdraw() external {
        require(block.timestamp >= unlockTime, "You can't withdraw yet");
        require(msg.sender == owner, "You aren't the owner");
        emit Withdrawn(address(this).balance, block.timestamp);
        owner.transfer(address(this).balance);
    }

    /// Forwards the value sent to `to` (changeEtherBalances on three accounts).
    function pay(address payable to) external payable {
        to.transfer(msg.value);
    }
}
