#include "calib/least_squares.hpp"

#include <Eigen/Dense>

#include <limits>
#include <optional>
#include <stdexcept>

namespace moeplan::calib {
namespace {

constexpr std::size_t kMostTerms = 5;  // at most 3^5 = 243 cases: enumeration stays exact and instant

enum class TermState { off, free, pinned };

// One case of fit_floored_relative: pinned terms sit at their floor (moved to the right-hand side), free
// terms are solved unconstrained and must land on or above their floor; empty otherwise.
std::optional<Eigen::VectorXd> solve_case(const Eigen::MatrixXd& design, const std::vector<TermState>& states,
                                          const std::vector<double>& least) {
  Eigen::VectorXd target = Eigen::VectorXd::Ones(design.rows());
  Eigen::VectorXd coefficients = Eigen::VectorXd::Zero(design.cols());
  std::vector<Eigen::Index> free;
  for (Eigen::Index term = 0; term < design.cols(); ++term) {
    const auto index = static_cast<std::size_t>(term);
    if (states[index] == TermState::pinned) {
      coefficients(term) = least[index];
      target -= least[index] * design.col(term);
    }
    if (states[index] == TermState::free) free.push_back(term);
  }
  if (free.empty()) return coefficients;
  Eigen::MatrixXd chosen(design.rows(), static_cast<Eigen::Index>(free.size()));
  for (std::size_t column = 0; column < free.size(); ++column)
    chosen.col(static_cast<Eigen::Index>(column)) = design.col(free[column]);
  const Eigen::VectorXd solution = chosen.colPivHouseholderQr().solve(target);
  for (std::size_t column = 0; column < free.size(); ++column) {
    const double value = solution(static_cast<Eigen::Index>(column));
    if (!(value >= least[static_cast<std::size_t>(free[column])])) return std::nullopt;
    coefficients(free[column]) = value;
  }
  return coefficients;
}

// The next assignment of off / free / pinned (pinned only where a floor is above 0), in counting order;
// false once every assignment was visited.
bool next_states(std::vector<TermState>& states, const std::vector<double>& least) {
  for (std::size_t term = 0; term < states.size(); ++term) {
    const bool can_pin = least[term] > 0;
    if (states[term] == TermState::off) {
      states[term] = TermState::free;
      return true;
    }
    if (states[term] == TermState::free && can_pin) {
      states[term] = TermState::pinned;
      return true;
    }
    states[term] = TermState::off;
  }
  return false;
}

Eigen::MatrixXd relative_design(const std::vector<std::vector<double>>& terms, const std::vector<double>& seconds) {
  if (terms.empty() || terms.size() != seconds.size()) throw std::invalid_argument("least squares: no points");
  const std::size_t width = terms.front().size();
  if (width == 0 || width > kMostTerms) throw std::invalid_argument("least squares: 1 to 5 terms");
  Eigen::MatrixXd design(static_cast<Eigen::Index>(terms.size()), static_cast<Eigen::Index>(width));
  for (std::size_t row = 0; row < terms.size(); ++row) {
    if (terms[row].size() != width) throw std::invalid_argument("least squares: ragged terms");
    for (std::size_t term = 0; term < width; ++term) {
      design(static_cast<Eigen::Index>(row), static_cast<Eigen::Index>(term)) = terms[row][term] / seconds[row];
    }
  }
  return design;
}

}  // namespace

std::vector<double> fit_floored_relative(const std::vector<std::vector<double>>& terms,
                                         const std::vector<double>& seconds, const std::vector<double>& least) {
  const Eigen::MatrixXd design = relative_design(terms, seconds);
  if (least.size() != static_cast<std::size_t>(design.cols())) throw std::invalid_argument("least squares: floors");
  std::vector<TermState> states(least.size(), TermState::off);
  Eigen::VectorXd best = Eigen::VectorXd::Zero(design.cols());
  double best_residual = std::numeric_limits<double>::infinity();
  while (next_states(states, least)) {
    const std::optional<Eigen::VectorXd> coefficients = solve_case(design, states, least);
    if (!coefficients) continue;
    const double residual = (design * *coefficients - Eigen::VectorXd::Ones(design.rows())).squaredNorm();
    if (residual < best_residual) {
      best_residual = residual;
      best = *coefficients;
    }
  }
  return {best.data(), best.data() + best.size()};
}

std::vector<double> fit_nonnegative_relative(const std::vector<std::vector<double>>& terms,
                                             const std::vector<double>& seconds) {
  // Every floor at 0: each term off or free and non-negative, the 2^k - 1 subsets.
  return fit_floored_relative(terms, seconds, std::vector<double>(terms.empty() ? 0 : terms.front().size(), 0.0));
}

}  // namespace moeplan::calib
