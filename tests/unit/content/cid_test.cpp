#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <sstream>

#include "core/content/cid.hpp"
#include "core/content/content_store.hpp"
#include "core/crypto/encoding.hpp"
#include "core/os/process.hpp"
#include "support/cli_runner.hpp"
#include "support/error_kind.hpp"
#include "support/random.hpp"
#include "support/tools.hpp"

using namespace abci;

namespace cid_test {

// Empty, "hello", sizes around the chunk boundary and random sizes up to one chunk.
std::vector<eth::Bytes> inputs(std::uint64_t seed, std::size_t random_count) {
    test::Random random(seed);
    std::vector<eth::Bytes> out{{},
                                {'h', 'e', 'l', 'l', 'o'},
                                random.bytes(1),
                                random.bytes(content::kMaxContentSize - 1),
                                random.bytes(content::kMaxContentSize)};
    for (std::size_t i = 0; i < random_count; ++i) {
        // Mostly small (metadata JSON is), some up to the full chunk.
        const std::uint64_t bound = i % 3 == 0 ? content::kMaxContentSize + 1 : 4096;
        out.push_back(random.bytes(random.below(bound)));
    }
    return out;
}

// Writes each input to its own file in `dir` and returns their paths.
std::vector<std::string> write_files(const test::TempDir& dir, const std::vector<eth::Bytes>& inputs) {
    std::vector<std::string> paths;
    for (std::size_t i = 0; i < inputs.size(); ++i)
        paths.push_back(dir.write("input-" + std::to_string(i),
                                  std::string_view(reinterpret_cast<const char*>(inputs[i].data()), inputs[i].size())));
    return paths;
}

void append_varint(eth::Bytes& out, std::uint64_t value) {
    for (; value >= 0x80; value >>= 7) out.push_back(static_cast<std::uint8_t>(value | 0x80));
    out.push_back(static_cast<std::uint8_t>(value));
}

// A protobuf length-delimited field: key (field number, wire type 2), length, bytes.
void append_bytes_field(eth::Bytes& out, std::uint8_t field, eth::ByteView bytes) {
    out.push_back(static_cast<std::uint8_t>(field << 3 | 2));
    append_varint(out, bytes.size());
    out.insert(out.end(), bytes.begin(), bytes.end());
}

// The dag-pb block IPFS makes of a file that fits one chunk without raw
// leaves: PBNode{Data: UnixFS Data{Type: File, Data: content, filesize}}, no
// links. UnixFS omits an empty Data field (as js-ipfs-unixfs and Kubo do).
eth::Bytes unixfs_file_node(eth::ByteView content) {
    eth::Bytes unixfs{1 << 3 | 0, 2};  // field 1 Type, varint: File = 2
    if (!content.empty()) append_bytes_field(unixfs, 2, content);
    unixfs.push_back(3 << 3 | 0);  // field 3 filesize, varint
    append_varint(unixfs, content.size());
    eth::Bytes node;
    append_bytes_field(node, 1, unixfs);  // PBNode field 1 Data
    return node;
}

}  // namespace cid_test

TEST_CASE("base32 encodes RFC 4648's vectors, lower case without padding", "[cid]") {
    // RFC 4648 section 10, lower-cased, padding removed.
    const std::pair<const char*, const char*> vectors[] = {
        {"", ""},
        {"f", "my"},
        {"fo", "mzxq"},
        {"foo", "mzxw6"},
        {"foob", "mzxw6yq"},
        {"fooba", "mzxw6ytb"},
        {"foobar", "mzxw6ytboi"},
    };
    for (const auto& [plain, encoded] : vectors) {
        INFO(plain);
        CHECK(content::base32_encode(eth::as_bytes(plain)) == encoded);
        const auto decoded = content::base32_decode(encoded);
        CHECK(std::string(decoded.begin(), decoded.end()) == plain);
    }
}

TEST_CASE("base32 agrees with coreutils on random bytes", "[cid]") {
    test::Random random(32);
    for (int i = 0; i < 20; ++i) {
        const eth::Bytes data = random.bytes(random.below(70));
        const auto r = os::run_command({"basenc", "--base32", "-w0"}, std::string(data.begin(), data.end()));
        REQUIRE(r.exit_code == 0);
        std::string expected;
        for (const char c : r.out)
            if (c != '=') expected.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
        CHECK(content::base32_encode(data) == expected);
        CHECK(content::base32_decode(expected) == data);
    }
}

TEST_CASE("the base32 decoder is strict", "[cid]") {
    for (const char* bad : {"m", "mzx", "mzxw6y", "MY", "my======", "m1", "m8", "my ", "mz", "mzxr"}) {
        INFO(bad);
        CHECK(test::error_kind([&] { (void)content::base32_decode(bad); }) == ErrorKind::invalid_input);
    }
}

TEST_CASE("our raw CIDv1 equals ipfs-only-hash's on many inputs", "[cid]") {
    const auto inputs = cid_test::inputs(1, 45);
    const test::TempDir dir;
    std::vector<std::string> argv{"node", test::source_path("tests/support/js/ipfs_only_hash.mjs")};
    for (const auto& path : cid_test::write_files(dir, inputs)) argv.push_back(path);
    const auto r = os::run_command(argv);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);

    std::istringstream lines(r.out);
    for (const auto& input : inputs) {
        std::string expected;
        REQUIRE(std::getline(lines, expected));
        INFO(input.size() << " bytes");
        const auto cid = content::Cid::of(input);
        CHECK(cid.to_string() == expected);
        CHECK(cid.to_string().starts_with("bafkrei"));
        CHECK(cid.digest() == crypto::sha256(input));
    }
    std::string extra;
    CHECK_FALSE(std::getline(lines, extra));
}

TEST_CASE("our CIDv1 encoding of dag-pb nodes equals Debian's ipfs_cid on many inputs", "[cid]") {
    // ipfs_cid hashes a file as UnixFS dag-pb (bafybei…), not raw; wrapping the
    // bytes in that one-chunk node ourselves checks our multihash, CID and
    // base32 encoding against an independent (Rust) implementation.
    const auto inputs = cid_test::inputs(2, 20);
    const test::TempDir dir;
    const auto paths = cid_test::write_files(dir, inputs);
    for (std::size_t i = 0; i < inputs.size(); ++i) {
        INFO(inputs[i].size() << " bytes");
        const auto r = os::run_command({"ipfs_cid", paths[i]});
        REQUIRE(r.exit_code == 0);
        const auto expected = nlohmann::json::parse(r.out).at("CIDv1").get<std::string>();
        const content::Cid cid(content::Codec::dag_pb, crypto::sha256(cid_test::unixfs_file_node(inputs[i])));
        CHECK(cid.to_string() == expected);
    }
}

TEST_CASE("CIDs round-trip through their text and URI forms", "[cid]") {
    CHECK(content::Cid::of(eth::as_bytes("hello")).to_string() ==
          "bafkreibm6jg3ux5qumhcn2b3flc3tyu6dmlb4xa7u5bf44yegnrjhc4yeq");
    CHECK(content::Cid::of(eth::as_bytes("hello")).uri() ==
          "ipfs://bafkreibm6jg3ux5qumhcn2b3flc3tyu6dmlb4xa7u5bf44yegnrjhc4yeq");
    test::Random random(3);
    for (int i = 0; i < 30; ++i) {
        const auto cid = content::Cid::of(random.bytes(random.below(200)));
        const auto text = cid.to_string();
        CHECK(text.size() == 59);
        const auto parsed = content::Cid::parse(text);
        CHECK(parsed == cid);
        CHECK(parsed.codec() == content::Codec::raw);
        CHECK(parsed.to_string() == text);
    }
}

TEST_CASE("CID parsing accepts only the raw sha2-256 CIDv1 form", "[cid]") {
    const std::string good = content::Cid::of(eth::as_bytes("hello")).to_string();
    std::string upper = good;
    for (auto& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    const std::string dag_pb = content::Cid(content::Codec::dag_pb, crypto::sha256(eth::as_bytes("hello"))).to_string();

    // The same digest under a 20-byte hash length: a multihash we do not use.
    eth::Bytes short_hash{0x01, 0x55, 0x12, 0x14};
    short_hash.resize(36, 0xab);
    // Right header, but sha2-512's code.
    eth::Bytes other_hash{0x01, 0x55, 0x13, 0x20};
    other_hash.resize(36, 0xab);
    // CIDv0's version byte.
    eth::Bytes version0{0x00, 0x55, 0x12, 0x20};
    version0.resize(36, 0xab);

    const std::string rejected[] = {
        "",
        "b",
        upper,                                             // multibase "B" (upper-case base32)
        "B" + good.substr(1),                              // upper-case prefix only
        good.substr(0, 58),                                // one character short
        good + "a",                                        // one character long
        good.substr(0, 58) + "1",                          // not in the alphabet
        good.substr(0, 30) + "=" + good.substr(31),        // padding character
        good.substr(0, 58) + "b",                          // non-zero trailing bits (58 chars hold 290 bits)
        "z" + good.substr(1),                              // another multibase
        "QmWfVY9y3xjsixTgbd9AorQxH7VtMpzfx2HaWtsoUYecaX",  // CIDv0
        dag_pb,                                            // wrong codec
        "b" + content::base32_encode(short_hash),          // wrong hash length (and total length)
        "b" + content::base32_encode(other_hash),          // wrong hash function
        "b" + content::base32_encode(version0),            // wrong version
        "../x",
        "../../etc/passwd",
        "bafkreibm6jg3ux5qumhcn2b3flc3tyu6dmlb4xa7u5bf44yegnrjhc4y/.",
        good.substr(0, 57) + "/",
        good.substr(0, 57) + "%2f",
        std::string("bafkreibm6jg3ux5qumhcn2b3flc3tyu6dmlb4xa7u5bf44yegnrjhc4ye\0", 59),
        " " + good.substr(1),
    };
    for (const auto& text : rejected) {
        INFO("\"" << text << "\"");
        CHECK(test::error_kind([&] { (void)content::Cid::parse(text); }) == ErrorKind::invalid_input);
    }
}
