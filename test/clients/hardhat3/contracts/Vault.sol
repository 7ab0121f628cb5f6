// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

/// A time-locked ETH vault: deposits (payable, event), a require with a reason string, custom errors,
/// a panic and a bare revert, for the Hardhat 3 end-to-end test.
contract Vault {
    error NotOwner(address caller);
    error TooEarly(uint256 unlockTime, uint256 now_);
    error InsufficientBalance(uint256 available, uint256 requested);

    event Deposited(address indexed who, uint256 amount);
    event Withdrawn(address indexed who, uint256 amount);

    address public immutable owner;
    uint256 public immutable unlockTime;
    mapping(address => uint256) public balanceOf;
    uint256 public lastQuotient;

    constructor(uint256 unlockTime_) {
        owner = msg.sender;
        unlockTime = unlockTime_;
    }

    function deposit() external payable {
        require(msg.value > 0, "Vault: zero deposit");
        balanceOf[msg.sender] += msg.value;
        emit Deposited(msg.sender, msg.value);
    }

    function withdraw(uint256 amount) external {
        if (block.timestamp < unlockTime) revert TooEarly(unlockTime, block.timestamp);
        uint256 available = balanceOf[msg.sender];
        if (available < amount) revert InsufficientBalance(available, amount);
        balanceOf[msg.sender] = available - amount;
        emit Withdrawn(msg.sender, amount);
        (bool ok, ) = msg.sender.call{value: amount}("");
        require(ok, "Vault: transfer failed");
    }

    /// Sends the whole contract balance to the owner; anyone else gets NotOwner.
    function sweep() external {
        if (msg.sender != owner) revert NotOwner(msg.sender);
        (bool ok, ) = owner.call{value: address(this).balance}("");
        require(ok, "Vault: transfer failed");
    }

    /// Panics with 0x12 when b is zero.
    function divide(uint256 a, uint256 b) external returns (uint256) {
        lastQuotient = a / b;
        return lastQuotient;
    }

    /// Reverts with no data.
    function failBare() external pure {
        revert();
    }
}
