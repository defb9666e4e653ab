#include "platform/journal_header.hpp"

#include <nlohmann/json.hpp>

namespace memrel {

bool is_a_journal_header(const std::string& first_line) {
  const nlohmann::json header = nlohmann::json::parse(first_line, nullptr, false);
  return header.is_object() && header.contains("schema") && header["schema"] == kJournalSchema;
}

}  // namespace memrel
