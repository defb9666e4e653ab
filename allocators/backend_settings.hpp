// A backend's settings: any configuration of an allocator is a backend, named by its settings
// (`torch-native:expandable_segments=True,max_split_size_mb=256`, `host-malloc:trim_threshold=0`,
// `rmm-pool:initial=8GiB`; docs/backends.md, "Settings").
//
// Each family declares the settings its backends take (key, type, range, default, how the
// library reads it: BackendFamily::settings); this file parses `NAME:KEY=VALUE,...` for every
// family alike, checks each value against its declaration and writes it back in one canonical
// spelling (keys sorted, values normalised, defaults dropped), so that one configuration has one
// name whatever order or spelling it was given in.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace memrel {

// Canonical values by key, sorted: what a configured backend records in its results.
using BackendSettings = std::map<std::string, std::string>;

struct BackendSetting {
  enum class Type {
    kBool,      // True or False (also true/false/1/0 on input)
    kInteger,   // a whole number from `min` to `max`; power_of_two: and a power of two
    kBytes,     // a size, 0 or a number with B/KiB/MiB/GiB/TiB, from `min` to `max`
    kFraction,  // a number above `min` and at most `max` (min itself is excluded)
    kChoice,    // one of `choices`
  };
  std::string key;
  Type type = Type::kInteger;
  double min = 0, max = 0;
  bool power_of_two = false;
  std::vector<std::string> choices;
  std::string default_value;  // canonical; empty: the library's default is "unset"
  std::string applied;        // how the library reads it, one line (`memrel list`, docs)
};

// The canonical spelling of `value` for `setting`. Throws std::invalid_argument naming the key
// and what it accepts.
std::string canonical_setting_value(const BackendSetting& setting, const std::string& value);

// Splits "NAME:K=V,K=V" into the name and its settings, in the order given. A name without ':'
// has no settings. Throws std::invalid_argument for a piece without '=', an empty key or value,
// a key given twice, or a ':' with nothing after it.
std::pair<std::string, std::vector<std::pair<std::string, std::string>>> split_backend_spec(
    const std::string& spec);

// "NAME:K=V,K=V" from a name and canonical settings ("NAME" alone without settings).
std::string backend_spec_name(const std::string& name, const BackendSettings& settings);

// A comma-separated -b list into backend specs: a piece with '=' before any ':' continues the
// spec before it, so `-b 'torch-native:a=1,b=2,host-malloc'` is two backends.
std::vector<std::string> split_backend_list(const std::vector<std::string>& pieces);

// A canonical kInteger or kBytes value as a number ("8GiB" -> 8589934592).
std::uint64_t setting_number(const std::string& canonical);

// Bytes as the canonical value writes them: the largest binary unit that divides them exactly.
std::string canonical_bytes(std::uint64_t bytes);

}  // namespace memrel
