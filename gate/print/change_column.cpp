#include "gate/print/change_column.hpp"

#include "gate/format.hpp"

namespace memrel {

std::string change_column(const Row& row) {
  std::string text = row.change;
  if (row.p_value) text += (text.empty() ? "" : ", ") + format::p_value(*row.p_value);
  if (!row.reason.empty()) text += (text.empty() ? "" : "; ") + row.reason;
  return text;
}

}  // namespace memrel
