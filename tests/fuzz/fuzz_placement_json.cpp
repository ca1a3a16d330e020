// Placement files as export reads them: a placement or InputError, for any bytes.
#include "export/placement_file.hpp"
#include "fuzz_input.hpp"
#include "io/input_error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    moeplan::exporting::read_placement_file(moeplan::fuzz::write_input(data, size, ".json"));
  } catch (const moeplan::InputError&) {}
  return 0;
}
