#pragma once

// Whether this build runs under AddressSanitizer: GCC says so with __SANITIZE_ADDRESS__, Clang
// with __has_feature(address_sanitizer) (nested: GCC 12 cannot parse __has_feature in an #if).
// There malloc is the sanitizer's, not glibc's, and freed blocks stay resident in its quarantine.
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MEMREL_UNDER_ADDRESS_SANITIZER 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) && !defined(MEMREL_UNDER_ADDRESS_SANITIZER)
#define MEMREL_UNDER_ADDRESS_SANITIZER 1
#endif

namespace memrel {

#if defined(MEMREL_UNDER_ADDRESS_SANITIZER)
constexpr bool kUnderAddressSanitizer = true;
#else
constexpr bool kUnderAddressSanitizer = false;
#endif

}  // namespace memrel
