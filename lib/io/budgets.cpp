#include "io/budgets.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <system_error>

#include "io/input_error.hpp"

namespace moeplan {

namespace {

// 536870912 bytes -> "512 MiB"; other sizes in bytes.
std::string size_text(std::uintmax_t bytes) {
  if (bytes % (std::uintmax_t{1} << 20) == 0) return fmt::format("{} MiB", bytes >> 20);
  return fmt::format("{} bytes", bytes);
}

}  // namespace

void check_budget(const std::string& source, const std::string& key, double amount, double limit,
                  const std::string& what) {
  if (!(amount > limit)) return;
  throw InputError(source, key, fmt::format("at most {:.15g} {} (docs/budgets.md), got {:.15g}", limit, what, amount));
}

void check_input_size(const std::string& file, std::uintmax_t limit) {
  std::error_code error;
  const std::uintmax_t bytes = std::filesystem::file_size(file, error);
  if (error || bytes <= limit) return;  // a missing or special file is refused where it is opened
  throw InputError(file, "",
                   fmt::format("a file of at most {} (docs/budgets.md), got {} bytes", size_text(limit), bytes));
}

}  // namespace moeplan
