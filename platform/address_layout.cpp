#include "platform/address_layout.hpp"

#include <sys/personality.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace memrel {

void disable_address_randomization(const std::string& option) {
  const int current = personality(0xffffffff);  // query: changes nothing
  if (current == -1 || personality(static_cast<unsigned long>(current) | ADDR_NO_RANDOMIZE) == -1)
    throw std::invalid_argument(option +
                                ": the kernel refused to turn address randomisation off (" +
                                std::strerror(errno) + ")");
}

}  // namespace memrel
