#include "core/signer/pkcs11.hpp"

#include <dlfcn.h>
#include <p11-kit/pkcs11.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <map>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "core/eth/bytes.hpp"
#include "core/eth/wipe.hpp"
#include "core/signer/watch.hpp"

namespace abci::signer {
namespace {

// DER of the named curve secp256k1 (OID 1.3.132.0.10): the CKA_EC_PARAMS of every key Ethereum can use.
const eth::Bytes kSecp256k1Params = {0x06, 0x05, 0x2b, 0x81, 0x04, 0x00, 0x0a};

std::string rv_name(CK_RV rv) {
    switch (rv) {
        case CKR_PIN_INCORRECT: return "CKR_PIN_INCORRECT";
        case CKR_PIN_LOCKED: return "CKR_PIN_LOCKED";
        case CKR_PIN_EXPIRED: return "CKR_PIN_EXPIRED";
        case CKR_USER_NOT_LOGGED_IN: return "CKR_USER_NOT_LOGGED_IN";
        case CKR_SESSION_HANDLE_INVALID: return "CKR_SESSION_HANDLE_INVALID";
        case CKR_SESSION_CLOSED: return "CKR_SESSION_CLOSED";
        case CKR_TOKEN_NOT_PRESENT: return "CKR_TOKEN_NOT_PRESENT";
        case CKR_TOKEN_NOT_RECOGNIZED: return "CKR_TOKEN_NOT_RECOGNIZED";
        case CKR_DEVICE_REMOVED: return "CKR_DEVICE_REMOVED";
        case CKR_DEVICE_ERROR: return "CKR_DEVICE_ERROR";
        case CKR_SLOT_ID_INVALID: return "CKR_SLOT_ID_INVALID";
        case CKR_KEY_HANDLE_INVALID: return "CKR_KEY_HANDLE_INVALID";
        case CKR_OBJECT_HANDLE_INVALID: return "CKR_OBJECT_HANDLE_INVALID";
        case CKR_MECHANISM_INVALID: return "CKR_MECHANISM_INVALID";
        case CKR_KEY_TYPE_INCONSISTENT: return "CKR_KEY_TYPE_INCONSISTENT";
        case CKR_CURVE_NOT_SUPPORTED: return "CKR_CURVE_NOT_SUPPORTED";
        case CKR_GENERAL_ERROR: return "CKR_GENERAL_ERROR";
        default: {
            char text[32];
            std::snprintf(text, sizeof text, "CKR 0x%lx", static_cast<unsigned long>(rv));
            return text;
        }
    }
}

// The token dropped what we held (a session, the login, the key's handle, or
// the token itself for a moment): worth one reconnection before giving up.
bool reconnectable(CK_RV rv) {
    return rv == CKR_SESSION_HANDLE_INVALID || rv == CKR_SESSION_CLOSED || rv == CKR_USER_NOT_LOGGED_IN ||
           rv == CKR_KEY_HANDLE_INVALID || rv == CKR_OBJECT_HANDLE_INVALID || rv == CKR_DEVICE_REMOVED ||
           rv == CKR_TOKEN_NOT_PRESENT || rv == CKR_DEVICE_ERROR;
}

// One loaded module, initialised once per process (a second C_Initialize is
// an error) and finalised when its last user goes.
class Module {
public:
    static std::shared_ptr<Module> load(const std::string& path) {
        static std::mutex mutex;
        static std::map<std::string, std::weak_ptr<Module>> loaded;
        std::lock_guard lock(mutex);
        if (auto module = loaded[path].lock()) return module;
        auto module = std::shared_ptr<Module>(new Module(path));
        loaded[path] = module;
        return module;
    }
    ~Module() {
        (void)functions_->C_Finalize(nullptr);
        dlclose(handle_);
    }
    Module(const Module&) = delete;
    Module& operator=(const Module&) = delete;

    [[nodiscard]] CK_FUNCTION_LIST& f() const noexcept { return *functions_; }
    [[nodiscard]] const std::string& path() const noexcept { return path_; }

    /// Held by every sequence of calls that uses the module's handles, so that
    /// restart() never runs under one.
    [[nodiscard]] std::shared_lock<std::shared_mutex> use() const { return std::shared_lock(lifecycle_); }
    /// How many times restart() ran; read with use() held. Handles from
    /// under another count are void: never use, nor close, them.
    [[nodiscard]] unsigned epoch() const noexcept { return epoch_; }
    /// Finalises and initialises the module again, unless someone did since
    /// `seen`. SoftHSM2 (like the client library of a network HSM that lost
    /// its connection) never sees a token again once it went away, until it
    /// is initialised anew; every session of the process ends.
    void restart(unsigned seen) {
        std::unique_lock lock(lifecycle_);
        if (epoch_ != seen) return;
        ++epoch_;
        (void)functions_->C_Finalize(nullptr);
        // A failure leaves every call answering CKR_CRYPTOKI_NOT_INITIALIZED: the next restart tries again.
        (void)initialize();
    }

private:
    explicit Module(std::string path) : path_(std::move(path)) {
        handle_ = dlopen(path_.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (handle_ == nullptr) {
            const char* why = dlerror();
            throw Error(ErrorKind::not_found, "cannot load the PKCS#11 module " + path_ + ": " +
                                                  (why ? why : "unknown error") +
                                                  "; check signer.pkcs11Module (SoftHSM2's is "
                                                  "/usr/lib/softhsm/libsofthsm2.so)");
        }
        auto* get = reinterpret_cast<CK_C_GetFunctionList>(dlsym(handle_, "C_GetFunctionList"));
        CK_RV rv = get ? get(&functions_) : CKR_GENERAL_ERROR;
        if (rv == CKR_OK) rv = initialize();
        if (rv != CKR_OK) {
            dlclose(handle_);
            throw Error(ErrorKind::not_found, path_ + " is not a usable PKCS#11 module (C_GetFunctionList or "
                                                      "C_Initialize failed: " + rv_name(rv) + ")");
        }
    }

    CK_RV initialize() {
        CK_C_INITIALIZE_ARGS args{};
        args.flags = CKF_OS_LOCKING_OK;  // we sign from many threads
        return functions_->C_Initialize(&args);
    }

    std::string path_;
    void* handle_ = nullptr;
    CK_FUNCTION_LIST* functions_ = nullptr;
    mutable std::shared_mutex lifecycle_;
    unsigned epoch_ = 0;  // guarded by lifecycle_
};

std::string trimmed_label(const unsigned char* label, std::size_t size) {
    std::string text(reinterpret_cast<const char*>(label), size);
    text.erase(text.find_last_not_of(' ') + 1);
    return text;
}

// The slot holding the token labelled `label`.
CK_SLOT_ID find_slot(const Module& module, const std::string& label) {
    CK_ULONG count = 0;
    CK_RV rv = module.f().C_GetSlotList(CK_TRUE, nullptr, &count);
    std::vector<CK_SLOT_ID> slots(count);
    if (rv == CKR_OK && count > 0) rv = module.f().C_GetSlotList(CK_TRUE, slots.data(), &count);
    if (rv != CKR_OK)
        throw Error(ErrorKind::unavailable, "the PKCS#11 module " + module.path() + " cannot list its tokens: " + rv_name(rv));
    slots.resize(count);
    std::vector<std::string> labels;
    for (CK_SLOT_ID slot : slots) {
        CK_TOKEN_INFO info{};
        if (module.f().C_GetTokenInfo(slot, &info) != CKR_OK) continue;
        labels.push_back(trimmed_label(info.label, sizeof info.label));
        if (labels.back() == label) return slot;
    }
    std::string present;
    for (const auto& l : labels) present += (present.empty() ? "" : ", ") + ("'" + l + "'");
    throw Error(ErrorKind::not_found, "no PKCS#11 token labelled '" + label + "' in " + module.path() + " (tokens: " +
                                          (present.empty() ? "none" : present) + "); check signer.pkcs11Token");
}

// A session's handle, closed when it goes unless released into a pool.
class Session {
public:
    Session(const Module& module, CK_SLOT_ID slot, bool rw) : module_(&module) {
        const CK_FLAGS flags = CKF_SERIAL_SESSION | (rw ? CKF_RW_SESSION : 0);
        rv_ = module.f().C_OpenSession(slot, flags, nullptr, nullptr, &handle_);
    }
    ~Session() {
        if (open()) (void)module_->f().C_CloseSession(handle_);
    }
    Session(const Session&) = delete;
    Session& operator=(const Session&) = delete;

    [[nodiscard]] bool open() const noexcept { return rv_ == CKR_OK && handle_ != CK_INVALID_HANDLE; }
    [[nodiscard]] CK_RV rv() const noexcept { return rv_; }
    [[nodiscard]] CK_SESSION_HANDLE get() const noexcept { return handle_; }
    [[nodiscard]] CK_SESSION_HANDLE release() noexcept { return std::exchange(handle_, CK_INVALID_HANDLE); }

private:
    const Module* module_;
    CK_SESSION_HANDLE handle_ = CK_INVALID_HANDLE;
    CK_RV rv_ = CKR_OK;
};

std::vector<CK_OBJECT_HANDLE> find_objects(const Module& module, CK_SESSION_HANDLE session,
                                           std::vector<CK_ATTRIBUTE> templ, CK_RV& rv) {
    std::vector<CK_OBJECT_HANDLE> found;
    rv = module.f().C_FindObjectsInit(session, templ.data(), templ.size());
    if (rv != CKR_OK) return found;
    CK_OBJECT_HANDLE batch[16];
    CK_ULONG count = 0;
    while ((rv = module.f().C_FindObjects(session, batch, 16, &count)) == CKR_OK && count > 0)
        found.insert(found.end(), batch, batch + count);
    const CK_RV final_rv = module.f().C_FindObjectsFinal(session);
    if (rv == CKR_OK) rv = final_rv;
    return found;
}

std::optional<eth::Bytes> attribute(const Module& module, CK_SESSION_HANDLE session, CK_OBJECT_HANDLE object,
                                    CK_ATTRIBUTE_TYPE type) {
    CK_ATTRIBUTE a{type, nullptr, 0};
    if (module.f().C_GetAttributeValue(session, object, &a, 1) != CKR_OK ||
        a.ulValueLen == static_cast<CK_ULONG>(-1))
        return std::nullopt;
    eth::Bytes value(a.ulValueLen);
    a.pValue = value.data();
    if (module.f().C_GetAttributeValue(session, object, &a, 1) != CKR_OK) return std::nullopt;
    value.resize(a.ulValueLen);
    return value;
}

// CKA_EC_POINT is a DER OCTET STRING around the SEC 1 point (PKCS#11 v2.40);
// a few modules give the bare point.
eth::Bytes unwrap_ec_point(const eth::Bytes& der) {
    if (der.size() == 65 && der[0] == 0x04) return der;
    if (der.size() >= 2 && der[0] == 0x04 && der[1] == der.size() - 2) return eth::Bytes(der.begin() + 2, der.end());
    if (der.size() >= 3 && der[0] == 0x04 && der[1] == 0x81 && der[2] == der.size() - 3)
        return eth::Bytes(der.begin() + 3, der.end());
    throw Error(ErrorKind::invalid_input, "the token's CKA_EC_POINT is not a DER OCTET STRING holding a point");
}

// Logs the user in. A wrong PIN is never tried again: a token locks its user
// after a few, and only its security officer can unlock it.
void login(const Module& module, CK_SESSION_HANDLE session, const std::string& token, std::string& pin) {
    const CK_RV rv = module.f().C_Login(session, CKU_USER, reinterpret_cast<CK_UTF8CHAR*>(pin.data()), pin.size());
    if (rv == CKR_OK || rv == CKR_USER_ALREADY_LOGGED_IN) return;
    if (rv == CKR_PIN_INCORRECT || rv == CKR_PIN_LEN_RANGE)
        throw Error(ErrorKind::unauthenticated,
                    "wrong PIN for the PKCS#11 token '" + token +
                        "': not tried again (the token locks after a few wrong PINs); check signer.pkcs11PinFile or "
                        "ABCI_SIGNER_PIN");
    if (rv == CKR_PIN_LOCKED || rv == CKR_PIN_EXPIRED)
        throw Error(ErrorKind::unauthenticated, "the user PIN of the PKCS#11 token '" + token + "' is " +
                                                    (rv == CKR_PIN_LOCKED ? "locked" : "expired") +
                                                    ": its security officer must reset it");
    throw Error(ErrorKind::unavailable, "cannot log in to the PKCS#11 token '" + token + "': " + rv_name(rv));
}

// What the configured key is on the token: its private object and address.
struct FoundKey {
    CK_OBJECT_HANDLE handle = CK_INVALID_HANDLE;
    eth::Address address;
};

std::vector<CK_OBJECT_HANDLE> keys_named(const Module& module, CK_SESSION_HANDLE session, CK_OBJECT_CLASS klass,
                                         const std::string& name, CK_RV& rv) {
    std::string label = name;
    auto found = find_objects(module, session,
                              {{CKA_CLASS, &klass, sizeof klass}, {CKA_LABEL, label.data(), label.size()}}, rv);
    if (!found.empty() || rv != CKR_OK) return found;
    try {
        eth::Bytes id = eth::from_hex(name, "key id");
        return find_objects(module, session, {{CKA_CLASS, &klass, sizeof klass}, {CKA_ID, id.data(), id.size()}}, rv);
    } catch (const Error& e) {
        if (e.kind() != ErrorKind::invalid_input) throw;
        return found;  // not hex: a label, and none has it
    }
}

FoundKey find_key(const Module& module, CK_SESSION_HANDLE session, const Pkcs11Config& config) {
    const std::string where = "key '" + config.key + "' on the PKCS#11 token '" + config.token + "'";
    CK_RV rv = CKR_OK;
    const auto privates = keys_named(module, session, CKO_PRIVATE_KEY, config.key, rv);
    if (rv != CKR_OK) throw Error(ErrorKind::unavailable, "cannot search the " + where + ": " + rv_name(rv));
    if (privates.empty())
        throw Error(ErrorKind::not_found, "no private " + where + " (a label, or a CKA_ID in hex); check "
                                                                   "signer.pkcs11Key, or create it with `abcictl signer keygen`");
    if (privates.size() > 1)
        throw Error(ErrorKind::conflict, std::to_string(privates.size()) + " private keys match the " + where +
                                             ": name it by its CKA_ID instead");
    FoundKey key{privates.front(), {}};
    const auto params = attribute(module, session, key.handle, CKA_EC_PARAMS);
    if (!params)
        throw Error(ErrorKind::invalid_input, "the " + where + " is not an elliptic-curve key: Ethereum needs secp256k1");
    if (*params != kSecp256k1Params)
        throw Error(ErrorKind::invalid_input, "the " + where + " is not on secp256k1 (CKA_EC_PARAMS " +
                                                  eth::to_hex(*params) + ", not " + eth::to_hex(kSecp256k1Params) +
                                                  "): Ethereum signs with secp256k1 only");
    const auto can_sign = attribute(module, session, key.handle, CKA_SIGN);
    if (!can_sign || can_sign->size() != 1 || (*can_sign)[0] != CK_TRUE)
        throw Error(ErrorKind::invalid_input, "the " + where + " may not sign (CKA_SIGN is false)");

    // The point is on the public half, found by the private key's CKA_ID.
    const auto id = attribute(module, session, key.handle, CKA_ID);
    CK_OBJECT_CLASS klass = CKO_PUBLIC_KEY;
    eth::Bytes id_value = id.value_or(eth::Bytes{});
    auto publics = id_value.empty() ? keys_named(module, session, CKO_PUBLIC_KEY, config.key, rv)
                                    : find_objects(module, session,
                                                   {{CKA_CLASS, &klass, sizeof klass},
                                                    {CKA_ID, id_value.data(), id_value.size()}},
                                                   rv);
    if (rv != CKR_OK) throw Error(ErrorKind::unavailable, "cannot search the " + where + ": " + rv_name(rv));
    if (publics.size() != 1)
        throw Error(ErrorKind::not_found, "the " + where + " has " + (publics.empty() ? "no" : "more than one") +
                                              " public key object with its CKA_ID: import its public key too");
    const auto point = attribute(module, session, publics.front(), CKA_EC_POINT);
    if (!point) throw Error(ErrorKind::invalid_input, "the public half of the " + where + " has no CKA_EC_POINT");
    try {
        key.address = eth::address_of_public_point(unwrap_ec_point(*point));
    } catch (const Error& e) {
        throw Error(ErrorKind::invalid_input, "the public point of the " + where + " is not on secp256k1", {e.what()});
    }
    return key;
}

class Pkcs11Signer final : public eth::Signer {
public:
    explicit Pkcs11Signer(const Pkcs11Config& config) : config_(config), module_(Module::load(config_.module)) {
        {
            const auto use = module_->use();
            std::lock_guard lock(mutex_);
            connect();
        }
        watch_ = std::make_unique<Watch>("PKCS#11 token '" + config_.token + "'", std::nullopt, [this] { return check(); });
    }
    ~Pkcs11Signer() override {
        watch_.reset();  // its check uses all below
        const auto use = module_->use();
        if (module_epoch_ == module_->epoch())
            for (CK_SESSION_HANDLE s : idle_) (void)module_->f().C_CloseSession(s);
    }
    Pkcs11Signer(const Pkcs11Signer&) = delete;
    Pkcs11Signer& operator=(const Pkcs11Signer&) = delete;

    [[nodiscard]] const eth::Address& address() const override { return address_; }
    [[nodiscard]] std::optional<std::string> unavailable() const override { return watch_->last(); }

private:
    // The watch's: the token still answers for the pool's session and login,
    // or one reconnection makes it so; failing that, the module restarted
    // (which is what makes SoftHSM2 find a token put back) and one more.
    [[nodiscard]] std::optional<std::string> check() const {
        unsigned seen = 0;
        const auto failure = try_connected(seen);
        if (!failure) return std::nullopt;
        {
            std::lock_guard lock(mutex_);
            if (pin_refused_) return failure;  // restarting would only end the sessions of the rest of the process
        }
        module_->restart(seen);
        return try_connected(seen);
    }

    // Nothing when the pool answers, after reconnecting if needed; else why
    // not. `seen`: the module's epoch it found.
    [[nodiscard]] std::optional<std::string> try_connected(unsigned& seen) const {
        const auto use = module_->use();
        std::lock_guard lock(mutex_);
        seen = module_->epoch();
        try {
            if (pin_refused_) throw pin_refused_error();
            if (module_epoch_ != seen)
                idle_.clear();  // the module restarted: these handles are void
            else if (answers())
                return std::nullopt;
            reconnect();
            return std::nullopt;
        } catch (const Error& e) {
            return std::string(e.what());
        }
    }

    // With mutex_ held: the token is there, and an idle session of the pool is
    // still logged in (none idle: all are signing, which says as much).
    [[nodiscard]] bool answers() const {
        CK_TOKEN_INFO token{};
        if (module_->f().C_GetTokenInfo(slot_, &token) != CKR_OK) return false;
        if (idle_.empty()) return true;
        CK_SESSION_INFO session{};
        return module_->f().C_GetSessionInfo(idle_.back(), &session) == CKR_OK &&
               session.state == CKS_RO_USER_FUNCTIONS;
    }

    [[nodiscard]] Error pin_refused_error() const {
        return Error(ErrorKind::unauthenticated, "the PKCS#11 token '" + config_.token +
                                                     "' refused the PIN when logging in again: restart with the "
                                                     "right one (not retried: the token would lock)");
    }

    [[nodiscard]] eth::RawSignature sign_digest(const eth::Hash32& digest) const override {
        const auto use = module_->use();
        for (int attempt = 0;; ++attempt) {
            const Lease lease = take();
            std::array<std::uint8_t, 64> rs{};
            const CK_RV rv = sign_once(lease, digest, rs);
            if (rv == CKR_OK) {
                give_back(lease.session);
                eth::RawSignature raw;
                std::copy_n(rs.begin(), 32, raw.r.begin());
                std::copy_n(rs.begin() + 32, 32, raw.s.begin());
                return raw;
            }
            (void)module_->f().C_CloseSession(lease.session);
            if (attempt == 0 && reconnectable(rv)) {
                std::lock_guard lock(mutex_);
                if (generation_ == lease.generation) reconnect();
                continue;
            }
            throw Error(ErrorKind::unavailable, "the PKCS#11 token '" + config_.token + "' cannot sign for " +
                                                    address_.checksummed() + ": " + rv_name(rv));
        }
    }

    // A logged-in session, the key's handle in it, and which connection they belong to.
    struct Lease {
        CK_SESSION_HANDLE session;
        CK_OBJECT_HANDLE key;
        unsigned generation;
    };

    CK_RV sign_once(const Lease& lease, const eth::Hash32& digest, std::array<std::uint8_t, 64>& rs) const {
        CK_MECHANISM mechanism{CKM_ECDSA, nullptr, 0};
        CK_RV rv = module_->f().C_SignInit(lease.session, &mechanism, lease.key);
        if (rv != CKR_OK) return rv;
        eth::Hash32 data = digest;
        std::array<std::uint8_t, 132> out{};  // room for any curve's r‖s
        CK_ULONG size = out.size();
        rv = module_->f().C_Sign(lease.session, data.data(), data.size(), out.data(), &size);
        if (rv != CKR_OK) return rv;
        if (size != rs.size()) return CKR_KEY_TYPE_INCONSISTENT;
        std::copy_n(out.begin(), rs.size(), rs.begin());
        return CKR_OK;
    }

    // A session of the pool, a new one when none is idle.
    Lease take() const {
        std::lock_guard lock(mutex_);
        if (pin_refused_) throw pin_refused_error();
        if (module_epoch_ != module_->epoch()) {
            idle_.clear();  // the module restarted: these handles are void
            reconnect();
        }
        if (idle_.empty()) {
            Session session(*module_, slot_, false);
            // The slot may have gone (a token removed and put back): one fresh start.
            if (session.open())
                idle_.push_back(session.release());
            else
                reconnect();
        }
        const CK_SESSION_HANDLE s = idle_.back();
        idle_.pop_back();
        return {s, key_, generation_};
    }

    void give_back(CK_SESSION_HANDLE session) const {
        std::lock_guard lock(mutex_);
        idle_.push_back(session);
    }

    // With mutex_ held: drops every session and logs in afresh.
    void reconnect() const {
        for (CK_SESSION_HANDLE s : idle_) (void)module_->f().C_CloseSession(s);
        idle_.clear();
        try {
            connect();
        } catch (const Error& e) {
            if (e.kind() == ErrorKind::unauthenticated) {
                pin_refused_ = true;
                throw;
            }
            // The token, the key or the module is gone: for a mint (and /readyz), this signer is unavailable.
            throw Error(ErrorKind::unavailable, "the PKCS#11 token '" + config_.token + "' cannot sign for " +
                                                    address_.checksummed() + " now: " + e.what(),
                        e.details());
        }
    }

    // With use() and mutex_ held: one session, logged in, kept idle so the
    // login lasts (closing a token's last session logs its user out).
    void connect() const {
        module_epoch_ = module_->epoch();
        slot_ = find_slot(*module_, config_.token);
        Session session(*module_, slot_, false);
        if (!session.open())
            throw Error(ErrorKind::unavailable,
                        "cannot open a session on the PKCS#11 token '" + config_.token + "': " + rv_name(session.rv()));
        login(*module_, session.get(), config_.token, config_.pin);
        const FoundKey key = find_key(*module_, session.get(), config_);
        if (generation_ > 0 && key.address != address_)
            throw Error(ErrorKind::unavailable, "the PKCS#11 token '" + config_.token + "' now holds another key '" +
                                                    config_.key + "' (" + key.address.checksummed() + ", not " +
                                                    address_.checksummed() + "): refusing to sign with it");
        key_ = key.handle;
        address_ = key.address;
        ++generation_;
        idle_.push_back(session.release());
    }

    mutable Pkcs11Config config_;  // the PIN is needed again to log in after the token dropped its sessions
    eth::WipeOnExit<std::string> wipe_pin_{config_.pin};  // a member: it wipes also when the constructor throws
    std::shared_ptr<Module> module_;
    mutable std::mutex mutex_;  // guards all below
    mutable CK_SLOT_ID slot_ = 0;
    mutable CK_OBJECT_HANDLE key_ = CK_INVALID_HANDLE;
    mutable eth::Address address_;
    mutable unsigned generation_ = 0;  // how many times connected: a failure reconnects only the connection it saw
    mutable std::vector<CK_SESSION_HANDLE> idle_;
    mutable bool pin_refused_ = false;
    mutable unsigned module_epoch_ = 0;  // the module's epoch when idle_ and key_ were had
    std::unique_ptr<Watch> watch_;       // last: its thread checks all above
};

}  // namespace

std::shared_ptr<const eth::Signer> open_pkcs11_signer(const Pkcs11Config& config) {
    return std::make_shared<Pkcs11Signer>(config);
}

eth::Address generate_pkcs11_key(const Pkcs11Config& config) {
    std::string pin = config.pin;  // C_Login takes it non-const
    const eth::WipeOnExit wipe_pin(pin);
    const auto module = Module::load(config.module);
    const auto use = module->use();
    const CK_SLOT_ID slot = find_slot(*module, config.token);
    Session session(*module, slot, true);
    if (!session.open())
        throw Error(ErrorKind::unavailable,
                    "cannot open a session on the PKCS#11 token '" + config.token + "': " + rv_name(session.rv()));
    login(*module, session.get(), config.token, pin);
    CK_RV rv = CKR_OK;
    if (!keys_named(*module, session.get(), CKO_PRIVATE_KEY, config.key, rv).empty())
        throw Error(ErrorKind::conflict, "the PKCS#11 token '" + config.token + "' already holds a key labelled '" +
                                             config.key + "': choose another label");
    std::array<std::uint8_t, 16> id{};
    rv = module->f().C_GenerateRandom(session.get(), id.data(), id.size());
    if (rv != CKR_OK)
        throw Error(ErrorKind::unavailable, "the PKCS#11 token '" + config.token + "' cannot make random bytes: " + rv_name(rv));
    CK_BBOOL yes = CK_TRUE;
    CK_BBOOL no = CK_FALSE;
    eth::Bytes params = kSecp256k1Params;
    std::string label = config.key;
    std::vector<CK_ATTRIBUTE> public_template = {
        {CKA_TOKEN, &yes, sizeof yes},          {CKA_PRIVATE, &no, sizeof no},
        {CKA_VERIFY, &yes, sizeof yes},         {CKA_EC_PARAMS, params.data(), params.size()},
        {CKA_LABEL, label.data(), label.size()}, {CKA_ID, id.data(), id.size()}};
    // The private half can sign and nothing else, and never leaves the token.
    std::vector<CK_ATTRIBUTE> private_template = {
        {CKA_TOKEN, &yes, sizeof yes},          {CKA_PRIVATE, &yes, sizeof yes},
        {CKA_SENSITIVE, &yes, sizeof yes},      {CKA_EXTRACTABLE, &no, sizeof no},
        {CKA_SIGN, &yes, sizeof yes},           {CKA_DERIVE, &no, sizeof no},
        {CKA_DECRYPT, &no, sizeof no},          {CKA_UNWRAP, &no, sizeof no},
        {CKA_LABEL, label.data(), label.size()}, {CKA_ID, id.data(), id.size()}};
    CK_MECHANISM mechanism{CKM_EC_KEY_PAIR_GEN, nullptr, 0};
    CK_OBJECT_HANDLE public_key = CK_INVALID_HANDLE;
    CK_OBJECT_HANDLE private_key = CK_INVALID_HANDLE;
    rv = module->f().C_GenerateKeyPair(session.get(), &mechanism, public_template.data(), public_template.size(),
                                       private_template.data(), private_template.size(), &public_key, &private_key);
    if (rv != CKR_OK)
        throw Error(ErrorKind::unavailable, "the PKCS#11 token '" + config.token +
                                                "' cannot generate a secp256k1 key pair: " + rv_name(rv));
    return find_key(*module, session.get(), config).address;
}

}  // namespace abci::signer
