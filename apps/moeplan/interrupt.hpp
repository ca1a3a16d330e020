#pragma once
// Ctrl-C (SIGINT) and SIGTERM while a command computes: the first raises the library's cancellation flag,
// which its long loops check, so the command stops without writing anything; a second ends the program
// at once, for work that does not check the flag.
namespace moeplan::cli {

void install_interrupt_handler();

}  // namespace moeplan::cli
