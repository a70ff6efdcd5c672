/*
 * Included before every CharLS source (clang -include). WebAssembly has no
 * exceptions in this toolchain, so a CharLS `throw X(...)` becomes a trap
 * (which ends the instance; the host reports no preview) followed by the
 * never-reached expression. The standard headers are included first, so the
 * macro reaches CharLS's own code only.
 */
#include <algorithm>
#include <cassert>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <utility>
#include <vector>
[[noreturn]] inline void medishare_charls_trap() { __builtin_trap(); }
#define throw medishare_charls_trap(),
