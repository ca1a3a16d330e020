#pragma once
// The one place a reader opens its file. Before any byte is read the path is measured: it must name a
// regular file (a FIFO, a socket, a device or a directory would block, never end, or read as nothing)
// no larger than the reader's budget (io/budgets.hpp). A refusal names the file and what it is.
#include <cstdint>
#include <fstream>
#include <string>

namespace moeplan {

// The file at `file`, opened for reading in binary mode. Throws InputError(file, "", ...) when it is
// missing, not a regular file, larger than `limit` bytes, or not readable.
std::ifstream open_input_file(const std::string& file, std::uintmax_t limit);

// The whole of `file` (open_input_file's checks first).
std::string read_input_file(const std::string& file, std::uintmax_t limit);

}  // namespace moeplan
