// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC1155} from "@openzeppelin/contracts/token/ERC1155/ERC1155.sol";
import {AccessControl} from "@openzeppelin/contracts/access/AccessControl.sol";

/// @title ABCIToken
/// @notice The ABCI's ERC-1155 token. Two kinds of ids exist and no others:
///  - role tokens 10000 producer, 10100 verifier, 10200 valuator, 10300 certifier:
///    soulbound (never transferred, only minted and revoked by a minter), and a
///    wallet holds at most one of each;
///  - entity tokens 1000 report, 1100 verification, 1200 valuation, 1300 certificate:
///    ordinary transferable ERC-1155 balances.
/// Every mint's `data` is the CID of the mint's metadata in content storage; it is
/// emitted in `TokenMetadata` so that the chain records it.
contract ABCIToken is ERC1155, AccessControl {
    bytes32 public constant MINTER_ROLE = keccak256("MINTER_ROLE");

    /// @notice Time of deployment; the API reports it as the contract's last upgrade.
    uint256 public immutable deployedAt;

    mapping(uint256 id => string) private _tokenURIs;

    /// @notice The metadata CID (`data`) of a mint of `id` to `to`.
    event TokenMetadata(address indexed to, uint256 indexed id, bytes data);

    error SoulboundToken(uint256 id);
    error RoleTokenAlreadyHeld(address account, uint256 id);
    error InvalidRoleAmount(uint256 amount);
    error UnknownTokenId(uint256 id);
    error NotRoleToken(uint256 id);
    error ArrayLengthMismatch(uint256 recipients, uint256 ids, uint256 amounts, uint256 data);

    constructor(address admin, string memory baseUri) ERC1155(baseUri) {
        _grantRole(DEFAULT_ADMIN_ROLE, admin);
        _grantRole(MINTER_ROLE, admin);
        deployedAt = block.timestamp;
    }

    /// @notice The contract's version string.
    function version() external pure returns (string memory) {
        return "1.0.0";
    }

    /// @notice Mints `amount` of `id` to `to`; `data` carries the metadata CID.
    function mint(address to, uint256 id, uint256 amount, bytes calldata data) external onlyRole(MINTER_ROLE) {
        _mintWithMetadata(to, id, amount, data);
    }

    /// @notice Mints to many recipients in one transaction, element by element under
    /// the same rules as `mint`; any failing element reverts the whole call.
    function mintMany(
        address[] calldata to,
        uint256[] calldata ids,
        uint256[] calldata amounts,
        bytes[] calldata data
    ) external onlyRole(MINTER_ROLE) {
        uint256 n = to.length;
        if (ids.length != n || amounts.length != n || data.length != n) {
            revert ArrayLengthMismatch(n, ids.length, amounts.length, data.length);
        }
        for (uint256 i = 0; i < n; ++i) {
            _mintWithMetadata(to[i], ids[i], amounts[i], data[i]);
        }
    }

    /// @notice Revokes a role: burns `account`'s role token `id`.
    function revoke(address account, uint256 id) external onlyRole(MINTER_ROLE) {
        if (!_isRoleId(id)) revert NotRoleToken(id);
        _burn(account, id, 1);
    }

    /// @notice The URI set for `id` by `setTokenURI`, else the base URI.
    function uri(uint256 id) public view override returns (string memory) {
        string memory own = _tokenURIs[id];
        return bytes(own).length != 0 ? own : super.uri(id);
    }

    /// @notice Sets the URI of one id; an empty string falls back to the base URI.
    function setTokenURI(uint256 id, string calldata newUri) external onlyRole(DEFAULT_ADMIN_ROLE) {
        if (!_isRoleId(id) && !_isEntityId(id)) revert UnknownTokenId(id);
        _tokenURIs[id] = newUri;
        emit URI(uri(id), id);
    }

    /// @notice Sets the base URI. Emits `URI` for every id whose URI it changes
    /// (those without their own), as ERC-1155 asks of URI changes.
    function setBaseURI(string calldata newUri) external onlyRole(DEFAULT_ADMIN_ROLE) {
        _setURI(newUri);
        _announceBaseURI(newUri, 1000, 1300);
        _announceBaseURI(newUri, 10000, 10300);
    }

    function supportsInterface(bytes4 interfaceId) public view override(ERC1155, AccessControl) returns (bool) {
        return super.supportsInterface(interfaceId);
    }

    function _mintWithMetadata(address to, uint256 id, uint256 amount, bytes calldata data) private {
        _mint(to, id, amount, data);
        emit TokenMetadata(to, id, data);
    }

    function _announceBaseURI(string calldata newUri, uint256 firstId, uint256 lastId) private {
        for (uint256 id = firstId; id <= lastId; id += 100) {
            if (bytes(_tokenURIs[id]).length == 0) emit URI(newUri, id);
        }
    }

    /// @dev The one place where the id rules are enforced, for mints, transfers and burns alike.
    function _update(address from, address to, uint256[] memory ids, uint256[] memory values) internal override {
        for (uint256 i = 0; i < ids.length; ++i) {
            uint256 id = ids[i];
            if (_isRoleId(id)) {
                if (from != address(0) && to != address(0)) revert SoulboundToken(id);
                if (from == address(0)) {
                    if (values[i] != 1) revert InvalidRoleAmount(values[i]);
                    if (balanceOf(to, id) != 0) revert RoleTokenAlreadyHeld(to, id);
                }
            } else if (!_isEntityId(id)) {
                revert UnknownTokenId(id);
            }
        }
        super._update(from, to, ids, values);
    }

    function _isRoleId(uint256 id) private pure returns (bool) {
        return id >= 10000 && id <= 10300 && id % 100 == 0;
    }

    function _isEntityId(uint256 id) private pure returns (bool) {
        return id >= 1000 && id <= 1300 && id % 100 == 0;
    }
}
