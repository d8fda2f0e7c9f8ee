// The crypto of abcictl's hot paths, per second on one thread: signing and
// encoding an EIP-1559 mint transaction (every mint), and verifying a
// Sign-In with Ethereum message (every wallet login: parse, recover, checks).
// bench/sections/crypto.mjs runs this with --benchmark_format=json next to
// ethers v6 and siwe doing the identical work in Node (bench/js/crypto_peer.mjs).
//
// `abci_bench_crypto --print-inputs` prints, as JSON, the exact inputs the
// benchmarks use (the signed mint's raw bytes at nonce 0, the SIWE message,
// its signature and the verification time), so that the peer works on the
// same bytes and the section can check that both sign identically.

#include <benchmark/benchmark.h>

#include <cstring>
#include <iostream>
#include <string>

#include <nlohmann/json.hpp>

#include "core/auth/siwe.hpp"
#include "core/eth/abi.hpp"
#include "core/eth/signer.hpp"
#include "core/eth/tx.hpp"
#include "core/util/time.hpp"

namespace {

using namespace abci::eth;

// Anvil's dev key 0: deterministic, and the peer can sign with it too.
constexpr const char* kKeyHex = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
constexpr const char* kSiweNonce = "k7Hq2mZp9xWv4RtN";

const PrivateKey& signer_key() {
    static const PrivateKey key = PrivateKey::from_hex(kKeyHex);
    return key;
}

// A role-token mint as the server sends it: mint(to, 10000, 1, "") on a contract.
Transaction mint_transaction(std::uint64_t nonce) {
    static const Bytes calldata = abi::encode_call(
        "mint(address,uint256,uint256,bytes)",
        std::vector<abi::Value>{Address::parse("0x70997970C51812dc3A010C7d01b50e0d17dc79C8"), U256(10000), U256(1),
                                Bytes{}});
    Transaction tx;
    tx.chain_id = 31337;
    tx.nonce = nonce;
    tx.max_priority_fee_per_gas = U256(1'000'000'000);
    tx.max_fee_per_gas = U256(30'000'000'000ULL);
    tx.gas_limit = 120'000;
    tx.to = Address::parse("0x5FbDB2315678afecb367f032d93F642f64180aa3");
    tx.data = calldata;
    return tx;
}

// A wallet login as `abcictl login --wallet` signs it, verified one minute
// after it was issued.
struct SiweInput {
    std::string text;
    std::string signature;
    abci::auth::SiweExpectations expect;
};

const SiweInput& siwe_input() {
    static const SiweInput input = [] {
        abci::auth::SiweMessage message;
        message.domain = "example.org";
        message.address = signer_key().address();
        message.statement = "Sign in to the ABCI service with abcictl.";
        message.uri = "https://example.org/login";
        message.version = std::string("1");  // assigning the literal trips GCC 12's -Wrestrict false positive at -O3
        message.chain_id = 31337;
        message.nonce = kSiweNonce;
        message.issued_at = abci::util::parse_rfc3339("2026-01-01T00:00:00Z");
        message.expiration_time = message.issued_at + std::chrono::minutes(5);
        SiweInput in;
        in.text = abci::auth::format_siwe_message(message);
        in.signature = signer_key().sign_message(as_bytes(in.text)).to_hex();
        in.expect.domain = message.domain;
        in.expect.uri_origin = "https://example.org";
        in.expect.chain_ids = {message.chain_id};
        in.expect.now = message.issued_at + std::chrono::minutes(1);
        return in;
    }();
    return input;
}

void BM_SignAndEncodeMint(benchmark::State& state) {
    std::uint64_t nonce = 0;
    for (auto _ : state) {
        SignedTransaction signed_tx = sign_transaction(mint_transaction(nonce++), signer_key());
        benchmark::DoNotOptimize(signed_tx.raw.data());
    }
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_SignAndEncodeMint);

void BM_VerifySiwe(benchmark::State& state) {
    const SiweInput& in = siwe_input();
    const std::string claimed = signer_key().address().checksummed();
    for (auto _ : state) {
        auto message = abci::auth::verify_siwe(in.text, in.signature, claimed, in.expect);
        benchmark::DoNotOptimize(message.nonce.data());
    }
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_VerifySiwe);

void print_inputs() {
    const SiweInput& in = siwe_input();
    const Transaction tx = mint_transaction(0);
    const nlohmann::json inputs = {
        {"key", kKeyHex},
        {"mint",
         {{"raw", to_hex(sign_transaction(tx, signer_key()).raw)},
          {"chainId", tx.chain_id},
          {"nonce", tx.nonce},
          {"maxPriorityFeePerGas", tx.max_priority_fee_per_gas.to_dec()},
          {"maxFeePerGas", tx.max_fee_per_gas.to_dec()},
          {"gasLimit", tx.gas_limit},
          {"to", tx.to->checksummed()},
          {"data", to_hex(tx.data)}}},
        {"siwe",
         {{"message", in.text},
          {"signature", in.signature},
          {"domain", in.expect.domain},
          {"nonce", kSiweNonce},
          {"time", abci::util::format_iso8601_utc(in.expect.now)}}}};
    std::cout << inputs.dump() << '\n';
}

}  // namespace

int main(int argc, char** argv) {
    if (argc == 2 && std::strcmp(argv[1], "--print-inputs") == 0) {
        print_inputs();
        return 0;
    }
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
