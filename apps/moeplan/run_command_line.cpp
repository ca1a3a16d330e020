#include "run_command_line.hpp"

#include <cstdio>
#include <exception>

#include "io/input_error.hpp"

namespace moeplan::cli {

int run_command_line(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& success) {
    return app.exit(success);
  } catch (const CLI::RuntimeError& error) {
    std::fprintf(stderr, "%s\n", error.what());
    return error.get_exit_code();
  } catch (const CLI::ParseError& error) {
    app.exit(error);
    return kBadInputExit;
  } catch (const InputError& error) {
    std::fprintf(stderr, "moeplan: error: %s\n", error.what());
    return kBadInputExit;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "moeplan: internal error: %s\n", error.what());
    return 1;
  }
  return 0;
}

}  // namespace moeplan::cli
