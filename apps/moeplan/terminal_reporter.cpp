#include "terminal_reporter.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include "terminal.hpp"

namespace moeplan::cli {

namespace {

constexpr auto kQuietStart = std::chrono::seconds(1);
constexpr auto kRedrawInterval = std::chrono::milliseconds(100);
constexpr int kBarWidth = 30;
constexpr double kLeastFractionForEstimate = 0.02;

std::string time_left(double elapsed_seconds, double fraction_done) {
  if (fraction_done < kLeastFractionForEstimate) return "";
  const double left = elapsed_seconds * (1 - fraction_done) / fraction_done;
  if (left >= 90) return fmt::format(", about {:.0f} min left", left / 60);
  return fmt::format(", about {:.0f} s left", std::max(1.0, left));
}

}  // namespace

TerminalReporter::TerminalReporter()
    : enabled_(!quiet() && isatty(fileno(stderr)) == 1),
      started_(Clock::now()),
      stage_started_(started_),
      drawn_(started_) {}

TerminalReporter::~TerminalReporter() { clear(); }

void TerminalReporter::note(std::string_view message) {
  if (quiet()) return;
  clear();
  std::fprintf(stderr, "%.*s\n", static_cast<int>(message.size()), message.data());
}

void TerminalReporter::warning(std::string_view message) {
  clear();
  std::fprintf(stderr, "%s %.*s\n", styled("warning:", Style::yellow, stderr).c_str(), static_cast<int>(message.size()),
               message.data());
}

void TerminalReporter::progress(std::string_view stage, double fraction_done) {
  if (!enabled_) return;
  const Clock::time_point now = Clock::now();
  // A new stage, or the same one starting over (eplb-solve places the layers once per policy).
  if (stage != stage_ || fraction_done < last_fraction_) {
    stage_ = std::string(stage);
    stage_started_ = now;
  }
  last_fraction_ = fraction_done;
  if (fraction_done >= 1) {
    clear();
    return;
  }
  if (now - started_ < kQuietStart || (visible_ && now - drawn_ < kRedrawInterval)) return;
  drawn_ = now;
  draw(fraction_done);
}

void TerminalReporter::draw(double fraction_done) {
  const int filled = std::clamp(static_cast<int>(fraction_done * kBarWidth), 0, kBarWidth);
  const std::string bar = std::string(static_cast<std::size_t>(filled), '#') +
                          std::string(static_cast<std::size_t>(kBarWidth - filled), '.');
  const double elapsed = std::chrono::duration<double>(Clock::now() - stage_started_).count();
  // \r returns to the line's start and \033[K erases what a longer previous line left.
  std::fprintf(stderr, "\r%s [%s] %3.0f%%%s\033[K", stage_.c_str(), styled(bar, Style::green, stderr).c_str(),
               fraction_done * 100, time_left(elapsed, fraction_done).c_str());
  std::fflush(stderr);
  visible_ = true;
}

void TerminalReporter::clear() {
  if (!visible_) return;
  std::fprintf(stderr, "\r\033[K");
  std::fflush(stderr);
  visible_ = false;
}

}  // namespace moeplan::cli
