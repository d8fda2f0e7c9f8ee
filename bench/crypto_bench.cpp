// Signing and recovery throughput of the mint path's crypto, next to OpenSSL's
// secp256k1 ECDSA (sign / verify of a 32-byte digest) as the peer: recovery
// costs about one verification, and signing-and-encoding should cost little
// more than the bare signature.

#include <benchmark/benchmark.h>
#include <openssl/evp.h>
#include <unistd.h>

#include <cstdio>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>

#include "core/eth/abi.hpp"
#include "core/eth/keccak.hpp"
#include "core/eth/signer.hpp"
#include "core/eth/tx.hpp"

namespace {

using namespace abci::eth;

const PrivateKey& signer_key() {
    static const PrivateKey key =
        PrivateKey::from_hex("0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80");
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

void BM_SignAndEncodeMint(benchmark::State& state) {
    std::uint64_t nonce = 0;
    for (auto _ : state) {
        SignedTransaction signed_tx = sign_transaction(mint_transaction(nonce++), signer_key());
        benchmark::DoNotOptimize(signed_tx.raw.data());
    }
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_SignAndEncodeMint);

void BM_RecoverAddress(benchmark::State& state) {
    const Hash32 hash = keccak256(std::string_view("recover me"));
    const Signature sig = signer_key().sign_hash(hash);
    for (auto _ : state) benchmark::DoNotOptimize(recover_address(hash, sig));
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_RecoverAddress);

// The peer: OpenSSL's ECDSA on the same curve.
using PkeyPtr = std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)>;
using PkeyCtxPtr = std::unique_ptr<EVP_PKEY_CTX, decltype(&EVP_PKEY_CTX_free)>;

const PkeyPtr& openssl_key() {
    static const PkeyPtr key(EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "secp256k1"), &EVP_PKEY_free);
    if (!key) throw std::runtime_error("OpenSSL cannot generate a secp256k1 key");
    return key;
}

PkeyCtxPtr openssl_ctx(int (*init)(EVP_PKEY_CTX*)) {
    PkeyCtxPtr ctx(EVP_PKEY_CTX_new(openssl_key().get(), nullptr), &EVP_PKEY_CTX_free);
    if (!ctx || init(ctx.get()) != 1) throw std::runtime_error("OpenSSL ECDSA setup failed");
    return ctx;
}

void BM_PeerOpenSslSign(benchmark::State& state) {
    const PkeyCtxPtr ctx = openssl_ctx(&EVP_PKEY_sign_init);
    const Hash32 hash = keccak256(std::string_view("sign me"));
    unsigned char der[80];
    for (auto _ : state) {
        std::size_t len = sizeof(der);
        if (EVP_PKEY_sign(ctx.get(), der, &len, hash.data(), hash.size()) != 1) state.SkipWithError("sign failed");
        benchmark::DoNotOptimize(der);
    }
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_PeerOpenSslSign);

void BM_PeerOpenSslVerify(benchmark::State& state) {
    const Hash32 hash = keccak256(std::string_view("verify me"));
    unsigned char der[80];
    std::size_t len = sizeof(der);
    if (EVP_PKEY_sign(openssl_ctx(&EVP_PKEY_sign_init).get(), der, &len, hash.data(), hash.size()) != 1)
        throw std::runtime_error("OpenSSL sign failed");
    const PkeyCtxPtr ctx = openssl_ctx(&EVP_PKEY_verify_init);
    for (auto _ : state) {
        if (EVP_PKEY_verify(ctx.get(), der, len, hash.data(), hash.size()) != 1) state.SkipWithError("verify failed");
    }
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_PeerOpenSslVerify);

// Console output plus, at the end, each of ours against its peer.
class RatioReporter : public benchmark::ConsoleReporter {
public:
    // Colours only on a terminal, so that logs and the README stay readable.
    RatioReporter() : ConsoleReporter(::isatty(STDOUT_FILENO) ? OO_Defaults : OO_Tabular) {}

    void ReportRuns(const std::vector<Run>& runs) override {
        ConsoleReporter::ReportRuns(runs);
        for (const Run& run : runs) {
            auto it = run.counters.find("items_per_second");
            if (it != run.counters.end()) rates_[run.benchmark_name()] = it->second.value;
        }
    }
    void Finalize() override {
        ConsoleReporter::Finalize();
        print("BM_SignAndEncodeMint", "BM_PeerOpenSslSign");
        print("BM_RecoverAddress", "BM_PeerOpenSslVerify");
    }

private:
    void print(const std::string& ours, const std::string& peer) const {
        const auto a = rates_.find(ours);
        const auto b = rates_.find(peer);
        if (a == rates_.end() || b == rates_.end() || b->second <= 0) return;
        std::printf("%s: %.0f ops/s, %s: %.0f ops/s, ratio %.2f\n", ours.c_str(), a->second, peer.c_str(), b->second,
                    a->second / b->second);
    }
    std::map<std::string, double> rates_;
};

}  // namespace

int main(int argc, char** argv) {
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    RatioReporter reporter;
    benchmark::RunSpecifiedBenchmarks(&reporter);
    benchmark::Shutdown();
    return 0;
}
