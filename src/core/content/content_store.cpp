#include "core/content/content_store.hpp"

#include "core/content/kubo_store.hpp"
#include "core/content/local_store.hpp"
#include "core/error.hpp"

namespace abci::content {

Cid ContentStore::put(eth::ByteView data) {
    if (data.size() > kMaxContentSize)
        throw Error(ErrorKind::invalid_input, "content of " + std::to_string(data.size()) + " bytes is larger than " +
                                                  std::to_string(kMaxContentSize) + " bytes");
    const Cid cid = Cid::of(data);
    store(cid, data);
    return cid;
}

std::optional<eth::Bytes> ContentStore::get(const Cid& cid) {
    auto data = fetch(cid);
    if (data && Cid::of(*data) != cid)
        throw Error(ErrorKind::internal, "content store: " + location(cid) + " holds for " + cid.to_string() +
                                             " content whose CID is " + Cid::of(*data).to_string());
    return data;
}

std::unique_ptr<ContentStore> make_content_store(const ContentSettings& settings) {
    if (settings.backend == "local") {
        if (settings.data_dir.empty())
            throw Error(ErrorKind::invalid_input, "content storage \"local\" needs the data directory");
        return std::make_unique<LocalStore>(settings.data_dir / "content");
    }
    if (settings.backend == "kubo") return std::make_unique<KuboStore>(settings.kubo_url, settings.timeout);
    throw Error(ErrorKind::invalid_input,
                "unknown content storage backend \"" + settings.backend + "\" (expected \"local\" or \"kubo\")");
}

}  // namespace abci::content
