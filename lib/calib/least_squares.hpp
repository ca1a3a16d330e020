#pragma once
// Relative least squares with non-negative coefficients: the c >= 0 minimising
// sum_i (sum_j c_j x_ij / t_i - 1)^2, i.e. every point's error as a share of its own time.
#include <vector>

namespace moeplan::calib {

// `terms[i]` holds point i's term values x_i1 .. x_ik (k at most 5), `seconds[i]` its measured time.
// Every subset of terms is solved unconstrained and the best one with no negative coefficient is kept.
std::vector<double> fit_nonnegative_relative(const std::vector<std::vector<double>>& terms,
                                             const std::vector<double>& seconds);

// The same with a floor per coefficient: c_j is 0 (its term dropped) or at least `least[j]` (a term
// priced at a share of a ceiling cannot run faster than the ceiling: its coefficient, 1 / share, is at
// least 1). Every term is tried off, free above its floor, and pinned at its floor (3^k cases).
std::vector<double> fit_floored_relative(const std::vector<std::vector<double>>& terms,
                                         const std::vector<double>& seconds, const std::vector<double>& least);

}  // namespace moeplan::calib
