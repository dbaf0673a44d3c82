// Tuned values: what the autotuner measured best on one device ("scan.4.items" -> 32), as plain data the
// policies read before their hand-set defaults (and after the CLALGO_* tuning variables, which always win).
// The text form is what tuning files hold: a header naming the device and driver it was measured on, then one
// "key value" line per choice. A file for another device or driver is stale; a malformed one is corrupt; both
// read as nothing. Which keys exist, and which values the tuner tries, is the policies' business: each policy
// lists its candidates (tuning_candidates) beside the defaults it would replace.
//   detail::TunedValues tuned;  tuned.set("reduction.unroll", 8);
//   detail::ReductionPlan plan = detail::reduction_policy(info, traits, tuned);
#pragma once

#include <clalgo/core/device_info.hpp>

#include <cctype>
#include <cstdint>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace clalgo::detail {

/// Tuned values for one device, by key.
class TunedValues {
public:
    std::optional<std::uint64_t> get(const std::string& key) const {
        auto found = values_.find(key);
        if (found == values_.end()) return std::nullopt;
        return found->second;
    }

    /// The value under `key` where it is tuned and within [low, high]; else nothing (the default holds).
    std::optional<std::uint64_t> get(const std::string& key, std::uint64_t low, std::uint64_t high) const {
        auto value = get(key);
        if (value && *value >= low && *value <= high) return value;
        return std::nullopt;
    }

    void set(const std::string& key, std::uint64_t value) { values_[key] = value; }
    /// Takes every value of `other`, replacing its own under the same keys.
    void merge(const TunedValues& other) {
        for (const auto& [key, value] : other.values_) values_[key] = value;
    }
    bool empty() const noexcept { return values_.empty(); }
    const std::map<std::string, std::uint64_t>& all() const noexcept { return values_; }
    bool operator==(const TunedValues& other) const { return values_ == other.values_; }

    /// "key=value, key=value": for logs and reports.
    std::string summary() const {
        std::string text;
        for (const auto& [key, value] : values_) text += (text.empty() ? "" : ", ") + key + "=" + std::to_string(value);
        return text;
    }

private:
    std::map<std::string, std::uint64_t> values_;
};

/// The first line of every tuning file; a new format gets a new number, and old files read as stale.
inline constexpr const char* tuning_format = "clalgo tuning 1";

/// The text of a tuning file for `device`.
inline std::string tuning_text(const TunedValues& values, const DeviceInfo& device) {
    std::string text = std::string(tuning_format) + "\n";
    text += "device " + device.name + "\nplatform " + device.platform_name + "\ndriver " + device.driver_version +
            "\ncompute_units " + std::to_string(device.compute_units) + "\n";
    for (const auto& [key, value] : values.all()) text += key + " " + std::to_string(value) + "\n";
    return text;
}

/// How a tuning file's text reads for `device`.
enum class TuningFileState { sound, stale, corrupt };

struct ParsedTuning {
    TuningFileState state = TuningFileState::corrupt;
    TunedValues values;  ///< only when sound
};

/// Reads a tuning file's text: sound only where it was written for this device and driver and every line
/// is well formed (a key of lower-case letters, digits, '.' and '_', a whole number).
inline ParsedTuning parse_tuning_text(const std::string& text, const DeviceInfo& device) {
    ParsedTuning parsed;
    std::istringstream in(text);
    std::string line;
    if (!std::getline(in, line) || line != tuning_format) {
        parsed.state = line.rfind("clalgo tuning ", 0) == 0 ? TuningFileState::stale : TuningFileState::corrupt;
        return parsed;
    }
    const std::vector<std::pair<std::string, std::string>> header{{"device", device.name},
                                                                  {"platform", device.platform_name},
                                                                  {"driver", device.driver_version},
                                                                  {"compute_units", std::to_string(device.compute_units)}};
    bool stale = false;
    for (const auto& [word, expected] : header) {
        if (!std::getline(in, line) || line.rfind(word + " ", 0) != 0) return parsed;  // corrupt
        stale = stale || line.substr(word.size() + 1) != expected;
    }
    TunedValues values;
    while (std::getline(in, line)) {
        if (line.empty()) continue;
        const std::size_t space = line.find(' ');
        if (space == std::string::npos || space == 0) return parsed;
        const std::string key = line.substr(0, space), number = line.substr(space + 1);
        for (unsigned char c : key)
            if (!(std::islower(c) || std::isdigit(c) || c == '.' || c == '_')) return parsed;
        if (number.empty() || number.size() > 18) return parsed;
        for (unsigned char c : number)
            if (!std::isdigit(c)) return parsed;
        values.set(key, std::stoull(number));
    }
    parsed.state = stale ? TuningFileState::stale : TuningFileState::sound;
    if (!stale) parsed.values = std::move(values);
    return parsed;
}

}  // namespace clalgo::detail
