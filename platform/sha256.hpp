// SHA-256 (FIPS 180-4), for names that must match what memrel's Python parts derive with
// hashlib (the report's page names: harness/results/report_page_name.hpp).
#pragma once

#include <string>

namespace memrel {

// The digest of `bytes` as 64 lower-case hex digits, as hashlib's hexdigest().
std::string sha256_hex(const std::string& bytes);

}  // namespace memrel
