#include <catch2/catch.hpp>

#include <openssl/evp.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "core/error.hpp"
#include "core/keystore/keystore.hpp"
#include "support/cli_runner.hpp"
#include "support/error_kind.hpp"
#include "support/tools.hpp"

using namespace abci;
using namespace abci::eth;
using nlohmann::json;

namespace {

// Cheap scrypt cost for tests that are not about the cost itself.
constexpr keystore::ScryptParams kLight{1024, 8, 1};

json load_json(const std::string& relative) {
    std::ifstream in(test::source_path(relative));
    REQUIRE(in);
    return json::parse(in);
}


json light_keystore(const PrivateKey& key, const std::string& password) {
    return keystore::encrypt(key, password, kLight);
}

}  // namespace

TEST_CASE("scrypt matches RFC 7914's vectors and OpenSSL", "[eth][keystore]") {
    struct Vector {
        const char* password;
        const char* salt;
        keystore::ScryptParams params;
        const char* expected;
    };
    const Vector vectors[] = {
        {"", "", {16, 1, 1},
         "77d6576238657b203b19ca42c18a0497f16b4844e3074ae8dfdffa3fede21442"
         "fcd0069ded0948f8326a753a0fc81f17e8d3e0fb2e0d3628cf35e20c38d18906"},
        {"password", "NaCl", {1024, 8, 16},
         "fdbabe1c9d3472007856e7190d01e9fe7c6ad7cbc8237830e77376634b373162"
         "2eaf30d92e22a3886ff109279d9830dac727afb94a83ee6d8360cbdfa2cc0640"},
        {"pleaseletmein", "SodiumChloride", {16384, 8, 1},
         "7023bdcb3afd7348461c06cd81fd38ebfda8fbba904f8e3ea9b543f6545da1f2"
         "d5432955613f0fcf62d49705242a9af9e61e85dc0d651e40dfcf017b45575887"},
    };
    for (const auto& v : vectors) {
        INFO(v.password);
        Bytes out(64);
        keystore::scrypt(v.password, as_bytes(v.salt), v.params, out);
        CHECK(to_hex(out, false) == v.expected);
    }
    // Where OpenSSL's scrypt accepts the parameters, it must agree with ours.
    for (const keystore::ScryptParams p : {keystore::ScryptParams{2, 8, 1}, {4096, 8, 1}, {256, 3, 5}}) {
        Bytes ours(32), theirs(32);
        keystore::scrypt("pw", as_bytes("salt"), p, ours);
        REQUIRE(EVP_PBE_scrypt("pw", 2, reinterpret_cast<const unsigned char*>("salt"), 4, p.n, p.r, p.p,
                               std::uint64_t{1} << 30, theirs.data(), theirs.size()) == 1);
        CHECK(ours == theirs);
    }
}

TEST_CASE("geth's v3 keystore vectors decrypt to their keys", "[eth][keystore]") {
    const json vectors = load_json("tests/vectors/keystore/v3_test_vector.json");
    REQUIRE(vectors.size() == 4);
    for (const auto& [name, v] : vectors.items()) {
        INFO(name);
        // Keys shorter than 32 bytes were stored without their leading zeros.
        std::string priv = v["priv"].get<std::string>();
        priv.insert(0, 64 - priv.size(), '0');
        const PrivateKey key = keystore::decrypt(v["json"], v["password"].get<std::string>());
        CHECK(to_hex(key.secret_bytes(), false) == priv);
        if (name != "wikipage_test_vector_scrypt")  // a second costly scrypt run adds nothing here
            CHECK(test::error_kind([&] { (void)keystore::decrypt(v["json"], "wrong"); }) == ErrorKind::unauthenticated);
    }
}

TEST_CASE("geth's light keystore decrypts and matches its address field", "[eth][keystore]") {
    const json doc = load_json("tests/vectors/keystore/very-light-scrypt.json");
    const PrivateKey key = keystore::decrypt(doc, "");
    CHECK(key.address().lower() == "0x45dea0fb0bba44f4fcf290bba71fd57d7117cbb8");

    json other = doc;
    other["address"] = "f39fd6e51aad88f6f4ce6ab8827279cfffb92266";
    CHECK(test::error_kind([&] { (void)keystore::decrypt(other, ""); }) == ErrorKind::invalid_input);
}

TEST_CASE("keystores we write round-trip and have geth's shape", "[eth][keystore]") {
    const PrivateKey key = PrivateKey::generate();
    const json doc = light_keystore(key, "secret");
    CHECK(doc["version"] == 3);
    CHECK(doc["address"] == key.address().lower().substr(2));
    CHECK(doc["crypto"]["kdf"] == "scrypt");
    CHECK(doc["crypto"]["kdfparams"]["n"] == 1024);
    CHECK(doc["crypto"]["kdfparams"]["dklen"] == 32);
    CHECK(doc["crypto"]["kdfparams"]["salt"].get<std::string>().size() == 64);
    CHECK(doc["crypto"]["cipherparams"]["iv"].get<std::string>().size() == 32);
    const std::string id = doc["id"].get<std::string>();
    CHECK(id.size() == 36);
    CHECK(id[14] == '4');  // UUID version 4
    CHECK(keystore::decrypt_text(doc.dump(), "secret").address() == key.address());
    // Fresh salt and IV each time.
    CHECK(light_keystore(key, "secret")["crypto"]["ciphertext"] != doc["crypto"]["ciphertext"]);
}

TEST_CASE("the default parameters are geth's standard scrypt", "[eth][keystore][slow]") {
    const PrivateKey key = PrivateKey::generate();
    const json doc = keystore::encrypt(key, "pw");
    const json& p = doc["crypto"]["kdfparams"];
    CHECK(p["n"] == 262144);
    CHECK(p["r"] == 8);
    CHECK(p["p"] == 1);
    CHECK(keystore::decrypt(doc, "pw").address() == key.address());
}

TEST_CASE("tampered keystores fail authentication before decryption", "[eth][keystore]") {
    const PrivateKey key = PrivateKey::generate();
    const json doc = light_keystore(key, "pw");
    auto flip_hex = [](std::string hex) {
        hex[0] = hex[0] == '0' ? '1' : '0';
        return hex;
    };
    json bad_mac = doc;
    bad_mac["crypto"]["mac"] = flip_hex(doc["crypto"]["mac"]);
    json bad_ct = doc;
    bad_ct["crypto"]["ciphertext"] = flip_hex(doc["crypto"]["ciphertext"]);
    json bad_salt = doc;
    bad_salt["crypto"]["kdfparams"]["salt"] = flip_hex(doc["crypto"]["kdfparams"]["salt"]);
    for (const json* d : {&bad_mac, &bad_ct, &bad_salt})
        CHECK(test::error_kind([&] { (void)keystore::decrypt(*d, "pw"); }) == ErrorKind::unauthenticated);
    CHECK(test::error_kind([&] { (void)keystore::decrypt(doc, "pw "); }) == ErrorKind::unauthenticated);
    CHECK(test::error_kind([&] { (void)keystore::decrypt(doc, ""); }) == ErrorKind::unauthenticated);
}

TEST_CASE("malformed or absurd keystore fields are invalid input", "[eth][keystore]") {
    const PrivateKey key = PrivateKey::generate();
    const json good = light_keystore(key, "pw");
    using Edit = void (*)(json&);
    const std::pair<const char*, Edit> edits[] = {
        {"not an object", [](json& d) { d = json::array(); }},
        {"version 1", [](json& d) { d["version"] = 1; }},
        {"version as string", [](json& d) { d["version"] = "3"; }},
        {"no version", [](json& d) { d.erase("version"); }},
        {"bad id", [](json& d) { d["id"] = "not-a-uuid"; }},
        {"bad address", [](json& d) { d["address"] = "xyz"; }},
        {"no crypto", [](json& d) { d.erase("crypto"); }},
        {"cipher", [](json& d) { d["crypto"]["cipher"] = "aes-128-cbc"; }},
        {"iv length", [](json& d) { d["crypto"]["cipherparams"]["iv"] = "00"; }},
        {"iv hex", [](json& d) { d["crypto"]["cipherparams"]["iv"] = std::string(32, 'g'); }},
        {"no ciphertext", [](json& d) { d["crypto"].erase("ciphertext"); }},
        {"long ciphertext", [](json& d) { d["crypto"]["ciphertext"] = std::string(66, 'a'); }},
        {"empty ciphertext", [](json& d) { d["crypto"]["ciphertext"] = ""; }},
        {"mac length", [](json& d) { d["crypto"]["mac"] = "abcd"; }},
        {"kdf", [](json& d) { d["crypto"]["kdf"] = "argon2"; }},
        {"dklen", [](json& d) { d["crypto"]["kdfparams"]["dklen"] = 16; }},
        {"n not power of 2", [](json& d) { d["crypto"]["kdfparams"]["n"] = 1000; }},
        {"n zero", [](json& d) { d["crypto"]["kdfparams"]["n"] = 0; }},
        {"n negative", [](json& d) { d["crypto"]["kdfparams"]["n"] = -1024; }},
        {"n huge", [](json& d) { d["crypto"]["kdfparams"]["n"] = std::uint64_t{1} << 40; }},
        {"r huge", [](json& d) { d["crypto"]["kdfparams"]["r"] = std::uint64_t{1} << 33; }},
        {"p huge", [](json& d) { d["crypto"]["kdfparams"]["p"] = 1u << 30; }},
        {"r zero", [](json& d) { d["crypto"]["kdfparams"]["r"] = 0; }},
        {"n as string", [](json& d) { d["crypto"]["kdfparams"]["n"] = "1024"; }},
        {"salt empty", [](json& d) { d["crypto"]["kdfparams"]["salt"] = ""; }},
        {"pbkdf2 without c", [](json& d) {
             d["crypto"]["kdf"] = "pbkdf2";
             d["crypto"]["kdfparams"]["prf"] = "hmac-sha256";
         }},
        {"pbkdf2 prf", [](json& d) {
             d["crypto"]["kdf"] = "pbkdf2";
             d["crypto"]["kdfparams"]["c"] = 10;
             d["crypto"]["kdfparams"]["prf"] = "hmac-sha512";
         }},
        {"pbkdf2 c huge", [](json& d) {
             d["crypto"]["kdf"] = "pbkdf2";
             d["crypto"]["kdfparams"]["c"] = std::uint64_t{1} << 40;
             d["crypto"]["kdfparams"]["prf"] = "hmac-sha256";
         }},
    };
    for (const auto& [name, edit] : edits) {
        INFO(name);
        json doc = good;
        edit(doc);
        CHECK(test::error_kind([&] { (void)keystore::decrypt(doc, "pw"); }) == ErrorKind::invalid_input);
    }
    CHECK(test::error_kind([] { (void)keystore::decrypt_text("{not json", "pw"); }) == ErrorKind::invalid_input);
    CHECK(test::error_kind([&] { (void)keystore::encrypt(key, "pw", {1000, 8, 1}); }) == ErrorKind::invalid_input);
}

TEST_CASE("keystore files are written atomically with geth's name and mode 0600", "[eth][keystore]") {
    const test::TempDir tmp;
    const std::filesystem::path dir = tmp.path() / "keys";
    const PrivateKey key = PrivateKey::generate();
    const auto path = keystore::write_file(dir, key, "pw", kLight);

    const std::string name = path.filename().string();
    CHECK(name.starts_with("UTC--"));
    CHECK(name.ends_with("Z--" + key.address().lower().substr(2)));
    CHECK(name.size() == std::string("UTC--2024-01-02T03-04-05.123456789Z--").size() + 40);
    CHECK(name.find(':') == std::string::npos);

    struct stat st{};
    REQUIRE(::stat(path.c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0600);
    REQUIRE(::stat(dir.c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0700);
    // Only the keystore remains: no temporary file is left behind.
    CHECK(std::distance(std::filesystem::directory_iterator(dir), std::filesystem::directory_iterator()) == 1);

    CHECK(keystore::read_file(path, "pw").address() == key.address());
    CHECK(test::error_kind([&] { (void)keystore::read_file(path, "nope"); }) == ErrorKind::unauthenticated);
    CHECK(test::error_kind([&] { (void)keystore::read_file(dir / "missing", "pw"); }) == ErrorKind::not_found);
}

TEST_CASE("listing a directory finds keystores and skips other files", "[eth][keystore]") {
    const test::TempDir tmp;
    const PrivateKey a = PrivateKey::generate();
    const PrivateKey b = PrivateKey::generate();
    const auto pa = keystore::write_file(tmp.path(), a, "pw", kLight);
    const auto pb = keystore::write_file(tmp.path(), b, "pw", kLight);
    // A keystore without an address field (as cast writes them), plus junk.
    json no_address = light_keystore(a, "pw");
    no_address.erase("address");
    std::ofstream(tmp.path() / "cast-style") << no_address.dump();
    std::ofstream(tmp.path() / "garbage") << "not json";
    std::ofstream(tmp.path() / "v1") << R"({"version":1})";
    std::ofstream(tmp.path() / ".hidden") << light_keystore(b, "pw").dump();
    std::filesystem::create_directory(tmp.path() / "subdir");

    const auto entries = keystore::list(tmp.path());
    REQUIRE(entries.size() == 3);
    CHECK(entries[0].path == pa);
    CHECK(entries[0].address == a.address());
    CHECK(entries[1].address == b.address());
    CHECK(entries[1].path == pb);
    CHECK(entries[2].path.filename() == "cast-style");
    CHECK_FALSE(entries[2].address.has_value());

    CHECK(test::error_kind([&] { (void)keystore::list(tmp.path() / "nope"); }) == ErrorKind::not_found);
}
